// SPDX-License-Identifier: GPL-2.0
/*
 * bpf-lineprof: where a loaded BPF program spends its time, by source line.
 *
 * perf can sample JITed BPF code but cannot annotate it without libopcodes
 * (Debian's perf and bpftool are built without it).  The kernel keeps, for
 * every program loaded with BTF line info, the JIT address where each
 * source line's code starts (bpf_prog_info.jited_line_info): that is enough
 * to map sampled instruction addresses back to lines.
 *
 *   bpf-lineprof PROG_ID < addresses     (hex, one per line, as from
 *                                         perf script -F ip)
 *
 * Prints "samples percent file:line  source" for every line with samples;
 * addresses outside the program are counted and reported on stderr.
 */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct line_start {
	__u64 addr;	/* JIT address where the line's code starts */
	__u32 idx;	/* its index in the program's line info */
};

static int by_addr(const void *a, const void *b)
{
	const struct line_start *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The program's JITed functions: where each starts and how long it is. */
struct funcs {
	__u64 *start;
	__u32 *len;
	__u32 n;
};

/*
 * Whether addr is in one of the program's functions.  A program's code may
 * lie just below another's (a tail-called worker), so being past its last
 * line start is not enough.
 */
static int in_program(const struct funcs *f, __u64 addr)
{
	__u32 i;

	for (i = 0; i < f->n; i++)
		if (addr >= f->start[i] && addr - f->start[i] < f->len[i])
			return 1;
	return 0;
}

/* The line whose code holds addr, or -1. */
static long find_line(const struct line_start *ls, long n, const struct funcs *f, __u64 addr)
{
	long lo = 0, hi = n - 1, best = -1;

	while (lo <= hi) {
		long mid = lo + (hi - lo) / 2;

		if (ls[mid].addr <= addr) {
			best = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	if (best < 0 || !in_program(f, addr))
		return -1;
	return ls[best].idx;
}

int main(int argc, char **argv)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), nli, njl, i;
	struct bpf_line_info *li;
	struct line_start *ls;
	struct funcs f = {};
	unsigned long *hits, total = 0, outside = 0;
	struct btf *btf;
	char buf[64];
	__u64 *jl;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: bpf-lineprof PROG_ID < addresses\n");
		return 2;
	}
	fd = bpf_prog_get_fd_by_id(atoi(argv[1]));
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len)) {
		perror("bpf-lineprof: program info");
		return 1;
	}
	nli = info.nr_line_info;
	njl = info.nr_jited_line_info;
	if (!nli || nli != njl) {
		fprintf(stderr, "bpf-lineprof: program %s has no JITed line info\n", argv[1]);
		return 1;
	}
	f.n = info.nr_jited_ksyms;
	li = calloc(nli, sizeof(*li));
	jl = calloc(njl, sizeof(*jl));
	ls = calloc(njl, sizeof(*ls));
	hits = calloc(nli, sizeof(*hits));
	f.start = calloc(f.n ? f.n : 1, sizeof(*f.start));
	f.len = calloc(f.n ? f.n : 1, sizeof(*f.len));
	if (!li || !jl || !ls || !hits || !f.start || !f.len)
		return 1;
	memset(&info, 0, sizeof(info));
	info.nr_line_info = nli;
	info.line_info_rec_size = sizeof(*li);
	info.line_info = (__u64)(unsigned long)li;
	info.nr_jited_line_info = njl;
	info.jited_line_info_rec_size = sizeof(*jl);
	info.jited_line_info = (__u64)(unsigned long)jl;
	info.nr_jited_ksyms = f.n;
	info.jited_ksyms = (__u64)(unsigned long)f.start;
	info.nr_jited_func_lens = f.n;
	info.jited_func_lens = (__u64)(unsigned long)f.len;
	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		perror("bpf-lineprof: line info");
		return 1;
	}
	btf = btf__load_from_kernel_by_id(info.btf_id);
	if (!btf) {
		fprintf(stderr, "bpf-lineprof: cannot load the program's BTF\n");
		return 1;
	}
	for (i = 0; i < njl; i++) {
		ls[i].addr = jl[i];
		ls[i].idx = i;
	}
	qsort(ls, njl, sizeof(*ls), by_addr);

	while (fgets(buf, sizeof(buf), stdin)) {
		long idx = find_line(ls, njl, &f, strtoull(buf, NULL, 16));

		total++;
		if (idx < 0)
			outside++;
		else
			hits[idx]++;
	}
	for (i = 0; i < nli; i++) {
		const char *file, *src, *base;

		if (!hits[i])
			continue;
		file = btf__name_by_offset(btf, li[i].file_name_off);
		src = btf__name_by_offset(btf, li[i].line_off);
		base = file ? strrchr(file, '/') : NULL;
		printf("%6lu %5.1f%% %s:%u  %s\n", hits[i], 100.0 * hits[i] / total,
		       base ? base + 1 : (file ? file : "?"), BPF_LINE_INFO_LINE_NUM(li[i].line_col),
		       src ? src : "");
	}
	fprintf(stderr, "bpf-lineprof: %lu addresses, %lu outside program %s\n", total, outside,
		argv[1]);
	return 0;
}
