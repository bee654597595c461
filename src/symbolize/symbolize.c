// SPDX-License-Identifier: GPL-2.0
/*
 * The symbolizer for one binary: glue between the merged symbol table
 * (symtab.c), separate debug information (debuginfo.c) and DWARF
 * (dwarf_src.c), plus a small cache because profiles repeat addresses.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/debug_cache.h"
#include "symbolize/demangle.h"
#include "symbolize/debuginfo.h"
#include "symbolize/dwarf_src.h"
#include "util/elf_util.h"
#include "util/hashmap.h"
#include "symbolize/symbolize.h"
#include "symbolize/plt.h"
#include "symbolize/symtab.h"

#define CACHE_SLOTS 256		/* power of two */
#define CACHE_FRAMES 8

enum {
	HAVE_SYMTAB = 1 << 0,
	HAVE_DYNSYM = 1 << 1,
	HAVE_MINIDEBUG = 1 << 2,
	HAVE_DWARF = 1 << 3,
};

enum dwarf_state { DWARF_UNTRIED, DWARF_READY, DWARF_ABSENT };

struct cache_slot {
	uint64_t vaddr;
	int n;			/* -1: empty */
	struct sym_frame frames[CACHE_FRAMES];
};

struct sym_source {
	Elf *elf;			/* borrowed */
	struct debug_file debug;
	struct minidebug mini;
	struct symtab symtab;
	unsigned int have;
	Elf *dwarf_elf;			/* which handle holds .debug_info, or NULL */
	enum dwarf_state dwarf_state;
	struct dwarf_src dwarf;
	struct debug_file dwarf_cached;	/* dwarf_elf decompressed, if cached */
	struct cache_slot *cache;	/* allocated on first lookup */
	struct hmap demangled;		/* mangled name (its pointer) -> struct readable */
	bool demangled_ready;
	char desc[80];
};

/* A mangled name of the source and its readable form, made once per name. */
struct readable {
	struct hmap_node node;
	const char *mangled;		/* the source's own string */
	char *name;			/* malloc'd; NULL if it does not demangle */
};

static bool has_dwarf(Elf *elf)
{
	struct elf_section sec;

	if (elf_find_section(elf, ".debug_info", &sec) == 0)
		return sec.type != SHT_NOBITS && sec.size > 0;
	return elf_find_section(elf, ".zdebug_info", &sec) == 0 && sec.size > 0;
}

static void add_table(struct sym_source *src, Elf *elf, uint32_t type, unsigned int flag)
{
	if (elf && symtab_add_elf(&src->symtab, elf, type) > 0)
		src->have |= flag;
}

static void describe(struct sym_source *src)
{
	static const char *const parts[] = { "symtab", "dynsym", "minidebuginfo", "dwarf" };
	size_t i, len = 0;

	src->desc[0] = '\0';
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		if (!(src->have & (1u << i)))
			continue;
		len += snprintf(src->desc + len, sizeof(src->desc) - len, "%s%s",
				len ? "+" : "", parts[i]);
	}
	if (len == 0)
		snprintf(src->desc, sizeof(src->desc), "none");
	else if (src->debug.origin != DEBUG_NONE)
		snprintf(src->desc + len, sizeof(src->desc) - len, "(%s)",
			 src->debug.origin == DEBUG_BUILD_ID ? "build-id" :
			 src->debug.origin == DEBUG_DEBUGLINK ? "debuglink" : "debuginfod");
}

static void load_symbols(struct sym_source *src, const char *path, const char *root)
{
	Elf *dbg;

	/* Local files first; a server only for a binary with no DWARF at all. */
	if (debug_file_find(src->elf, path, root, &src->debug) != 0 && !has_dwarf(src->elf))
		debug_file_fetch(src->elf, &src->debug);
	dbg = src->debug.elf;
	/* The debug file's .symtab is the complete one; MiniDebugInfo is the fallback. */
	if (!dbg && minidebug_open(src->elf, &src->mini) == 0)
		src->have |= HAVE_MINIDEBUG;
	add_table(src, src->elf, SHT_SYMTAB, HAVE_SYMTAB);
	add_table(src, dbg, SHT_SYMTAB, HAVE_SYMTAB);
	add_table(src, src->mini.elf, SHT_SYMTAB, 0);
	add_table(src, src->elf, SHT_DYNSYM, HAVE_DYNSYM);
	/* The stubs' bytes are in the binary itself, never in its debug file. */
	plt_add_stubs(&src->symtab, src->elf);
	symtab_finish(&src->symtab);
	if (dbg && has_dwarf(dbg))
		src->dwarf_elf = dbg;
	else if (has_dwarf(src->elf))
		src->dwarf_elf = src->elf;
	if (src->dwarf_elf)
		src->have |= HAVE_DWARF;
}

bool sym_source_wants_debuginfod(Elf *elf, const char *path, const char *root)
{
	return elf && elf_kind(elf) == ELF_K_ELF && !has_dwarf(elf) &&
	       !debug_file_exists(elf, path, root ? root : "");
}

struct sym_source *sym_source_open(Elf *elf, const char *path, const char *root)
{
	struct sym_source *src = calloc(1, sizeof(*src));

	if (!src)
		return NULL;
	src->elf = elf;
	src->debug.fd = -1;
	src->dwarf_cached.fd = -1;
	symtab_init(&src->symtab);
	elf_util_init();
	if (elf && elf_kind(elf) == ELF_K_ELF)
		load_symbols(src, path, root ? root : "");
	else
		symtab_finish(&src->symtab);
	if (!src->dwarf_elf)
		src->dwarf_state = DWARF_ABSENT;
	describe(src);
	return src;
}

void sym_source_free(struct sym_source *src)
{
	if (!src)
		return;
	if (src->dwarf_state == DWARF_READY)
		dwarf_src_close(&src->dwarf);
	debug_file_close(&src->dwarf_cached);
	symtab_free(&src->symtab);
	minidebug_close(&src->mini);
	debug_file_close(&src->debug);
	free(src->cache);
	if (src->demangled_ready) {
		struct hmap_node *node;
		size_t i;

		hmap_for_each(&src->demangled, i, node)
			free(((struct readable *)node)->name);
		hmap_free_all(&src->demangled);
	}
	free(src);
}

void sym_source_drop_pages(struct sym_source *src)
{
	if (!src)
		return;
	elf_image_drop_pages(src->debug.elf);
	elf_image_drop_pages(src->dwarf_cached.elf);
}

const char *sym_source_describe(const struct sym_source *src)
{
	return src ? src->desc : "none";
}

const char *sym_source_debug_path(const struct sym_source *src)
{
	return src && src->debug.elf ? src->debug.path : NULL;
}

static int lookup_symtab(struct sym_source *src, uint64_t vaddr, struct sym_frame *out)
{
	const struct symtab_sym *sym = symtab_lookup(&src->symtab, vaddr);

	if (!sym)
		return 0;
	memset(out, 0, sizeof(*out));
	out->name = sym->name;
	return 1;
}

static bool dwarf_ready(struct sym_source *src)
{
	Elf *elf = src->dwarf_elf;

	if (src->dwarf_state != DWARF_UNTRIED)
		return src->dwarf_state == DWARF_READY;
	/* Compressed sections: libdw would inflate them all, every run. */
	if (debug_cache_open(elf, &src->dwarf_cached) == 0)
		elf = src->dwarf_cached.elf;
	src->dwarf_state = dwarf_src_open(&src->dwarf, elf) == 0 ? DWARF_READY : DWARF_ABSENT;
	return src->dwarf_state == DWARF_READY;
}

static int lookup_uncached(struct sym_source *src, uint64_t vaddr, struct sym_frame *out,
			   int max)
{
	const struct symtab_sym *sym;
	bool cu_only;
	int n, i;

	if (!dwarf_ready(src))
		return lookup_symtab(src, vaddr, out);
	n = dwarf_src_lookup(&src->dwarf, vaddr, out, max, &cu_only);
	if (n == 0 && !cu_only)
		return lookup_symtab(src, vaddr, out);
	if (n == 0) {
		/* A line table but no function DIE: the symbol table names it, or nothing. */
		sym = symtab_lookup(&src->symtab, vaddr);
		if (!sym)
			return 0;
		out[0].name = sym->name;
		out[0].inlined = false;
		return 1;
	}
	/*
	 * The real (not inlined) function is named by the symbol table when
	 * one covers vaddr, as perf does: DWARF names of one address can be
	 * several and arbitrary (GNU as emits __getppid, __GI___getppid,
	 * getppid and __GI_getppid for one syscall stub; glibc's malloc is
	 * __libc_malloc in DWARF), while the alias rule of the symbol table
	 * picks the exported name.  DWARF keeps lines and inlined frames.
	 */
	for (i = 0; i < n; i++) {
		sym = out[i].inlined ? NULL : symtab_lookup(&src->symtab, vaddr);
		if (sym)
			out[i].name = sym->name;
		else if (!out[i].name)
			out[i].name = "??";
	}
	return n;
}

static struct cache_slot *cache_slot(struct sym_source *src, uint64_t vaddr)
{
	uint64_t h = vaddr * 0x9e3779b97f4a7c15ull;

	if (!src->cache) {
		size_t i;

		src->cache = malloc(CACHE_SLOTS * sizeof(*src->cache));
		if (!src->cache)
			return NULL;
		for (i = 0; i < CACHE_SLOTS; i++)
			src->cache[i].n = -1;
	}
	return &src->cache[h >> 56 & (CACHE_SLOTS - 1)];
}

static bool readable_eq(const struct hmap_node *node, const void *key)
{
	return ((const struct readable *)node)->mangled == key;
}

/*
 * name as people read it (demangle.h), owned by the source like name: a
 * symbol's name is one string of the source, so its pointer is its key.
 */
static const char *readable_name(struct sym_source *src, const char *name)
{
	struct readable *r;
	bool added;

	if (!demangle_wanted(name))
		return name;
	if (!src->demangled_ready) {
		if (hmap_init(&src->demangled, 64))
			return name;
		src->demangled_ready = true;
	}
	r = (struct readable *)hmap_find_or_add(&src->demangled, hash_u64((uintptr_t)name),
						readable_eq, name, sizeof(*r), &added);
	if (!r)
		return name;
	if (added) {
		r->mangled = name;
		r->name = demangle(name);
	}
	return r->name ? r->name : name;
}

int sym_source_lookup(struct sym_source *src, uint64_t vaddr, struct sym_frame *out, int max)
{
	struct cache_slot *slot;
	int n, i;

	if (!src || !out || max <= 0)
		return 0;
	slot = cache_slot(src, vaddr);
	if (slot && slot->n >= 0 && slot->vaddr == vaddr && slot->n <= max) {
		memcpy(out, slot->frames, slot->n * sizeof(*out));
		return slot->n;
	}
	n = lookup_uncached(src, vaddr, out, max);
	for (i = 0; i < n; i++)
		out[i].name = readable_name(src, out[i].name);
	/* A chain cut at max is not the whole answer: do not cache it. */
	if (slot && n <= CACHE_FRAMES && n < max) {
		slot->vaddr = vaddr;
		slot->n = n;
		memcpy(slot->frames, out, n * sizeof(*out));
	}
	return n;
}

/* The highest-addressed code label of elf's .symtab in [lo, vaddr], or NULL. */
static const char *label_below(Elf *elf, uint64_t lo, uint64_t vaddr, uint64_t *at)
{
	const char *best = NULL;
	Elf_Scn *scn = NULL;

	while (elf && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		n = d ? d->d_size / sh.sh_entsize : 0;
		for (i = 0; i < n; i++) {
			const char *name;
			GElf_Sym sym;
			int type;

			if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    sym.st_shndx >= SHN_LORESERVE || sym.st_value < lo ||
			    sym.st_value > vaddr || (best && sym.st_value <= *at))
				continue;
			type = GELF_ST_TYPE(sym.st_info);
			if (type != STT_NOTYPE && type != STT_FUNC)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (name && name[0] && name[0] != '.') {
				best = name;
				*at = sym.st_value;
			}
		}
		break;
	}
	return best;
}

const char *sym_source_entry_label(struct sym_source *src, uint64_t lo, uint64_t vaddr)
{
	const char *name;
	uint64_t at = 0;

	if (!src || vaddr < lo)
		return NULL;
	name = label_below(src->debug.elf, lo, vaddr, &at);
	return name ? name : label_below(src->elf, lo, vaddr, &at);
}

int sym_source_find_symbol(struct sym_source *src, const char *name, uint64_t *vaddr,
			   uint64_t *size)
{
	const struct symtab_sym *sym;

	if (!src || !name)
		return -ENOENT;
	sym = symtab_find_name(&src->symtab, name);
	if (!sym)
		return -ENOENT;
	if (vaddr)
		*vaddr = sym->addr;
	if (size)
		*size = sym->size;
	return 0;
}
