// SPDX-License-Identifier: GPL-2.0
/* What the running kernel offers our BPF programs: see features.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "kernel/features.h"
#include "syscall_stack.skel.h"

enum probe_kind {
	PROBE_BTF_FILE,		/* the kernel's BTF is there */
	PROBE_HELPER,		/* a helper, by a test load for each of our program types */
	PROBE_HELPER_NAME,	/* a helper, by its name in the kernel's enum bpf_func_id */
	PROBE_KFUNC,		/* a kfunc, by its BTF */
	PROBE_SWITCH_STATE,	/* sched_switch's tracepoint has a fourth argument */
	PROBE_KPROBES,		/* the kprobe PMU or tracefs' kprobe_events */
	PROBE_SYSCALL_STACK,	/* a program on a syscall tracepoint (syscall_stack.bpf.c) */
	PROBE_NMI_MAP,		/* a test load of a perf_event program using such a map */
};

static const struct feature {
	const char *id;		/* for STITCH_KFEAT_OFF */
	const char *name, *since;
	enum probe_kind kind;
	int helper;		/* PROBE_HELPER*: BPF_FUNC_* */
	const char *sym;	/* PROBE_HELPER_NAME, PROBE_KFUNC: the name to find */
} features[KFEAT_NR] = {
#define F(f, id, name, since, kind, ...) [f] = { id, name, since, kind, __VA_ARGS__ }
	F(KFEAT_BTF, "btf", "kernel BTF", "5.2 with CONFIG_DEBUG_INFO_BTF", PROBE_BTF_FILE),
	F(KFEAT_RINGBUF, "ringbuf", "BPF ring buffer", "5.8", PROBE_HELPER,
	  BPF_FUNC_ringbuf_output),
	F(KFEAT_TASK_BTF, "task_btf", "bpf_get_current_task_btf", "5.11", PROBE_HELPER,
	  BPF_FUNC_get_current_task_btf),
	F(KFEAT_TASK_PT_REGS, "task_pt_regs", "bpf_task_pt_regs", "5.15", PROBE_HELPER,
	  BPF_FUNC_task_pt_regs),
	F(KFEAT_ATTACH_COOKIE, "cookie", "BPF cookies", "5.15", PROBE_HELPER,
	  BPF_FUNC_get_attach_cookie),
	F(KFEAT_BPF_LOOP, "bpf_loop", "bpf_loop", "5.17", PROBE_HELPER, BPF_FUNC_loop),
	F(KFEAT_SNPRINTF, "snprintf", "bpf_snprintf", "5.13", PROBE_HELPER, BPF_FUNC_snprintf),
	F(KFEAT_FIND_VMA, "find_vma", "bpf_find_vma", "5.17", PROBE_HELPER, BPF_FUNC_find_vma),
	F(KFEAT_COPY_FROM_USER_TASK, "copy_from_user_task",
	  "sleepable task iterators (bpf_copy_from_user_task)", "5.18", PROBE_HELPER_NAME, 0,
	  "BPF_FUNC_copy_from_user_task"),
	F(KFEAT_COPY_STR_KFUNC, "copy_str", "bpf_copy_from_user_task_str", "6.15", PROBE_KFUNC, 0,
	  "bpf_copy_from_user_task_str"),
	F(KFEAT_SWITCH_PREV_STATE, "switch_prev_state", "sched_switch's prev_state", "5.18",
	  PROBE_SWITCH_STATE),
	F(KFEAT_KPROBES, "kprobes", "kprobes", "CONFIG_KPROBES", PROBE_KPROBES),
	F(KFEAT_SYSCALL_TP_KSTACK, "syscall_kstack", "kernel stacks at syscall tracepoints",
	  "6.12; not 6.1", PROBE_SYSCALL_STACK),
	F(KFEAT_NMI_NO_PREALLOC, "nmi_no_prealloc",
	  "hash maps not preallocated in perf_event programs", "6.1", PROBE_NMI_MAP),
#undef F
};

/* 0 not probed yet, 1 present, -1 missing */
static signed char answers[KFEAT_NR];
/* What was said of a missing feature: each consequence once a run. */
#define SAID_MAX 32
static struct {
	enum kfeat f;
	char *what;
} said[SAID_MAX];
static int nsaid;
static struct btf *vmlinux;
static bool vmlinux_tried;

static const struct btf *kernel_btf(void)
{
	if (!vmlinux_tried) {
		vmlinux_tried = true;
		vmlinux = btf__load_vmlinux_btf();
		if (!vmlinux)
			vmlinux = NULL;
	}
	return vmlinux;
}

/* Our programs of these types call the probed helpers: each must have it. */
static bool helper_for_our_types(int helper)
{
	static const enum bpf_prog_type types[] = {
		BPF_PROG_TYPE_KPROBE, BPF_PROG_TYPE_TRACEPOINT, BPF_PROG_TYPE_PERF_EVENT,
	};
	size_t i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (libbpf_probe_bpf_helper(types[i], helper, NULL) != 1)
			return false;
	return true;
}

/* An enumerator of that name in the kernel's BTF. */
static bool enum_value_named(const struct btf *btf, const char *type, const char *name)
{
	int id = btf__find_by_name_kind(btf, type, BTF_KIND_ENUM);
	const struct btf_type *t;
	const struct btf_enum *e;
	int i;

	if (id < 0)
		return false;
	t = btf__type_by_id(btf, id);
	e = btf_enum(t);
	for (i = 0; i < btf_vlen(t); i++)
		if (strcmp(btf__name_by_offset(btf, e[i].name_off), name) == 0)
			return true;
	return false;
}

/* sched_switch's BTF prototype: btf_trace_sched_switch is a pointer to it. */
static bool switch_has_prev_state(const struct btf *btf)
{
	int id = btf__find_by_name_kind(btf, "btf_trace_sched_switch", BTF_KIND_TYPEDEF);
	const struct btf_type *t;

	if (id < 0)
		return false;
	t = btf__type_by_id(btf, id);
	t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_ptr(t))
		return false;
	t = btf__type_by_id(btf, t->type);
	/* void *ctx, bool preempt, prev, next, unsigned int prev_state */
	return t && btf_is_func_proto(t) && btf_vlen(t) >= 5;
}

/* Our getppid() seen by a program on its tracepoint: did it get kernel frames? */
static bool syscall_tracepoint_has_kstack(void)
{
	struct syscall_stack_bpf *skel = syscall_stack_bpf__open();
	bool yes = false;

	if (!skel)
		return false;
	skel->rodata->probe_tid = syscall(SYS_gettid);
	if (!syscall_stack_bpf__load(skel) && !syscall_stack_bpf__attach(skel)) {
		syscall(SYS_getppid);
		yes = skel->data->probe_bytes > 0;
	}
	syscall_stack_bpf__destroy(skel);
	return yes;
}

/* A perf_event program that looks up a hash map made with BPF_F_NO_PREALLOC: does it load? */
static bool nmi_no_prealloc_map(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, mopts, .map_flags = BPF_F_NO_PREALLOC);
	int map = bpf_map_create(BPF_MAP_TYPE_HASH, "stitch_probe", 4, 4, 1, &mopts), prog;
	struct bpf_insn insns[] = {
		/* *(u32 *)(fp - 4) = 0; r2 = fp - 4; r1 = map; call lookup; r0 = 0; exit */
		{ .code = BPF_ST | BPF_MEM | BPF_W, .dst_reg = BPF_REG_10, .off = -4, .imm = 0 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = BPF_REG_2, .src_reg = BPF_REG_10 },
		{ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = BPF_REG_2, .imm = -4 },
		{ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = BPF_REG_1,
		  .src_reg = BPF_PSEUDO_MAP_FD, .imm = map },
		{ 0 },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_map_lookup_elem },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	if (map < 0)
		return false;
	prog = bpf_prog_load(BPF_PROG_TYPE_PERF_EVENT, "stitch_probe", "GPL", insns,
			     sizeof(insns) / sizeof(insns[0]), NULL);
	close(map);
	if (prog < 0)
		return false;
	close(prog);
	return true;
}

void kfeat_prealloc_for_nmi(struct bpf_map *map)
{
	if (!kfeat_has(KFEAT_NMI_NO_PREALLOC))
		bpf_map__set_map_flags(map, bpf_map__map_flags(map) & ~BPF_F_NO_PREALLOC);
}

static bool probe(enum kfeat f)
{
	const struct feature *ft = &features[f];
	const struct btf *btf;

	switch (ft->kind) {
	case PROBE_BTF_FILE:
		return access("/sys/kernel/btf/vmlinux", R_OK) == 0;
	case PROBE_HELPER:
		return helper_for_our_types(ft->helper);
	case PROBE_HELPER_NAME:
		btf = kernel_btf();
		return btf && enum_value_named(btf, "bpf_func_id", ft->sym);
	case PROBE_KFUNC:
		btf = kernel_btf();
		return btf && btf__find_by_name_kind(btf, ft->sym, BTF_KIND_FUNC) >= 0;
	case PROBE_SWITCH_STATE:
		btf = kernel_btf();
		return btf && switch_has_prev_state(btf);
	case PROBE_SYSCALL_STACK:
		return syscall_tracepoint_has_kstack();
	case PROBE_NMI_MAP:
		return nmi_no_prealloc_map();
	case PROBE_KPROBES:
		return access("/sys/bus/event_source/devices/kprobe/type", R_OK) == 0 ||
		       access("/sys/kernel/tracing/kprobe_events", F_OK) == 0 ||
		       access("/sys/kernel/debug/tracing/kprobe_events", F_OK) == 0;
	}
	return false;
}

/*
 * Tests only: the features named in STITCH_KFEAT_OFF (ids, comma-separated)
 * are taken as missing, so that the paths of older kernels run here too.
 */
static bool turned_off(enum kfeat f)
{
	const char *off = getenv("STITCH_KFEAT_OFF"), *p;
	size_t n = strlen(features[f].id);

	for (p = off; p && *p; p += strcspn(p, ",")) {
		p += *p == ',';
		if (strncmp(p, features[f].id, n) == 0 && (p[n] == ',' || p[n] == '\0'))
			return true;
	}
	return false;
}

bool kfeat_has(enum kfeat f)
{
	if ((unsigned int)f >= KFEAT_NR)
		return false;
	if (!answers[f])
		answers[f] = !turned_off(f) && probe(f) ? 1 : -1;
	return answers[f] > 0;
}

const char *kfeat_name(enum kfeat f)
{
	return (unsigned int)f < KFEAT_NR ? features[f].name : "?";
}

const char *kfeat_since(enum kfeat f)
{
	return (unsigned int)f < KFEAT_NR ? features[f].since : "?";
}

const char *kfeat_kernel(void)
{
	static struct utsname u;

	if (!u.release[0] && uname(&u))
		return "unknown";
	return u.release;
}

void kfeat_say_missing(enum kfeat f, const char *what)
{
	int i;

	if ((unsigned int)f >= KFEAT_NR)
		return;
	for (i = 0; i < nsaid; i++)
		if (said[i].f == f && !strcmp(said[i].what, what))
			return;
	if (nsaid < SAID_MAX) {
		said[nsaid].f = f;
		said[nsaid].what = strdup(what);
		if (said[nsaid].what)
			nsaid++;
	}
	fprintf(stderr, "stitch: this kernel (%s) has no %s (Linux %s): %s\n", kfeat_kernel(),
		kfeat_name(f), kfeat_since(f), what);
}

int kfeat_require_basics(const char *who)
{
	if (!kfeat_has(KFEAT_BTF)) {
		fprintf(stderr, "%s: this kernel (%s) has no BTF (/sys/kernel/btf/vmlinux): stitch "
			"needs a kernel built with CONFIG_DEBUG_INFO_BTF (Debian's are, from 11 on)\n",
			who, kfeat_kernel());
		return -1;
	}
	if (!kfeat_has(KFEAT_RINGBUF)) {
		fprintf(stderr, "%s: this kernel (%s) has no %s (Linux %s): stitch runs on %s "
			"and later\n", who, kfeat_kernel(), kfeat_name(KFEAT_RINGBUF),
			kfeat_since(KFEAT_RINGBUF), kfeat_since(KFEAT_RINGBUF));
		return -1;
	}
	return 0;
}

void kfeat_print(FILE *f)
{
	int i;

	fprintf(f, "kernel %s\n", kfeat_kernel());
	for (i = 0; i < KFEAT_NR; i++)
		fprintf(f, "  %-52s %-8s (Linux %s)\n", kfeat_name(i),
			kfeat_has(i) ? "yes" : "no", kfeat_since(i));
}
