// SPDX-License-Identifier: GPL-2.0
/*
 * Symbolizer tests.  The fixture program (fixtures/sym_prog.c) is compiled at
 * run time into a temporary directory in every shape the symbolizer must
 * handle; expected line numbers come from its marker comments.
 */
#include <errno.h>
#include <fcntl.h>
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

#include "symbolize/debuginfo.h"
#include "util/elf_util.h"
#include "symbolize/demangle.h"
#include "symbolize/symbolize.h"
#include "symbolize/symtab.h"
#include "unit_helpers.h"

static char dir[64];	/* "/tmp/stitch_sym_XXXXXX" */
static unsigned int line_a, line_b, line_c, line_d;
/* From the unstripped PIE: where the stripped copies have their code. */
static uint64_t outer_addr, outer_size, exported_addr;

struct opened {
	int fd;
	Elf *elf;
	struct sym_source *src;
};

static unsigned int marker_line(const char *src, const char *marker)
{
	char line[512];
	unsigned int n = 0;
	FILE *f = fopen(src, "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, marker)) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	fail_msg("marker %s not found in %s", marker, src);
	return 0;
}

static struct opened open_bin(const char *rel, const char *path, const char *root)
{
	char full[PATH_MAX];
	struct opened o;

	snprintf(full, sizeof(full), "%s/%s", dir, rel);
	o.fd = open(full, O_RDONLY | O_CLOEXEC);
	if (o.fd < 0)
		fail_msg("open %s: %s", full, strerror(errno));
	o.elf = elf_begin(o.fd, ELF_C_READ_MMAP, NULL);
	assert_non_null(o.elf);
	o.src = sym_source_open(o.elf, path ? path : full, root);
	assert_non_null(o.src);
	return o;
}

static void close_bin(struct opened *o)
{
	sym_source_free(o->src);
	elf_end(o->elf);
	close(o->fd);
}

static const char *base(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path;
}

static int setup(void **state)
{
	char fixture[PATH_MAX], src[PATH_MAX], *slash;
	struct opened o;

	elf_util_init();
	snprintf(fixture, sizeof(fixture), "%s", __FILE__);
	slash = strrchr(fixture, '/');
	snprintf(slash ? slash + 1 : fixture, sizeof(fixture) - (slash ? slash + 1 - fixture : 0),
		 "fixtures/sym_prog.c");
	snprintf(dir, sizeof(dir), "/tmp/stitch_sym_XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(src, sizeof(src), "%s/sym_prog.c", dir);
	test_shell_ok("cp '%s' '%s'", fixture, src);
	line_a = marker_line(src, "/* LINE_A */");
	line_b = marker_line(src, "/* LINE_B */");
	line_c = marker_line(src, "/* LINE_C */");
	line_d = marker_line(src, "/* LINE_D */");
	test_shell_ok("cd '%s' && set -e\n"
	   "CF='-O2 -g -Wl,--export-dynamic-symbol=exported_func'\n"
	   "gcc $CF -DVARIANT=1 -fPIE -pie sym_prog.c -o pie\n"
	   "gcc $CF -DVARIANT=2 -fPIE -pie sym_prog.c -o pie2\n"
	   "gcc $CF -DVARIANT=1 -fno-pie -no-pie sym_prog.c -o nopie\n"
	   "strip -o stripped pie\n"
	   /* (d) debuglink next to the binary and in .debug/ */
	   "mkdir -p link dot/.debug\n"
	   "objcopy --only-keep-debug pie link/prog.debug\n"
	   "strip -o link/prog pie\n"
	   "objcopy --add-gnu-debuglink=link/prog.debug link/prog\n"
	   "cp link/prog dot/prog && cp link/prog.debug dot/.debug/prog.debug\n"
	   /* (e) build-id under a fake root */
	   "id=$(readelf -n pie | awk '/Build ID/ {print $3}')\n"
	   "d=$(echo $id | cut -c1-2); r=$(echo $id | cut -c3-)\n"
	   "mkdir -p root/usr/bin root/usr/lib/debug/.build-id/$d\n"
	   "strip -o root/usr/bin/prog pie\n"
	   "objcopy --only-keep-debug pie root/usr/lib/debug/.build-id/$d/$r.debug\n"
	   /* the same place holding another build's debug file: must be refused */
	   "mkdir -p badroot/usr/bin badroot/usr/lib/debug/.build-id/$d\n"
	   "strip -o badroot/usr/bin/prog pie\n"
	   "objcopy --only-keep-debug pie2 badroot/usr/lib/debug/.build-id/$d/$r.debug\n"
	   /* (f) MiniDebugInfo, the way Fedora's find-debuginfo makes it */
	   "nm -D pie --format=posix --defined-only | awk '{print $1}' | sort > dynsyms\n"
	   "nm pie --format=posix --defined-only | awk '$2 ~ /^[Tt]$/ {print $1}' | sort > funcsyms\n"
	   "comm -13 dynsyms funcsyms > keep\n"
	   "objcopy --only-keep-debug pie full.debug\n"
	   "objcopy -S --remove-section .gdb_index --remove-section .comment "
	   "--keep-symbols=keep full.debug mini\n"
	   "xz -f mini\n"
	   "strip -o minidebug pie\n"
	   "objcopy --add-section .gnu_debugdata=mini.xz minidebug\n"
	   /* (g) debuglink with a wrong CRC, and with the right CRC of a wrong build */
	   "mkdir -p badcrc badid\n"
	   "strip -o badcrc/prog pie && objcopy --only-keep-debug pie badcrc/prog.debug\n"
	   "objcopy --add-gnu-debuglink=badcrc/prog.debug badcrc/prog\n"
	   "printf x >> badcrc/prog.debug\n"
	   "strip -o badid/prog pie && objcopy --only-keep-debug pie2 badid/prog.debug\n"
	   "objcopy --add-gnu-debuglink=badid/prog.debug badid/prog\n",
	   dir);
	o = open_bin("pie", NULL, "");
	if (sym_source_find_symbol(o.src, "outer_func", &outer_addr, &outer_size) != 0 ||
	    sym_source_find_symbol(o.src, "exported_func", &exported_addr, NULL) != 0)
		return -1;
	close_bin(&o);
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	if (dir[0] && !getenv("STITCH_KEEP_FIXTURES")) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		return system(cmd) == 0 ? 0 : -1;
	}
	return 0;
}

/* Everything DWARF must give for the fixture, wherever the DWARF came from. */
static void check_dwarf(struct sym_source *src)
{
	uint64_t addr, size, exp, pc;
	bool saw_inline = false, saw_line_c = false, saw_line_d = false;
	struct sym_frame f[8], g[8];
	int n;

	assert_non_null(strstr(sym_source_describe(src), "dwarf"));
	assert_int_equal(sym_source_find_symbol(src, "outer_func", &addr, &size), 0);
	assert_int_equal(sym_source_find_symbol(src, "exported_func", &exp, NULL), 0);
	assert_true(size > 0 && addr + size < exp);
	for (pc = addr; pc < addr + size; pc++) {
		n = sym_source_lookup(src, pc, f, 8);
		if (n < 1)
			fail_msg("nothing at %#lx inside outer_func", (unsigned long)pc);
		assert_string_equal(f[n - 1].name, "outer_func");
		assert_false(f[n - 1].inlined);
		assert_string_equal(base(f[0].file), "sym_prog.c");
		if (n == 2) {
			assert_string_equal(f[0].name, "leaf_inline");
			assert_true(f[0].inlined);
			assert_string_equal(base(f[1].file), "sym_prog.c");
			assert_int_equal(f[1].line, line_b);	/* the call site */
			saw_inline |= f[0].line == line_a;
		} else {
			assert_int_equal(n, 1);
			saw_line_c |= f[0].line == line_c;
		}
	}
	assert_true(saw_inline);
	assert_true(saw_line_c);
	for (pc = exp; pc < exp + 32; pc++) {
		n = sym_source_lookup(src, pc, f, 8);
		if (n >= 1 && strcmp(f[0].name, "exported_func") == 0 && f[0].line == line_d)
			saw_line_d = true;
	}
	assert_true(saw_line_d);
	/* Padding before the 256-aligned exported_func belongs to no function. */
	assert_int_equal(sym_source_lookup(src, exp - 1, f, 8), 0);
	/* A chain cut by max, then the full one again (the cache must not mix them). */
	for (pc = addr; pc < addr + size; pc++) {
		if (sym_source_lookup(src, pc, f, 8) != 2)
			continue;
		assert_int_equal(sym_source_lookup(src, pc, g, 1), 1);
		assert_string_equal(g[0].name, "leaf_inline");
		assert_int_equal(sym_source_lookup(src, pc, g, 8), 2);
		assert_string_equal(g[1].name, "outer_func");
		break;
	}
}

/* Symbol tables only: one frame, no file. */
static void check_symbols_only(struct sym_source *src, bool has_outer)
{
	struct sym_frame f[8];
	uint64_t a, sz;

	assert_null(strstr(sym_source_describe(src), "dwarf"));
	assert_int_equal(sym_source_lookup(src, exported_addr + 3, f, 8), 1);
	assert_string_equal(f[0].name, "exported_func");
	assert_null(f[0].file);
	assert_int_equal(f[0].line, 0);
	assert_false(f[0].inlined);
	assert_int_equal(sym_source_lookup(src, exported_addr - 1, f, 8), 0);
	if (has_outer) {
		assert_int_equal(sym_source_lookup(src, outer_addr + outer_size - 1, f, 8), 1);
		assert_string_equal(f[0].name, "outer_func");
		assert_null(f[0].file);
		assert_int_equal(sym_source_find_symbol(src, "outer_func", &a, &sz), 0);
		assert_int_equal(a, outer_addr);
		assert_int_equal(sz, outer_size);
	} else {
		/* A static function of a stripped binary: no name is the truth. */
		assert_int_equal(sym_source_lookup(src, outer_addr, f, 8), 0);
		assert_int_equal(sym_source_find_symbol(src, "outer_func", &a, &sz), -ENOENT);
	}
	assert_int_equal(sym_source_lookup(src, outer_addr + outer_size, f, 8), 0);
}

static void test_pie_debug(void **state)
{
	struct opened o = open_bin("pie", NULL, "");

	assert_string_equal(sym_source_describe(o.src), "symtab+dynsym+dwarf");
	assert_null(sym_source_debug_path(o.src));
	check_dwarf(o.src);
	close_bin(&o);
}

static void test_nopie(void **state)
{
	struct opened o = open_bin("nopie", NULL, "");
	uint64_t addr;

	assert_int_equal(sym_source_find_symbol(o.src, "main", &addr, NULL), 0);
	assert_true(addr >= 0x400000);		/* absolute addresses, no bias */
	check_dwarf(o.src);
	close_bin(&o);
}

static void test_stripped(void **state)
{
	struct opened o = open_bin("stripped", NULL, "");

	assert_string_equal(sym_source_describe(o.src), "dynsym");
	check_symbols_only(o.src, false);
	close_bin(&o);
}

static void test_debuglink(void **state)
{
	struct opened o = open_bin("link/prog", NULL, "");

	assert_string_equal(sym_source_describe(o.src), "symtab+dynsym+dwarf(debuglink)");
	assert_string_equal(base(sym_source_debug_path(o.src)), "prog.debug");
	check_dwarf(o.src);
	close_bin(&o);
}

static void test_debuglink_dot_debug(void **state)
{
	struct opened o = open_bin("dot/prog", NULL, "");

	assert_string_equal(sym_source_describe(o.src), "symtab+dynsym+dwarf(debuglink)");
	assert_non_null(strstr(sym_source_debug_path(o.src), "/.debug/prog.debug"));
	check_dwarf(o.src);
	close_bin(&o);
}

static void test_build_id_under_root(void **state)
{
	char root[PATH_MAX];
	struct opened o;

	snprintf(root, sizeof(root), "%s/root", dir);
	o = open_bin("root/usr/bin/prog", "/usr/bin/prog", root);
	assert_string_equal(sym_source_describe(o.src), "symtab+dynsym+dwarf(build-id)");
	assert_non_null(strstr(sym_source_debug_path(o.src), "/usr/lib/debug/.build-id/"));
	check_dwarf(o.src);
	close_bin(&o);
}

static void test_build_id_mismatch(void **state)
{
	char root[PATH_MAX];
	struct opened o;

	snprintf(root, sizeof(root), "%s/badroot", dir);
	o = open_bin("badroot/usr/bin/prog", "/usr/bin/prog", root);
	assert_null(sym_source_debug_path(o.src));
	assert_string_equal(sym_source_describe(o.src), "dynsym");
	check_symbols_only(o.src, false);
	close_bin(&o);
}

static void test_minidebuginfo(void **state)
{
	struct opened o = open_bin("minidebug", NULL, "");

	assert_string_equal(sym_source_describe(o.src), "dynsym+minidebuginfo");
	check_symbols_only(o.src, true);
	close_bin(&o);
}

static void test_debuglink_bad_crc(void **state)
{
	struct opened o = open_bin("badcrc/prog", NULL, "");
	char name[256];
	uint32_t crc;

	assert_int_equal(debuglink_read(o.elf, name, sizeof(name), &crc), 0);
	assert_string_equal(name, "prog.debug");
	assert_null(sym_source_debug_path(o.src));
	assert_string_equal(sym_source_describe(o.src), "dynsym");
	check_symbols_only(o.src, false);
	close_bin(&o);
}

static void test_debuglink_wrong_build(void **state)
{
	struct opened o = open_bin("badid/prog", NULL, "");

	assert_null(sym_source_debug_path(o.src));
	assert_string_equal(sym_source_describe(o.src), "dynsym");
	close_bin(&o);
}

static void *read_all(const char *rel, size_t *len)
{
	char full[PATH_MAX];

	snprintf(full, sizeof(full), "%s/%s", dir, rel);
	return test_read_file(full, len);
}

/* Open and query a (damaged) image; all that matters is not crashing. */
static void poke(char *img, size_t len, const char *root)
{
	struct sym_frame f[8];
	struct sym_source *src;
	Elf *elf = elf_memory(img, len);
	uint64_t v;
	int i;

	src = sym_source_open(elf, "/nonexistent/prog", root);
	assert_non_null(src);
	assert_non_null(sym_source_describe(src));
	for (i = 0; i < 64; i++)
		sym_source_lookup(src, outer_addr - 32 + i * 7, f, 8);
	sym_source_lookup(src, exported_addr, f, 8);
	sym_source_find_symbol(src, "outer_func", &v, NULL);
	sym_source_free(src);
	if (elf)
		elf_end(elf);
}

static void test_corrupt_elf(void **state)
{
	static const char *const files[] = { "pie", "link/prog.debug", "minidebug" };
	size_t len, cut, k, i;
	char *orig, *img;
	unsigned int seed = 1234;

	for (k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
		orig = read_all(files[k], &len);
		img = malloc(len);
		assert_non_null(img);
		/* Truncations, including inside the headers and the section table. */
		for (cut = 0; cut < len; cut = cut < 256 ? cut + 13 : cut + len / 17) {
			memcpy(img, orig, cut);
			poke(img, cut, "/nonexistent");
		}
		/* Random byte damage, concentrated on the ELF and section headers. */
		for (i = 0; i < 300; i++) {
			int j;

			memcpy(img, orig, len);
			for (j = 0; j < 8; j++) {
				size_t at = (size_t)rand_r(&seed) % (i % 2 ? 128 : len);

				img[at] = (char)rand_r(&seed);
			}
			poke(img, len, "");
		}
		/* The section header table itself scrambled. */
		memcpy(img, orig, len);
		for (i = len - len / 8; i < len; i++)
			img[i] = (char)rand_r(&seed);
		poke(img, len, "");
		free(img);
		free(orig);
	}
}

static void test_minidebug_garbage(void **state)
{
	static const char not_xz[] = "\xfd" "7zXZ\0 this is not an xz stream";
	struct minidebug md;
	size_t len;
	char *xz = read_all("mini.xz", &len);

	assert_int_equal(minidebug_open_image(xz, len, &md), 0);
	assert_non_null(md.elf);
	minidebug_close(&md);
	assert_true(minidebug_open_image(xz, len / 2, &md) < 0);
	assert_true(minidebug_open_image(not_xz, sizeof(not_xz), &md) < 0);
	free(xz);
}

static void test_empty_and_null(void **state)
{
	struct sym_frame f[4];
	struct sym_source *src = sym_source_open(NULL, NULL, NULL);
	char junk[64] = "not an elf at all";
	Elf *elf;

	assert_non_null(src);
	assert_string_equal(sym_source_describe(src), "none");
	assert_int_equal(sym_source_lookup(src, 0x1000, f, 4), 0);
	assert_int_equal(sym_source_find_symbol(src, "main", NULL, NULL), -ENOENT);
	sym_source_free(src);
	elf = elf_memory(junk, sizeof(junk));
	src = sym_source_open(elf, "/x", "");
	assert_string_equal(sym_source_describe(src), "none");
	sym_source_free(src);
	elf_end(elf);
}

/* A real, big library: versions stripped, aliases resolve, uprobe lookup works. */
static void test_libc(void **state)
{
	static const char path[] = "/lib/x86_64-linux-gnu/libc.so.6";
	const struct symtab_sym *sym;
	struct symtab st;
	struct sym_frame f[8];
	struct sym_source *src;
	uint64_t addr, size;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;

	if (fd < 0)
		fail_msg("%s missing", path);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	src = sym_source_open(elf, path, "");
	assert_int_equal(sym_source_find_symbol(src, "malloc", &addr, &size), 0);
	assert_true(size > 0);
	assert_int_equal(sym_source_lookup(src, addr + size - 1, f, 8), 1);
	/*
	 * The symbol table names real functions even with libc6-dbg's DWARF
	 * (whose DW_AT_name is __libc_malloc): the shorter GLOBAL alias wins.
	 */
	assert_string_equal(f[0].name, "malloc");
	/* getppid's stub has four DWARF subprograms; the exported name wins. */
	assert_int_equal(sym_source_find_symbol(src, "getppid", &addr, &size), 0);
	assert_int_equal(sym_source_lookup(src, addr, f, 8), 1);
	assert_string_equal(f[0].name, "getppid");
	assert_true(sym_source_find_symbol(src, "memcpy@@GLIBC_2.14", &addr, NULL) == -ENOENT);
	assert_int_equal(sym_source_find_symbol(src, "memcpy", &addr, &size), 0);
	sym_source_free(src);
	/* .dynsym alone: malloc and its WEAK/LOCAL twins, one name per address. */
	symtab_init(&st);
	assert_true(symtab_add_elf(&st, elf, SHT_DYNSYM) > 1000);
	assert_int_equal(symtab_finish(&st), 0);
	sym = symtab_find_name(&st, "malloc");
	assert_non_null(sym);
	assert_string_equal(symtab_lookup(&st, sym->addr + 1)->name, "malloc");
	assert_null(strchr(symtab_lookup(&st, sym->addr)->name, '@'));
	symtab_free(&st);
	elf_end(elf);
	close(fd);
}

/* A program's DT_NEEDED, read from its dynamic section (-e alloc's -- COMMAND). */
static void test_elf_needs(void **state)
{
	int fd;
	Elf *elf = elf_open_file("/proc/self/exe", &fd);

	(void)state;
	assert_non_null(elf);
	assert_true(elf_needs(elf, "libc.so.6"));
	assert_false(elf_needs(elf, "libc.so"));
	assert_false(elf_needs(elf, "libjemalloc.so.2"));
	elf_end(elf);
	close(fd);
	/* libc needs the loader, and nothing of the sort in a file with no dynamic section */
	elf = elf_open_file("/lib/x86_64-linux-gnu/libc.so.6", &fd);
	assert_non_null(elf);
	assert_true(elf_needs(elf, "ld-linux-x86-64.so.2"));
	assert_false(elf_needs(elf, "libc.so.6"));
	elf_end(elf);
	close(fd);
}

/*
 * C++ names as people read them, from DWARF's linkage names and from the
 * symbol table alike; names the demangler cannot read stay as they are.
 */
static void test_cxx_demangled(void **state)
{
	static const char *const bins[] = { "cxx", "cxx_stripped" };
	const char *mangled = "_ZN2ns6WidgetIiE4spinEl";
	unsigned int i;
	char *long_name;

	test_shell_ok("cd '%s' && set -e\n"
		      "printf '%%s\\n' 'namespace ns { template <class T> struct Widget {' "
		      "'  T v; __attribute__((noinline)) T spin(long n) { while (n--) v += n; return v; }' "
		      "'}; }' 'int main(int c, char **) { ns::Widget<int> w{c}; return w.spin(c); }' "
		      ">cxx.cc\n"
		      "g++ -O1 -g cxx.cc -o cxx\n"
		      "strip --strip-debug -o cxx_stripped cxx\n", dir);
	for (i = 0; i < 2; i++) {
		struct opened o = open_bin(bins[i], NULL, "");
		struct sym_frame f[8];
		uint64_t addr, size;
		int n;

		assert_int_equal(sym_source_find_symbol(o.src, mangled, &addr, &size), 0);
		n = sym_source_lookup(o.src, addr + 1, f, 8);
		assert_int_equal(n, 1);
		assert_string_equal(f[0].name, "ns::Widget<int>::spin(long)");
		/* the second time from the source's cache: the same string */
		assert_int_equal(sym_source_lookup(o.src, addr + 1, f, 8), 1);
		assert_string_equal(f[0].name, "ns::Widget<int>::spin(long)");
		close_bin(&o);
	}
	assert_null(demangle("main"));
	assert_null(demangle("_Z"));
	assert_null(demangle("_Zfoo"));
	long_name = demangle("_ZN4node5StartEiPPc");
	assert_string_equal(long_name, "node::Start(int, char**)");
	free(long_name);
	long_name = malloc(DEMANGLE_MAX_IN + 2);
	assert_non_null(long_name);
	memset(long_name, 'a', DEMANGLE_MAX_IN + 1);
	memcpy(long_name, "_ZN1a", 5);
	long_name[DEMANGLE_MAX_IN + 1] = 0;
	assert_null(demangle(long_name));
	free(long_name);
}

/* symtab_lookup's name for addr in the ELF file rel of the test directory, or NULL. */
static const char *symtab_name_in(const char *rel, uint32_t sh_type, const char *label,
				  uint64_t off, char *buf, size_t len)
{
	char full[PATH_MAX];
	const struct symtab_sym *sym;
	struct symtab st, names;
	const char *name = NULL;
	int fd;
	Elf *elf;

	snprintf(full, sizeof(full), "%s/%s", dir, rel);
	fd = open(full, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	assert_non_null(elf);
	symtab_init(&st);
	symtab_init(&names);
	symtab_add_elf(&st, elf, sh_type);
	/* The label's address from the unstripped file's .symtab, which has them all. */
	symtab_add_elf(&names, elf, SHT_SYMTAB);
	symtab_add_elf(&names, elf, SHT_DYNSYM);
	assert_int_equal(symtab_finish(&st), 0);
	assert_int_equal(symtab_finish(&names), 0);
	sym = symtab_find_name(&names, label);
	if (!sym)
		fail_msg("no %s in %s", label, rel);
	sym = symtab_lookup(&st, sym->addr + off);
	if (sym) {
		snprintf(buf, len, "%s", sym->name);
		name = buf;
	}
	symtab_free(&names);
	symtab_free(&st);
	elf_end(elf);
	close(fd);
	return name;
}

/*
 * A zero-sized .symtab label names the code after it up to the next symbol
 * or its section's end (crtstuff's __do_global_dtors_aux calls __cxa_finalize
 * at every program's exit); a .dynsym label only its own address; the code
 * after a sized function's end or an inner label's function is nobody's.
 */
static void test_zero_sized_labels(void **state)
{
	char b[128];

	test_shell_ok("cd '%s' && set -e\n"
		      "cat >labels.s <<'EOF'\n"
		      "\t.text\n"
		      "\t.globl lab_exported\n"
		      "\t.type lab_exported, @function\n"
		      "lab_exported:\n"
		      "\tnop\n\tnop\n\tnop\n\tret\n"
		      "\t.p2align 4\n"
		      "\t.type sized_fn, @function\n"
		      "sized_fn:\n"
		      "\tnop\n"
		      "\t.type inner, @function\n"
		      "inner:\n"
		      "\tnop\n\tret\n"
		      "\t.size sized_fn, .-sized_fn\n"
		      "\tnop\n\tnop\n\tnop\n\tnop\n"
		      "\t.p2align 4\n"
		      "\t.type last_label, @function\n"
		      "last_label:\n"
		      "\tnop\n\tret\n"
		      "EOF\n"
		      "gcc -nostdlib -shared -Wl,-z,noexecstack labels.s -o labels.so\n"
		      "strip -o labels_stripped.so labels.so\n", dir);
	assert_string_equal(symtab_name_in("labels.so", SHT_SYMTAB, "lab_exported", 0, b, 128),
			    "lab_exported");
	assert_string_equal(symtab_name_in("labels.so", SHT_SYMTAB, "lab_exported", 3, b, 128),
			    "lab_exported");
	/* Up to its section's end, not past it (.text ends after last_label's ret). */
	assert_string_equal(symtab_name_in("labels.so", SHT_SYMTAB, "last_label", 1, b, 128),
			    "last_label");
	assert_null(symtab_name_in("labels.so", SHT_SYMTAB, "last_label", 2, b, 128));
	/* sized_fn is 3 bytes; its inner label does not name what follows it. */
	assert_string_equal(symtab_name_in("labels.so", SHT_SYMTAB, "sized_fn", 2, b, 128),
			    "sized_fn");
	assert_null(symtab_name_in("labels.so", SHT_SYMTAB, "sized_fn", 4, b, 128));
	/* From .dynsym, an exported label may be followed by a static function. */
	assert_string_equal(symtab_name_in("labels.so", SHT_DYNSYM, "lab_exported", 0, b, 128),
			    "lab_exported");
	assert_null(symtab_name_in("labels.so", SHT_DYNSYM, "lab_exported", 3, b, 128));
}

/* The exit path every gcc program runs: __cxa_finalize's caller has a name. */
static void test_crtstuff_named(void **state)
{
	static const char *const bins[] = { "pie", "link/prog" };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct opened o = open_bin(bins[i], NULL, "");
		struct sym_frame f[8];
		uint64_t addr, size;

		assert_int_equal(sym_source_find_symbol(o.src, "__do_global_dtors_aux",
							&addr, &size), 0);
		assert_int_equal(size, 0);
		assert_int_equal(sym_source_lookup(o.src, addr + 0x20, f, 8), 1);
		assert_string_equal(f[0].name, "__do_global_dtors_aux");
		close_bin(&o);
	}
}

/*
 * PLT stubs are named after the GOT slot they jump through, in every layout
 * ld makes: lazy .plt, .plt.got (the function's address also taken), and
 * IBT's .plt.sec; PLT0 stays unnamed.
 */
static void test_plt_stubs(void **state)
{
	static const char *const bins[] = { "plt_lazy", "plt_ibt", "plt_now" };
	unsigned int i;

	test_shell_ok("cd '%s' && set -e\n"
		      "printf '%%s\\n' '#include <unistd.h>' '#include <stdlib.h>' "
		      "'pid_t (*volatile taken)(void) = getppid;' "
		      "'int main(void) { return getpid() + (int)taken() + abs(getppid()); }' >plt.c\n"
		      "gcc -O1 -fcf-protection=none plt.c -o plt_lazy\n"
		      "gcc -O1 -fcf-protection=full -Wl,-z,ibtplt plt.c -o plt_ibt\n"
		      "gcc -O1 -Wl,-z,now plt.c -o plt_now\n", dir);
	for (i = 0; i < 3; i++) {
		struct opened o = open_bin(bins[i], NULL, "");
		char cmd[PATH_MAX + 128], line[256];
		unsigned int found = 0;
		FILE *p;

		/* objdump's own names for the stubs are the reference. */
		snprintf(cmd, sizeof(cmd),
			 "objdump -d '%s/%s' | sed -n 's/^\\([0-9a-f]*\\) <\\(.*@plt\\)>:$/\\1 \\2/p'",
			 dir, bins[i]);
		p = popen(cmd, "r");
		assert_non_null(p);
		while (fgets(line, sizeof(line), p)) {
			unsigned long long addr;
			char name[128];
			struct sym_frame f[4];

			if (sscanf(line, "%llx %127s", &addr, name) != 2)
				continue;
			assert_int_equal(sym_source_lookup(o.src, addr, f, 4), 1);
			assert_string_equal(f[0].name, name);
			assert_int_equal(sym_source_lookup(o.src, addr + 5, f, 4), 1);
			assert_string_equal(f[0].name, name);
			found++;
		}
		pclose(p);
		if (found < 3)
			fail_msg("%s: %u stubs from objdump, expected getpid, getppid and "
				 "__cxa_finalize (in .plt.got)",
				 bins[i], found);
		close_bin(&o);
	}
		{
		struct opened o = open_bin("plt_lazy", NULL, "");
		struct elf_section plt;
		struct sym_frame f[4];

		assert_int_equal(elf_find_section(o.elf, ".plt", &plt), 0);
		/* PLT0, the resolver's entry, names nothing. */
		assert_int_equal(sym_source_lookup(o.src, plt.addr, f, 4), 0);
		close_bin(&o);
	}
}

/*
 * A stub whose slot an IFUNC of the binary's own fills (R_X86_64_IRELATIVE,
 * objdump's *ABS*+0xVALUE@plt) is named after an IFUNC symbol whose value
 * is the relocation's addend: a local one in a PIE, glibc's string functions
 * in a static binary and in libc.so.6 itself.
 */
static void test_plt_irelative_stubs(void **state)
{
	static const struct {
		const char *bin;
		unsigned int at_least;
	} bins[] = { { "plt_ifunc", 1 }, { "libc_copy.so.6", 30 } };
	unsigned int i;

	test_shell_ok("cd '%s' && set -e\n"
		      "printf '%%s\\n' '#include <string.h>' 'static int impl(void) { return 42; }' "
		      "'static void *resolve_pick(void) { return impl; }' "
		      "'int pick(void) __attribute__((ifunc(\"resolve_pick\")));' "
		      "'int main(int argc, char **argv) { return pick() + (int)strlen(argv[0]); }' "
		      ">ifunc.c\n"
		      "gcc -O1 -fcf-protection=none ifunc.c -o plt_ifunc\n"
		      "gcc -O1 -static ifunc.c -o plt_static\n"
		      "cp /lib/x86_64-linux-gnu/libc.so.6 libc_copy.so.6\n", dir);
	for (i = 0; i < sizeof(bins) / sizeof(bins[0]); i++) {
		struct opened o = open_bin(bins[i].bin, NULL, "");
		char cmd[2 * PATH_MAX + 512], line[4096];
		unsigned int named = 0, stubs = 0;
		FILE *p;

		/* Each stub's address, then the IFUNC symbols at its addend (readelf's). */
		snprintf(cmd, sizeof(cmd),
			 "objdump -d '%s/%s' | sed -n 's/^\\([0-9a-f]*\\) <\\*ABS\\*+0x\\([0-9a-f]*\\)@plt>:$/\\1 \\2/p' | "
			 "while read a v; do printf '%%s ,%%s\\n' $a \"$(readelf -sW '%s/%s' | "
			 "awk -v v=$(printf %%016x 0x$v) '$2 == v && $4 == \"IFUNC\" { sub(/@.*/, \"\", $8); print $8 }' | "
			 "sort -u | tr '\\n' ,)\"; done",
			 dir, bins[i].bin, dir, bins[i].bin);
		p = popen(cmd, "r");
		assert_non_null(p);
		while (fgets(line, sizeof(line), p)) {
			unsigned long long addr;
			char names[3072], want[160];
			struct sym_frame f[4];
			size_t len;

			if (sscanf(line, "%llx %3071s", &addr, names) != 2)
				continue;
			stubs++;
			if (strcmp(names, ",") == 0)
				continue;	/* no IFUNC symbol at the addend: nothing to name it by */
			assert_int_equal(sym_source_lookup(o.src, addr, f, 4), 1);
			len = strlen(f[0].name);
			if (len < 5 || strcmp(f[0].name + len - 4, "@plt") != 0)
				fail_msg("%s: %llx named %s, not a stub's name", bins[i].bin, addr,
					 f[0].name);
			snprintf(want, sizeof(want), ",%.*s,", (int)(len - 4), f[0].name);
			if (!strstr(names, want))
				fail_msg("%s: %llx named %s, expected one of %s@plt", bins[i].bin, addr,
					 f[0].name, names);
			named++;
		}
		pclose(p);
		if (named < bins[i].at_least)
			fail_msg("%s: %u IRELATIVE stubs named of %u, expected at least %u",
				 bins[i].bin, named, stubs, bins[i].at_least);
		close_bin(&o);
	}
	/* Static: 8-byte entries objdump does not name; pick's and strlen's among them. */
	{
		struct opened o = open_bin("plt_static", NULL, "");
		struct elf_section plt;
		struct sym_frame f[4];
		bool pick = false, str = false;
		unsigned int named = 0;
		uint64_t a;

		assert_int_equal(elf_find_section(o.elf, ".plt", &plt), 0);
		for (a = plt.addr; a < plt.addr + plt.size; a += 8) {
			if (sym_source_lookup(o.src, a, f, 4) != 1)
				continue;
			named++;
			pick |= strcmp(f[0].name, "pick@plt") == 0;
			str |= strcmp(f[0].name, "strlen@plt") == 0;
			/* Its second half (the xchg padding) is its own, not the next stub's. */
			assert_int_equal(sym_source_lookup(o.src, a + 7, f + 1, 3), 1);
			assert_string_equal(f[1].name, f[0].name);
		}
		assert_true(pick);
		assert_true(str);
		assert_true(named >= 5);
		close_bin(&o);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pie_debug),
		cmocka_unit_test(test_nopie),
		cmocka_unit_test(test_stripped),
		cmocka_unit_test(test_debuglink),
		cmocka_unit_test(test_debuglink_dot_debug),
		cmocka_unit_test(test_build_id_under_root),
		cmocka_unit_test(test_build_id_mismatch),
		cmocka_unit_test(test_minidebuginfo),
		cmocka_unit_test(test_debuglink_bad_crc),
		cmocka_unit_test(test_debuglink_wrong_build),
		cmocka_unit_test(test_corrupt_elf),
		cmocka_unit_test(test_minidebug_garbage),
		cmocka_unit_test(test_empty_and_null),
		cmocka_unit_test(test_libc),
		cmocka_unit_test(test_elf_needs),
		cmocka_unit_test(test_cxx_demangled),
		cmocka_unit_test(test_zero_sized_labels),
		cmocka_unit_test(test_crtstuff_named),
		cmocka_unit_test(test_plt_stubs),
		cmocka_unit_test(test_plt_irelative_stubs),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
