// SPDX-License-Identifier: GPL-2.0
/*
 * The running kernel's DWARF, for probes on its source lines
 * (kprobe:FUNC:RELLINE, kprobe:@FILE:LINE): the vmlinux of Debian's
 * linux-image-*-dbg (or $STITCH_VMLINUX), used only if its build-id is
 * the running kernel's, and where KASLR moved the kernel's text.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "probe/line_probe.h"
#include "util/elf_util.h"

/* The running kernel's _text, from /proc/kallsyms (0: hidden or absent). */
static uint64_t kallsyms_text(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	unsigned long long addr;
	char type, name[128];
	uint64_t text = 0;

	if (!f)
		return 0;
	while (!text && fscanf(f, "%llx %c %127s%*[^\n]", &addr, &type, name) == 3)
		if (strcmp(name, "_text") == 0)
			text = addr;
	fclose(f);
	return text;
}

/* The running kernel's build-id, from /sys/kernel/notes: its length, or 0. */
static size_t running_build_id(uint8_t id[STITCH_BUILD_ID_MAX])
{
	uint8_t notes[4096];
	ssize_t n;
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, notes, sizeof(notes));
	close(fd);
	return n > 0 ? elf_build_id_in_notes(notes, n, id) : 0;
}

/* path as the running kernel's: 0, 1 if it is another build's (why said), -errno. */
static int open_matching(struct line_dwarf *ld, const char *path, const uint8_t *want,
			 size_t wlen, char *err, size_t errlen)
{
	uint8_t id[STITCH_BUILD_ID_MAX];
	char hex[2 * STITCH_BUILD_ID_MAX + 1], whex[2 * STITCH_BUILD_ID_MAX + 1];
	uint64_t link = 0, size, run;
	size_t len;
	int rc = line_dwarf_open(ld, path, err, errlen);

	if (rc)
		return rc;
	len = elf_build_id(ld->elf, id);
	if (wlen && (len != wlen || memcmp(id, want, len) != 0)) {
		build_id_hex(id, len, hex);
		build_id_hex(want, wlen, whex);
		snprintf(err, errlen, "%.300s is another kernel build's (build-id %.80s; the running "
			 "kernel's is %.80s)", path, len ? hex : "none", whex);
		line_dwarf_close(ld);
		return 1;
	}
	run = kallsyms_text();
	if (!run || !elf_sym_find(ld->elf, SHT_SYMTAB, "_text", &link, &size)) {
		snprintf(err, errlen, "cannot tell where the kernel's text is (_text in "
			 "/proc/kallsyms and in %.300s): run as root", path);
		line_dwarf_close(ld);
		return -ENOENT;
	}
	ld->kernel = true;
	ld->kernel_bias = (int64_t)(run - link);
	return 0;
}

int line_dwarf_open_kernel(struct line_dwarf *ld, char *err, size_t errlen)
{
	const char *env = getenv("STITCH_VMLINUX");
	char paths[5][320], why[512] = "";
	uint8_t want[STITCH_BUILD_ID_MAX];
	struct utsname u;
	size_t wlen = running_build_id(want);
	int i, rc;

	if (uname(&u) != 0)
		return -errno;
	snprintf(paths[0], sizeof(paths[0]), "%s", env ? env : "");
	snprintf(paths[1], sizeof(paths[1]), "/usr/lib/debug/boot/vmlinux-%s", u.release);
	snprintf(paths[2], sizeof(paths[2]), "/usr/lib/debug/lib/modules/%s/vmlinux", u.release);
	snprintf(paths[3], sizeof(paths[3]), "/boot/vmlinux-%s", u.release);
	snprintf(paths[4], sizeof(paths[4]), "/lib/modules/%s/build/vmlinux", u.release);
	for (i = 0; i < 5; i++) {
		if (!paths[i][0] || access(paths[i], R_OK) != 0)
			continue;
		rc = open_matching(ld, paths[i], want, wlen, why, sizeof(why));
		if (rc <= 0) {
			if (rc)
				snprintf(err, errlen, "%s", why);
			return rc;
		}
	}
	if (why[0])
		snprintf(err, errlen, "%s: install the running kernel's linux-image-%s-dbg", why,
			 u.release);
	else
		snprintf(err, errlen, "a kernel source line needs the running kernel's DWARF, "
			 "which is not here: install linux-image-%s-dbg (its vmlinux goes to "
			 "/usr/lib/debug/boot/), or set STITCH_VMLINUX to that vmlinux; or probe the "
			 "function (kprobe:FUNC) and --fetch its arguments (from BTF)", u.release);
	return -ENOENT;
}
