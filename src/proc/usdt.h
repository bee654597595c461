/* SPDX-License-Identifier: GPL-2.0 */
/*
 * USDT (SystemTap SDT) probes read from .note.stapsdt, turned into uprobe
 * file offsets.  A probe guarded by a semaphore gets the semaphore's file
 * offset too, for the kernel's uprobe reference counter (ref_ctr_offset),
 * which raises the semaphore in every process that maps the file.
 */
#ifndef STITCH_USDT_H
#define STITCH_USDT_H

#include <gelf.h>
#include <stdint.h>

struct usdt_site {
	uint64_t vaddr;		/* probe address (ELF vaddr) */
	uint64_t offset;	/* file offset, for the uprobe */
	uint64_t sema_offset;	/* file offset of the semaphore, 0 if none */
};

/*
 * Find the sites of PROVIDER:NAME.  Returns how many were found (up to max),
 * 0 if none, or -errno if the notes are unreadable.
 */
int usdt_find(Elf *elf, const char *provider, const char *name, struct usdt_site *sites, int max);

/* Call fn for every probe (provider, name) in the file; for error messages. */
int usdt_for_each(Elf *elf, void (*fn)(void *ctx, const char *provider, const char *name), void *ctx);

#endif /* STITCH_USDT_H */
