// SPDX-License-Identifier: GPL-2.0
/*
 * What every interpreter module uses: reading the target's memory, the
 * cache of code objects read from it, interned frame names, the process
 * table, and the ELF and ld.so lookups detection needs.  Nothing here
 * knows a language, nor the table of them (languages.c): the language
 * modules call this file, never the other way.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "interp/interp_internal.h"

void *interp_lang_state(struct interp_state *st, const struct interp_ops *ops)
{
	size_t i;

	for (i = 0; i < st->nlangs; i++)
		if (st->langs[i].ops == ops)
			return st->langs[i].state;
	return NULL;
}

/* ---- processes ---- */

static bool pid_eq(const struct hmap_node *n, const void *key)
{
	return ((const struct interp_proc *)n)->pid == *(const uint32_t *)key;
}

struct interp_proc *interp_proc_find(struct interp_state *st, uint32_t pid)
{
	return (struct interp_proc *)hmap_find(&st->procs, hash_u64(pid), pid_eq, &pid);
}

void interp_proc_found(struct interp_proc *ip, const struct interp_version *v,
		       struct binary *bin, uint64_t eval, uint64_t size)
{
	ip->ver = v;
	ip->eval_bin = bin;
	ip->eval_start = eval;
	ip->eval_end = eval + size;
	ip->eval_part_start = ip->eval_part_end = 0;
}

void *interp_proc_take(struct interp_proc *ip, const struct interp_version *v,
		       const struct map *m, const struct interp_version *owner, size_t size)
{
	uint64_t eval, eval_size;
	void *priv;

	if (!m->bin->elf || !elf_dynsym_find(m->bin->elf, v->eval_func, &eval, &eval_size) ||
	    !eval_size)
		return NULL;
	priv = interp_proc_priv(ip, owner, size);
	if (priv)
		interp_proc_found(ip, v, m->bin, eval, eval_size);
	return priv;
}

void *interp_proc_priv(struct interp_proc *ip, const struct interp_version *owner, size_t size)
{
	if (ip->priv && ip->priv_owner == owner)
		return ip->priv;
	free(ip->priv);
	ip->priv = calloc(1, size);
	ip->priv_owner = ip->priv ? owner : NULL;
	return ip->priv;
}

/* ---- the target's memory ---- */

int interp_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t n;

	if (!addr)
		return -EFAULT;
	n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EFAULT;
}

/* ---- code objects ---- */

static bool code_eq(const struct hmap_node *n, const void *key)
{
	const struct interp_code *c = (const struct interp_code *)n, *k = key;

	return c->pid == k->pid && c->addr == k->addr;
}

void interp_code_clear(struct interp_code *c)
{
	free(c->name);
	free(c->file);
	free(c->linetable);
	free(c->body);
	c->name = c->file = NULL;
	c->linetable = c->body = NULL;
	c->linetable_len = 0;
	c->valid = false;
}

struct interp_code *interp_code_slot(struct interp_state *st, uint32_t pid, uint64_t addr,
				     bool *fresh, const struct interp_frame *f)
{
	struct interp_code key = { .pid = pid, .addr = addr }, *c;
	uint64_t h = hash_u64(addr ^ ((uint64_t)pid << 48));

	*fresh = false;
	c = (struct interp_code *)hmap_find(&st->codes, h, code_eq, &key);
	if (c && c->id1 == f->id1 && c->id2 == f->id2 && c->id3 == f->id3)
		return c;
	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c)
			return NULL;
		c->pid = pid;
		c->addr = addr;
		hmap_insert(&st->codes, &c->node, h);
	}
	interp_code_clear(c);
	c->id1 = f->id1;
	c->id2 = f->id2;
	c->id3 = f->id3;
	*fresh = true;
	return c;
}

/* ---- frame names ---- */

struct name_key {
	uint8_t kind;
	uint32_t line;
	const char *name, *file;
};

static bool name_eq(const struct hmap_node *n, const void *key)
{
	const struct interp_name *a = (const struct interp_name *)n;
	const struct name_key *k = key;

	return a->kind == k->kind && a->line == k->line && strcmp(a->name, k->name) == 0 &&
	       (a->file && k->file ? strcmp(a->file, k->file) == 0 : a->file == k->file);
}

const struct interp_name *interp_intern(struct interp_state *st, uint8_t kind, const char *name,
					const char *file, int line)
{
	struct name_key k = { kind, line > 0 && !st->no_lines ? line : 0, name, file };
	uint64_t h = hash_bytes(name, strlen(name), kind ^ ((uint64_t)k.line << 8));
	struct interp_name *n;

	if (file)
		h = hash_bytes(file, strlen(file), h);
	n = (struct interp_name *)hmap_find(&st->names, h, name_eq, &k);
	if (n)
		return n;
	n = malloc(sizeof(*n) + strlen(name) + 1);
	if (!n)
		return NULL;
	n->kind = kind;
	n->line = k.line;
	n->file = file ? strdup(file) : NULL;
	strcpy(n->name, name);
	hmap_insert(&st->names, &n->node, h);
	return n;
}

/* ---- ELF and ld.so ---- */

uint64_t interp_tls_modid(pid_t pid, const struct map *ld, const struct interp_glibc *g,
			  const char *lib_prefix)
{
	uint64_t rdebug, lm = 0, modid = 0;
	int i;

	if (!ld || !ld->bin->elf || !elf_dynsym_find(ld->bin->elf, "_r_debug", &rdebug, NULL) ||
	    interp_read(pid, rdebug + ld->bias + g->r_map, &lm, 8))
		return 0;
	for (i = 0; lm && i < 1024; i++) {
		uint64_t name_ptr;
		char name[256], *base;
		size_t len;

		if (interp_read(pid, lm + g->lm_name, &name_ptr, 8))
			return 0;
		/* A path, up to the buffer, never across the end of its page. */
		len = 4096 - (name_ptr & 4095);
		if (len > sizeof(name) - 1)
			len = sizeof(name) - 1;
		memset(name, 0, sizeof(name));
		if (interp_read(pid, name_ptr, name, len))
			return 0;
		base = strrchr(name, '/');
		base = base ? base + 1 : name;
		if (strncmp(base, lib_prefix, strlen(lib_prefix)) == 0) {
			if (interp_read(pid, lm + g->lm_tls_modid, &modid, 8))
				return 0;
			return modid;
		}
		if (interp_read(pid, lm + g->lm_next, &lm, 8))
			return 0;
	}
	return 0;
}
