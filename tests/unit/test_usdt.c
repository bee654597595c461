// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for the USDT note reader.  The fixture is compiled at run time with
 * <sys/sdt.h>: prov:guarded has a semaphore (in .probes, whose file offset
 * differs from its vaddr), prov:plain has two sites and no semaphore, and
 * other:plain shares a name with it under another provider.  Expected values
 * come from `readelf -n` and from the bytes at the offsets found (an SDT
 * probe site is a one-byte nop).  Damaged copies must never crash.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/elf_util.h"
#include "proc/usdt.h"
#include "unit_helpers.h"

static char dir[64];

struct rprobe {
	char provider[64], name[64];
	uint64_t pc, base, sema;
};

/* What readelf says, in note order. */
static struct rprobe rprobes[8];
static int nrprobes;

static const char src_a[] =
	"#define _SDT_HAS_SEMAPHORES 1\n"
	"#include <sys/sdt.h>\n"
	"unsigned short prov_guarded_semaphore __attribute__((unused, section(\".probes\")));\n"
	"int guarded(int x)\n"
	"{\n"
	"	DTRACE_PROBE1(prov, guarded, x);\n"
	"	return x + 1;\n"
	"}\n";

static const char src_b[] =
	"#include <sys/sdt.h>\n"
	"int guarded(int x);\n"
	"__attribute__((noinline)) int f1(int x) { DTRACE_PROBE1(prov, plain, x); return x * 2; }\n"
	"__attribute__((noinline)) int f2(int x) { DTRACE_PROBE1(prov, plain, x); return x * 3; }\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	STAP_PROBE(other, plain);\n"
	"	return f1(argc) + f2(argc) + guarded(argc);\n"
	"}\n";

static const char *fx(const char *name)
{
	static char path[8][PATH_MAX];
	static int i;

	i = (i + 1) % 8;
	snprintf(path[i], sizeof(path[i]), "%s/%s", dir, name);
	return path[i];
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static int read_notes(const char *path)
{
	char cmd[PATH_MAX + 32], line[512];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -n '%s'", path);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	nrprobes = 0;
	while (fgets(line, sizeof(line), p)) {
		struct rprobe *r = &rprobes[nrprobes];

		if (nrprobes >= 8)
			break;
		if (sscanf(line, " Provider: %63s", r->provider) == 1)
			continue;
		if (sscanf(line, " Name: %63s", r->name) == 1)
			continue;
		if (sscanf(line, " Location: %" SCNx64 ", Base: %" SCNx64 ", Semaphore: %" SCNx64,
			   &r->pc, &r->base, &r->sema) == 3)
			nrprobes++;
	}
	return pclose(p) == 0 ? 0 : -1;
}

static int group_setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/stitch_usdt_XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	if (write_file(fx("a.c"), src_a) || write_file(fx("b.c"), src_b))
		return -1;
	if (test_shell("cd '%s' && gcc -O2 a.c b.c -o fx && strip -s -o fx_stripped fx && "
	       "printf 'int main(void){return 0;}' | gcc -O2 -x c - -o nonotes && "
	       /* What prelink does: move the binary, .stapsdt.base with it. */
	       "objcopy --change-section-vma .stapsdt.base+0x10 fx fx_moved && "
	       "objcopy --dump-section .note.stapsdt=notes.bin fx",
	       dir) != 0)
		return -1;
	elf_util_init();
	return read_notes(fx("fx"));
}

static int group_teardown(void **state)
{
	test_shell("rm -rf '%s'", dir);
	return 0;
}

struct opened {
	int fd;
	Elf *elf;
};

static struct opened open_elf(const char *path)
{
	struct opened o;

	o.fd = open(path, O_RDONLY);
	assert_true(o.fd >= 0);
	o.elf = elf_begin(o.fd, ELF_C_READ, NULL);
	assert_non_null(o.elf);
	return o;
}

static void close_elf(struct opened *o)
{
	elf_end(o->elf);
	close(o->fd);
}

static uint8_t byte_at(const char *path, uint64_t off)
{
	uint8_t b = 0;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &b, 1, off), 1);
	close(fd);
	return b;
}

static const struct rprobe *rprobe(const char *provider, const char *name, int nth)
{
	int i;

	for (i = 0; i < nrprobes; i++)
		if (!strcmp(rprobes[i].provider, provider) && !strcmp(rprobes[i].name, name) &&
		    !nth--)
			return &rprobes[i];
	fail_msg("readelf shows no %s:%s #%d", provider, name, nth);
	return NULL;
}

static void test_readelf_sanity(void **state)
{
	/* The fixture is what the other tests assume. */
	assert_int_equal(nrprobes, 4);
	assert_int_not_equal(rprobe("prov", "guarded", 0)->sema, 0);
	assert_int_equal(rprobe("prov", "plain", 0)->sema, 0);
	assert_int_equal(rprobe("prov", "plain", 1)->sema, 0);
	assert_int_equal(rprobe("other", "plain", 0)->sema, 0);
}

/* Check sites against readelf and the file's bytes, in either order. */
static void check_sites(const char *path, Elf *elf, const struct usdt_site *s, int n,
			const char *provider, const char *name, uint64_t shift)
{
	struct elf_section probes;
	int i, j;

	assert_int_equal(elf_find_section(elf, ".probes", &probes), 0);
	for (i = 0; i < n; i++) {
		const struct rprobe *r = NULL;
		uint64_t off;

		for (j = 0; j < n && !r; j++)
			if (rprobe(provider, name, j)->pc + shift == s[i].vaddr)
				r = rprobe(provider, name, j);
		if (!r)
			fail_msg("site %#" PRIx64 " not in readelf", s[i].vaddr);
		/* The uprobe goes on the probe's nop. */
		assert_int_equal(elf_vaddr_to_offset(elf, s[i].vaddr, &off), 0);
		assert_int_equal(s[i].offset, off);
		assert_int_equal(byte_at(path, s[i].offset), 0x90);
		if (r->sema) {
			/* Inside .probes, by that section's own vaddr -> offset. */
			assert_int_equal(s[i].sema_offset,
					 probes.offset + (r->sema + shift - probes.addr));
			assert_int_not_equal(s[i].sema_offset, r->sema + shift);
		} else {
			assert_int_equal(s[i].sema_offset, 0);
		}
	}
	if (n == 2)
		assert_int_not_equal(s[0].offset, s[1].offset);
}

static void test_find(void **state)
{
	struct opened o = open_elf(fx("fx"));
	struct usdt_site s[8];
	int n;

	memset(s, 0xaa, sizeof(s));
	n = usdt_find(o.elf, "prov", "guarded", s, 8);
	assert_int_equal(n, 1);
	check_sites(fx("fx"), o.elf, s, n, "prov", "guarded", 0);

	n = usdt_find(o.elf, "prov", "plain", s, 8);
	assert_int_equal(n, 2);
	check_sites(fx("fx"), o.elf, s, n, "prov", "plain", 0);

	/* Same name, other provider: only its own site. */
	n = usdt_find(o.elf, "other", "plain", s, 8);
	assert_int_equal(n, 1);
	assert_int_equal(s[0].vaddr, rprobe("other", "plain", 0)->pc);

	/* Up to max, never past it. */
	memset(s, 0xaa, sizeof(s));
	assert_int_equal(usdt_find(o.elf, "prov", "plain", s, 1), 1);
	assert_int_equal(s[1].vaddr, 0xaaaaaaaaaaaaaaaaull);
	assert_int_equal(usdt_find(o.elf, "prov", "plain", s, 0), 0);

	/* Unknown names; prefixes are not matches. */
	assert_int_equal(usdt_find(o.elf, "prov", "nope", s, 8), 0);
	assert_int_equal(usdt_find(o.elf, "nope", "plain", s, 8), 0);
	assert_int_equal(usdt_find(o.elf, "pro", "plain", s, 8), 0);
	assert_int_equal(usdt_find(o.elf, "prov", "plai", s, 8), 0);
	assert_int_equal(usdt_find(o.elf, "prov", "guarded_", s, 8), 0);
	close_elf(&o);
}

static void test_stripped(void **state)
{
	struct opened o = open_elf(fx("fx_stripped"));
	struct usdt_site s[4];

	/* strip -s keeps notes (they are not symbols): same answers. */
	assert_int_equal(usdt_find(o.elf, "prov", "plain", s, 4), 2);
	check_sites(fx("fx_stripped"), o.elf, s, 2, "prov", "plain", 0);
	assert_int_equal(usdt_find(o.elf, "prov", "guarded", s, 4), 1);
	check_sites(fx("fx_stripped"), o.elf, s, 1, "prov", "guarded", 0);
	close_elf(&o);
}

static void test_prelinked(void **state)
{
	static const char *const names[][2] = { { "prov", "guarded" }, { "prov", "plain" } };
	struct opened o = open_elf(fx("fx_moved"));
	int i, j, k, n, want, found = 0;
	struct usdt_site s[4];
	uint64_t off;

	/*
	 * .stapsdt.base moved by 0x10 since link time, the way prelink moves a
	 * whole library: every address in the notes moves with it.  Only that
	 * section moved here, so a site whose shifted address (or semaphore) is
	 * in no segment any more cannot be armed and must be dropped.
	 */
	for (i = 0; i < 2; i++) {
		want = 0;
		for (k = 0; k < nrprobes; k++) {
			const struct rprobe *r = &rprobes[k];

			if (strcmp(r->provider, names[i][0]) || strcmp(r->name, names[i][1]))
				continue;
			if (elf_vaddr_to_offset(o.elf, r->pc + 0x10, &off) == 0 &&
			    (!r->sema || elf_vaddr_to_offset(o.elf, r->sema + 0x10, &off) == 0))
				want++;
		}
		n = usdt_find(o.elf, names[i][0], names[i][1], s, 4);
		assert_int_equal(n, want);
		for (j = 0; j < n; j++) {
			/* Shifted: 0x10 past one of the link-time sites. */
			uint64_t v = s[j].vaddr - 0x10;

			assert_int_equal(elf_vaddr_to_offset(o.elf, s[j].vaddr, &off), 0);
			assert_int_equal(s[j].offset, off);
			assert_true(v == rprobe(names[i][0], names[i][1], 0)->pc ||
				    (i == 1 && v == rprobe("prov", "plain", 1)->pc));
		}
		found += n;
	}
	assert_true(found > 0);
	close_elf(&o);
}

struct listing {
	char seen[16][64];
	int n;
};

static void collect(void *ctx, const char *provider, const char *name)
{
	struct listing *l = ctx;

	if (l->n < 16)
		snprintf(l->seen[l->n], sizeof(l->seen[0]), "%s:%s", provider, name);
	l->n++;
}

static void test_for_each(void **state)
{
	struct opened o = open_elf(fx("fx"));
	struct listing l = { .n = 0 };
	int i;

	assert_int_equal(usdt_for_each(o.elf, collect, &l), 0);
	/* Every note, sites included, in note order: as readelf lists them. */
	assert_int_equal(l.n, nrprobes);
	for (i = 0; i < nrprobes; i++) {
		char want[160];

		snprintf(want, sizeof(want), "%s:%s", rprobes[i].provider, rprobes[i].name);
		assert_string_equal(l.seen[i], want);
	}
	close_elf(&o);
}

static void test_no_notes(void **state)
{
	struct opened o = open_elf(fx("nonotes"));
	struct listing l = { .n = 0 };
	struct usdt_site s[2];

	assert_int_equal(usdt_find(o.elf, "prov", "plain", s, 2), 0);
	assert_int_equal(usdt_for_each(o.elf, collect, &l), -ENOENT);
	assert_int_equal(l.n, 0);
	close_elf(&o);
}

/* Notes cut short by replacing the section: the whole ones still count. */
static void test_truncated_section(void **state)
{
	struct stat st;
	struct usdt_site s[4];
	struct listing l = { .n = 0 };
	struct opened o;
	int cut;

	assert_int_equal(stat(fx("notes.bin"), &st), 0);
	/* Cut into the last note (other:plain): its name loses its NUL. */
	cut = st.st_size - 6;
	assert_int_equal(test_shell("cd '%s' && head -c %d notes.bin > cut.bin && "
			    "objcopy --update-section .note.stapsdt=cut.bin fx fx_cut",
			    dir, cut), 0);
	o = open_elf(fx("fx_cut"));
	assert_int_equal(usdt_find(o.elf, "prov", "plain", s, 4), 2);
	assert_int_equal(usdt_find(o.elf, "prov", "guarded", s, 4), 1);
	assert_int_equal(usdt_find(o.elf, "other", "plain", s, 4), 0);
	assert_int_equal(usdt_for_each(o.elf, collect, &l), 0);
	assert_int_equal(l.n, 3);
	close_elf(&o);

	/* Only a note header left: nothing, no error. */
	assert_int_equal(test_shell("cd '%s' && head -c 12 notes.bin > cut2.bin && "
			    "objcopy --update-section .note.stapsdt=cut2.bin fx fx_cut2", dir), 0);
	o = open_elf(fx("fx_cut2"));
	assert_int_equal(usdt_find(o.elf, "prov", "guarded", s, 4), 0);
	close_elf(&o);
}

static void ignore(void *ctx, const char *provider, const char *name)
{
	/* Touch the strings: they must be terminated inside the note. */
	*(size_t *)ctx += strlen(provider) + strlen(name);
}

/* Every byte of the notes damaged in turn: answers may change, nothing crashes. */
static void test_damaged_bytes(void **state)
{
	static const uint8_t vals[] = { 0x00, 0xff, 0x7f, 0x01 };
	size_t size, i, v, total = 0;
	struct elf_section notes;
	struct usdt_site s[4];
	uint8_t *orig = test_read_file(fx("fx"), &size), *buf = malloc(size);
	struct opened o = open_elf(fx("fx"));
	int changed = 0;

	assert_non_null(buf);
	assert_int_equal(elf_find_section(o.elf, ".note.stapsdt", &notes), 0);
	close_elf(&o);
	assert_true(notes.offset + notes.size <= size);
	for (i = 0; i < notes.size; i++) {
		for (v = 0; v < sizeof(vals); v++) {
			Elf *elf;
			int n;

			memcpy(buf, orig, size);
			buf[notes.offset + i] = vals[v];
			elf = elf_memory((char *)buf, size);
			assert_non_null(elf);
			n = usdt_find(elf, "prov", "plain", s, 4);
			assert_true(n >= 0 && n <= 4);
			changed += n != 2;
			usdt_find(elf, "prov", "guarded", s, 4);
			usdt_for_each(elf, ignore, &total);
			elf_end(elf);
		}
	}
	/* The damage was seen (sizes, names), not ignored wholesale. */
	assert_true(changed > 0);
	assert_true(total > 0);
	free(buf);
	free(orig);
}

/* A huge descsz in the first note: that note and what follows are dropped. */
static void test_bad_descsz(void **state)
{
	size_t size;
	struct elf_section notes;
	struct usdt_site s[4];
	uint8_t *buf = test_read_file(fx("fx"), &size);
	struct opened o = open_elf(fx("fx"));
	uint32_t descsz;
	Elf *elf;

	assert_int_equal(elf_find_section(o.elf, ".note.stapsdt", &notes), 0);
	close_elf(&o);
	memcpy(&descsz, buf + notes.offset + 4, 4);
	assert_int_equal(descsz, 0x2d);	/* prov:guarded, as readelf said */
	descsz = 0xfffffff0;
	memcpy(buf + notes.offset + 4, &descsz, 4);
	elf = elf_memory((char *)buf, size);
	assert_non_null(elf);
	assert_int_equal(usdt_find(elf, "prov", "guarded", s, 4), 0);
	assert_int_equal(usdt_find(elf, "prov", "plain", s, 4), 0);
	elf_end(elf);

	/* Too small for pc/base/semaphore: skipped (what follows is then garbage). */
	descsz = 8;
	memcpy(buf + notes.offset + 4, &descsz, 4);
	elf = elf_memory((char *)buf, size);
	assert_non_null(elf);
	assert_int_equal(usdt_find(elf, "prov", "guarded", s, 4), 0);
	elf_end(elf);
	free(buf);
}

/* Offset in the file of note number idx's header, walking the section. */
static size_t note_at(const uint8_t *buf, const struct elf_section *notes, int idx)
{
	size_t off = 0;
	uint32_t nh[3];

	for (;;) {
		assert_true(off + 12 <= notes->size);
		if (!idx--)
			return notes->offset + off;
		memcpy(nh, buf + notes->offset + off, 12);
		off += 12 + ((nh[0] + 3) & ~3u) + ((nh[1] + 3) & ~3u);
	}
}

/* Headers that lie about sizes by a little: the strings must end inside. */
static void test_bad_note_sizes(void **state)
{
	size_t size, at;
	struct elf_section notes;
	struct listing l = { .n = 0 };
	struct usdt_site s[4];
	uint8_t *buf = test_read_file(fx("fx"), &size);
	struct opened o = open_elf(fx("fx"));
	uint32_t nh[3];
	Elf *elf;
	int i;

	assert_int_equal(elf_find_section(o.elf, ".note.stapsdt", &notes), 0);
	close_elf(&o);
	/* other:plain is last; its desc ends "other\0plain\0" + empty args. */
	at = note_at(buf, &notes, nrprobes - 1);
	memcpy(nh, buf + at, 12);
	assert_int_equal(nh[1], 24 + 6 + 6 + 1);
	/* Cut its name's NUL off: the padding after it is zero, but not its own. */
	nh[1] -= 2;
	memcpy(buf + at, nh, 12);
	elf = elf_memory((char *)buf, size);
	assert_non_null(elf);
	assert_int_equal(usdt_find(elf, "other", "plain", s, 4), 0);
	assert_int_equal(usdt_find(elf, "prov", "plain", s, 4), 2);
	elf_end(elf);
	nh[1] += 2;
	memcpy(buf + at, nh, 12);

	/* A name size other than "stapsdt"'s 8 (the bytes are still there). */
	at = note_at(buf, &notes, 0);
	memcpy(nh, buf + at, 12);
	nh[0] = 1;
	memcpy(buf + at, nh, 12);
	elf = elf_memory((char *)buf, size);
	assert_non_null(elf);
	assert_int_equal(usdt_for_each(elf, collect, &l), 0);
	for (i = 0; i < l.n && i < 16; i++)
		assert_true(strlen(l.seen[i]) > 3);	/* never a shifted ":" */
	elf_end(elf);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_readelf_sanity),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_stripped),
		cmocka_unit_test(test_prelinked),
		cmocka_unit_test(test_for_each),
		cmocka_unit_test(test_no_notes),
		cmocka_unit_test(test_truncated_section),
		cmocka_unit_test(test_damaged_bytes),
		cmocka_unit_test(test_bad_descsz),
		cmocka_unit_test(test_bad_note_sizes),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
