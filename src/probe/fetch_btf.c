// SPDX-License-Identifier: GPL-2.0
/*
 * --fetch on a kprobe: the kernel function's arguments by name and C type,
 * from the running kernel's BTF (its FUNC's prototype), then ->, . and []
 * through BTF's structs, as fetch_compile.c does through DWARF's.  A
 * kprobe is at the function's entry, where every argument is still in its
 * register.  Pointers are followed in the kernel's memory or the thread's,
 * by the address (a __user string is the thread's).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "probe/fetch_btf.h"
#include "probe/fetch_path.h"

#if defined(__aarch64__)
#define KARGS_IN_REGS 8
#else
#define KARGS_IN_REGS 6
#endif

struct bcomp {
	const struct btf *btf;
	struct fetch_step *steps;
	int n;
	const char *expr;
	char *err;
	size_t errlen;
};

static int fail(struct bcomp *c, const char *why, const char *arg)
{
	char text[256];

	snprintf(text, sizeof(text), why, arg);
	snprintf(c->err, c->errlen, "--fetch '%s': %s", c->expr, text);
	return -EINVAL;
}

static int emit(struct bcomp *c, int kind, unsigned int arg, int64_t imm)
{
	if (c->n >= FETCH_MAX_STEPS - 1)
		return fail(c, "too many steps%s", "");
	c->steps[c->n].kind = kind;
	c->steps[c->n].arg = arg;
	c->steps[c->n].imm = imm;
	c->n++;
	return 0;
}

/* id under typedefs and qualifiers; 0 for void. */
static __u32 strip(const struct btf *btf, __u32 id)
{
	int hops;

	for (hops = 0; id && hops < 16; hops++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (!t)
			return 0;
		if (!btf_is_typedef(t) && !btf_is_mod(t))
			return id;
		id = t->type;
	}
	return 0;
}

static bool find_member(const struct btf *btf, __u32 sid, const char *name, __u32 *type,
			__u32 *byte_off, int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, sid);
	const struct btf_member *m;
	int i;

	if (!t || depth > 8 || !btf_is_composite(t))
		return false;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(btf, m->name_off);
		__u32 bits = btf_member_bit_offset(t, i);

		if (btf_member_bitfield_size(t, i) || bits % 8)
			continue;
		if (n && n[0] && strcmp(n, name) == 0) {
			*type = m->type;
			*byte_off = bits / 8;
			return true;
		}
		if (!n || !n[0]) {
			__u32 inner_off;

			if (find_member(btf, strip(btf, m->type), name, type, &inner_off,
					depth + 1)) {
				*byte_off = bits / 8 + inner_off;
				return true;
			}
		}
	}
	return false;
}

static int follow(struct bcomp *c, const struct fetch_access *a, __u32 *id, bool *memory)
{
	const struct btf_type *t = btf__type_by_id(c->btf, *id);
	__u32 type, off;
	__s64 size;
	int rc;

	if (!t)
		return fail(c, "a type not in the kernel's BTF%s", "");
	switch (a->kind) {
	case ACC_ARROW:
		if (!btf_is_ptr(t))
			return fail(c, "'->%s' on something that is not a pointer", a->name);
		if (*memory && (rc = emit(c, FETCH_STEP_LOAD_ANY, 8, 0)))
			return rc;
		*id = strip(c->btf, t->type);
		t = btf__type_by_id(c->btf, *id);
		if (!t || !btf_is_composite(t))
			return fail(c, "'->%s' on a pointer to no struct", a->name);
		*memory = true;
		/* fall through */
	case ACC_DOT:
		if (!btf_is_composite(t))
			return fail(c, "'.%s' on something that is not a struct", a->name);
		if (!*memory)
			return fail(c, "'.%s': the struct is in registers there", a->name);
		if (!find_member(c->btf, *id, a->name, &type, &off, 0))
			return fail(c, "no member '%s' there (or a bit field)", a->name);
		*id = strip(c->btf, type);
		return off ? emit(c, FETCH_STEP_ADD, 0, off) : 0;
	case ACC_INDEX:
		if (btf_is_array(t)) {
			if (!*memory)
				return fail(c, "an array in registers%s", "");
			type = btf_array(t)->type;
		} else if (btf_is_ptr(t)) {
			if (*memory && (rc = emit(c, FETCH_STEP_LOAD_ANY, 8, 0)))
				return rc;
			type = t->type;
		} else {
			return fail(c, "[] on something that is neither an array nor a pointer%s",
				    "");
		}
		size = btf__resolve_size(c->btf, type);
		if (size <= 0)
			return fail(c, "[]: its elements have no size%s", "");
		*id = strip(c->btf, type);
		*memory = true;
		return a->index ? emit(c, FETCH_STEP_ADD, 0, a->index * size) : 0;
	}
	return -EINVAL;
}

static bool is_char(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, strip(btf, id));

	return t && btf_is_int(t) && t->size == 1;
}

static int finish(struct bcomp *c, __u32 id, bool memory, const char *cast,
		  struct fetch_format *f)
{
	const struct btf_type *t = btf__type_by_id(c->btf, id);
	__s64 size;
	int rc;

	if (!t)
		return fail(c, "void%s", "");
	if (strcmp(cast, "string") == 0) {
		if (btf_is_array(t) && is_char(c->btf, btf_array(t)->type)) {
			if (!memory)
				return fail(c, "an array in registers%s", "");
		} else if (btf_is_ptr(t) && is_char(c->btf, t->type)) {
			if (memory && (rc = emit(c, FETCH_STEP_LOAD_ANY, 8, 0)))
				return rc;
		} else {
			return fail(c, ":string on something that is not a char array or pointer%s",
				    "");
		}
		f->print = FETCH_PRINT_STRING;
		return emit(c, FETCH_STEP_STR_ANY, 0, 0);
	}
	if (cast[0]) {
		if (!fetch_cast_parse(cast, f))
			return fail(c, "':%s' is not string, u8..u64, s8..s64 or x8..x64", cast);
	} else if (btf_is_ptr(t)) {
		f->print = FETCH_PRINT_HEX;
		f->size = 8;
	} else if (btf_is_int(t) || btf_is_enum(t)) {
		size = t->size;
		if (size <= 0 || size > 8)
			return fail(c, "a value of more than 8 bytes%s", "");
		f->size = size;
		f->print = btf_is_enum(t) ? FETCH_PRINT_SIGNED :
			   btf_int_encoding(t) & BTF_INT_BOOL ? FETCH_PRINT_BOOL :
			   btf_int_encoding(t) & BTF_INT_SIGNED ? FETCH_PRINT_SIGNED :
			   FETCH_PRINT_UNSIGNED;
	} else if (btf_is_composite(t)) {
		return fail(c, "a struct: name a member (->name, .name)%s", "");
	} else {
		return fail(c, "a value of a kind stitch does not print (add a cast)%s", "");
	}
	return memory ? emit(c, FETCH_STEP_LOAD_ANY, f->size, 0) : 0;
}

static int compile_one(struct bcomp *c, const struct btf_type *proto, struct fetch_format *f)
{
	const struct btf_param *p = btf_params(proto);
	struct fetch_path path;
	bool memory = false;
	__u32 id = 0;
	int i, arg = -1, rc;
	char names[256];
	size_t len = 0;

	if (fetch_path_parse(c->expr, &path, f->label, sizeof(f->label)))
		return fail(c, "not NAME, NAME->member, NAME.member or NAME[N], with :string or "
			    "a cast after it%s", "");
	names[0] = '\0';
	for (i = 0; i < btf_vlen(proto); i++) {
		const char *n = btf__name_by_offset(c->btf, p[i].name_off);

		if (n && strcmp(n, path.base) == 0) {
			arg = i;
			id = p[i].type;
		}
		if (n && len < sizeof(names))
			len += snprintf(names + len, sizeof(names) - len, "%s%s", len ? ", " : "", n);
	}
	if (arg < 0) {
		snprintf(c->err, c->errlen, "--fetch '%s': no argument '%s' (its arguments: %s)",
			 c->expr, path.base, names[0] ? names : "none");
		return -EINVAL;
	}
	if (arg >= KARGS_IN_REGS)
		return fail(c, "'%s' is passed on the stack (not read yet)", path.base);
	rc = emit(c, FETCH_STEP_KARG, arg, 0);
	id = strip(c->btf, id);
	for (i = 0; !rc && i < path.nsteps; i++)
		rc = follow(c, &path.step[i], &id, &memory);
	return rc ? rc : finish(c, id, memory, path.cast, f);
}

int fetch_btf_compile(const char *func, const char *const *exprs, int n,
		      struct fetch_steps *prog, struct fetch_format *fmt, char *err, size_t errlen)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const struct btf_type *t;
	int id, i, rc = 0;

	memset(prog, 0, sizeof(*prog));
	if (!btf) {
		snprintf(err, errlen, "--fetch on a kprobe needs the kernel's BTF "
			 "(/sys/kernel/btf/vmlinux), which this kernel lacks");
		return -ENOENT;
	}
	id = btf__find_by_name_kind(btf, func, BTF_KIND_FUNC);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	t = t ? btf__type_by_id(btf, t->type) : NULL;
	if (!t || !btf_is_func_proto(t)) {
		snprintf(err, errlen, "--fetch: no function %s in the kernel's BTF (a module's, or "
			 "inlined)", func);
		btf__free(btf);
		return -ENOENT;
	}
	prog->nvars = n;
	for (i = 0; i < n && !rc; i++) {
		struct bcomp c = { btf, prog->steps[i], 0, exprs[i], err, errlen };

		memset(&fmt[i], 0, sizeof(fmt[i]));
		rc = compile_one(&c, t, &fmt[i]);
	}
	btf__free(btf);
	return rc;
}
