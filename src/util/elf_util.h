/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers over libelf shared by the CFI builder, the symbolizer, the
 * USDT note reader and the uprobe resolver.  Every input is untrusted (it may
 * come from a traced process's file system), so every helper validates sizes
 * and returns an error instead of trusting header fields.
 */
#ifndef STITCH_ELF_UTIL_H
#define STITCH_ELF_UTIL_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STITCH_BUILD_ID_MAX 20

struct elf_section {
	const uint8_t *data;	/* NULL for SHT_NOBITS */
	size_t size;
	uint64_t addr;		/* sh_addr */
	uint64_t offset;	/* sh_offset */
	uint32_t type;		/* sh_type */
};

/* Find a section by name; 0 on success, -ENOENT if absent or unreadable. */
int elf_find_section(Elf *elf, const char *name, struct elf_section *out);

/* Copy the GNU build-id into out; returns its length, or 0 if none. */
size_t elf_build_id(Elf *elf, uint8_t out[STITCH_BUILD_ID_MAX]);
/* The same from a buffer of ELF notes (/sys/kernel/notes: the running kernel's). */
size_t elf_build_id_in_notes(const void *notes, size_t len, uint8_t out[STITCH_BUILD_ID_MAX]);

/*
 * Translate between a file offset and an ELF virtual address through the
 * PT_LOAD headers.  Return 0 on success, -ENOENT if no segment covers it.
 */
int elf_offset_to_vaddr(Elf *elf, uint64_t offset, uint64_t *vaddr);
int elf_vaddr_to_offset(Elf *elf, uint64_t vaddr, uint64_t *offset);

/* Hex string of a build-id ("" when len == 0); buf needs 2 * len + 1 bytes. */
void build_id_hex(const uint8_t *id, size_t len, char *buf);

/*
 * The pages of elf's image that reading it brought into our resident set
 * leave it, kept in the page cache (read again at the next use, a minor
 * fault): only where the image is libelf's map of its file, never a copy
 * in memory (libelf reads the file into the heap if it cannot map it).
 */
void elf_image_drop_pages(Elf *elf);

/* Call once before any libelf use (idempotent, thread-safe enough for us). */
void elf_util_init(void);

/*
 * A defined symbol's value (and size, if size is not NULL) in the symbol
 * table of sh_type (SHT_DYNSYM, SHT_SYMTAB): true if found.
 */
bool elf_sym_find(Elf *elf, uint32_t sh_type, const char *name, uint64_t *value, uint64_t *size);

static inline bool elf_dynsym_find(Elf *elf, const char *name, uint64_t *value, uint64_t *size)
{
	return elf_sym_find(elf, SHT_DYNSYM, name, value, size);
}

/* Whether the ELF file's dynamic section names lib (a file name) among its DT_NEEDED. */
bool elf_needs(Elf *elf, const char *lib);

/*
 * The relocation (of any SHT_RELA section) that writes the word at vaddr:
 * true if there is one.  *sym_value is its symbol's st_value (0 for none).
 */
bool elf_rela_at(Elf *elf, uint64_t vaddr, GElf_Rela *out, uint64_t *sym_value);

/*
 * The ELF file at path, mapped (*fd is its descriptor: close it after
 * elf_end); NULL with errno set if it cannot be opened or is not ELF
 * (ENOEXEC).
 */
Elf *elf_open_file(const char *path, int *fd);

#endif /* STITCH_ELF_UTIL_H */
