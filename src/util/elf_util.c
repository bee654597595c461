// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/elf_util.h"

void elf_util_init(void)
{
	static bool done;

	if (!done) {
		elf_version(EV_CURRENT);
		done = true;
	}
}

/*
 * MADV_DONTNEED on a private mapping of a file that nobody writes (libelf
 * maps it PROT_READ) only unmaps its pages: the next read faults them in
 * from the page cache.  On anonymous memory it would zero them, so the
 * range must be a file's mapping, exactly: /proc/self/map_files names only
 * those, by their bounds (a root's view, as stitch runs; else nothing goes).
 */
void elf_image_drop_pages(Elf *elf)
{
	long page = sysconf(_SC_PAGESIZE);
	char link[64], target[PATH_MAX];
	uintptr_t lo, hi;
	size_t size = 0;
	char *raw;

	if (!elf || page <= 0)
		return;
	raw = elf_rawfile(elf, &size);
	lo = (uintptr_t)raw;
	if (!raw || !size || (lo & (uintptr_t)(page - 1)))
		return;
	hi = (lo + size + (uintptr_t)page - 1) & ~(uintptr_t)(page - 1);
	snprintf(link, sizeof(link), "/proc/self/map_files/%lx-%lx", (unsigned long)lo,
		 (unsigned long)hi);
	if (readlink(link, target, sizeof(target)) <= 0)
		return;
	madvise(raw, hi - lo, MADV_DONTNEED);
}

Elf *elf_open_file(const char *path, int *fd)
{
	Elf *elf;

	elf_util_init();
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return NULL;
	elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(*fd);
		errno = ENOEXEC;
		return NULL;
	}
	return elf;
}

int elf_find_section(Elf *elf, const char *name, struct elf_section *out)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return -ENOENT;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr shdr;
		const char *sname;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &shdr))
			continue;
		sname = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (!sname || strcmp(sname, name) != 0)
			continue;
		memset(out, 0, sizeof(*out));
		out->addr = shdr.sh_addr;
		out->offset = shdr.sh_offset;
		out->type = shdr.sh_type;
		if (shdr.sh_type == SHT_NOBITS)
			return 0;
		/* libelf checks the section lies inside the file. */
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf)
			return -ENOENT;
		out->data = data->d_buf;
		out->size = data->d_size;
		return 0;
	}
	return -ENOENT;
}

/* Walk one note buffer looking for NT_GNU_BUILD_ID. */
static size_t build_id_from_notes(Elf_Data *data, uint8_t *out)
{
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nhdr;

	while (data && off < data->d_size) {
		size_t next = gelf_getnote(data, off, &nhdr, &name_off, &desc_off);

		if (next == 0)
			break;
		if (nhdr.n_type == NT_GNU_BUILD_ID && nhdr.n_namesz == 4 &&
		    memcmp((char *)data->d_buf + name_off, "GNU", 4) == 0 &&
		    nhdr.n_descsz > 0 && nhdr.n_descsz <= STITCH_BUILD_ID_MAX) {
			memcpy(out, (char *)data->d_buf + desc_off, nhdr.n_descsz);
			return nhdr.n_descsz;
		}
		off = next;
	}
	return 0;
}

size_t elf_build_id_in_notes(const void *notes, size_t len, uint8_t out[STITCH_BUILD_ID_MAX])
{
	Elf_Data data = { .d_buf = (void *)notes, .d_size = len, .d_type = ELF_T_NHDR,
			  .d_version = EV_CURRENT };

	return build_id_from_notes(&data, out);
}

size_t elf_build_id(Elf *elf, uint8_t out[STITCH_BUILD_ID_MAX])
{
	Elf_Scn *scn = NULL;
	size_t phnum, i, len;

	/* Sections first (debug files keep them), then PT_NOTE segments. */
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr shdr;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
			continue;
		len = build_id_from_notes(elf_getdata(scn, NULL), out);
		if (len)
			return len;
	}
	if (elf_getphdrnum(elf, &phnum) != 0)
		return 0;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr phdr;

		if (!gelf_getphdr(elf, i, &phdr) || phdr.p_type != PT_NOTE)
			continue;
		len = build_id_from_notes(elf_getdata_rawchunk(elf, phdr.p_offset,
					  phdr.p_filesz, ELF_T_NHDR), out);
		if (len)
			return len;
	}
	return 0;
}

/*
 * Translate x between file offsets and virtual addresses through the PT_LOAD
 * segment whose file bytes hold it (p_filesz: bss has no file offset).
 */
static int load_translate(Elf *elf, uint64_t x, bool from_vaddr, uint64_t *out)
{
	size_t phnum, i;

	if (elf_getphdrnum(elf, &phnum) != 0)
		return -ENOENT;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr p;
		uint64_t from, to;

		if (!gelf_getphdr(elf, i, &p) || p.p_type != PT_LOAD)
			continue;
		from = from_vaddr ? p.p_vaddr : p.p_offset;
		to = from_vaddr ? p.p_offset : p.p_vaddr;
		if (x >= from && x - from < p.p_filesz) {
			*out = x - from + to;
			return 0;
		}
	}
	return -ENOENT;
}

int elf_offset_to_vaddr(Elf *elf, uint64_t offset, uint64_t *vaddr)
{
	return load_translate(elf, offset, false, vaddr);
}

int elf_vaddr_to_offset(Elf *elf, uint64_t vaddr, uint64_t *offset)
{
	return load_translate(elf, vaddr, true, offset);
}

void build_id_hex(const uint8_t *id, size_t len, char *buf)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < len; i++) {
		buf[2 * i] = hex[id[i] >> 4];
		buf[2 * i + 1] = hex[id[i] & 15];
	}
	buf[2 * len] = '\0';
}

/*
 * The next section after *scn of sh_type with entries to read: its header
 * and data, and its entry count in *n.  False when there is none.
 */
static bool next_table(Elf *elf, uint32_t sh_type, Elf_Scn **scn, GElf_Shdr *sh, Elf_Data **d,
		       size_t *n)
{
	while ((*scn = elf_nextscn(elf, *scn))) {
		if (!gelf_getshdr(*scn, sh) || sh->sh_type != sh_type || !sh->sh_entsize)
			continue;
		*d = elf_getdata(*scn, NULL);
		if (!*d)
			continue;
		*n = sh->sh_size / sh->sh_entsize;
		return true;
	}
	return false;
}

/* The GNU hash of a symbol's name (ld.so's: h * 33 + c from 5381). */
static uint32_t gnu_hash(const char *name)
{
	uint32_t h = 5381;

	for (; *name; name++)
		h = h * 33 + (unsigned char)*name;
	return h;
}

/* sym's name is name, and it is defined: its value (and size) given. */
static bool sym_is(Elf *elf, Elf_Data *d, size_t strtab, size_t i, const char *name,
		   uint64_t *value, uint64_t *size)
{
	GElf_Sym sym;
	const char *s;

	if (!gelf_getsym(d, i, &sym) || sym.st_shndx == SHN_UNDEF)
		return false;
	s = elf_strptr(elf, strtab, sym.st_name);
	if (!s || strcmp(s, name))
		return false;
	*value = sym.st_value;
	if (size)
		*size = sym.st_size;
	return true;
}

/*
 * name in the dynamic symbols through their GNU hash table (.gnu.hash, what
 * ld.so looks in): 1 found, 0 not there, -1 no table to trust (none, or
 * one that does not hold together: the file is a traced process's).  A
 * lookup is a few comparisons, where a walk of python3's 10,000 symbols
 * was ~60 us, each new process's interpreter found by half a dozen.
 */
static int gnu_hash_find(Elf *elf, const char *name, uint64_t *value, uint64_t *size)
{
	uint32_t nbuckets, symoffset, bloom_size, h, idx, ch;
	Elf_Scn *scn = NULL, *dynsym;
	GElf_Shdr sh, dsh;
	Elf_Data *hd, *dd;
	const uint32_t *w, *buckets, *chain;
	size_t words, nsyms, word_size, bloom_words, nchain;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_GNU_HASH)
			break;
	if (!scn || !(dynsym = elf_getscn(elf, sh.sh_link)) || !gelf_getshdr(dynsym, &dsh) ||
	    dsh.sh_type != SHT_DYNSYM || !dsh.sh_entsize)
		return -1;
	hd = elf_getdata(scn, NULL);
	dd = elf_getdata(dynsym, NULL);
	if (!hd || !dd || !hd->d_buf || hd->d_size < 16 || (uintptr_t)hd->d_buf % 4)
		return -1;
	nsyms = dsh.sh_size / dsh.sh_entsize;
	w = hd->d_buf;
	words = hd->d_size / 4;
	nbuckets = w[0];
	symoffset = w[1];
	bloom_size = w[2];
	word_size = gelf_getclass(elf) == ELFCLASS64 ? 2 : 1;	/* bloom words, in 32-bit words */
	bloom_words = (size_t)bloom_size * word_size;
	if (!nbuckets || bloom_words > words || 4 + bloom_words + nbuckets > words)
		return -1;
	buckets = w + 4 + bloom_words;
	chain = buckets + nbuckets;
	nchain = words - 4 - bloom_words - nbuckets;
	h = gnu_hash(name);
	idx = buckets[h % nbuckets];
	if (idx < symoffset)
		return 0;
	for (; idx - symoffset < nchain && idx < nsyms; idx++) {
		ch = chain[idx - symoffset];
		if ((ch | 1) == (h | 1) && sym_is(elf, dd, dsh.sh_link, idx, name, value, size))
			return 1;
		if (ch & 1)
			return 0;
	}
	return -1;	/* a chain with no end inside the table */
}

bool elf_sym_find(Elf *elf, uint32_t sh_type, const char *name, uint64_t *value, uint64_t *size)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf_Data *d;
	size_t i, n;
	int found;

	if (sh_type == SHT_DYNSYM && (found = gnu_hash_find(elf, name, value, size)) >= 0)
		return found;
	while (next_table(elf, sh_type, &scn, &sh, &d, &n)) {
		for (i = 0; i < n; i++)
			if (sym_is(elf, d, sh.sh_link, i, name, value, size))
				return true;
	}
	return false;
}

bool elf_needs(Elf *elf, const char *lib)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf_Data *d;
	size_t i, n;

	while (next_table(elf, SHT_DYNAMIC, &scn, &sh, &d, &n)) {
		for (i = 0; i < n; i++) {
			GElf_Dyn dyn;
			const char *s;

			if (!gelf_getdyn(d, i, &dyn) || dyn.d_tag == DT_NULL)
				break;
			if (dyn.d_tag != DT_NEEDED)
				continue;
			s = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
			if (s && strcmp(s, lib) == 0)
				return true;
		}
	}
	return false;
}

bool elf_rela_at(Elf *elf, uint64_t vaddr, GElf_Rela *out, uint64_t *sym_value)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf_Data *d;
	size_t i, n;

	while (next_table(elf, SHT_RELA, &scn, &sh, &d, &n)) {
		for (i = 0; i < n; i++) {
			Elf_Scn *symtab;
			GElf_Shdr ssh;
			GElf_Sym sym;
			Elf_Data *sd;

			if (!gelf_getrela(d, (int)i, out) || out->r_offset != vaddr)
				continue;
			*sym_value = 0;
			if (!GELF_R_SYM(out->r_info))
				return true;
			/* sh_link: the symbol table the relocation's symbols index */
			symtab = elf_getscn(elf, sh.sh_link);
			sd = symtab && gelf_getshdr(symtab, &ssh) ? elf_getdata(symtab, NULL) : NULL;
			if (!sd || !gelf_getsym(sd, (int)GELF_R_SYM(out->r_info), &sym))
				return false;
			*sym_value = sym.st_value;
			return true;
		}
	}
	return false;
}
