// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "record/attach.h"
#include "record/attach_internal.h"
#include "util/arch.h"
#include "util/cpus.h"
#include "util/elf_util.h"
#include "util/exec_path.h"
#include "capture.skel.h"
#include "symbolize/symbolize.h"
#include "probe/fetch_btf.h"
#include "probe/fetch_compile.h"
#include "probe/fetch_tp.h"
#include "probe/line_probe.h"
#include "proc/usdt.h"
#include "record/syscall_nr.h"

#define TRACEFS "/sys/kernel/tracing"
#define MAX_CPUS 1024
#define MAX_USDT_SITES 64

/* The programs an event kind attaches: the entry points, or the legacy workers. */
static struct bpf_program *perf_prog(struct attacher *a)
{
	return a->legacy ? a->skel->progs.capture_legacy_perf_event : a->skel->progs.on_perf_event;
}

static struct bpf_program *tracepoint_prog(struct attacher *a)
{
	return a->legacy ? a->skel->progs.capture_legacy_tracepoint : a->skel->progs.on_tracepoint;
}

static struct bpf_program *uprobe_prog(struct attacher *a)
{
	return a->legacy ? a->skel->progs.capture_legacy_uprobe : a->skel->progs.on_uprobe;
}

static struct bpf_program *kprobe_prog(struct attacher *a)
{
	return a->legacy ? a->skel->progs.capture_legacy_kprobe : a->skel->progs.on_kprobe;
}

static struct bpf_program *raw_sys_enter_prog(struct attacher *a)
{
	return a->legacy ? a->skel->progs.capture_legacy_raw_sys_enter :
			   a->skel->progs.on_raw_sys_enter;
}


int ensure_tracefs(char *err, size_t errlen)
{
	struct stat st;

	if (stat(TRACEFS "/events", &st) == 0)
		return 0;
	if (mount("nodev", TRACEFS, "tracefs", 0, NULL) == 0 || errno == EBUSY)
		return 0;
	snprintf(err, errlen, "cannot mount tracefs on %s: %s (tracepoints need it)",
		 TRACEFS, strerror(errno));
	return -errno;
}

static int attach_cpu(struct attacher *a, uint32_t idx, char *err, size_t errlen)
{
	LIBBPF_OPTS(bpf_perf_event_opts, opts, .bpf_cookie = attach_cookie(a, idx));
	int cpus[MAX_CPUS], n, i;

	n = online_cpus(cpus, MAX_CPUS);
	if (n <= 0) {
		snprintf(err, errlen, "cannot read the online CPUs");
		return -ENODEV;
	}
	for (i = 0; i < n; i++) {
		struct perf_event_attr attr;
		struct bpf_link *link;
		int fd;

		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = PERF_COUNT_SW_CPU_CLOCK;
		attr.freq = 1;
		attr.sample_freq = a->freq_hz;
		fd = syscall(SYS_perf_event_open, &attr, -1, cpus[i], -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			int e = errno;

			snprintf(err, errlen, "cpu: perf_event_open(cpu-clock, cpu %d) failed: %s%s",
				 cpus[i], strerror(e),
				 e == EINVAL ? " (frequency above kernel.perf_event_max_sample_rate?)" : "");
			return -e;
		}
		link = bpf_program__attach_perf_event_opts(perf_prog(a), fd, &opts);
		if (!link) {
			int e = errno;

			close(fd);
			snprintf(err, errlen, "cpu: cannot attach to cpu-clock on cpu %d: %s",
				 cpus[i], strerror(e));
			return -e;
		}
		if (attach_add_link(a, link))
			return -ENOMEM;
	}
	return 0;
}

/*
 * syscalls:sys_enter_NAME by the raw tracepoint sys_enter: NAME's number
 * goes into raw_syscall_events, and the program is attached once.
 */
static int attach_sys_enter_raw(struct attacher *a, const char *name, uint32_t idx,
				uint32_t site1, const char *what, char *err, size_t errlen)
{
	struct bpf_link *link;
	int nr = syscall_nr_of(name);
	uint32_t key = nr;

	if (nr < 0) {
		snprintf(err, errlen, "%s: no system call %s in this build's table", what, name);
		return -ENOENT;
	}
	if ((site1 && bpf_map__update_elem(a->skel->maps.raw_syscall_sites, &key, sizeof(key),
					   &site1, sizeof(site1), BPF_ANY)) ||
	    bpf_map__update_elem(a->skel->maps.raw_syscall_events, &key, sizeof(key), &idx,
				 sizeof(idx), BPF_ANY)) {
		int e = errno;

		snprintf(err, errlen, "%s: cannot add system call %s: %s", what, name, strerror(e));
		return -e;
	}
	if (a->raw_attached)
		return 0;
	link = bpf_program__attach_raw_tracepoint(raw_sys_enter_prog(a), "sys_enter");
	if (!link) {
		int e = errno;

		snprintf(err, errlen, "%s: cannot attach to the raw tracepoint sys_enter: %s", what,
			 strerror(e));
		return -e;
	}
	a->raw_attached = true;
	return attach_add_link(a, link);
}

static int fetch_site_add(struct attacher *a, struct line_dwarf *ld, const struct line_site *ls,
			  const char *tp_cat, const char *tp_name, uint32_t idx, uint32_t *site1,
			  char *why, size_t whylen);

static int attach_tp(struct attacher *a, const char *cat, const char *name, uint32_t idx,
		     const char *what, char *err, size_t errlen)
{
	LIBBPF_OPTS(bpf_tracepoint_opts, opts, .bpf_cookie = attach_cookie(a, idx));
	char path[PATH_MAX], why[512] = "";
	struct bpf_link *link;
	uint32_t site1;
	struct stat st;
	int rc;

	snprintf(path, sizeof(path), TRACEFS "/events/%s/%s", cat, name);
	if (stat(path, &st) != 0) {
		snprintf(err, errlen, "%s: no tracepoint %s:%s on this kernel (see %s/events/%s/)",
			 what, cat, name, TRACEFS, cat);
		return -ENOENT;
	}
	rc = fetch_site_add(a, NULL, NULL, cat, name, idx, &site1, why, sizeof(why));
	if (rc) {
		snprintf(err, errlen, "%s: %s", what, why);
		return rc;
	}
	if (a->dry)
		return 0;
	opts.bpf_cookie |= (uint64_t)site1 << 32;
	if (a->raw_syscalls && strcmp(cat, "syscalls") == 0 && strncmp(name, "sys_enter_", 10) == 0)
		return attach_sys_enter_raw(a, name + 10, idx, site1, what, err, errlen);
	link = bpf_program__attach_tracepoint_opts(tracepoint_prog(a), cat, name, &opts);
	if (!link) {
		int e = errno;

		snprintf(err, errlen, "%s: cannot attach to tracepoint %s:%s: %s", what, cat, name,
			 strerror(e));
		return -e;
	}
	return attach_add_link(a, link);
}

/*
 * Resolve the PATH of uprobe:/usdt: to a file we can open and attach to:
 * a path (absolute or relative) is used as is, seen from the first target's
 * root when there is one; a bare library name is looked up in the targets'
 * mappings, then in ours, then in the usual library directories.
 */
static int resolve_binary(struct attacher *a, const char *spec, char *out, size_t outlen)
{
	struct stat st;
	int p;

	if (strchr(spec, '/')) {
		if (spec[0] == '/' && a->npids > 0) {
			snprintf(out, outlen, "/proc/%u/root%s", a->pids[0], spec);
			if (stat(out, &st) == 0)
				return 0;
		}
		if (!realpath(spec, out))
			return -errno;
		return 0;
	}
	for (p = 0; p < a->npids; p++)
		if (attach_find_in_maps(a->pids[p], spec, out, outlen))
			return 0;
	if (attach_find_in_maps(0, spec, out, outlen))
		return 0;
	return lib_path_find(spec, out, outlen) ? 0 : -ENOENT;
}

/* site1: the address's fetches (probe/fetch.bpf.h) + 1, above the event's index; 0: none. */
static int attach_uprobe_site(struct attacher *a, const char *path, uint64_t offset,
			      uint64_t ref_ctr, uint32_t idx, uint32_t site1, const char *what,
			      char *err, size_t errlen)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts,
		    .bpf_cookie = attach_cookie(a, idx) | (uint64_t)site1 << 32,
		    .ref_ctr_offset = ref_ctr);
	struct bpf_link *link;

	link = bpf_program__attach_uprobe_opts(uprobe_prog(a), -1, path, offset, &opts);
	if (!link) {
		int e = errno;

		snprintf(err, errlen, "%s: cannot attach uprobe to %s+0x%llx: %s", what, path,
			 (unsigned long long)offset, strerror(e));
		return -e;
	}
	return attach_add_link(a, link);
}

static int attach_uprobe_at(struct attacher *a, const char *path, uint64_t offset,
			    uint64_t ref_ctr, uint32_t idx, const char *what, char *err, size_t errlen)
{
	return attach_uprobe_site(a, path, offset, ref_ctr, idx, 0, what, err, errlen);
}

/*
 * The --fetch of a line probe's site (ld, ls), a tracepoint's (tp_cat,
 * tp_name) or a kprobe's function (tp_name alone) compiled, kept as site number
 * a->nfetch_sites and written to the capture program's fetch_progs:
 * *site1 is that number + 1.  0, or -errno with why.
 */
static int fetch_site_add(struct attacher *a, struct line_dwarf *ld, const struct line_site *ls,
			  const char *tp_cat, const char *tp_name, uint32_t idx, uint32_t *site1,
			  char *why, size_t whylen)
{
	struct fetch_steps steps;
	struct fetch_site *fs;
	uint32_t key = a->nfetch_sites;
	void *p;
	int rc;

	*site1 = 0;
	if (!a->nfetch)
		return 0;
	if (key >= FETCH_MAX_SITES) {
		snprintf(why, whylen, "more than %d probe addresses with --fetch", FETCH_MAX_SITES);
		return -E2BIG;
	}
	p = reallocarray(a->fetch_sites, key + 1, sizeof(*a->fetch_sites));
	if (!p)
		return -ENOMEM;
	a->fetch_sites = p;
	fs = &a->fetch_sites[key];
	memset(fs, 0, sizeof(*fs));
	fs->event_idx = idx;
	fs->nvars = a->nfetch;
	if (ld)
		rc = fetch_compile(ld, ls, a->fetch, a->nfetch, &steps, fs->fmt, why, whylen);
	else if (!tp_cat)
		rc = fetch_btf_compile(tp_name, a->fetch, a->nfetch, &steps, fs->fmt, why, whylen);
	else
		rc = fetch_tp_compile(TRACEFS, tp_cat, tp_name, a->fetch, a->nfetch, &steps,
				      fs->fmt, why, whylen);
	if (rc || a->dry)
		return rc;
	/* Checked after the expressions: their errors are the user's to fix anywhere. */
	if (a->legacy) {
		snprintf(why, whylen, "--fetch needs BPF cookies (Linux 5.15) to tell a probe's "
			 "addresses apart, which this kernel lacks: record without it (the "
			 "stacks alone)");
		return -EOPNOTSUPP;
	}
	rc = bpf_map__update_elem(a->skel->maps.fetch_progs, &key, sizeof(key), &steps,
				  sizeof(steps), 0);
	if (rc) {
		snprintf(why, whylen, "cannot write its fetches: %s", strerror(-rc));
		return rc;
	}
	a->nfetch_sites++;
	*site1 = key + 1;
	return 0;
}

/* "0x..." : an ELF virtual address instead of a symbol name. */
static bool parse_vaddr(const char *s, uint64_t *vaddr)
{
	char *end;

	if (strncmp(s, "0x", 2) != 0 || !s[2])
		return false;
	errno = 0;
	*vaddr = strtoull(s + 2, &end, 16);
	return !errno && !*end;
}

static int attach_kprobe_site(struct attacher *a, const struct line_dwarf *ld,
			      const struct line_site *site, uint32_t idx, uint32_t site1, char *why,
			      size_t whylen);

/*
 * A probe on a source line: uprobe:PATH:FUNC:RELLINE, uprobe:PATH@FILE:LINE
 * (path: the binary), or kprobe:FUNC:RELLINE, kprobe:@FILE:LINE (path NULL:
 * the running kernel, probe/line_kernel.c): one probe at the line's address
 * in each copy of its code (probe/line_probe.h), all one event.
 */
static int attach_line_probe(struct attacher *a, const struct event_spec *ev, const char *path,
			     uint32_t idx, char *err, size_t errlen)
{
	char why[512] = "", *text = strdup(ev->b);
	struct line_site *sites = NULL;
	struct line_spec spec;
	struct line_dwarf ld;
	size_t n = 0, i;
	int rc;

	if (!text)
		return -ENOMEM;
	rc = line_spec_parse(text, &spec);
	if (rc == 0)
		rc = path ? line_dwarf_open(&ld, path, why, sizeof(why)) :
			    line_dwarf_open_kernel(&ld, why, sizeof(why));
	if (rc == 0) {
		rc = line_sites(&ld, &spec, &sites, &n, why, sizeof(why));
		for (i = 0; rc == 0 && i < n; i++) {
			uint64_t offset = 0;
			uint32_t site1;

			if (path && elf_vaddr_to_offset(ld.elf, sites[i].vaddr, &offset) != 0) {
				snprintf(why, sizeof(why), "0x%llx (%s:%d) is in no loaded segment",
					 (unsigned long long)sites[i].vaddr, sites[i].file,
					 sites[i].line);
				rc = -ENOENT;
				break;
			}
			rc = fetch_site_add(a, &ld, &sites[i], NULL, NULL, idx, &site1, why,
					    sizeof(why));
			if (rc || a->dry)
				continue;
			if (!path) {
				rc = attach_kprobe_site(a, &ld, &sites[i], idx, site1, why,
							sizeof(why));
				continue;
			}
			rc = attach_uprobe_site(a, path, offset, 0, idx, site1, ev->text, err,
						errlen);
			why[0] = '\0';
		}
		line_dwarf_close(&ld);
	}
	if (rc && why[0])
		snprintf(err, errlen, "%s: %s", ev->text, why);
	else if (rc == -EINVAL)
		snprintf(err, errlen, "%s: not FUNC:RELLINE or @FILE:LINE", ev->text);
	free(sites);
	free(text);
	return rc;
}

static int attach_uprobe(struct attacher *a, const struct event_spec *ev, uint32_t idx,
			 char *err, size_t errlen)
{
	char path[PATH_MAX];
	uint64_t vaddr, size, offset;
	struct sym_source *syms;
	Elf *elf;
	int fd, rc;

	if (resolve_binary(a, ev->a, path, sizeof(path)) != 0) {
		snprintf(err, errlen, "%s: cannot find '%s' (give an absolute path, or a library "
			 "the target has loaded)", ev->text, ev->a);
		return -ENOENT;
	}
	if (ev->line)
		return attach_line_probe(a, ev, path, idx, err, errlen);
	elf = elf_open_file(path, &fd);
	if (!elf) {
		snprintf(err, errlen, "%s: cannot read %s as ELF: %s", ev->text, path, strerror(errno));
		return -ENOEXEC;
	}
	syms = sym_source_open(elf, path, "");
	if (parse_vaddr(ev->b, &vaddr))
		rc = 0;	/* uprobe:PATH:0xVADDR: an address, as addr2line takes it */
	else
		rc = syms ? sym_source_find_symbol(syms, ev->b, &vaddr, &size) : -ENOMEM;
	if (rc == 0 && elf_vaddr_to_offset(elf, vaddr, &offset) != 0)
		rc = -ENOENT;
	if (syms)
		sym_source_free(syms);
	elf_end(elf);
	close(fd);
	if (rc != 0) {
		snprintf(err, errlen, "%s: no function '%s' in %s%s", ev->text, ev->b, path,
			 parse_vaddr(ev->b, &vaddr) ? " (the address is in no loaded segment)" : "");
		return -ENOENT;
	}
	return attach_uprobe_at(a, path, offset, 0, idx, ev->text, err, errlen);
}

struct probe_list {
	char buf[512];
	size_t len;
	int n;
};

static void list_probe(void *ctx, const char *provider, const char *name)
{
	struct probe_list *l = ctx;
	int w;

	if (l->n++ >= 8 || l->len >= sizeof(l->buf))
		return;
	w = snprintf(l->buf + l->len, sizeof(l->buf) - l->len, "%s%s:%s", l->len ? ", " : "",
		     provider, name);
	if (w > 0)
		l->len += w;
}

static int attach_usdt(struct attacher *a, const struct event_spec *ev, uint32_t idx,
		       char *err, size_t errlen)
{
	struct usdt_site sites[MAX_USDT_SITES];
	struct probe_list avail = { .len = 0 };
	char path[PATH_MAX];
	int fd, n, i, rc = 0;
	Elf *elf;

	if (resolve_binary(a, ev->a, path, sizeof(path)) != 0) {
		snprintf(err, errlen, "%s: cannot find '%s'", ev->text, ev->a);
		return -ENOENT;
	}
	elf = elf_open_file(path, &fd);
	if (!elf) {
		snprintf(err, errlen, "%s: cannot read %s as ELF: %s", ev->text, path, strerror(errno));
		return -ENOEXEC;
	}
	n = usdt_find(elf, ev->b, ev->c, sites, MAX_USDT_SITES);
	if (n <= 0) {
		usdt_for_each(elf, list_probe, &avail);
		if (avail.n)
			snprintf(err, errlen, "%s: no USDT probe %s:%s in %s (it has: %s%s)", ev->text,
				 ev->b, ev->c, path, avail.buf, avail.n > 8 ? ", ..." : "");
		else
			snprintf(err, errlen, "%s: %s has no USDT probes (.note.stapsdt)", ev->text, path);
		rc = -ENOENT;
	}
	elf_end(elf);
	close(fd);
	for (i = 0; i < n && rc == 0; i++)
		rc = attach_uprobe_at(a, path, sites[i].offset, sites[i].sema_offset, idx, ev->text,
				      err, errlen);
	return rc;
}

/* One kprobe at a kernel line's address (KASLR's move added), with its site's fetches. */
static int attach_kprobe_site(struct attacher *a, const struct line_dwarf *ld,
			      const struct line_site *site, uint32_t idx, uint32_t site1, char *why,
			      size_t whylen)
{
	LIBBPF_OPTS(bpf_kprobe_opts, opts, .bpf_cookie = attach_cookie(a, idx) |
		    (uint64_t)site1 << 32, .offset = site->vaddr + ld->kernel_bias);
	struct bpf_link *link;

	/* No name: the offset is the address (the kernel's kprobe_addr) */
	link = bpf_program__attach_kprobe_opts(kprobe_prog(a), NULL, &opts);
	if (!link) {
		int e = errno;

		snprintf(why, whylen, "cannot attach a kprobe at 0x%llx (%.120s:%d in %.60s%s%.60s): %s",
			 (unsigned long long)opts.offset, site->file, site->line, site->func,
			 site->caller[0] ? ", inlined into " : "", site->caller, strerror(e));
		return -e;
	}
	return attach_add_link(a, link);
}

static int attach_kprobe(struct attacher *a, const struct event_spec *ev, uint32_t idx,
			 char *err, size_t errlen)
{
	LIBBPF_OPTS(bpf_kprobe_opts, opts, .bpf_cookie = attach_cookie(a, idx));
	struct bpf_link *link;
	char why[512] = "";
	uint32_t site1;
	struct stat st;
	int rc;

	if (stat("/sys/bus/event_source/devices/kprobe", &st) != 0) {
		snprintf(err, errlen, "%s: this kernel has no kprobe support (CONFIG_KPROBES is off: "
			 "/sys/bus/event_source/devices/kprobe is missing); use a tracepoint "
			 "(tracepoint:CATEGORY:NAME) or syscall:NAME instead", ev->text);
		return -EOPNOTSUPP;
	}
	if (ev->line)
		return attach_line_probe(a, ev, NULL, idx, err, errlen);
	rc = fetch_site_add(a, NULL, NULL, NULL, ev->a, idx, &site1, why, sizeof(why));
	if (rc) {
		snprintf(err, errlen, "%s: %s", ev->text, why);
		return rc;
	}
	if (a->dry)
		return 0;
	opts.bpf_cookie |= (uint64_t)site1 << 32;
	link = bpf_program__attach_kprobe_opts(kprobe_prog(a), ev->a, &opts);
	if (!link) {
		int e = errno;

		snprintf(err, errlen, "%s: cannot attach kprobe to %s: %s", ev->text, ev->a,
			 strerror(e));
		return -e;
	}
	return attach_add_link(a, link);
}

/* offcpu: the sched_switch program; which event it counts under is in its rodata. */
static int attach_offcpu(struct attacher *a, const struct event_spec *ev, char *err,
			 size_t errlen)
{
	struct bpf_program *progs[] = {
		a->legacy ? a->skel->progs.capture_legacy_sched_switch : a->skel->progs.on_sched_switch,
		a->legacy ? a->skel->progs.on_sched_waking_legacy : a->skel->progs.on_sched_waking,
	};
	struct bpf_link *link;
	int i, rc;

	for (i = 0; i < 2; i++) {
		/* sched_waking: only with --wakers, which loads it. */
		if (!bpf_program__autoload(progs[i]))
			continue;
		link = bpf_program__attach(progs[i]);
		if (!link) {
			int e = errno;

			snprintf(err, errlen, "%s: cannot attach to sched:%s (tp_btf): %s",
				 ev->text, i ? "sched_waking" : "sched_switch", strerror(e));
			return -e;
		}
		rc = attach_add_link(a, link);
		if (rc)
			return rc;
	}
	return 0;
}

int attach_event(struct attacher *a, const struct event_spec *ev, uint32_t idx,
		 char *err, size_t errlen)
{
	switch (ev->kind) {
	case EVENT_CPU:
		return attach_cpu(a, idx, err, errlen);
	case EVENT_SYSCALL:
	case EVENT_TRACEPOINT:
		return attach_tp(a, ev->a, ev->b, idx, ev->text, err, errlen);
	case EVENT_UPROBE:
		return attach_uprobe(a, ev, idx, err, errlen);
	case EVENT_USDT:
		return attach_usdt(a, ev, idx, err, errlen);
	case EVENT_KPROBE:
		return attach_kprobe(a, ev, idx, err, errlen);
	case EVENT_OFFCPU:
		return attach_offcpu(a, ev, err, errlen);
	case EVENT_ALLOC:
		return attach_alloc(a, ev, idx, err, errlen);
	}
	return -EINVAL;
}

int attach_fetch_check(struct attacher *a, const struct event_spec *ev, char *err,
		       size_t errlen)
{
	int rc;

	if (!a->nfetch || !(ev->line || ev->kind == EVENT_SYSCALL ||
			    ev->kind == EVENT_TRACEPOINT || ev->kind == EVENT_KPROBE))
		return 0;
	a->dry = true;
	rc = attach_event(a, ev, 0, err, errlen);
	a->dry = false;
	return rc;
}
