/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An executable file mapped by traced processes, opened once and shared:
 * keyed by the file's identity (device + inode of the opened file), so the
 * same libc seen through many processes or mount namespaces is parsed once,
 * and a file deleted or replaced after the process started is still the one
 * we read (we open it through /proc/PID/map_files while the mapping exists).
 */
#ifndef STITCH_BINARY_H
#define STITCH_BINARY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "symbolize/hotspot_meta.h"
#include "symbolize/v8_meta.h"
#include "unwind/cfi.h"
#include "util/elf_util.h"
#include "util/hashmap.h"

struct sym_source;

/* A PT_LOAD segment: what binary_pgoff_vaddr needs of it. */
struct binary_load {
	uint64_t offset, vaddr, filesz;
	bool exec;
};

/* PT_LOAD segments kept per binary (linkers make 2-5); a file with more gets no bias. */
#define BINARY_MAX_LOADS 64

struct binary {
	struct hmap_node node;
	/* in the cache's by_build_id while its file is held (in_by_build_id) */
	struct hmap_node by_build_id;
	bool in_by_build_id;
	dev_t dev;
	ino_t ino;
	char *path;		/* path as the traced process named it */
	const char *name;	/* basename of path, for module+0xOFF frames */
	/*
	 * The root it was found under, for debug files: "" for our own, else
	 * "/proc/self/fd/N", N an O_PATH fd of the process's /proc/PID/root
	 * taken while it ran (struct pinned_root), so its own debug files are
	 * still found when frames are named, after it has exited.
	 */
	char *root;
	int root_fd;		/* that fd, or -1 for our own root */
	dev_t root_dev;		/* that root directory's identity */
	ino_t root_ino;
	/*
	 * The open file, -1 once its processes are gone and no stack names it
	 * (binary_cache_sweep): a binary kept for its table alone holds no
	 * file, so that a container's filesystem can be unmounted once its
	 * processes exit.  A process mapping it again gives it one back.
	 */
	int fd;
	void *image;		/* in-memory image (vDSO), else NULL */
	Elf *elf;
	uint8_t build_id[STITCH_BUILD_ID_MAX];
	size_t build_id_len;
	bool table_built;
	struct unwind_table table;
	uint64_t entry_lo, entry_hi;	/* CFI-less entry code marked as the end, or 0, 0 */
	/*
	 * Its .eh_frame_hdr index (binary_func_start), copied out of the
	 * file's image: the image goes when the file is let go (file_close),
	 * and an index pointing into it was read after (an agent's SIGSEGV).
	 */
	bool hdr_read;
	struct cfi_hdr_index hdr;
	/*
	 * Its PT_LOAD segments (binary_pgoff_vaddr), read from the file once
	 * and kept: every mapping of it in every new process asks, and its
	 * program headers, read again from a file whose pages we released,
	 * came back from the disk (14% of an agent's CPU under churn: 46 of
	 * 327 samples, at 70 short-lived processes a second).
	 */
	bool loads_read;
	uint8_t nloads;
	struct binary_load *loads;
	bool syms_opened;
	struct sym_source *syms;
	uint64_t size;		/* of its file (its image for the vDSO) */
	unsigned periods_named;	/* naming passes that named its frames (profile/resolve.c) */
	/*
	 * A frame of a counted or delivered stack names it: it stays (its
	 * table may go) as long as the cache, since stacks are named at the
	 * end, after its processes may have exited.
	 */
	bool sampled;
	uint64_t last_mapped_ns;	/* when a process last mapped it (binary_cache_sweep) */
	/* ... a process not known to have exited (binary_cache_release_unnamed) */
	uint64_t last_live_ns;
	/*
	 * When the pages of its file we read last left our RSS (0: read
	 * again since, for its symbols or its table).  Pages a live process
	 * maps too stay in it: released again once no process maps it.
	 */
	uint64_t pages_released_ns;
	/* V8's metadata (node, libnode: binary_v8), read once */
	bool v8_checked;
	struct v8_meta *v8;
	/* Where libjvm keeps HotSpot's vmStructs (binary_hotspot), read once */
	bool hotspot_checked;
	struct hotspot_syms *hotspot;
};

/*
 * A foreign root held open, one fd per root directory however many
 * binaries, while one of them holds its file.
 */
struct pinned_root {
	dev_t dev;
	ino_t ino;
	int fd;
	size_t refs;
};

struct binary_cache {
	struct hmap by_file;
	struct hmap by_build_id;	/* those whose file is held, with a build ID */
	struct pinned_root *roots;
	size_t nr_roots, cap_roots;
	struct binary *vdso;
	size_t table_rows;	/* rows of every table built (again after a sweep too) */
	uint64_t marked_ns;	/* the now_ns of the last procs_mark_binaries() */
	/* binary_cache_sweep's work, for --stats */
	uint64_t swept, tables_evicted, syms_dropped, files_closed;
};

int binary_cache_init(struct binary_cache *c);
void binary_cache_free(struct binary_cache *c);

/*
 * Take ownership of fd (an open executable) and return the shared binary for
 * that file, creating it on first sight.  path/root describe where the
 * process found it.  NULL (fd closed) if the file is not a usable ELF.
 */
struct binary *binary_get_fd(struct binary_cache *c, int fd, const char *path, const char *root);
/*
 * The binary of that build ID, path (as a process names it) and root
 * directory, its file held, if the cache has one: a process mapping it
 * needs no open of its own (opens of /proc/PID/map_files were a fifth of an
 * agent's CPU over a build's churn).  NULL if none.
 */
struct binary *binary_find_held(struct binary_cache *c, const uint8_t *id, size_t len,
				const char *path, dev_t root_dev, ino_t root_ino);
/* Our own vDSO image, which is the image every native process maps. */
struct binary *binary_get_vdso(struct binary_cache *c);

/* Unwind table, built on first use (empty table if the file has no CFI). */
const struct unwind_table *binary_table(struct binary_cache *c, struct binary *b);
/* Symbols, opened on first use. */
struct sym_source *binary_syms(struct binary *b);

/*
 * Start of the function holding vaddr (its FDE's initial location, from
 * .eh_frame_hdr), 0 if unknown.  The index is read at the first call
 * while the file is held, and kept with the binary.
 */
uint64_t binary_func_start(struct binary *b, uint64_t vaddr);

/*
 * The layout of the V8 in b, when stitch can name its JavaScript frames
 * (symbolize/v8_meta.h); else NULL.  A V8 it cannot read is said once.
 */
const struct v8_meta *binary_v8(struct binary *b);

/* Where b, a libjvm, keeps HotSpot's vmStructs tables (symbolize/hotspot_meta.h); else NULL. */
const struct hotspot_syms *binary_hotspot(struct binary *b);

/* Bytes of the files whose symbols are open. */
uint64_t binary_cache_syms_bytes(const struct binary_cache *c);

/* No live process maps b, as of the last procs_mark_binaries() (false before one). */
bool binary_cache_is_gone(const struct binary_cache *c, const struct binary *b);
/*
 * b's symbols, DWARF and the file pages they read let go: its frames were
 * named and their names copied.  Opened again if a later stack names it.
 */
void binary_cache_release_syms(struct binary_cache *c, struct binary *b);

/*
 * A process maps b at now_ns (CLOCK_MONOTONIC): it is in use; live, a
 * process not known to have exited.
 */
static inline void binary_mark_mapped(struct binary *b, uint64_t now_ns, bool live)
{
	b->last_mapped_ns = now_ns;
	if (live)
		b->last_live_ns = now_ns;
}

/*
 * What exited processes leave behind, once nothing maps a binary for
 * grace_ns (its processes' last stacks read): the unwind tables of those
 * binaries (rebuilt if a process maps them again) are freed, least recently
 * mapped first, until they take at most table_budget bytes and at most
 * max_kept binaries keep one; a binary no stack names loses its symbols
 * and lets go of its file and its root (opened again, through the process,
 * when one maps it again), and without a table it is freed, if
 * release(ctx, b) lets it go (the in-kernel unwinder's hold on it: false
 * keeps it).  Call procs_mark_binaries() just before with the same now_ns.
 */
void binary_cache_sweep(struct binary_cache *c, uint64_t now_ns, uint64_t grace_ns,
			size_t table_budget, size_t max_kept,
			bool (*release)(void *ctx, struct binary *b), void *ctx);

/*
 * Every stack naming binaries has been named and dropped (a period's
 * profile pushed, its stack table emptied): no binary is held for its
 * frames any more, and binary_cache_sweep may free those no process maps.
 * Frames decoded after it mark theirs again.
 */
void binary_cache_unmark_sampled(struct binary_cache *c);

/*
 * After binary_cache_unmark_sampled() and the marks of the stacks still
 * held: the binaries no stack names and no live process maps (its
 * processes exited, at the last procs_mark_binaries()) let go of their
 * symbols and of the pages of their file we read, now rather than at the
 * sweep after their processes' grace; opened again if a stack names them.
 * Not those named in two periods or more (their processes come again):
 * theirs go with their file, at the sweep.  Returns how many symbol
 * tables went.
 */
size_t binary_cache_release_unnamed(struct binary_cache *c);

/* Named in two periods or more: its processes come again (a build's cc1), its symbols stay. */
static inline bool binary_recurs(const struct binary *b)
{
	return b->periods_named >= 2;
}

/*
 * The binaries whose debug file debuginfod failed to give (a server down,
 * the budget spent) and whose retry is due (debuginfod_retry_due) let go
 * of their symbols, opened again, and the file asked for, when a stack
 * names them next: an agent's long-running processes are named once a
 * server answers.  Returns how many symbol tables went.
 */
size_t binary_cache_retry_debuginfod(struct binary_cache *c);

/* Unwinding is over: every unwind table goes (their rows were the most of our heap). */
/*
 * Named, and kept: the pages of its file and debug files that naming read
 * leave our resident set, kept in the page cache for the next period's
 * (elf_image_drop_pages).
 */
void binary_drop_pages(struct binary *b);

void binary_cache_drop_tables(struct binary_cache *c);

/*
 * A binary gone from disk (deleted after its process started, which has
 * exited or whose map_files cannot be read): its executable by build-id
 * from debuginfod (debuginfod_fetch.h), for symbols and CFI.  path is the
 * name the process knew it by.  NULL if no server has it, or the file a
 * server sent has another build-id.
 */
struct binary *binary_fetch_by_build_id(struct binary_cache *c, const uint8_t *id, size_t len,
					const char *path);
/*
 * Whether naming its frames would ask debuginfod for its debug file (its
 * symbols not opened yet, none here): for debug_prefetch.h.
 */
bool binary_wants_debuginfod(struct binary *b);
/* ELF vaddr of a file offset, for computing a mapping's load bias. */
int binary_offset_to_vaddr(struct binary *b, uint64_t offset, uint64_t *vaddr);
/*
 * ELF vaddr of a mapping's page offset pgoff (its first byte), for its load
 * bias: in the executable PT_LOAD holding it, else in any; -ENOENT if none.
 * Its segments are read at the first call while the file is held, and kept.
 */
int binary_pgoff_vaddr(struct binary *b, uint64_t pgoff, uint64_t *vaddr);

#endif /* STITCH_BINARY_H */
