// SPDX-License-Identifier: GPL-2.0
/*
 * Naming Ruby 2.7-3.4 frames from the target's memory (the VM is found by
 * ruby_detect.c): iseq labels and paths (RString, or an RArray [path,
 * realpath]), C method names through the global symbol table, the class
 * owning a frame's method (its __classpath__), and exact lines (through
 * ruby_lines.c: the naive "last entry" is wrong for any multi-line method).
 * Untrusted input: every object's type checked, every length capped.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/ruby/ruby.h"
#include "profile/profile.h"

#define MAX_NAME 1024

/* A class's name prefix for its methods, cached per (pid, class). */
struct rb_class {
	struct hmap_node node;
	uint32_t pid;
	uint64_t klass;
	uint64_t symbols;		/* the process's &ruby_global_symbols: a new
					 * program in the same pid has another */
	char prefix[];			/* "Work::Pinger#", "Process.", or "" */
};

/* Line of (iseq, pc), cached: finding it takes two reads of the target. */
struct rb_line {
	struct hmap_node node;
	uint32_t pid;
	int line;
	uint64_t iseq, body, pc;
};

/* The caches of one recording (interp_lang_state). */
struct ruby_state {
	struct hmap lines;		/* (pid, iseq, pc) -> struct rb_line */
	struct hmap classes;		/* (pid, class) -> struct rb_class */
};

static void ruby_state_free(void *p)
{
	struct ruby_state *rs = p;

	hmap_free_all(&rs->lines);
	hmap_free_all(&rs->classes);
	free(rs);
}

static void ruby_proc_forget(void *p, uint32_t pid)
{
	struct ruby_state *rs = p;

	hmap_remove_pid(&rs->lines, offsetof(struct rb_line, pid), pid, NULL);
	hmap_remove_pid(&rs->classes, offsetof(struct rb_class, pid), pid, NULL);
}

static void *ruby_state_new(void)
{
	struct ruby_state *rs = calloc(1, sizeof(*rs));

	if (rs && (hmap_init(&rs->lines, 1024) || hmap_init(&rs->classes, 64))) {
		ruby_state_free(rs);
		rs = NULL;
	}
	return rs;
}

/* The process's Ruby data: set by ruby_attach before any of its frames is named. */
static struct ruby_proc *ruby_of(const struct interp_proc *ip)
{
	return ip->priv;
}

static bool rd64(pid_t pid, uint64_t addr, uint64_t *v)
{
	return interp_read(pid, addr, v, 8) == 0;
}

static bool is_type(const struct interp_ruby_layout *L, uint64_t flags, uint32_t t)
{
	return (flags & L->t_mask) == t;
}

/* A String VALUE as a C string (malloc'd; NUL and control bytes replaced), or NULL. */
static char *rb_str(pid_t pid, const struct interp_ruby_layout *L, uint64_t v)
{
	uint64_t flags, len, ptr;
	char *s;
	size_t i;

	if (!v || (v & 7) || !rd64(pid, v, &flags) || !is_type(L, flags, L->t_string))
		return NULL;
	if (flags & L->str_noembed) {
		if (!rd64(pid, v + L->str_len, &len) || !rd64(pid, v + L->str_ptr, &ptr))
			return NULL;
	} else if (L->str_embed_len_mask) {
		len = (flags >> L->str_embed_len_shift) & L->str_embed_len_mask;
		ptr = v + L->str_embed;
	} else {
		/* 3.2+: the length of an embedded string is in .len too */
		if (!rd64(pid, v + L->str_len, &len))
			return NULL;
		ptr = v + L->str_embed;
	}
	if (len > MAX_NAME)
		len = MAX_NAME;
	s = malloc(len + 1);
	if (!s || (len && interp_read(pid, ptr, s, len))) {
		free(s);
		return NULL;
	}
	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			s[i] = '?';
	s[len] = '\0';
	return s;
}

/* Array VALUE [i]; false unless an Array with i < length. */
static bool rb_aref(pid_t pid, const struct interp_ruby_layout *L, uint64_t v, uint64_t i,
		    uint64_t *out)
{
	uint64_t flags, len, ptr;

	if (!v || (v & 7) || !rd64(pid, v, &flags) || !is_type(L, flags, L->t_array))
		return false;
	if (flags & L->ary_embed_flag) {
		len = (flags >> L->ary_embed_len_shift) & L->ary_embed_len_mask;
		ptr = v + L->ary_embed;
	} else if (!rd64(pid, v + L->ary_len, &len) || !rd64(pid, v + L->ary_ptr, &ptr)) {
		return false;
	}
	return i < len && rd64(pid, ptr + i * 8, out);
}

/* An ID's name through ruby_global_symbols.ids (what rb_id2str does). */
static char *rb_id_name(const struct interp_proc *ip, uint64_t id)
{
	const struct ruby_proc *rp = ruby_of(ip);
	const struct interp_ruby_layout *L = &ip->ver->layout.rb;
	uint64_t serial = id > L->tlast_op_id ? id >> L->id_scope_shift : id, ids, ary, str;
	uint32_t last;

	if (!rp->symbols || !serial ||
	    interp_read(ip->pid, rp->symbols + L->symbols_last_id, &last, 4) || serial > last ||
	    !rd64(ip->pid, rp->symbols + L->symbols_ids, &ids) ||
	    !rb_aref(ip->pid, L, ids, serial / L->id_entry_unit, &ary) ||
	    !rb_aref(ip->pid, L, ary, (serial % L->id_entry_unit) * L->id_entry_size, &str))
		return NULL;
	return rb_str(ip->pid, L, str);
}

/*
 * A C method: the walker sent its original_id and owner, read from the
 * method entry while it ran; the entry itself is never read again (it may
 * be freed and reused by now).  IDs of method names are never reused.
 */
static void load_cfunc(struct interp_code *c, const struct interp_proc *ip,
		       const struct interp_frame *f)
{
	c->name_kind = RB_LABEL_METHOD;
	c->name = rb_id_name(ip, f->id1);
	c->valid = c->name != NULL;
}

/*
 * Is the label "block in m" (or "rescue in block in m"...) of a block
 * inside the method m?  Its local iseq must be a method's, labelled m.
 */
static bool in_method(pid_t pid, const struct interp_ruby_layout *L, const uint8_t *body,
		      const char *label)
{
	uint64_t local, flags, lbody, llabel;
	uint32_t type;
	const char *in = NULL, *p;
	char *name;
	bool ok;

	for (p = strstr(label, " in "); p; p = strstr(p + 1, " in "))
		in = p + 4;
	memcpy(&local, body + L->body_local_iseq, 8);
	if (!in || !local || (local & 7) || !rd64(pid, local, &flags) ||
	    (flags & L->t_mask) != L->t_imemo ||
	    ((flags >> L->imemo_shift) & L->imemo_mask) != L->imemo_iseq ||
	    !rd64(pid, local + L->iseq_body, &lbody) ||
	    interp_read(pid, lbody + L->body_type, &type, 4) || type != L->iseq_method ||
	    !rd64(pid, lbody + L->body_label, &llabel))
		return false;
	name = rb_str(pid, L, llabel);
	ok = name && strcmp(name, in) == 0;
	free(name);
	return ok;
}

static void load_iseq(struct interp_code *c, const struct interp_proc *ip,
		      const struct interp_frame *f)
{
	const struct interp_ruby_layout *L = &ip->ver->layout.rb;
	uint64_t flags, body, pathobj, label;
	uint32_t type;

	if (!rd64(c->pid, c->addr, &flags) || (flags & L->t_mask) != L->t_imemo ||
	    ((flags >> L->imemo_shift) & L->imemo_mask) != L->imemo_iseq ||
	    !rd64(c->pid, c->addr + L->iseq_body, &body) || body != f->id1 ||
	    L->body_read > 512)
		return;
	c->body = malloc(L->body_read);
	if (!c->body || interp_read(c->pid, body, c->body, L->body_read))
		return;
	memcpy(&pathobj, c->body + L->body_pathobj, 8);
	memcpy(&label, c->body + L->body_label, 8);
	c->file = rb_str(c->pid, L, pathobj);
	if (!c->file && rb_aref(c->pid, L, pathobj, 0, &pathobj))	/* [path, realpath] */
		c->file = rb_str(c->pid, L, pathobj);
	c->name = rb_str(c->pid, L, label);
	c->valid = c->name && c->file;
	if (!c->valid)
		return;
	rb_lines_copy(c, L);
	memcpy(&type, c->body + L->body_type, 4);
	c->name_kind = RB_LABEL_PLAIN;
	if (type == L->iseq_method)
		c->name_kind = RB_LABEL_METHOD;
	else if ((type == L->iseq_block || type == L->iseq_rescue || type == L->iseq_ensure) &&
		 in_method(c->pid, L, c->body, c->name))
		c->name_kind = RB_LABEL_IN_METHOD;
}

/*
 * The iseq, or C method entry (name only), of frame f: read and checked on
 * first sight, then cached by (pid, address) and revalidated against the
 * identity fields the walker sent.  NULL on allocation failure.
 */
static struct interp_code *rb_code_get(struct interp_state *st, const struct interp_proc *ip,
				       const struct interp_frame *f)
{
	struct interp_frame key = *f;
	struct interp_code *c;
	bool fresh;

	/*
	 * An iseq's owner is not part of its identity: module_function and
	 * define_method share one iseq between classes.  A C method's is (the
	 * owner comes with the entry the cache is keyed by).
	 */
	if (!(f->flags & RUBY_FRAME_CFUNC))
		key.id2 = 0;
	c = interp_code_slot(st, ip->pid, f->addr, &fresh, &key);

	if (c && fresh) {
		if (f->flags & RUBY_FRAME_CFUNC)
			load_cfunc(c, ip, f);
		else
			load_iseq(c, ip, f);
	}
	return c;
}

const char *rb_compose_name(const char *label, enum rb_label_kind kind, const char *prefix,
			    char *out, size_t outsz)
{
	const char *in = NULL, *p;
	int n;

	if (!prefix || !*prefix || kind == RB_LABEL_PLAIN)
		return label;
	if (kind == RB_LABEL_METHOD) {
		n = snprintf(out, outsz, "%s%s", prefix, label);
	} else {
		/* The method is after the last " in ": "rescue in block in m". */
		for (p = strstr(label, " in "); p; p = strstr(p + 1, " in "))
			in = p + 4;
		if (!in)
			return label;
		n = snprintf(out, outsz, "%.*s%s%s", (int)(in - label), label, prefix, in);
	}
	return n > 0 && (size_t)n < outsz ? out : label;
}

/*
 * Value of instance variable id in a class's iv_tbl (an st_table: its
 * entries array in insertion order, {hash, key, record}, deleted ones with
 * the reserved hash ~0).  Classes have few: more than MAX_CLASS_IVARS is not
 * believed.
 */
#define MAX_CLASS_IVARS 256

static bool class_ivar(pid_t pid, const struct interp_ruby_layout *L, uint64_t klass, uint64_t id,
		       uint64_t *out)
{
	uint64_t ext, tbl, start, bound, entries, i;
	uint8_t *buf;
	bool found = false;

	if (!id || !rd64(pid, klass + L->rclass_ext, &ext) || !ext ||
	    !rd64(pid, ext + L->ext_iv_tbl, &tbl) || !tbl ||
	    !rd64(pid, tbl + L->st_entries_start, &start) ||
	    !rd64(pid, tbl + L->st_entries_bound, &bound) ||
	    !rd64(pid, tbl + L->st_entries, &entries) ||
	    start > bound || bound - start > MAX_CLASS_IVARS || bound == start ||
	    L->st_entry_size < L->st_entry_record + 8 || L->st_entry_size < L->st_entry_key + 8)
		return false;
	buf = malloc((bound - start) * L->st_entry_size);
	if (!buf || interp_read(pid, entries + start * L->st_entry_size, buf,
				(bound - start) * L->st_entry_size)) {
		free(buf);
		return false;
	}
	for (i = 0; i < bound - start && !found; i++) {
		const uint8_t *e = buf + i * L->st_entry_size;
		uint64_t hash, key;

		memcpy(&hash, e, 8);
		memcpy(&key, e + L->st_entry_key, 8);
		if (hash != ~0ULL && key == id) {
			memcpy(out, e + L->st_entry_record, 8);
			found = true;
		}
	}
	free(buf);
	return found;
}

/* RBasic flags of a class or module, or false. */
static bool class_flags(pid_t pid, const struct interp_ruby_layout *L, uint64_t v, uint64_t *flags)
{
	uint64_t t;

	if (!v || (v & 7) || !rd64(pid, v, flags))
		return false;
	t = *flags & L->t_mask;
	return t == L->t_class || t == L->t_module;
}

/* 1: the ID's name is name; -1: another; 0: cannot tell (yet). */
static int id_is(const struct interp_proc *ip, uint64_t id, const char *name)
{
	char *s = rb_id_name(ip, id);
	int r = s ? (strcmp(s, name) == 0 ? 1 : -1) : 0;

	free(s);
	return r;
}

/*
 * The ID of __classpath__ is made at boot (rb_intern), not a constant:
 * take it from Object's own iv_tbl, the key whose name is "__classpath__".
 * __attached__'s is a constant of the build (id.def): check its name once.
 * Not found (the VM not booted yet): looked for again next time.
 */
static void find_class_ids(struct interp_proc *ip)
{
	struct ruby_proc *rp = ruby_of(ip);
	const struct interp_ruby_layout *L = &ip->ver->layout.rb;
	uint64_t object, flags, ext, tbl, start, bound, entries, i;

	if (!rp->attached_ok)
		rp->attached_ok = id_is(ip, L->id_attached, "__attached__");
	/* Bounded: a process where it cannot be found keeps bare names, at little cost. */
	if (rp->classpath_id || rp->id_tries >= 64)
		return;
	rp->id_tries++;
	if (!rp->cobject || !rd64(ip->pid, rp->cobject, &object) ||
	    !class_flags(ip->pid, L, object, &flags) ||
	    !rd64(ip->pid, object + L->rclass_ext, &ext) || !ext ||
	    !rd64(ip->pid, ext + L->ext_iv_tbl, &tbl) || !tbl ||
	    !rd64(ip->pid, tbl + L->st_entries_start, &start) ||
	    !rd64(ip->pid, tbl + L->st_entries_bound, &bound) ||
	    !rd64(ip->pid, tbl + L->st_entries, &entries) ||
	    start > bound || bound - start > MAX_CLASS_IVARS)
		return;
	for (i = start; i < bound; i++) {
		uint64_t key;

		if (rd64(ip->pid, entries + i * L->st_entry_size + L->st_entry_key, &key) &&
		    id_is(ip, key, "__classpath__") > 0) {
			rp->classpath_id = key;
			return;
		}
	}
}

/*
 * 3.3: the class's path in its rb_classext_t (after struct RClass), used
 * only if permanent (not a path under an anonymous namespace).
 */
static bool class_ext_path(pid_t pid, const struct interp_ruby_layout *L, uint64_t klass,
			   uint64_t *path)
{
	uint8_t perm;

	return interp_read(pid, klass + L->cls_permanent, &perm, 1) == 0 &&
	       (perm & L->cls_permanent_bit) && rd64(pid, klass + L->cls_classpath, path);
}

/* A class's permanent path ("Work::Pinger"), or NULL: anonymous, or unreadable. */
static char *class_path(const struct interp_proc *ip, uint64_t klass)
{
	const struct ruby_proc *rp = ruby_of(ip);
	const struct interp_ruby_layout *L = &ip->ver->layout.rb;
	uint64_t path;

	char *s;

	if (L->class_mode == RUBY_CLASS_EXT ? !class_ext_path(ip->pid, L, klass, &path) :
	    !class_ivar(ip->pid, L, klass, rp->classpath_id, &path))
		return NULL;
	s = rb_str(ip->pid, L, path);
	if (s && strlen(s) >= MAX_NAME) {	/* rb_str cut it: a cut path is another class */
		free(s);
		s = NULL;
	}
	return s;
}

/*
 * What goes before a method of class klass: "Name#", or "Name." for a
 * singleton class of a named class or module (def self.x, Process.pid);
 * "" for Object (top-level methods keep their plain names), anonymous
 * classes, singletons of other objects, and anything that fails a check.
 */
static char *class_prefix(struct interp_proc *ip, uint64_t klass)
{
	const struct ruby_proc *rp = ruby_of(ip);
	const struct interp_ruby_layout *L = &ip->ver->layout.rb;
	uint64_t flags, attached, aflags;
	char *path = NULL, *out;
	char sep = '#';

	if (L->class_mode == RUBY_CLASS_IV_TBL)
		find_class_ids(ip);
	if ((rp->classpath_id || L->class_mode == RUBY_CLASS_EXT) &&
	    class_flags(ip->pid, L, klass, &flags)) {
		/*
		 * A singleton class is always a T_CLASS (rb_class_boot); a
		 * module's FL_SINGLETON bit means something else (3.4: FL_USER1,
		 * set on some modules, which RCLASS_SINGLETON_P does not take).
		 */
		if (!(flags & L->fl_singleton) || (flags & L->t_mask) != L->t_class) {
			path = class_path(ip, klass);
		} else if ((L->class_mode == RUBY_CLASS_EXT ?
			    rd64(ip->pid, klass + L->cls_attached, &attached) :
			    rp->attached_ok > 0 &&
			    class_ivar(ip->pid, L, klass, L->id_attached, &attached)) &&
			   class_flags(ip->pid, L, attached, &aflags) &&
			   !(aflags & L->fl_singleton)) {
			path = class_path(ip, attached);
			sep = '.';
		}
	}
	if (path && sep == '#' && strcmp(path, "Object") == 0) {
		free(path);
		path = NULL;
	}
	if (!path || !*path || asprintf(&out, "%s%c", path, sep) < 0)
		out = NULL;
	free(path);
	return out;
}

static bool class_eq(const struct hmap_node *n, const void *key)
{
	const struct rb_class *a = (const struct rb_class *)n, *k = key;

	return a->pid == k->pid && a->klass == k->klass && a->symbols == k->symbols;
}

/*
 * Name of frame f (code c, valid) as Ruby 3.4 prints it: Class#method,
 * Klass.method, block in Class#method; the bare label when the class is
 * unknown.  Written to buf (or c->name returned).
 */
static const char *rb_frame_name(struct interp_state *st, struct interp_proc *ip,
				 const struct interp_code *c, const struct interp_frame *f,
				 char *buf, size_t size)
{
	const struct ruby_proc *rp = ruby_of(ip);
	struct ruby_state *rs = interp_lang_state(st, &ruby_ops);
	struct rb_class key = { .pid = ip->pid, .klass = f->id2, .symbols = rp->symbols }, *k;
	uint64_t h = hash_u64(f->id2 ^ hash_u64(ip->pid ^ rp->symbols));
	char *prefix;

	if (!f->id2 || c->name_kind == RB_LABEL_PLAIN || !rs)
		return c->name;
	k = (struct rb_class *)hmap_find(&rs->classes, h, class_eq, &key);
	if (!k) {
		/* Not yet booted far enough to know the IDs: try again later. */
		prefix = class_prefix(ip, f->id2);
		if (!prefix && !rp->classpath_id &&
		    ip->ver->layout.rb.class_mode == RUBY_CLASS_IV_TBL)
			return c->name;
		k = malloc(sizeof(*k) + (prefix ? strlen(prefix) : 0) + 1);
		if (!k) {
			free(prefix);
			return c->name;
		}
		*k = key;
		strcpy(k->prefix, prefix ? prefix : "");
		free(prefix);
		hmap_insert(&rs->classes, &k->node, h);
	}
	return rb_compose_name(c->name, c->name_kind, k->prefix, buf, size);
}

static bool line_eq(const struct hmap_node *n, const void *key)
{
	const struct rb_line *a = (const struct rb_line *)n, *k = key;

	return a->pid == k->pid && a->iseq == k->iseq && a->body == k->body && a->pc == k->pc;
}

/* pc points into code c's instructions (a control frame's pc: past the one it runs). */
static bool pc_in_iseq(const struct interp_proc *ip, const struct interp_code *c, uint64_t pc)
{
	const struct interp_ruby_layout *L = &ip->ver->layout.rb;
	uint64_t enc;
	uint32_t size;

	if (!c->body)
		return false;
	memcpy(&enc, c->body + L->body_iseq_encoded, 8);
	memcpy(&size, c->body + L->body_iseq_size, 4);
	return pc >= enc && pc <= enc + (uint64_t)size * 8 && (pc - enc) % 8 == 0;
}

/* Line of frame f in code c (an iseq), -1 if unknown. */
static int rb_frame_line(struct interp_state *st, const struct interp_proc *ip,
			 const struct interp_code *c, const struct interp_frame *f)
{
	struct ruby_state *rs = interp_lang_state(st, &ruby_ops);
	struct rb_line key = { .pid = ip->pid, .iseq = f->addr, .body = f->id1, .pc = f->pc }, *l;
	uint64_t h = hash_u64(f->pc ^ hash_u64(f->addr ^ ip->pid));

	if (!c->body || !rs)
		return -1;
	/* Cached per (iseq, pc) of a code entry that passed its identity checks. */
	l = (struct rb_line *)hmap_find(&rs->lines, h, line_eq, &key);
	if (l)
		return l->line;
	l = malloc(sizeof(*l));
	if (!l)
		return -1;
	*l = key;
	l->line = rb_lines_find(c, &ip->ver->layout.rb, f->pc);
	hmap_insert(&rs->lines, &l->node, h);
	return l->line;
}

/*
 * Frame f's name; addr 0 is only a group boundary.  A C method is placed
 * at its C function's native frame (g->func_*), when that is found.
 */
static void ruby_name_frame(struct interp_state *st, struct interp_proc *ip,
			    const struct proc *proc, const struct interp_frame *f,
			    struct groups *g)
{
	const struct interp_name *name;
	struct interp_code *c;
	const struct map *m;
	char buf[2 * 1024 + 64];

	if (!f->addr)
		return;
	c = rb_code_get(st, ip, f);
	/* A top frame that may still be a popped one's (RUBY_FRAME_UNSURE): its pc must be its own. */
	if ((f->flags & RUBY_FRAME_UNSURE) && !(f->flags & RUBY_FRAME_CFUNC) &&
	    (!c || !c->valid || !pc_in_iseq(ip, c, f->pc)))
		return;
	if (!c || !c->valid) {
		name = interp_intern(st, FRAME_MARK, "[unknown ruby frame]", NULL, 0);
	} else {
		const char *s = rb_frame_name(st, ip, c, f, buf, sizeof(buf));

		/* a C method: no file or line of its own */
		if (f->flags & RUBY_FRAME_CFUNC)
			name = interp_intern(st, FRAME_RUBY, s, NULL, 0);
		else
			name = interp_intern(st, FRAME_RUBY, s, c->file,
					     rb_frame_line(st, ip, c, f));
	}
	if (!name)
		return;
	if ((f->flags & RUBY_FRAME_CFUNC) && name->kind == FRAME_RUBY &&
	    (m = proc_find_map(proc, f->pc)) && m->bin) {
		g->func_bin[g->n] = m->bin;
		g->func_addr[g->n] = f->pc - m->bias;
		g->func_required[g->n] = (f->flags & RUBY_FRAME_UNSURE) != 0;
	} else if ((f->flags & RUBY_FRAME_UNSURE) && (f->flags & RUBY_FRAME_CFUNC)) {
		return;		/* a top C method we cannot place: it may not be whole */
	}
	g->names[g->n++] = name;
}

static const char *const ruby_lookalikes[] = { "libruby-", "libruby.so.", NULL };

const struct interp_ops ruby_ops = {
	.versions = ruby_versions,
	.lookalikes = ruby_lookalikes,
	.attach = ruby_attach,
	.name_frame = ruby_name_frame,
	/* vm_push_frame(VM_FRAME_FLAG_FINISH) comes before rb_vm_exec, its pop before the return */
	.entry_outside_loop = true,
	.state_new = ruby_state_new,
	.state_free = ruby_state_free,
	.proc_forget = ruby_proc_forget,
};
