// SPDX-License-Identifier: GPL-2.0
/*
 * CPython 3.11 on: finding the runtime in python3.X or libpython3.X.so
 * (3.13 on: with the layout the process states, python_debug.c; 3.15: the
 * thread state's thread-local, python_tls.c), and
 * naming frames: code objects, their str names and the co_linetable, read
 * from the target with bounded reads and type checks.  Untrusted input:
 * every length is capped, every object's type checked.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/python/python_lnotab.h"
#include "interp/python/python_new.h"
#include "profile/profile.h"
#include "util/elf_util.h"

#define MAX_NAME_CHARS 1024
#define MAX_LINETABLE (256 * 1024)

/* What naming needs of a process, beside what its walker has (ip->cfg). */
struct python_proc {
	uint64_t unicode_type, bytes_type;	/* &PyUnicode_Type, &PyBytes_Type */
};

/* Fill ip from the module m carrying version v; false if its symbols are not there. */
static bool python_from_module(struct interp_proc *ip, const struct interp_version *v,
			       const struct map *m, char *unsupported, size_t unsupported_len)
{
	Elf *elf = m->bin->elf;
	uint64_t runtime, code, unicode, bytes, frame = 0, none = 0;
	int64_t tls = 0;
	struct python_proc *pp;
	char why[64] = "";
	int dbg = 0;

	if (!elf || !elf_dynsym_find(elf, "_PyRuntime", &runtime, NULL) ||
	    !elf_dynsym_find(elf, "PyCode_Type", &code, NULL) ||
	    !elf_dynsym_find(elf, "PyUnicode_Type", &unicode, NULL) ||
	    !elf_dynsym_find(elf, "PyBytes_Type", &bytes, NULL))
		return false;
	/* 3.8 - 3.10: every frame object is type-checked too. */
	if (v->layout.py.frameobject && !elf_dynsym_find(elf, "PyFrame_Type", &frame, NULL))
		return false;
	if (v->layout.py.layout_flags & PY_LAYOUT_FROM_DEBUG_OFFSETS) {
		dbg = py_debug_layout(ip->pid, runtime + m->bias, v, &ip->layout.py, why,
				      sizeof(why));
		if (dbg == -EINVAL) {
			if (!unsupported[0])
				snprintf(unsupported, unsupported_len, "%s", why);
			return false;
		}
	}
	/* 3.15: no pthread key; the thread-local's place comes from the code. */
	if ((v->layout.py.layout_flags & PY_LAYOUT_TLS_TSTATE) && !py_tls_tstate(elf, &tls)) {
		if (!unsupported[0])
			snprintf(unsupported, unsupported_len,
				 "python %s (thread state not found)", v->version);
		return false;
	}
	pp = interp_proc_take(ip, v, m, python_versions, sizeof(*pp));
	if (!pp)
		return false;
	/* Its loop may lie outside its symbol (sid's 3.14): its frames are that part's. */
	if (py_eval_part(elf, ip->eval_start, ip->eval_end - ip->eval_start,
			 &ip->eval_part_start, &ip->eval_part_end) && getenv("STITCH_DEBUG"))
		fprintf(stderr, "stitch: pid %u: %s's second part at %#lx-%#lx\n", ip->pid,
			v->eval_func, (unsigned long)ip->eval_part_start,
			(unsigned long)ip->eval_part_end);
	if (v->layout.py.layout_flags & PY_LAYOUT_FROM_DEBUG_OFFSETS) {
		/* Not readable yet (still being mapped): look again at the next event. */
		ip->retry = dbg == -EAGAIN;
		ip->layout.lang = v->layout.lang;
		ip->own_layout = true;
	}
	/*
	 * Test hook (STITCH_TEST_PY_THREAD_ID_OFF): read the thread state's
	 * owner from another field, which never holds this thread's
	 * pthread_self(): every walk must then fail the check, none show frames.
	 */
	if (getenv("STITCH_TEST_PY_THREAD_ID_OFF") && v->layout.py.tstate_thread_id) {
		if (!ip->own_layout)
			ip->layout = v->layout;
		ip->layout.py.tstate_thread_id = atoi(getenv("STITCH_TEST_PY_THREAD_ID_OFF"));
		ip->own_layout = true;
	}
	/* Only 3.13's entry frames run None (python.bpf.h); 0: never matches a frame. */
	if (elf_dynsym_find(elf, "_Py_NoneStruct", &none, NULL))
		ip->cfg.py.none_addr = none + m->bias;
	ip->cfg.py.code_type = code + m->bias;
	ip->cfg.py.frame_type = frame ? frame + m->bias : 0;
	pp->unicode_type = unicode + m->bias;
	pp->bytes_type = bytes + m->bias;
	ip->cfg.py.tss_key_addr = runtime + m->bias + v->tss_key_off;
	ip->cfg.py.tstate_tls = (uint64_t)tls;
	return true;
}

/* ---- co_linetable (Objects/locations.md, 3.11) ---- */

static bool varint(const uint8_t *t, size_t len, size_t *i, unsigned int *out)
{
	unsigned int v = 0, shift = 0;

	for (;;) {
		if (*i >= len || shift > 28)
			return false;
		v |= (unsigned int)(t[*i] & 0x3f) << shift;
		shift += 6;
		if (!(t[(*i)++] & 0x40))
			break;
	}
	*out = v;
	return true;
}

static bool svarint(const uint8_t *t, size_t len, size_t *i, int *out)
{
	unsigned int v;

	if (!varint(t, len, i, &v))
		return false;
	*out = (v & 1) ? -(int)(v >> 1) : (int)(v >> 1);
	return true;
}

int py311_line_for(const uint8_t *t, size_t len, int firstlineno, int lasti)
{
	long line = firstlineno;
	size_t i = 0;
	long addr = 0;

	if (lasti < 0)
		return -1;
	while (i < len) {
		unsigned int b = t[i++], skip;
		int code = (b >> 3) & 15, n = (b & 7) + 1, delta = 0;
		bool none = false;

		if (!(b & 0x80))
			return -1;	/* not an entry start: corrupt table */
		switch (code) {
		case 15:	/* no location */
			none = true;
			break;
		case 14:	/* long form: line delta, end line, column, end column */
			if (!svarint(t, len, &i, &delta) || !varint(t, len, &i, &skip) ||
			    !varint(t, len, &i, &skip) || !varint(t, len, &i, &skip))
				return -1;
			break;
		case 13:	/* no columns */
			if (!svarint(t, len, &i, &delta))
				return -1;
			break;
		case 10: case 11: case 12:	/* one line, two column bytes */
			delta = code - 10;
			i += 2;
			break;
		default:	/* short form: same line, one column byte */
			i += 1;
			break;
		}
		line += delta;
		if (lasti < addr + n)
			return none || line <= 0 || line > 0x7fffffff ? -1 : (int)line;
		addr += n;
	}
	return -1;
}

/* ---- str objects ---- */

static size_t put_utf8(char *out, uint32_t c)
{
	if (c < 0x80) {
		out[0] = c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = 0xc0 | (c >> 6);
		out[1] = 0x80 | (c & 0x3f);
		return 2;
	}
	if (c < 0x10000) {
		if (c >= 0xd800 && c <= 0xdfff)
			c = 0xfffd;	/* a lone surrogate: not valid UTF-8 */
		out[0] = 0xe0 | (c >> 12);
		out[1] = 0x80 | ((c >> 6) & 0x3f);
		out[2] = 0x80 | (c & 0x3f);
		return 3;
	}
	if (c > 0x10ffff)
		c = 0xfffd;
	if (c < 0x10000)
		return put_utf8(out, c);
	out[0] = 0xf0 | (c >> 18);
	out[1] = 0x80 | ((c >> 12) & 0x3f);
	out[2] = 0x80 | ((c >> 6) & 0x3f);
	out[3] = 0x80 | (c & 0x3f);
	return 4;
}

/* A compact str object as UTF-8 (malloc'd), or NULL if it is not one. */
static char *py_str(pid_t pid, const struct interp_python_layout *L, uint64_t type, uint64_t addr)
{
	uint8_t hdr[128];
	uint64_t ob_type;
	int64_t length;
	uint32_t state, kind;
	uint8_t *raw = NULL;
	char *s = NULL;
	size_t i, n = 0, unit;

	if (L->compact_data > sizeof(hdr) || interp_read(pid, addr, hdr, L->compact_data))
		return NULL;
	memcpy(&ob_type, hdr + L->ob_type, 8);
	memcpy(&length, hdr + L->unicode_length, 8);
	memcpy(&state, hdr + L->unicode_state, 4);
	kind = (state >> 2) & 7;
	if (ob_type != type || !(state & (1u << 5)) || length < 0 || length > MAX_NAME_CHARS)
		return NULL;
	unit = kind == 1 ? 1 : kind == 2 ? 2 : kind == 4 ? 4 : 0;
	if (!unit)
		return NULL;
	raw = malloc(length * unit + 1);
	s = malloc(length * 4 + 1);
	if (!raw || !s ||
	    interp_read(pid, addr + ((state & (1u << 6)) ? L->ascii_data : L->compact_data),
			raw, length * unit)) {
		free(raw);
		free(s);
		return NULL;
	}
	for (i = 0; i < (size_t)length; i++) {
		uint32_t c;

		if (unit == 1)
			c = raw[i];
		else if (unit == 2)
			c = raw[2 * i] | raw[2 * i + 1] << 8;
		else
			c = raw[4 * i] | raw[4 * i + 1] << 8 | raw[4 * i + 2] << 16 |
			    (uint32_t)raw[4 * i + 3] << 24;
		n += put_utf8(s + n, c ? c : 0xfffd);
	}
	s[n] = '\0';
	free(raw);
	return s;
}

/* A bytes object's contents (malloc'd), or NULL. */
static uint8_t *py_bytes(pid_t pid, const struct interp_python_layout *L, uint64_t type,
			 uint64_t addr, size_t *len)
{
	uint8_t hdr[64];
	uint64_t ob_type;
	int64_t size;
	uint8_t *data;

	if (L->bytes_data > sizeof(hdr) || interp_read(pid, addr, hdr, L->bytes_data))
		return NULL;
	memcpy(&ob_type, hdr + L->ob_type, 8);
	memcpy(&size, hdr + L->var_size, 8);
	if (ob_type != type || size < 0 || size > MAX_LINETABLE)
		return NULL;
	data = malloc(size ? size : 1);
	if (!data || (size && interp_read(pid, addr + L->bytes_data, data, size))) {
		free(data);
		return NULL;
	}
	*len = size;
	return data;
}

/* ---- code objects ---- */

/* The layout ip's walks were made with: its own (3.13) or its version's. */
static const struct interp_python_layout *py_layout(const struct interp_proc *ip)
{
	return ip->own_layout ? &ip->layout.py : &ip->ver->layout.py;
}

/* Read the code object and check it is the one the walker saw. */
static void code_load(struct interp_code *c, const struct interp_proc *ip,
		      const struct interp_frame *f)
{
	const struct interp_python_layout *L = py_layout(ip);
	const struct python_proc *pp = ip->priv;
	uint8_t buf[INTERP_CHUNK];
	uint64_t ob_type, qualname, filename, linetable;
	int32_t firstlineno, firsttraceable;

	if (L->code_read > sizeof(buf) || interp_read(c->pid, c->addr, buf, L->code_read))
		return;
	memcpy(&ob_type, buf + L->ob_type, 8);
	memcpy(&qualname, buf + L->code_qualname, 8);
	memcpy(&filename, buf + L->code_filename, 8);
	memcpy(&linetable, buf + L->code_linetable, 8);
	memcpy(&firstlineno, buf + L->code_firstlineno, 4);
	/* 3.11 on; before, no such field (unused: any field within the read does) */
	memcpy(&firsttraceable, buf + (L->frameobject ? L->code_firstlineno :
					L->code_firsttraceable), 4);
	/* Freed and reused since the event: not the same code, say nothing. */
	if (ob_type != ip->cfg.py.code_type || qualname != f->id1 || filename != f->id2 ||
	    (uint32_t)firstlineno != f->id3)
		return;
	c->name = py_str(c->pid, L, pp->unicode_type, qualname);
	c->file = py_str(c->pid, L, pp->unicode_type, filename);
	c->linetable = py_bytes(c->pid, L, pp->bytes_type, linetable, &c->linetable_len);
	c->firstlineno = firstlineno;
	c->firsttraceable = firsttraceable;
	c->valid = c->name != NULL;
}

/*
 * The code object of frame f, read and checked on first sight, then cached
 * by (pid, address) and revalidated against the identity fields the walker
 * sent.  NULL on allocation failure.
 */
static struct interp_code *py_code_get(struct interp_state *st, const struct interp_proc *ip,
				       const struct interp_frame *f)
{
	bool fresh;
	struct interp_code *c = interp_code_slot(st, ip->pid, f->addr, &fresh, f);

	if (c && fresh)
		code_load(c, ip, f);
	return c;
}

/* Frame f's name; frames not started yet (before RESUME) are hidden, as CPython does. */
static void python_name_frame(struct interp_state *st, struct interp_proc *ip,
			      const struct proc *proc, const struct interp_frame *f,
			      struct groups *g)
{
	const struct interp_python_layout *L = py_layout(ip);
	unsigned int owner = (f->flags >> PYTHON_FRAME_OWNER_SHIFT) & 0xff;
	struct interp_code *c;
	int64_t lasti;

	if (!f->addr)		/* an eval call's shim frame (3.12 on): ends a group, unnamed */
		return;
	c = py_code_get(st, ip, f);
	if (!c || !c->valid) {
		g->names[g->n++] = interp_intern(st, FRAME_MARK, "[unknown python frame]", NULL, 0);
		return;
	}
	if (L->frameobject) {	/* 3.8 - 3.10: pc is f_lasti */
		g->names[g->n++] = interp_intern(st, FRAME_PYTHON, c->name, c->file,
			py_old_line(L->lnotab, L->lasti_unit, c->linetable, c->linetable_len,
				    c->firstlineno, (int64_t)f->pc));
		return;
	}
	lasti = ((int64_t)f->pc - (int64_t)(f->addr + L->code_bytecode)) / (int64_t)L->codeunit;
	if (owner == L->owner_generator || lasti >= c->firsttraceable) {
		int line = lasti < 0 || lasti > 0x7fffffff ? -1 :
			   py311_line_for(c->linetable, c->linetable_len, c->firstlineno,
					  (int)lasti);

		g->names[g->n++] = interp_intern(st, FRAME_PYTHON, c->name, c->file, line);
	}
}

static const char *const python_lookalikes[] = { "python", "libpython", NULL };

const struct interp_ops python_ops = {
	.versions = python_versions,
	.lookalikes = python_lookalikes,
	.from_module = python_from_module,
	.name_frame = python_name_frame,
};
