// SPDX-License-Identifier: GPL-2.0
/*
 * Merged ELF function symbol table.
 *
 * Alias rule: several symbols may start at one address (memcpy and
 * __memcpy_avx_unaligned, a GLOBAL and its LOCAL twin from another table).
 * We keep one name per start address, preferring GLOBAL over WEAK over LOCAL,
 * then the shorter name, then the one added first (tables are added as
 * .symtab, debug-file .symtab, MiniDebugInfo .symtab, .dynsym).  Its range is
 * the longest size among the aliases, so no address that one of them covers
 * is lost.  Every alias stays findable by name for uprobe targets.
 *
 * Zero-sized symbols (hand-written assembly without .size, and crtstuff's
 * __do_global_dtors_aux, frame_dummy, register_tm_clones, which every gcc
 * program links) have no range of their own.  From a .symtab, which lists
 * every function, static ones included, a label names the code after it up
 * to the next symbol, as perf does: no other function can start in between
 * without a symbol of its own.  The reach stops at the label's section's end
 * and at SYMTAB_ZERO_REACH bytes.  Without it, __cxa_finalize's caller at
 * every program's exit was chain+0x15b7 (1 sample in ~30,000 of a 2 s run).
 * A .dynsym lists exported functions only, so a static function may follow
 * an exported label there: its zero-sized labels name their exact address.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/symtab.h"
#include "util/array.h"

#define NAME_CHUNK_SIZE (64 * 1024)

/* Names live in chunks so that pointers to them never move. */
struct name_chunk {
	struct name_chunk *next;
	size_t used, size;
	char buf[];
};

void symtab_init(struct symtab *st)
{
	memset(st, 0, sizeof(*st));
}

void symtab_free(struct symtab *st)
{
	struct name_chunk *c = st->names, *next;

	for (; c; c = next) {
		next = c->next;
		free(c);
	}
	free(st->all);
	free(st->by_addr);
	free(st->cover_end);
	free(st->zero);
	memset(st, 0, sizeof(*st));
}

static const char *intern_name(struct symtab *st, const char *name, size_t len)
{
	struct name_chunk *c = st->names;
	char *p;

	if (!c || c->size - c->used < len + 1) {
		size_t size = len + 1 > NAME_CHUNK_SIZE ? len + 1 : NAME_CHUNK_SIZE;

		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->used = 0;
		c->size = size;
		c->next = st->names;
		st->names = c;
	}
	p = c->buf + c->used;
	memcpy(p, name, len);
	p[len] = '\0';
	c->used += len + 1;
	return p;
}

/* "memcpy@@GLIBC_2.14" names the same function as "memcpy". */
static size_t unversioned_len(const char *name)
{
	const char *at = strchr(name, '@');
	size_t len = at && at != name ? (size_t)(at - name) : strlen(name);

	return len > SYMTAB_MAX_NAME ? SYMTAB_MAX_NAME : len;
}

static uint8_t binding_rank(unsigned char bind)
{
	switch (bind) {
	case STB_GLOBAL:
		return 0;
	case STB_WEAK:
		return 1;
	case STB_LOCAL:
		return 2;
	default:
		return 3;
	}
}

/* sym's section holds code. */
static bool in_code(Elf *elf, const GElf_Sym *sym)
{
	Elf_Scn *scn;
	GElf_Shdr shdr;

	if (sym->st_shndx >= SHN_LORESERVE)
		return false;
	scn = elf_getscn(elf, sym->st_shndx);
	return scn && gelf_getshdr(scn, &shdr) && (shdr.sh_flags & SHF_EXECINSTR);
}

static bool is_wanted_function(Elf *elf, const GElf_Sym *sym)
{
	unsigned char type = GELF_ST_TYPE(sym->st_info);

	/*
	 * A sized global label in code is an assembly entry point: the
	 * kernel's vDSO exports arm64's signal trampoline so
	 * (__kernel_rt_sigreturn, NOTYPE, 8 bytes).
	 */
	if (type == STT_NOTYPE && sym->st_size && GELF_ST_BIND(sym->st_info) == STB_GLOBAL &&
	    sym->st_shndx != SHN_UNDEF && in_code(elf, sym))
		return true;
	if (type != STT_FUNC && type != STT_GNU_IFUNC)
		return false;
	/* Undefined imports and absolute values name no code of this binary. */
	return sym->st_shndx != SHN_UNDEF && sym->st_shndx != SHN_ABS &&
	       sym->st_shndx != SHN_COMMON;
}

/* Bytes from a zero-sized label to the end of its section, capped; 0 if unknown. */
static uint16_t zero_reach(Elf *elf, const GElf_Sym *sym, uint32_t sh_type)
{
	Elf_Scn *scn;
	GElf_Shdr shdr;
	uint64_t end, room;

	if (sh_type != SHT_SYMTAB || sym->st_size != 0 || sym->st_shndx >= SHN_LORESERVE)
		return 0;
	scn = elf_getscn(elf, sym->st_shndx);
	if (!scn || !gelf_getshdr(scn, &shdr) || !(shdr.sh_flags & SHF_EXECINSTR))
		return 0;
	end = shdr.sh_addr + shdr.sh_size;
	if (end < shdr.sh_addr || sym->st_value < shdr.sh_addr || sym->st_value >= end)
		return 0;
	room = end - sym->st_value;
	return room > SYMTAB_ZERO_REACH ? SYMTAB_ZERO_REACH : (uint16_t)room;
}

/* Add one symbol of name[0..len); 1 if added, 0 if nameless, or a negative errno. */
static int push_sym(struct symtab *st, uint64_t addr, uint64_t size, const char *raw_name,
		    size_t len, uint8_t rank, uint16_t reach)
{
	struct symtab_sym *s;
	const char *name;

	if (len == 0)
		return 0;
	if (st->nr_all >= SYMTAB_MAX_SYMS)
		return -E2BIG;
	if (st->nr_all == st->cap_all) {
		size_t cap = st->cap_all ? st->cap_all * 2 : 256;
		void *p = reallocarray(st->all, cap, sizeof(*st->all));

		if (!p)
			return -ENOMEM;
		st->all = p;
		st->cap_all = cap;
	}
	name = intern_name(st, raw_name, len);
	if (!name)
		return -ENOMEM;
	s = &st->all[st->nr_all];
	s->addr = addr;
	s->size = size;
	s->reach = reach;
	/* A range that wraps around cannot be real; keep only the entry point. */
	if (s->addr + s->size < s->addr) {
		s->size = 0;
		s->reach = 0;
	}
	s->name = name;
	s->order = (uint32_t)st->nr_all;
	s->rank = rank;
	st->nr_all++;
	return 1;
}

static long add_section(struct symtab *st, Elf *elf, Elf_Scn *scn, const GElf_Shdr *shdr)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	size_t i, count;
	long added = 0;

	if (!data || !data->d_buf || entsize == 0)
		return 0;
	count = data->d_size / entsize;
	for (i = 1; i < count; i++) {
		GElf_Sym sym;
		const char *name;
		int err;

		if (!gelf_getsym(data, (int)i, &sym) || !is_wanted_function(elf, &sym))
			continue;
		/* elf_strptr checks the index and the terminating NUL. */
		name = elf_strptr(elf, shdr->sh_link, sym.st_name);
		if (!name)
			continue;
		err = push_sym(st, sym.st_value, sym.st_size, name, unversioned_len(name),
			       binding_rank(GELF_ST_BIND(sym.st_info)),
			       zero_reach(elf, &sym, shdr->sh_type));
		if (err < 0)
			return added ? added : err;
		added += err;
	}
	return added;
}

long symtab_add_elf(struct symtab *st, Elf *elf, uint32_t sh_type)
{
	Elf_Scn *scn = NULL;
	long total = 0, n;

	if (!elf || st->finished)
		return -EINVAL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr shdr;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != sh_type)
			continue;
		n = add_section(st, elf, scn, &shdr);
		if (n < 0)
			return total ? total : n;
		total += n;
		if (st->nr_all >= SYMTAB_MAX_SYMS)
			return -E2BIG;
	}
	return total;
}

int symtab_add_stub(struct symtab *st, uint64_t addr, uint64_t size, const char *name)
{
	size_t len = strnlen(name, SYMTAB_MAX_NAME);

	if (st->finished || size == 0)
		return -EINVAL;
	/* Rank 3: a real symbol at the same address keeps its name. */
	return push_sym(st, addr, size, name, len, 3, 0);
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* Order for picking the one name of an address; see the rule at the top. */
static int cmp_by_addr(const void *pa, const void *pb)
{
	const struct symtab_sym *a = pa, *b = pb;
	int r;

	r = cmp_u64(a->addr, b->addr);
	if (r)
		return r;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	r = cmp_u64(strlen(a->name), strlen(b->name));
	if (r)
		return r;
	return cmp_u64(a->order, b->order);
}

static int cmp_by_name(const void *pa, const void *pb)
{
	const struct symtab_sym *a = pa, *b = pb;
	int r = strcmp(a->name, b->name);

	if (r)
		return r;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	if ((a->size == 0) != (b->size == 0))
		return a->size == 0 ? 1 : -1;
	r = cmp_u64(a->addr, b->addr);
	return r ? r : cmp_u64(a->order, b->order);
}

/* Copy sorted syms with (size != 0) == sized into out, one per address. */
static size_t merge_aliases(const struct symtab_sym *sorted, size_t n, bool sized,
			    struct symtab_sym *out)
{
	size_t i, nr = 0;

	for (i = 0; i < n; i++) {
		const struct symtab_sym *s = &sorted[i];

		if ((s->size != 0) != sized)
			continue;
		if (nr && out[nr - 1].addr == s->addr) {
			if (s->size > out[nr - 1].size)
				out[nr - 1].size = s->size;
			if (s->reach > out[nr - 1].reach)
				out[nr - 1].reach = s->reach;
			continue;
		}
		out[nr++] = *s;
	}
	return nr;
}

int symtab_finish(struct symtab *st)
{
	size_t i, n = st->nr_all;

	if (st->finished)
		return 0;
	st->finished = true;
	if (n == 0)
		return 0;
	st->by_addr = calloc(n, sizeof(*st->by_addr));
	st->zero = calloc(n, sizeof(*st->zero));
	st->cover_end = calloc(n, sizeof(*st->cover_end));
	if (!st->by_addr || !st->zero || !st->cover_end)
		return -ENOMEM;
	qsort(st->all, n, sizeof(*st->all), cmp_by_addr);
	st->nr_addr = merge_aliases(st->all, n, true, st->by_addr);
	st->nr_zero = merge_aliases(st->all, n, false, st->zero);
	for (i = 0; i < st->nr_addr; i++) {
		uint64_t end = st->by_addr[i].addr + st->by_addr[i].size;

		st->cover_end[i] = i && st->cover_end[i - 1] > end ? st->cover_end[i - 1] : end;
	}
	return 0;
}

/* Index of the last entry with addr <= key, or -1. */
static long last_at_or_below(const struct symtab_sym *v, size_t n, uint64_t key)
{
	size_t above = array_first_above(v, n, sizeof(*v), offsetof(struct symtab_sym, addr), key);

	return (long)above - 1;
}

const struct symtab_sym *symtab_lookup(const struct symtab *st, uint64_t addr)
{
	long i = last_at_or_below(st->by_addr, st->nr_addr, addr);
	const struct symtab_sym *zero;
	int steps;

	/*
	 * Ranges may nest or overlap (hostile or odd input); the innermost
	 * start wins.  cover_end tells when no earlier range can reach addr;
	 * the step cap keeps a crafted table from making every miss linear.
	 */
	for (steps = 0; i >= 0 && st->cover_end[i] > addr && steps < 256; i--, steps++) {
		const struct symtab_sym *s = &st->by_addr[i];

		if (addr - s->addr < s->size)
			return s;
	}
	i = last_at_or_below(st->zero, st->nr_zero, addr);
	if (i < 0)
		return NULL;
	zero = &st->zero[i];
	if (addr == zero->addr)
		return zero;
	if (addr - zero->addr >= zero->reach)
		return NULL;
	/*
	 * A sized function starting at or after the label ends its code; one
	 * that holds the label makes it an inner label, whose code ends there.
	 */
	i = last_at_or_below(st->by_addr, st->nr_addr, addr);
	if (i >= 0 && (st->by_addr[i].addr >= zero->addr || st->cover_end[i] > zero->addr))
		return NULL;
	return zero;
}

const struct symtab_sym *symtab_find_name(struct symtab *st, const char *name)
{
	size_t lo = 0, hi = st->finished ? st->nr_all : 0;

	if (hi && !st->by_name) {
		qsort(st->all, st->nr_all, sizeof(*st->all), cmp_by_name);
		st->by_name = true;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(st->all[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < st->nr_all && st->finished && strcmp(st->all[lo].name, name) == 0)
		return &st->all[lo];
	return NULL;
}
