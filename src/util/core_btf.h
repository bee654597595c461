/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's BTF cut down to what one BPF object's CO-RE relocations
 * need, for bpf_object_open_opts.btf_custom_path.  Without it libbpf reads
 * and indexes the kernel's whole BTF (/sys/kernel/btf/vmlinux, 5.5 MB
 * here) at every load: ~9 ms of the ~60 ms of CPU a 1 s profile costs
 * (perf record of stitch itself).  The subset holds each type a relocation
 * starts from, as the kernel has it: every member at its offset, every
 * embedded struct, union, array and enum, every integer; pointers become
 * void *.  libbpf matches a relocation inside the one type it starts from
 * (the next pointer hop is a relocation of its own, from the pointee's
 * type by name) and takes any pointer for a pointer, so the subset gives it
 * the kernel's answer for every relocation it accepts (an object asking
 * for anything else gets no subset: the kernel's type IDs, type matching).
 *
 * Built from the kernel's BTF once, then kept in the cache directory "btf"
 * (util/cache_dir.h) under the kernel's build ID (/sys/kernel/notes) and a
 * hash of the types asked for; a cached file is used only if it parses and
 * holds every one of them.  Whatever goes wrong, the answer is NULL: libbpf
 * then reads the kernel's BTF as it did before.
 */
#ifndef STITCH_UTIL_CORE_BTF_H
#define STITCH_UTIL_CORE_BTF_H

#include <stddef.h>

struct btf;

/*
 * The path of the subset for the BPF object in obj (an ELF image of size
 * bytes, as a skeleton embeds it), or NULL.  Remembered per obj for the
 * rest of the run.  STITCH_CORE_BTF=0 in the environment: always NULL.
 */
const char *core_btf_path(const void *obj, size_t size);

/*
 * The subset of kernel (a whole kernel BTF) for the object: a new BTF
 * (btf__free it), or NULL with errno set (ENOTSUP: the object asks for
 * what a subset cannot answer).  What core_btf_path() caches; for tests.
 */
struct btf *core_btf_build(const void *obj, size_t size, const struct btf *kernel);

/* What core_btf_path() did last, for --stats: "cached", "built", or why not. */
const char *core_btf_status(void);

#endif /* STITCH_UTIL_CORE_BTF_H */
