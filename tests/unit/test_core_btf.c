// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel BTF subset (util/core_btf.c) against the kernel's whole BTF,
 * on the running kernel: the types it keeps have the kernel's layout, and
 * the capture object relocated against it is, instruction for instruction,
 * the object relocated against the kernel's BTF (as root: both are loaded).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "capture.skel.h"
#include "util/core_btf.h"

static struct btf *kernel, *sub;

static int setup(void **state)
{
	const void *obj;
	size_t size;

	kernel = btf__load_vmlinux_btf();
	assert_non_null(kernel);
	obj = capture_bpf__elf_bytes(&size);
	sub = core_btf_build(obj, size, kernel);
	assert_non_null(sub);
	return 0;
}

static int teardown(void **state)
{
	btf__free(sub);
	btf__free(kernel);
	return 0;
}

static const struct btf_type *find(const struct btf *btf, const char *name, int kind)
{
	int id = btf__find_by_name_kind(btf, name, kind);

	return id > 0 ? btf__type_by_id(btf, id) : NULL;
}

/* Every member of the kernel's type, at its offset; pointers as void *. */
static void assert_same_layout(const char *name)
{
	const struct btf_type *k = find(kernel, name, BTF_KIND_STRUCT);
	const struct btf_type *s = find(sub, name, BTF_KIND_STRUCT), *kt, *st;
	int i;

	assert_non_null(k);
	assert_non_null(s);
	assert_int_equal(s->size, k->size);
	assert_int_equal(btf_vlen(s), btf_vlen(k));
	for (i = 0; i < btf_vlen(k); i++) {
		assert_string_equal(btf__name_by_offset(sub, btf_members(s)[i].name_off),
				    btf__name_by_offset(kernel, btf_members(k)[i].name_off));
		assert_int_equal(btf_member_bit_offset(s, i), btf_member_bit_offset(k, i));
		assert_int_equal(btf_member_bitfield_size(s, i), btf_member_bitfield_size(k, i));
		kt = btf__type_by_id(kernel, btf__resolve_type(kernel, btf_members(k)[i].type));
		st = btf__type_by_id(sub, btf__resolve_type(sub, btf_members(s)[i].type));
		assert_non_null(kt);
		assert_non_null(st);
		assert_int_equal(btf_kind(st), btf_kind(kt));
		if (btf_kind(kt) == BTF_KIND_PTR)
			assert_int_equal(st->type, 0);
		else
			assert_int_equal(btf__resolve_size(sub, btf_members(s)[i].type),
					 btf__resolve_size(kernel, btf_members(k)[i].type));
	}
}

static void test_roots_keep_the_kernels_layout(void **state)
{
	assert_same_layout("task_struct");
	assert_same_layout("mm_struct");
	assert_same_layout("pt_regs");
	assert_same_layout("return_instance");
	/* A type no relocation starts from is not there: it is a subset. */
	assert_null(find(sub, "file", BTF_KIND_STRUCT));
	assert_true(btf__type_cnt(sub) < btf__type_cnt(kernel) / 50);
}

/* ldimm64 of a map (its fd, or its value's address) differs between two loads. */
static bool is_map_ldimm64(const struct bpf_insn *in)
{
	return in->code == (BPF_LD | BPF_IMM | BPF_DW) &&
	       (in->src_reg == BPF_PSEUDO_MAP_FD || in->src_reg == BPF_PSEUDO_MAP_VALUE ||
		in->src_reg == BPF_PSEUDO_MAP_IDX || in->src_reg == BPF_PSEUDO_MAP_IDX_VALUE);
}

static struct capture_bpf *load(const char *btf_path)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .btf_custom_path = btf_path);
	struct capture_bpf *skel = capture_bpf__open_opts(&opts);

	assert_non_null(skel);
	/* The walkers too: every relocation of the object. */
	skel->rodata->interp_lazy = false;
	skel->rodata->kunwind_count_in_kernel = true;
	assert_int_equal(capture_bpf__load(skel), 0);
	return skel;
}

static void test_relocated_like_the_kernels_btf(void **state)
{
	char path[] = "/tmp/stitch-core-btf.XXXXXX";
	struct capture_bpf *a, *b;
	struct bpf_program *pa, *pb;
	const struct bpf_insn *ia, *ib;
	const void *raw;
	uint32_t size;
	size_t i, n, programs = 0, masked = 0;
	int fd;

	if (geteuid() != 0)
		fail_msg("needs root: it loads the capture object twice");
	raw = btf__raw_data(sub, &size);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, raw, size), size);
	close(fd);
	a = load(path);
	b = load(NULL);
	unlink(path);
	for (pa = bpf_object__next_program(a->obj, NULL),
	     pb = bpf_object__next_program(b->obj, NULL);
	     pa && pb;
	     pa = bpf_object__next_program(a->obj, pa), pb = bpf_object__next_program(b->obj, pb)) {
		assert_string_equal(bpf_program__name(pa), bpf_program__name(pb));
		if (!bpf_program__autoload(pa))
			continue;
		n = bpf_program__insn_cnt(pa);
		assert_int_equal(n, bpf_program__insn_cnt(pb));
		ia = bpf_program__insns(pa);
		ib = bpf_program__insns(pb);
		for (i = 0; i < n; i++) {
			if (is_map_ldimm64(&ia[i]) && i + 1 < n) {
				assert_int_equal(ia[i].src_reg, ib[i].src_reg);
				i++;
				masked++;
				continue;
			}
			if (memcmp(&ia[i], &ib[i], sizeof(ia[i])))
				fail_msg("%s: instruction %zu differs: %02x %d %d %d %d against "
					 "%02x %d %d %d %d", bpf_program__name(pa), i,
					 ia[i].code, ia[i].dst_reg, ia[i].src_reg, ia[i].off,
					 ia[i].imm, ib[i].code, ib[i].dst_reg, ib[i].src_reg,
					 ib[i].off, ib[i].imm);
		}
		programs++;
	}
	assert_null(pa);
	assert_null(pb);
	/* It compared something: programs, and map loads it looked past. */
	assert_true(programs >= 10);
	assert_true(masked > 0);
	capture_bpf__destroy(a);
	capture_bpf__destroy(b);
}

/*
 * The cache: cut once, then read back; a torn or planted file is cut
 * again, never used.  Each call passes its own copy of the object: the
 * path is remembered per object for the rest of a run.
 */
static void test_cached_then_recut_when_bad(void **state)
{
	char dir[] = "/tmp/stitch-core-btf-cache.XXXXXX", sub[64];
	const void *obj = capture_bpf__elf_bytes(&(size_t){ 0 });
	void *copy[3];
	const char *path;
	size_t size, i;
	struct btf *back;
	FILE *f;

	capture_bpf__elf_bytes(&size);
	assert_non_null(mkdtemp(dir));
	setenv("STITCH_CACHE_DIR", dir, 1);
	for (i = 0; i < 3; i++) {
		copy[i] = malloc(size);
		assert_non_null(copy[i]);
		memcpy(copy[i], obj, size);
	}
	path = core_btf_path(copy[0], size);
	assert_non_null(path);
	assert_non_null(strstr(core_btf_status(), "cut now"));
	assert_int_equal(strncmp(path, dir, strlen(dir)), 0);
	path = core_btf_path(copy[1], size);
	assert_non_null(path);
	assert_non_null(strstr(core_btf_status(), "cached"));
	/* Torn: half a header. */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("\x9f\xeb", f);
	fclose(f);
	path = core_btf_path(copy[2], size);
	assert_non_null(path);
	assert_non_null(strstr(core_btf_status(), "cut now"));
	back = btf__parse_raw(path);
	assert_non_null(back);
	assert_true(btf__find_by_name_kind(back, "task_struct", BTF_KIND_STRUCT) > 0);
	btf__free(back);
	unlink(path);
	snprintf(sub, sizeof(sub), "%s/btf", dir);
	rmdir(sub);
	rmdir(dir);
	unsetenv("STITCH_CACHE_DIR");
	for (i = 0; i < 3; i++)
		free(copy[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roots_keep_the_kernels_layout),
		cmocka_unit_test(test_cached_then_recut_when_bad),
		cmocka_unit_test(test_relocated_like_the_kernels_btf),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
