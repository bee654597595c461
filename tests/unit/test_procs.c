// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for the process map model.  Synthetic processes use pids above
 * pid_max, so /proc has nothing for them and only what the test inserts is
 * there; real files are copies of /bin/true (and a
 * program linked by lld, whose text shares a file page with read-only data)
 * in a temporary directory.
 */
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <cmocka.h>

#include "proc/binary.h"
#include "util/elf_util.h"
#include "proc/procs.h"
#include "unit_helpers.h"
#include "util/clock.h"

/* Above any pid_max (at most 2^22): never a live process. */
#define FAKE_PID 0x7ffffff0u
#define FAKE_PID2 0x7ffffff1u
#define FAKE_PID3 0x7ffffff2u
#define BASE 0x7f0000000000ull

static char dir[64];
static char true_path[PATH_MAX], other_path[PATH_MAX], lld_path[PATH_MAX];
static bool have_lld;

struct env {
	struct binary_cache bins;
	struct procs ps;
};

static int group_setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/stitch_procs_XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(true_path, sizeof(true_path), "%s/true", dir);
	snprintf(other_path, sizeof(other_path), "%s/other", dir);
	snprintf(lld_path, sizeof(lld_path), "%s/lld_prog", dir);
	if (test_shell("cp /bin/true '%s' && cp /bin/true '%s'", true_path, other_path) != 0)
		return -1;
	/* lld lays text out at offset 0x...610 in the page of .rodata: see test_lld_bias. */
	have_lld = test_shell("cd '%s' && printf 'int main(void){return 0;}\\n' > l.c && "
		      "clang -O2 -fuse-ld=lld l.c -o lld_prog 2>/dev/null", dir) == 0;
	elf_util_init();
	return 0;
}

static int group_teardown(void **state)
{
	test_shell("rm -rf '%s'", dir);
	return 0;
}

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	if (!e || binary_cache_init(&e->bins) != 0 || procs_init(&e->ps, &e->bins) != 0)
		return -1;
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	procs_free(&e->ps);
	binary_cache_free(&e->bins);
	free(e);
	return 0;
}

/* The invariant everyone relies on: sorted by start, non-empty, disjoint. */
static void check_sorted(const struct proc *p)
{
	size_t i;

	for (i = 0; i < p->nr; i++) {
		assert_true(p->maps[i].start < p->maps[i].end);
		if (i)
			assert_true(p->maps[i - 1].end <= p->maps[i].start);
	}
}

struct want {
	uint64_t start, end, pgoff;
};

static void expect_maps(const struct proc *p, const struct want *w, size_t n)
{
	size_t i;

	check_sorted(p);
	if (p->nr != n) {
		for (i = 0; i < p->nr; i++)
			print_message("  [%#lx, %#lx) pgoff %#lx\n",
				      (unsigned long)p->maps[i].start,
				      (unsigned long)p->maps[i].end,
				      (unsigned long)p->maps[i].pgoff);
		fail_msg("%zu maps, expected %zu", p->nr, n);
	}
	for (i = 0; i < n; i++) {
		assert_int_equal(p->maps[i].start, w[i].start);
		assert_int_equal(p->maps[i].end, w[i].end);
		assert_int_equal(p->maps[i].pgoff, w[i].pgoff);
	}
}

/*
 * An anonymous-looking mapping: no file to open, so only geometry matters.
 * Then the process is looked at, which applies it (procs_find).
 */
static void anon(struct procs *ps, uint32_t pid, uint64_t start, uint64_t end, uint64_t pgoff)
{
	procs_mmap(ps, pid, start, end - start, pgoff, "[anon:test]", NULL);
	procs_find(ps, pid);
}

static void test_punch_holes(void **state)
{
	struct env *e = *state;
	struct procs *ps = &e->ps;
	struct proc *p;

	anon(ps, FAKE_PID, 0x10000, 0x20000, 0);
	p = procs_find(ps, FAKE_PID);
	assert_non_null(p);
	{
		const struct want w[] = { { 0x10000, 0x20000, 0 } };

		expect_maps(p, w, 1);
	}
	/* Split in the middle: the tail keeps its file offset. */
	anon(ps, FAKE_PID, 0x14000, 0x16000, 0x100000);
	{
		const struct want w[] = {
			{ 0x10000, 0x14000, 0 },
			{ 0x14000, 0x16000, 0x100000 },
			{ 0x16000, 0x20000, 0x6000 },
		};

		expect_maps(p, w, 3);
	}
	/* Overlap the front of the first map: it is trimmed at its front. */
	anon(ps, FAKE_PID, 0x8000, 0x12000, 0x200000);
	{
		const struct want w[] = {
			{ 0x8000, 0x12000, 0x200000 },
			{ 0x12000, 0x14000, 0x2000 },
			{ 0x14000, 0x16000, 0x100000 },
			{ 0x16000, 0x20000, 0x6000 },
		};

		expect_maps(p, w, 4);
	}
	/* Overlap the back of the last map: it keeps its front. */
	anon(ps, FAKE_PID, 0x1f000, 0x30000, 0x300000);
	{
		const struct want w[] = {
			{ 0x8000, 0x12000, 0x200000 },
			{ 0x12000, 0x14000, 0x2000 },
			{ 0x14000, 0x16000, 0x100000 },
			{ 0x16000, 0x1f000, 0x6000 },
			{ 0x1f000, 0x30000, 0x300000 },
		};

		expect_maps(p, w, 5);
	}
	/* Exactly the same range: replaced. */
	anon(ps, FAKE_PID, 0x14000, 0x16000, 0x400000);
	{
		const struct want w[] = {
			{ 0x8000, 0x12000, 0x200000 },
			{ 0x12000, 0x14000, 0x2000 },
			{ 0x14000, 0x16000, 0x400000 },
			{ 0x16000, 0x1f000, 0x6000 },
			{ 0x1f000, 0x30000, 0x300000 },
		};

		expect_maps(p, w, 5);
	}
	/* Across several: trims both ends, drops what is fully covered. */
	anon(ps, FAKE_PID, 0x11000, 0x17000, 0x500000);
	{
		const struct want w[] = {
			{ 0x8000, 0x11000, 0x200000 },
			{ 0x11000, 0x17000, 0x500000 },
			{ 0x17000, 0x1f000, 0x7000 },
			{ 0x1f000, 0x30000, 0x300000 },
		};

		expect_maps(p, w, 4);
	}
	/* Covering everything: one map left. */
	anon(ps, FAKE_PID, 0x1000, 0x40000, 0x600000);
	{
		const struct want w[] = { { 0x1000, 0x40000, 0x600000 } };

		expect_maps(p, w, 1);
	}
	/* Before and after, not touching: inserted in order. */
	anon(ps, FAKE_PID, 0x50000, 0x51000, 1);
	anon(ps, FAKE_PID, 0x0, 0x1000, 2);
	{
		const struct want w[] = {
			{ 0x0, 0x1000, 2 },
			{ 0x1000, 0x40000, 0x600000 },
			{ 0x50000, 0x51000, 1 },
		};

		expect_maps(p, w, 3);
	}
	/* Empty and wrapping ranges are ignored. */
	anon(ps, FAKE_PID, 0x2000, 0x2000, 3);
	procs_mmap(ps, FAKE_PID, 0xfffffffffffff000ull, 0x2000, 0, "[anon:test]", NULL);
	procs_mmap(ps, FAKE_PID, 0x2000, 0x1000, 0, NULL, NULL);
	assert_ptr_equal(procs_find(ps, FAKE_PID), p);
	assert_int_equal(p->nr, 3);
	/* Anonymous names never count as unreadable files. */
	assert_int_equal(ps->unreadable_maps, 0);
}

/*
 * Random overlapping inserts against a page-by-page model: every page must
 * belong to the last map written over it, at the file offset that map gave
 * it.  Also grows the map array well past its first allocation.
 */
static void test_random_model(void **state)
{
	enum { PAGES = 512, ROUNDS = 3000 };
	struct env *e = *state;
	uint64_t owner_off[PAGES];	/* expected pgoff of each page, 0: unmapped */
	unsigned int seed = 12345;
	struct proc *p;
	int r, i;

	memset(owner_off, 0, sizeof(owner_off));
	for (r = 0; r < ROUNDS; r++) {
		int a = rand_r(&seed) % PAGES;
		int len = 1 + rand_r(&seed) % (r % 10 == 0 ? 100 : 6);
		uint64_t off = (uint64_t)(r + 1) << 32;

		if (a + len > PAGES)
			len = PAGES - a;
		anon(&e->ps, FAKE_PID, BASE + a * 0x1000ull, BASE + (a + len) * 0x1000ull, off);
		for (i = a; i < a + len; i++)
			owner_off[i] = off + (i - a) * 0x1000ull;
	}
	p = procs_find(&e->ps, FAKE_PID);
	assert_non_null(p);
	check_sorted(p);
	assert_true(p->nr > 32);
	for (i = 0; i < PAGES; i++) {
		uint64_t addr = BASE + i * 0x1000ull;
		const struct map *m = proc_find_map(p, addr + 0x800);

		if (!owner_off[i]) {
			assert_null(m);
			continue;
		}
		assert_non_null(m);
		assert_int_equal(m->pgoff + (addr - m->start), owner_off[i]);
	}
}

static void test_find_map_bounds(void **state)
{
	struct env *e = *state;
	struct proc *p;
	uint64_t s;

	/* Adjacent and separated maps: ends are exclusive, starts inclusive. */
	anon(&e->ps, FAKE_PID, 0x1000, 0x2000, 0x10);
	anon(&e->ps, FAKE_PID, 0x2000, 0x3000, 0x20);
	anon(&e->ps, FAKE_PID, 0x5000, 0x8000, 0x30);
	anon(&e->ps, FAKE_PID, 0x9000, 0xa000, 0x40);
	p = procs_find(&e->ps, FAKE_PID);
	assert_non_null(p);
	assert_null(proc_find_map(p, 0));
	assert_null(proc_find_map(p, 0xfff));
	assert_int_equal(proc_find_map(p, 0x1000)->pgoff, 0x10);
	assert_int_equal(proc_find_map(p, 0x1fff)->pgoff, 0x10);
	assert_int_equal(proc_find_map(p, 0x2000)->pgoff, 0x20);
	assert_int_equal(proc_find_map(p, 0x2fff)->pgoff, 0x20);
	assert_null(proc_find_map(p, 0x3000));
	assert_null(proc_find_map(p, 0x4fff));
	assert_int_equal(proc_find_map(p, 0x5000)->pgoff, 0x30);
	assert_int_equal(proc_find_map(p, 0x7fff)->pgoff, 0x30);
	assert_null(proc_find_map(p, 0x8000));
	assert_int_equal(proc_find_map(p, 0x9000)->pgoff, 0x40);
	assert_null(proc_find_map(p, 0xa000));
	assert_null(proc_find_map(p, UINT64_MAX));
	/* Every byte of every map, against a linear scan. */
	for (s = 0; s < 0xb000; s += 0x80) {
		const struct map *m = proc_find_map(p, s);
		const struct map *want = NULL;
		size_t i;

		for (i = 0; i < p->nr; i++)
			if (s >= p->maps[i].start && s < p->maps[i].end)
				want = &p->maps[i];
		assert_ptr_equal(m, want);
	}
	/* A process with no maps finds nothing. */
	procs_exec(&e->ps, FAKE_PID2);
	assert_null(proc_find_map(procs_find(&e->ps, FAKE_PID2), 0x1000));
}

/* The executable PT_LOAD of a file, read with libelf on our own. */
static void exec_segment(const char *path, GElf_Phdr *out)
{
	int fd = open(path, O_RDONLY);
	size_t n, i;
	bool found = false;
	Elf *elf;

	assert_true(fd >= 0);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	assert_int_equal(elf_getphdrnum(elf, &n), 0);
	for (i = 0; i < n && !found; i++) {
		assert_non_null(gelf_getphdr(elf, i, out));
		found = out->p_type == PT_LOAD && (out->p_flags & PF_X);
	}
	assert_true(found);
	elf_end(elf);
	close(fd);
}

static size_t file_build_id(const char *path, uint8_t *id)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	size_t n;

	assert_true(fd >= 0);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	n = elf_build_id(elf, id);
	elf_end(elf);
	close(fd);
	return n;
}

/* Map a file's text the way ld.so does, at load bias `base`. */
static const struct map *map_text(struct procs *ps, uint32_t pid, const char *path,
				  uint64_t base, const struct map_file_id *id, GElf_Phdr *ph)
{
	uint64_t start, end;

	exec_segment(path, ph);
	start = base + (ph->p_vaddr & ~0xfffull);
	end = (base + ph->p_vaddr + ph->p_memsz + 0xfff) & ~0xfffull;
	procs_mmap(ps, pid, start, end - start, ph->p_offset & ~0xfffull, path, id);
	return proc_find_map(procs_find(ps, pid), base + ph->p_vaddr);
}

static void test_bias_build_id(void **state)
{
	struct env *e = *state;
	struct map_file_id id = { 0 };
	const struct map *m;
	GElf_Phdr ph;

	id.build_id_len = file_build_id(true_path, id.build_id);
	assert_int_equal(id.build_id_len, 20);	/* Debian builds carry one */
	m = map_text(&e->ps, FAKE_PID, true_path, BASE, &id, &ph);
	assert_non_null(m);
	assert_non_null(m->bin);
	assert_string_equal(m->bin->path, true_path);
	assert_string_equal(m->name, "true");
	/* What unwinding and symbolization rely on: addr - bias is the ELF vaddr. */
	assert_int_equal(m->bias, BASE);
	assert_int_equal(BASE + ph.p_vaddr + 0x24 - m->bias, ph.p_vaddr + 0x24);
	assert_int_equal(e->ps.unreadable_maps, 0);

	/* The same file with another build-id: kept as a map, but no file. */
	id.build_id[3] ^= 0xff;
	m = map_text(&e->ps, FAKE_PID2, true_path, BASE, &id, &ph);
	assert_non_null(m);
	assert_null(m->bin);
	assert_null(m->name);
	assert_int_equal(e->ps.unreadable_maps, 1);
	/* ... even though the right one is already cached for that file. */
	m = proc_find_map(procs_find(&e->ps, FAKE_PID), BASE + ph.p_vaddr);
	assert_non_null(m->bin);
}

static void test_devino(void **state)
{
	struct env *e = *state;
	struct map_file_id id = { .has_devino = true };
	const struct map *m;
	struct stat st;
	GElf_Phdr ph;

	assert_int_equal(stat(true_path, &st), 0);
	id.maj = major(st.st_dev);
	id.min = minor(st.st_dev);
	id.ino = st.st_ino;
	m = map_text(&e->ps, FAKE_PID, true_path, BASE, &id, &ph);
	assert_non_null(m->bin);
	assert_int_equal(m->bias, BASE);

	/* Another inode under that path (a replaced file): not trusted. */
	id.ino = st.st_ino + 1000003;
	m = map_text(&e->ps, FAKE_PID2, true_path, BASE, &id, &ph);
	assert_non_null(m);
	assert_null(m->bin);
	/* A copy with identical bytes is still another file. */
	id.ino = st.st_ino;
	m = map_text(&e->ps, FAKE_PID3, other_path, BASE, &id, &ph);
	assert_null(m->bin);
	assert_int_equal(e->ps.unreadable_maps, 2);
}

static void test_no_identity(void **state)
{
	struct env *e = *state;
	struct map_file_id none = { 0 };
	const struct map *m;
	GElf_Phdr ph;

	/* A dead process and nothing to check the file against: no guessing. */
	m = map_text(&e->ps, FAKE_PID, true_path, BASE, NULL, &ph);
	assert_non_null(m);
	assert_null(m->bin);
	m = map_text(&e->ps, FAKE_PID2, true_path, BASE, &none, &ph);
	assert_null(m->bin);
	/* A file that does not exist. */
	procs_mmap(&e->ps, FAKE_PID3, BASE, 0x1000, 0, "/nonexistent/stitch/lib.so", &none);
	m = proc_find_map(procs_find(&e->ps, FAKE_PID3), BASE);
	assert_non_null(m);
	assert_null(m->bin);
	assert_int_equal(e->ps.unreadable_maps, 3);
}

/* lld: text at file offset 0x...610 shares page 0 with .rodata. */
static void test_lld_bias(void **state)
{
	struct env *e = *state;
	struct map_file_id id = { 0 };
	const struct map *m;
	GElf_Phdr ph;

	/* scripts/install-deps.sh installs lld: its absence is a broken setup. */
	if (!have_lld)
		fail_msg("cannot link with lld (clang -fuse-ld=lld): run scripts/install-deps.sh");
	id.build_id_len = file_build_id(lld_path, id.build_id);
	if (!id.build_id_len) {
		struct stat st;

		assert_int_equal(stat(lld_path, &st), 0);
		id.has_devino = true;
		id.maj = major(st.st_dev);
		id.min = minor(st.st_dev);
		id.ino = st.st_ino;
	}
	m = map_text(&e->ps, FAKE_PID, lld_path, BASE, &id, &ph);
	/* The interesting layout: the text's page is also the first segment's. */
	assert_true((ph.p_vaddr & ~0xfffull) != (ph.p_offset & ~0xfffull));
	assert_non_null(m);
	assert_non_null(m->bin);
	assert_int_equal(m->bias, BASE);
	assert_int_equal(BASE + ph.p_vaddr - m->bias, ph.p_vaddr);

	/*
	 * Another process of it, after its file's pages left us: the bias
	 * from the segments kept with the binary, the same shared page.
	 */
	binary_drop_pages(m->bin);
	m = map_text(&e->ps, FAKE_PID2, lld_path, BASE + 0x100000, &id, &ph);
	assert_non_null(m);
	assert_non_null(m->bin);
	assert_true(m->bin->loads_read && m->bin->loads && m->bin->nloads >= 2);
	assert_int_equal(m->bias, BASE + 0x100000);
}

/*
 * A process's mmap records wait until it is looked at: a process never
 * sampled costs no open of its files.  Then they apply in their order, and
 * an exec forgets those of the old image.
 */
static void test_mmap_opened_when_looked_at(void **state)
{
	struct env *e = *state;
	struct map_file_id id = { 0 };
	const struct map *m;
	struct proc *p;
	GElf_Phdr ph;
	uint64_t start;
	int i;

	id.build_id_len = file_build_id(true_path, id.build_id);
	exec_segment(true_path, &ph);
	start = BASE + (ph.p_vaddr & ~0xfffull);
	procs_mmap(&e->ps, FAKE_PID, start, 0x1000, ph.p_offset & ~0xfffull, true_path, &id);
	/* Over it, later: the later one wins once both apply. */
	procs_mmap(&e->ps, FAKE_PID, start, 0x1000, 0x5000, "[anon:test]", NULL);
	procs_mmap(&e->ps, FAKE_PID, start, 0x1000, ph.p_offset & ~0xfffull, true_path, &id);
	assert_int_equal(e->bins.by_file.count, 0);
	p = procs_find(&e->ps, FAKE_PID);
	assert_int_equal(e->bins.by_file.count, 1);
	assert_int_equal(p->nr, 1);
	m = proc_find_map(p, BASE + ph.p_vaddr);
	assert_non_null(m);
	assert_non_null(m->bin);
	assert_string_equal(m->bin->path, true_path);
	assert_int_equal(m->bias, BASE);

	/* exec: the old image's records go unopened. */
	procs_mmap(&e->ps, FAKE_PID2, start, 0x1000, ph.p_offset & ~0xfffull, other_path, &id);
	procs_exec(&e->ps, FAKE_PID2);
	assert_int_equal(procs_find(&e->ps, FAKE_PID2)->nr, 0);
	assert_int_equal(e->bins.by_file.count, 1);

	/* Never looked at, a process's waiting records are bounded: past that they apply. */
	procs_mmap(&e->ps, FAKE_PID3, BASE, 0x1000, 0, "[anon:test]", NULL);
	p = procs_find(&e->ps, FAKE_PID3);
	for (i = 1; i < 1000; i++)
		procs_mmap(&e->ps, FAKE_PID3, BASE + i * 0x2000ull, 0x1000, 0, "[anon:test]", NULL);
	assert_true(p->npending > 0 && p->npending <= 256);
	assert_int_equal(p->nr + p->npending, 1000);
	assert_ptr_equal(procs_find(&e->ps, FAKE_PID3), p);
	assert_int_equal(p->npending, 0);
	assert_int_equal(p->nr, 1000);
	check_sorted(p);

	/*
	 * A path of 64 bytes or more waits in a copy of its own, a shorter
	 * one in the record: both open their file, named as the process did.
	 */
	{
		char longer[PATH_MAX];
		struct proc *q;
		int k;

		k = snprintf(longer, sizeof(longer), "/");
		for (i = 0; i < 40; i++)
			k += snprintf(longer + k, sizeof(longer) - k, "./");
		snprintf(longer + k, sizeof(longer) - k, "%s", other_path + 1);
		assert_true(strlen(longer) >= 64);
		procs_exec(&e->ps, FAKE_PID3);
		procs_mmap(&e->ps, FAKE_PID3, start, 0x1000, ph.p_offset & ~0xfffull, longer, &id);
		q = procs_find(&e->ps, FAKE_PID3);
		m = proc_find_map(q, BASE + ph.p_vaddr);
		assert_non_null(m);
		assert_non_null(m->bin);
		assert_string_equal(m->bin->path, longer);
	}
}

/*
 * procs_find_held: a process whose records map only files held already
 * (by build ID, path and root) is applied; one that would open a file is
 * left as it was.  Our own pid: its root is real.
 */
static void test_find_held(void **state)
{
	struct env *e = *state;
	struct map_file_id id = { 0 };
	uint32_t pid = getpid();
	struct proc *p;
	GElf_Phdr ph;
	uint64_t start;

	id.build_id_len = file_build_id(true_path, id.build_id);
	exec_segment(true_path, &ph);
	start = BASE + (ph.p_vaddr & ~0xfffull);
	procs_exec(&e->ps, pid);
	procs_mmap(&e->ps, pid, start, 0x1000, ph.p_offset & ~0xfffull, true_path, &id);
	procs_mmap(&e->ps, pid, start + 0x10000, 0x1000, 0, "//anon", NULL);
	/* true is not held yet: nothing opened, nothing applied */
	assert_null(procs_find_held(&e->ps, pid));
	assert_int_equal(e->bins.by_file.count, 0);
	p = procs_find(&e->ps, pid);
	assert_int_equal(p->nr, 2);
	assert_int_equal(e->bins.by_file.count, 1);

	/* exec'd again: the same file, held now, and an anonymous mapping */
	procs_exec(&e->ps, pid);
	procs_mmap(&e->ps, pid, start, 0x1000, ph.p_offset & ~0xfffull, true_path, &id);
	procs_mmap(&e->ps, pid, start + 0x10000, 0x1000, 0, "//anon", NULL);
	assert_ptr_equal(procs_find_held(&e->ps, pid), p);
	assert_int_equal(p->npending, 0);
	assert_int_equal(p->nr, 2);
	assert_string_equal(proc_find_map(p, BASE + ph.p_vaddr)->bin->path, true_path);
	assert_int_equal(e->bins.by_file.count, 1);

	/* the same bytes under another path (its debug files may differ): not held */
	procs_mmap(&e->ps, pid, start + 0x20000, 0x1000, ph.p_offset & ~0xfffull, other_path, &id);
	assert_null(procs_find_held(&e->ps, pid));
	assert_int_equal(p->npending, 1);
	/* no build ID in the record: not held either */
	procs_exec(&e->ps, pid);
	procs_mmap(&e->ps, pid, start, 0x1000, ph.p_offset & ~0xfffull, true_path, NULL);
	assert_null(procs_find_held(&e->ps, pid));

	/* gone, or its records lost: never */
	procs_exec(&e->ps, pid);
	procs_mmap(&e->ps, pid, start, 0x1000, ph.p_offset & ~0xfffull, true_path, &id);
	procs_mark_stale(&e->ps, pid);
	assert_null(procs_find_held(&e->ps, pid));
	p->stale = false;
	procs_exit(&e->ps, pid, 1);
	assert_null(procs_find_held(&e->ps, pid));
}

static void test_vdso(void **state)
{
	struct env *e = *state;
	const struct map *m;

	procs_mmap(&e->ps, FAKE_PID, BASE, 0x2000, 0, "[vdso]", NULL);
	m = proc_find_map(procs_find(&e->ps, FAKE_PID), BASE);
	assert_non_null(m);
	assert_non_null(m->bin);
	assert_string_equal(m->name, "[vdso]");
	assert_ptr_equal(m->bin, binary_get_vdso(&e->bins));
	assert_int_equal(e->ps.unreadable_maps, 0);
}

static void test_exec_fork(void **state)
{
	struct env *e = *state;
	struct proc *parent, *child;

	anon(&e->ps, FAKE_PID, 0x10000, 0x20000, 1);
	anon(&e->ps, FAKE_PID, 0x30000, 0x40000, 2);
	procs_fork(&e->ps, FAKE_PID, FAKE_PID2);
	parent = procs_find(&e->ps, FAKE_PID);
	child = procs_find(&e->ps, FAKE_PID2);
	assert_non_null(child);
	{
		const struct want w[] = { { 0x10000, 0x20000, 1 }, { 0x30000, 0x40000, 2 } };

		expect_maps(child, w, 2);
		/* A copy, not a shared array: the child's own mmap stays its own. */
		anon(&e->ps, FAKE_PID2, 0x18000, 0x19000, 3);
		assert_int_equal(child->nr, 4);
		expect_maps(parent, w, 2);
	}
	/* A thread "fork" (same pid) changes nothing. */
	procs_fork(&e->ps, FAKE_PID, FAKE_PID);
	assert_int_equal(parent->nr, 2);

	/* exec: the old image is gone. */
	procs_exec(&e->ps, FAKE_PID2);
	assert_int_equal(child->nr, 0);
	assert_null(proc_find_map(child, 0x10000));
	anon(&e->ps, FAKE_PID2, 0x50000, 0x51000, 4);
	assert_int_equal(child->nr, 1);

	/* A reused pid: the new child is its new parent's copy, nothing older. */
	procs_fork(&e->ps, FAKE_PID, FAKE_PID2);
	{
		const struct want w[] = { { 0x10000, 0x20000, 1 }, { 0x30000, 0x40000, 2 } };

		expect_maps(procs_find(&e->ps, FAKE_PID2), w, 2);
	}
	/* Room for a split right after fork (the copy reserves slots). */
	anon(&e->ps, FAKE_PID2, 0x14000, 0x15000, 5);
	assert_int_equal(procs_find(&e->ps, FAKE_PID2)->nr, 4);
	check_sorted(procs_find(&e->ps, FAKE_PID2));

	/* exec of a process never seen creates it, empty. */
	assert_null(procs_find(&e->ps, FAKE_PID3));
	procs_exec(&e->ps, FAKE_PID3);
	assert_non_null(procs_find(&e->ps, FAKE_PID3));
	assert_int_equal(procs_find(&e->ps, FAKE_PID3)->nr, 0);

	/* A reused pid whose new parent has no maps yet: nothing stale left. */
	assert_true(procs_find(&e->ps, FAKE_PID2)->nr > 0);
	procs_fork(&e->ps, FAKE_PID3, FAKE_PID2);
	assert_int_equal(procs_find(&e->ps, FAKE_PID2)->nr, 0);
}

static void test_tracking(void **state)
{
	struct env *e = *state;

	assert_false(e->ps.track_all);
	assert_false(procs_tracking(&e->ps, FAKE_PID));
	assert_null(procs_find(&e->ps, FAKE_PID));
	/* procs_get creates (a dead pid: empty) and from then on it is followed. */
	assert_non_null(procs_get(&e->ps, FAKE_PID));
	assert_int_equal(procs_get(&e->ps, FAKE_PID)->nr, 0);
	assert_ptr_equal(procs_get(&e->ps, FAKE_PID), procs_find(&e->ps, FAKE_PID));
	assert_true(procs_tracking(&e->ps, FAKE_PID));
	/* A fork's child is known from then on too. */
	procs_fork(&e->ps, FAKE_PID, FAKE_PID2);
	assert_true(procs_tracking(&e->ps, FAKE_PID2));
	assert_false(procs_tracking(&e->ps, FAKE_PID3));
	e->ps.track_all = true;
	assert_true(procs_tracking(&e->ps, FAKE_PID3));
	/* Asking does not create it. */
	assert_null(procs_find(&e->ps, FAKE_PID3));
}

static int find_bias(struct dl_phdr_info *info, size_t size, void *data)
{
	/* The first object is the main program. */
	*(uint64_t *)data = info->dlpi_addr;
	return 1;
}

static void test_self(void **state)
{
	struct env *e = *state;
	uint64_t pc = (uintptr_t)&test_self, bias = 0;
	char exe[PATH_MAX];
	const struct map *m;
	struct proc *p;
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	dl_iterate_phdr(find_bias, &bias);
	p = procs_get(&e->ps, getpid());
	assert_non_null(p);
	check_sorted(p);
	assert_true(p->nr >= 2);	/* us, libc, ld.so, the vDSO... */
	m = proc_find_map(p, pc);
	assert_non_null(m);
	assert_non_null(m->bin);
	assert_string_equal(m->bin->path, exe);
	assert_int_equal(m->bias, bias);
	/* Only executable mappings: our stack is not among them. */
	assert_null(proc_find_map(p, (uintptr_t)&pc));
	/* Known now, so later lookups do not reread /proc. */
	assert_ptr_equal(procs_get(&e->ps, getpid()), p);
}

static bool release_all(void *ctx, struct binary *b)
{
	(void)ctx;
	(void)b;
	return true;
}

/*
 * An exited process stays for the grace, then goes; a reused pid (fork)
 * is alive again; a binary nothing maps goes unless a stack names it.
 */
static void test_exit_reap_sweep(void **state)
{
	struct env *e = *state;
	struct map_file_id id = { .has_devino = true };
	const struct map *m;
	struct binary *kept;
	struct stat st;
	GElf_Phdr ph;
	const uint64_t s = 1000000000ull, t0 = mono_ns() + 3600 * s;
	struct hmap_node *n;
	size_t i;

	assert_int_equal(stat(true_path, &st), 0);
	id.maj = major(st.st_dev);
	id.min = minor(st.st_dev);
	id.ino = st.st_ino;
	m = map_text(&e->ps, FAKE_PID, true_path, BASE, &id, &ph);
	assert_non_null(m->bin);
	kept = m->bin;
	assert_int_equal(stat(other_path, &st), 0);
	id.ino = st.st_ino;
	m = map_text(&e->ps, FAKE_PID2, other_path, BASE, &id, &ph);
	assert_non_null(m->bin);
	assert_int_equal(e->bins.by_file.count, 2);

	/* Fake pids are not in /proc: found gone at once.  Here they lived until t0. */
	procs_find(&e->ps, FAKE_PID)->exited_ns = 0;
	procs_find(&e->ps, FAKE_PID2)->exited_ns = 0;
	procs_exit(&e->ps, FAKE_PID, t0);
	procs_exit(&e->ps, FAKE_PID2, t0);
	/* Within the grace: both kept, their binaries mapped. */
	assert_int_equal(procs_reap(&e->ps, t0 + s, 5 * s, false, NULL, NULL), 0);
	assert_non_null(procs_find(&e->ps, FAKE_PID));
	/* FAKE_PID2's pid is reused by a fork: alive again, never reaped (its parent is). */
	procs_fork(&e->ps, FAKE_PID3, FAKE_PID2);
	assert_int_equal(procs_reap(&e->ps, t0 + 6 * s, 5 * s, false, NULL, NULL), 2);
	assert_null(procs_find(&e->ps, FAKE_PID));
	assert_null(procs_find(&e->ps, FAKE_PID3));
	assert_non_null(procs_find(&e->ps, FAKE_PID2));

	/* true was sampled: it stays for its frames; other is unmapped after the fork. */
	kept->sampled = true;
	procs_mark_binaries(&e->ps, t0 + 6 * s);
	binary_cache_sweep(&e->bins, t0 + 9 * s, 2 * s, 0, 0, release_all, NULL);
	assert_int_equal(e->bins.by_file.count, 1);
	assert_int_equal(e->bins.swept, 1);
	hmap_for_each(&e->bins.by_file, i, n)
		assert_ptr_equal(n, &kept->node);
	assert_string_equal(kept->path, true_path);
}

/*
 * Binaries kept past their processes for their tables alone: their symbols
 * go at once, and at most max_kept keep a table (the least recently mapped
 * goes first), whatever the byte budget.
 */
static void test_sweep_kept_tables(void **state)
{
	struct env *e = *state;
	struct map_file_id id = { .has_devino = true };
	const uint64_t s = 1000000000ull, t0 = mono_ns() + 3600 * s;
	const struct map *m;
	struct binary *older, *newer;
	struct stat st;
	GElf_Phdr ph;

	assert_int_equal(stat(true_path, &st), 0);
	id.maj = major(st.st_dev);
	id.min = minor(st.st_dev);
	id.ino = st.st_ino;
	m = map_text(&e->ps, FAKE_PID, true_path, BASE, &id, &ph);
	older = m->bin;
	assert_int_equal(stat(other_path, &st), 0);
	id.ino = st.st_ino;
	m = map_text(&e->ps, FAKE_PID2, other_path, BASE, &id, &ph);
	newer = m->bin;
	assert_true(binary_table(&e->bins, older)->nr > 0);
	assert_true(binary_table(&e->bins, newer)->nr > 0);
	assert_non_null(binary_syms(older));
	assert_non_null(binary_syms(newer));

	/* Both exit; older's process first, so its binary was mapped last before. */
	procs_find(&e->ps, FAKE_PID)->exited_ns = 0;
	procs_find(&e->ps, FAKE_PID2)->exited_ns = 0;
	procs_exit(&e->ps, FAKE_PID, t0);
	procs_exit(&e->ps, FAKE_PID2, t0);
	procs_mark_binaries(&e->ps, t0);
	newer->last_mapped_ns = t0 + 1;
	assert_int_equal(procs_reap(&e->ps, t0 + 6 * s, 5 * s, false, NULL, NULL), 2);
	binary_cache_sweep(&e->bins, t0 + 9 * s, 2 * s, 1u << 30, 1, release_all, NULL);
	assert_int_equal(e->bins.by_file.count, 2);
	assert_int_equal(e->bins.syms_dropped, 2);
	assert_false(older->syms_opened);
	assert_false(newer->syms_opened);
	assert_int_equal(e->bins.tables_evicted, 1);
	assert_false(older->table_built);
	assert_true(newer->table_built);
	/* Without its table, older goes at the next sweep; newer's symbols open again. */
	binary_cache_sweep(&e->bins, t0 + 10 * s, 2 * s, 1u << 30, 1, release_all, NULL);
	assert_int_equal(e->bins.by_file.count, 1);
	assert_int_equal(e->bins.swept, 1);
	assert_non_null(binary_syms(newer));
	assert_true(newer->syms_opened);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_punch_holes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_random_model, setup, teardown),
		cmocka_unit_test_setup_teardown(test_find_map_bounds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bias_build_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_devino, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_identity, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lld_bias, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vdso, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exec_fork, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mmap_opened_when_looked_at, setup, teardown),
		cmocka_unit_test_setup_teardown(test_find_held, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tracking, setup, teardown),
		cmocka_unit_test_setup_teardown(test_self, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exit_reap_sweep, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sweep_kept_tables, setup, teardown),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
