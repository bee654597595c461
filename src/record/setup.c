// SPDX-License-Identifier: GPL-2.0
/* stitch record: loading the capture program and attaching it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "capture.skel.h"

#include "capture/alloc_sampling.h"
#include "record/record_internal.h"
#include "kernel/features.h"
#include "profile/jit_frames.h"
#include "util/core_btf.h"
#include "util/libbpf_log.h"

/* ---- setup and teardown ------------------------------------------------ */

struct counted_fds counted_fds_of(struct recorder *r)
{
	return (struct counted_fds){
		.kstacks = { bpf_map__fd(r->skel->maps.counted_kstk0),
			     bpf_map__fd(r->skel->maps.counted_kstk1) },
		.kstacks_gen = { r->kstacks_gen[0], r->kstacks_gen[1] },
		.kstacks_kept = { r->kstacks_kept[0], r->kstacks_kept[1] },
		.nkstacks_kept = { r->nkstacks_kept[0], r->nkstacks_kept[1] },
		.ustacks = bpf_map__fd(r->skel->maps.counted_ustk),
		.ustacks_long = bpf_map__fd(r->skel->maps.counted_ustk_xl),
	};
}

/*
 * Maps a run does not use get one entry: creating them is part of every
 * start (a 1 s profile of a native program: ~10 ms of its ~70 ms of CPU).
 * Kernel stacks are preallocated, ~1 KiB each: 16 MiB for the default
 * 16,384.  A cpu profile of chosen processes needs few (a sample that
 * interrupted user code has none), and a full map only sends the event to
 * user space instead of counting it here.
 */
static void size_maps_for_use(struct recorder *r, bool cpu_only, bool offcpu)
{
	bool periods = r->hooks && r->hooks->period;

	if (cpu_only && !r->o->target.all)
		bpf_map__set_max_entries(r->skel->maps.counted_kstk0, 4096);
	/*
	 * Periods flip between the two kernel stack maps (counted_kstacks_flip),
	 * each holding a period's stacks or two: half of record's map each, as
	 * much in all.  One long recording uses the first only.
	 */
	if (periods) {
		bpf_map__set_max_entries(r->skel->maps.counted_kstk0,
					 bpf_map__max_entries(r->skel->maps.counted_kstk0) / 2);
		bpf_map__set_max_entries(r->skel->maps.counted_kstk1,
					 bpf_map__max_entries(r->skel->maps.counted_kstk0));
	} else {
		bpf_map__set_max_entries(r->skel->maps.counted_kstk1, 1);
	}
	/* Nothing in the odd map yet: no generation's stacks. */
	r->kstacks_gen[0] = 0;
	r->kstacks_gen[1] = UINT32_MAX;
	for (int i = 0; i < 2; i++) {
		free(r->kstacks_kept[i]);
		r->kstacks_kept[i] = NULL;
		r->nkstacks_kept[i] = 0;
	}
	if (!offcpu) {
		bpf_map__set_max_entries(r->skel->maps.offcpu_threads, 1);
		bpf_map__set_max_entries(r->skel->maps.offcpu_wakes, 1);
	}
	/* A driving command's gate replaces it (engine.h before_load). */
	if (!record_gated(r))
		bpf_map__set_max_entries(r->skel->maps.gate_threads, 1);
}

/* A syscall entry event: syscall:NAME, or tracepoint:syscalls:sys_enter_NAME. */
static bool syscall_entry(const struct event_spec *ev)
{
	return (ev->kind == EVENT_SYSCALL || ev->kind == EVENT_TRACEPOINT) &&
	       strcmp(ev->a, "syscalls") == 0 && strncmp(ev->b, "sys_enter_", 10) == 0;
}

/*
 * Syscall entry events at the raw tracepoint sys_enter where the syscall
 * tracepoints give a program no kernel stack (6.1: the user's registers).
 */
static bool raw_syscalls_wanted(const struct record_opts *o, bool legacy)
{
	int i;

	for (i = 0; i < o->nevents; i++) {
		if (!syscall_entry(&o->events[i]))
			continue;
		/* The legacy workers tell syscalls apart by number, and only there. */
		if (kfeat_has(KFEAT_SYSCALL_TP_KSTACK))
			return legacy;
		kfeat_say_missing(KFEAT_SYSCALL_TP_KSTACK,
				  "syscall events are taken at the raw tracepoint sys_enter, "
				  "which every system call of the machine passes through");
		return true;
	}
	return false;
}

/*
 * Kernels without what the capture programs call (bpf_loop, typed tasks,
 * bpf_task_pt_regs, cookies: 5.10; or sched_switch's prev_state, for
 * off-CPU time): the legacy workers, which copy every stack and walk no
 * interpreter.  Said once, with the first feature missing.
 */
static bool legacy_kernel(const struct record_opts *o)
{
	static const enum kfeat needed[] = {
		KFEAT_BPF_LOOP, KFEAT_TASK_BTF, KFEAT_TASK_PT_REGS, KFEAT_ATTACH_COOKIE,
		KFEAT_NMI_NO_PREALLOC,
	};
	size_t i;
	int k;

	for (i = 0; i < sizeof(needed) / sizeof(needed[0]); i++) {
		if (kfeat_has(needed[i]))
			continue;
		kfeat_say_missing(needed[i], "stacks are copied to user space and unwound there "
				  "(--unwind=copy), interpreter frames walked 32 at most");
		return true;
	}
	for (k = 0; k < o->nevents; k++) {
		if (o->events[k].kind == EVENT_OFFCPU && !kfeat_has(KFEAT_SWITCH_PREV_STATE)) {
			kfeat_say_missing(KFEAT_SWITCH_PREV_STATE, "off-CPU stacks are copied to user "
					  "space and unwound there, interpreter frames walked 32 at most");
			return true;
		}
	}
	return false;
}

/*
 * The legacy workers tell events apart without cookies: by kind, so one
 * cpu, tracepoint, uprobe (or USDT) and kprobe event each; syscalls by
 * their number.
 */
static int legacy_events(struct recorder *r)
{
	struct record_opts *o = r->o;
	int seen[LEGACY_KINDS] = { -1, -1, -1, -1 }, kind, i;

	for (i = 0; i < o->nevents; i++) {
		switch (o->events[i].kind) {
		case EVENT_CPU:
			kind = LEGACY_CPU;
			break;
		case EVENT_SYSCALL:
		case EVENT_TRACEPOINT:
			if (r->att.raw_syscalls && syscall_entry(&o->events[i]))
				continue;
			kind = LEGACY_TRACEPOINT;
			break;
		case EVENT_UPROBE:
		case EVENT_USDT:
			kind = LEGACY_UPROBE;
			break;
		case EVENT_KPROBE:
			kind = LEGACY_KPROBE;
			break;
		default:
			continue;
		}
		if (seen[kind] >= 0) {
			fprintf(stderr, "stitch record: %s and %s: this kernel (%s) has no %s (Linux "
				"%s), which tell two events of that kind apart; record them one at "
				"a time\n", o->events[seen[kind]].text, o->events[i].text,
				kfeat_kernel(), kfeat_name(KFEAT_ATTACH_COOKIE),
				kfeat_since(KFEAT_ATTACH_COOKIE));
			return -EINVAL;
		}
		seen[kind] = i;
		r->skel->rodata->legacy_idx[kind] = i;
	}
	return 0;
}

/*
 * -e alloc: its entry points, each attached on the allocator's functions
 * (record/attach.c), and capture_alloc, their worker where there are
 * workers; the sampling's period and tables; --inuse's returns and free.
 */
static void alloc_programs(struct recorder *r, bool alloc, bool legacy)
{
	struct capture_bpf *s = r->skel;
	struct bpf_program *entries[] = {
		s->progs.on_alloc_size1, s->progs.on_alloc_realloc, s->progs.on_alloc_calloc,
		s->progs.on_alloc_memalign, s->progs.on_alloc_posix_memalign,
		s->progs.on_alloc_memalign_all, s->progs.on_alloc_posix_memalign_all,
		s->progs.on_alloc_mmap, s->progs.on_alloc_mremap,
	};
	size_t i;

	for (i = 0; i < sizeof(entries) / sizeof(entries[0]); i++)
		bpf_program__set_autoload(entries[i], alloc);
	bpf_program__set_autoload(s->progs.capture_alloc, alloc && !legacy);
	/* --inuse: the returns and free too, and room for the blocks */
	bpf_program__set_autoload(s->progs.on_alloc_return, alloc && r->o->inuse);
	bpf_program__set_autoload(s->progs.on_alloc_free, alloc && r->o->inuse);
	bpf_program__set_autoload(s->progs.on_alloc_munmap, alloc && r->o->inuse);
	bpf_program__set_autoload(s->progs.on_alloc_realloc_return, alloc && r->o->inuse);
	bpf_program__set_autoload(s->progs.on_alloc_mremap_return, alloc && r->o->inuse);
	bpf_program__set_autoload(s->progs.alloc_on_exec, alloc && r->o->inuse);
	bpf_program__set_autoload(s->progs.alloc_on_exit, alloc && r->o->inuse);
	s->rodata->alloc_inuse = alloc && r->o->inuse;
	if (!s->rodata->alloc_inuse) {
		bpf_map__set_max_entries(s->maps.alloc_live, 1);
		bpf_map__set_max_entries(s->maps.alloc_inflight, 1);
		bpf_map__set_max_entries(s->maps.alloc_reallocs, 1);
		bpf_map__set_max_entries(s->maps.alloc_remaps, 1);
		bpf_map__set_max_entries(s->maps.alloc_gone, 1);
	}
	s->rodata->alloc_legacy = alloc && legacy;
	s->rodata->alloc_period = r->o->alloc_period ? r->o->alloc_period : ALLOC_DEFAULT_PERIOD;
	if (alloc)
		alloc_tables_fill((uint32_t *)s->rodata->alloc_gap_tab,
				  (uint32_t *)s->rodata->alloc_weight_tab);
}

/*
 * Verify only the capture programs our events attach: each is the whole
 * capture path, ~20 ms of verifier time, most of stitch's startup CPU.
 */
static int load_used_programs_only(struct recorder *r)
{
	struct record_opts *o = r->o;
	bool perf = false, tp = false, uprobe = false, kprobe = false, offcpu = false;
	bool legacy = r->att.legacy, raw = raw_syscalls_wanted(o, legacy), alloc = false;
	int i;

	r->att.raw_syscalls = raw;
	for (i = 0; i < o->nevents; i++) {
		switch (o->events[i].kind) {
		case EVENT_CPU:
			perf = true;
			break;
		case EVENT_SYSCALL:
		case EVENT_TRACEPOINT:
			if (!raw || !syscall_entry(&o->events[i]))
				tp = true;
			break;
		case EVENT_UPROBE:
		case EVENT_USDT:
			uprobe = true;
			break;
		case EVENT_KPROBE:
			kprobe = true;
			break;
		case EVENT_OFFCPU:
			offcpu = true;
			r->skel->rodata->offcpu_event_idx = i;
			break;
		case EVENT_ALLOC:
			alloc = true;
			r->skel->rodata->alloc_event_idx = i;
			break;
		}
	}
	if (legacy && legacy_events(r))
		return -EINVAL;
	r->skel->rodata->legacy_have_task_pt_regs = kfeat_has(KFEAT_TASK_BTF) &&
						    kfeat_has(KFEAT_TASK_PT_REGS);
	bpf_program__set_autoload(r->skel->progs.capture_legacy_perf_event, legacy && perf);
	bpf_program__set_autoload(r->skel->progs.capture_legacy_tracepoint, legacy && tp);
	bpf_program__set_autoload(r->skel->progs.capture_legacy_uprobe, legacy && uprobe);
	bpf_program__set_autoload(r->skel->progs.capture_legacy_kprobe, legacy && kprobe);
	bpf_program__set_autoload(r->skel->progs.capture_legacy_raw_sys_enter, legacy && raw);
	bpf_program__set_autoload(r->skel->progs.capture_legacy_sched_switch, legacy && offcpu);
	bpf_program__set_autoload(r->skel->progs.on_sched_waking_legacy,
				  legacy && offcpu && o->wakers);
	bpf_program__set_autoload(r->skel->progs.on_perf_event, !legacy && perf);
	bpf_program__set_autoload(r->skel->progs.capture_perf_event, !legacy && perf);
	bpf_program__set_autoload(r->skel->progs.on_tracepoint, !legacy && tp);
	bpf_program__set_autoload(r->skel->progs.capture_tracepoint, !legacy && tp);
	bpf_program__set_autoload(r->skel->progs.on_uprobe, !legacy && uprobe);
	bpf_program__set_autoload(r->skel->progs.capture_uprobe, !legacy && uprobe);
	bpf_program__set_autoload(r->skel->progs.on_kprobe, !legacy && kprobe);
	bpf_program__set_autoload(r->skel->progs.capture_kprobe, !legacy && kprobe);
	bpf_program__set_autoload(r->skel->progs.on_raw_sys_enter, !legacy && raw);
	bpf_program__set_autoload(r->skel->progs.capture_raw_sys_enter, !legacy && raw);
	bpf_program__set_autoload(r->skel->progs.on_sched_switch, !legacy && offcpu);
	bpf_program__set_autoload(r->skel->progs.capture_sched_switch, !legacy && offcpu);
	bpf_program__set_autoload(r->skel->progs.on_sched_waking, !legacy && offcpu && o->wakers);
	alloc_programs(r, alloc, legacy);
	size_maps_for_use(r, perf && !tp && !raw && !uprobe && !kprobe && !offcpu && !alloc, offcpu);
	r->skel->rodata->offcpu_wakers = offcpu && o->wakers;
	r->skel->rodata->offcpu_min_block_ns = o->min_block_ns;
	r->skel->rodata->offcpu_runnable = !o->no_runnable;
	return 0;
}

/*
 * The ring's default size: what a quarter of a second of events can fill,
 * the reader polling every 20 ms.  Only cpu sampling of chosen processes
 * has a known rate: -F on every CPU, each record at most its stack copy
 * (while tables load, for interpreters, with --per-event) and a kernel
 * stack.  Other events fire at any rate: until a new process's tables are
 * loaded its events are copied (~2.5 KB each), and a hot syscall (~250k
 * events/s) overflowed a 16 MiB ring in that time; -a starts by loading
 * tables for every process.  Those get 64 MiB.  A smaller ring costs less
 * to create and map (64 MiB: ~18 ms of the start; 32 MiB against 8: ~6 ms
 * of a 1 s profile's ~70).  Counted in the kernel, a cpu sample is copied
 * only until its binaries' tables are loaded: those of -p targets are
 * before the first event, a COMMAND's within ~100 ms of its start, so a
 * sixteenth of a second of copies is room enough.  -a of cpu samples has
 * the same bound (every sample may be copied while the machine's tables
 * load), for a second (half a second lost 950 of 4,000 events at 499 Hz
 * under ASan, building tables for clang's 23 MB of CFI): 64 MiB there was
 * 64 MiB of kernel memory and 128 MiB of our RSS (the ring is mapped twice,
 * every page resident) for ~7 MiB of copies a second at 99 Hz on 2 CPUs.
 */
static size_t ringbuf_mb_of(const struct record_opts *o)
{
	uint64_t need;
	size_t mb = o->target.all ? 4 : 8;
	int i;
	int ncpus = libbpf_num_possible_cpus();

	if (o->ringbuf_mb)
		return o->ringbuf_mb;
	if (ncpus <= 0)
		return 64;
	for (i = 0; i < o->nevents; i++)
		if (o->events[i].kind != EVENT_CPU)
			return 64;
	need = (uint64_t)o->freq * ncpus *
	       (o->stack_bytes + sizeof(((struct sample_event *)0)->kstack) + 512) / 4;
	if (o->target.all)
		need *= 4;	/* a second: the first turns build the machine's tables */
	else if (o->unwind_mode == KUNWIND_MODE_KERNEL && !o->per_event)
		need /= 4;
	while (mb < 64 && ((uint64_t)mb << 20) < need)
		mb <<= 1;
	return mb;
}

_Static_assert(COUNTED_IHASH_LOST == INTERP_IHASH_LOST, "one meaning of a lost walk");
_Static_assert(COUNTED_SPLICE_FRAMES >= INTERP_MAX_FRAMES + 2,
	       "a counted key has room for a walk's frames and their markers");

/* counted_splice for the kernel's counted keys: their interpreter frames. */
static int splice_interp(void *ctx, const struct counted_key *key, struct uframe *uf, int nu,
			 int cap, bool complete)
{
	struct recorder *r = ctx;
	int n = interp_counted_frames(&r->interp, key->pid, key->ihash, uf, nu, cap, complete);

	/* Named at the end: kept past its processes (binary_cache_sweep). */
	uframes_mark_sampled(uf, n);
	return n;
}

static int load_bpf(struct recorder *r)
{
	struct record_opts *o = r->o;
	bool quiet = o->unwind_mode == KUNWIND_MODE_KERNEL && !o->unwind_asked;
	const char *test_mask;
	const void *obj;
	size_t size;
	int err, i;

	r->att.legacy = legacy_kernel(o);
	if (r->att.legacy) {
		o->unwind_mode = KUNWIND_MODE_COPY;
		quiet = false;
	}
	obj = capture_bpf__elf_bytes(&size);
	r->open_opts = (struct bpf_object_open_opts){ .sz = sizeof(r->open_opts),
		.btf_custom_path = core_btf_path(obj, size) };
	r->skel = capture_bpf__open_opts(&r->open_opts);
	if (r->skel)
		r->ringbuf_mb = ringbuf_mb_of(o);
	if (!r->skel) {
		fprintf(stderr, "stitch record: cannot open the BPF object: %s\n", strerror(errno));
		return -errno;
	}
	r->skel->rodata->kunwind_mode = o->unwind_mode;
	r->skel->rodata->kunwind_time_walks = o->time_walks;
	/* --inuse names each block by its own sample: none counted in the kernel. */
	r->skel->rodata->kunwind_count_in_kernel = o->unwind_mode == KUNWIND_MODE_KERNEL &&
						   !o->per_event && !o->inuse;
	/* Tests only: force stacks to share hashes (counted_hash_mask). */
	test_mask = getenv("STITCH_TEST_HASH_MASK");
	if (test_mask) {
		r->skel->rodata->counted_hash_mask = strtoull(test_mask, NULL, 0);
		r->skel->rodata->interp_hash_mask = strtoull(test_mask, NULL, 0);
	}
	/* Copy mode needs no tables: room for one chunk, which it never makes. */
	bpf_map__set_max_entries(r->skel->maps.kunwind_chunks,
				 o->unwind_mode == KUNWIND_MODE_COPY ? 1 :
				 kunwind_chunks_for_rows(kunwind_rows_for_mb(o->max_table_mb)));
	r->skel->rodata->filter_tgids = !o->target.all;
	/*
	 * -p of a few processes: their tgids in the program itself.  Not when
	 * gated: the driving command may add processes to traced_tgids.
	 */
	if (o->target.npids && !o->target.command && !record_gated(r) &&
	    o->target.npids <= STITCH_FIXED_TGIDS) {
		for (i = 0; i < o->target.npids; i++)
			r->skel->rodata->fixed_tgids[i] = o->target.pids[i];
		r->skel->rodata->nfixed_tgids = o->target.npids;
	}
	r->skel->rodata->follow_forks = o->target.command != NULL;
	/* The legacy workers' walkers are a program of their own, always loaded on demand. */
	r->skel->rodata->interp_lazy = r->att.legacy || !walkers_wanted_at_start(o);
	r->skel->rodata->ustack_limit = o->stack_bytes;
	r->skel->rodata->fetch_wanted = o->nfetch > 0;
	bpf_map__set_max_entries(r->skel->maps.samples, r->ringbuf_mb << 20);
	bpf_map__set_max_entries(r->skel->maps.scratch, libbpf_num_possible_cpus());
	if (load_used_programs_only(r))
		return -EINVAL;
	/*
	 * Before 6.1 a perf_event program may only use preallocated hash maps
	 * (an NMI may not allocate): the filters the legacy workers look up
	 * are, there, a few MiB of kernel memory made up front.
	 */
	if (r->att.legacy) {
		kfeat_prealloc_for_nmi(r->skel->maps.traced_tgids);
		kfeat_prealloc_for_nmi(r->skel->maps.gate_threads);
		kfeat_prealloc_for_nmi(r->skel->maps.interp_procs);
	}
	if (r->hooks && r->hooks->before_load && r->hooks->before_load(r->hooks->ctx, r->skel))
		return -1;
	err = capture_bpf__load(r->skel);
	if (err && quiet && err != -EPERM)
		return err;	/* the caller falls back to copying, and says so */
	if (err) {
		libbpf_load_failed("stitch record", err);
		return err;
	}
	/* The legacy workers are attached directly: no entry points to hand events to them. */
	err = r->att.legacy ? 0 : workers_set(r->skel, r->skel, CAPTURE_WORKER_NATIVE);
	if (err) {
		fprintf(stderr, "stitch record: cannot hand events to the capture programs: %s\n",
			strerror(-err));
		return err;
	}
	if (o->unwind_mode != KUNWIND_MODE_COPY && !r->kw_ready) {
		err = kunwind_init(&r->kw, bpf_map__fd(r->skel->maps.kunwind_chunks),
				   bpf_map__fd(r->skel->maps.kunwind_procs),
				   kunwind_rows_for_mb(o->max_table_mb), o->max_table_mb);
		if (err) {
			if (!quiet)
				fprintf(stderr, "stitch record: cannot map the unwind tables: %s\n",
					strerror(-err));
			return err;
		}
		/* The whole host: most of its processes come and go unsampled. */
		r->kw.lazy = o->target.all;
		/* ... and runs the same binaries again and again: a quarter of the budget. */
		r->kw.rows_kept_cap = o->target.all ? r->kw.rows_cap / 4 : 0;
		r->kw.verbose = getenv("STITCH_DEBUG") != NULL;
		r->kw_ready = true;
	}
	/* --wakers of stacks sent as samples: the waker's stacks are stored in the kernel. */
	r->offcpu.kw = r->kw_ready ? &r->kw : NULL;
	r->offcpu.fds = counted_fds_of(r);
	/* Loaded again after a fallback: start over with the new maps. */
	interp_free(&r->interp);
	jit_frames_no_lines(o->no_lines);
	err = interp_init(&r->interp, bpf_map__fd(r->skel->maps.interp_procs),
			  bpf_map__fd(r->skel->maps.interp_layouts), o->no_lines);
	r->interp.any_procs = &r->skel->bss->interp_any;
	r->interp.disabled = o->no_interp;
	if (r->skel->rodata->interp_lazy) {
		r->interp.load_walkers = walkers_load;
		r->interp.walkers_ctx = r;
	}
	if (err) {
		fprintf(stderr, "stitch record: cannot set up interpreter walking: %s\n",
			strerror(-err));
		return -1;
	}
	/* The legacy workers' walkers, of an interpreter traced from the start: loaded now too. */
	if (r->att.legacy && walkers_wanted_at_start(o) && walkers_load(r) == 0) {
		r->interp.load_walkers = NULL;
		r->walkers_at_start = true;
	}
	/* Keys counted in the kernel with interpreter frames: named from their definitions. */
	r->kw.splice = (struct counted_splice){ .frames = splice_interp, .ctx = r };
	return 0;
}

/*
 * Load, unwinding in the kernel unless told otherwise; where the kernel
 * cannot (no bpf_loop, verifier limits), say so and copy stacks instead.
 */
int open_bpf(struct recorder *r)
{
	struct record_opts *o = r->o;
	int err;

	err = load_bpf(r);
	if (!err || err == -EPERM || o->unwind_mode == KUNWIND_MODE_COPY || o->unwind_asked)
		return err ? -1 : 0;
	kunwind_free(&r->kw);
	r->kw_ready = false;
	fprintf(stderr, "stitch: this kernel cannot unwind stacks in BPF (%s); copying "
		"stacks to user space instead (--unwind=copy)\n", strerror(-err));
	walkers_free(r);
	if (r->skel)
		capture_bpf__destroy(r->skel);
	r->skel = NULL;
	o->unwind_mode = KUNWIND_MODE_COPY;
	return load_bpf(r) ? -1 : 0;
}

int trace_tgid(struct recorder *r, uint32_t tgid)
{
	uint8_t one = 1;

	return bpf_map__update_elem(r->skel->maps.traced_tgids, &tgid, sizeof(tgid), &one,
				    sizeof(one), BPF_ANY);
}

/* What attaching needs to know of the options (and tracefs mounted for its events). */
static int attach_prepare(struct recorder *r, char *err, size_t errlen)
{
	struct record_opts *o = r->o;
	int i;

	for (i = 0; i < o->nevents; i++) {
		if (o->events[i].kind == EVENT_SYSCALL || o->events[i].kind == EVENT_TRACEPOINT) {
			if (ensure_tracefs(err, errlen) != 0)
				return -1;
			break;
		}
	}
	r->att.skel = r->skel;
	r->att.freq_hz = o->freq;
	r->att.pids = o->target.pids;
	r->att.npids = o->target.npids;
	r->att.all = o->target.all;
	r->att.command = o->target.command ? o->target.command[0] : NULL;
	r->att.fetch = o->fetch;
	r->att.nfetch = o->nfetch;
	return 0;
}

int fetch_check_all(struct recorder *r)
{
	struct record_opts *o = r->o;
	char err[1024] = "";
	int i;

	if (!o->nfetch)
		return 0;
	if (attach_prepare(r, err, sizeof(err)) != 0)
		goto fail;
	for (i = 0; i < o->nevents; i++)
		if (attach_fetch_check(&r->att, &o->events[i], err, sizeof(err)) != 0)
			goto fail;
	return 0;
fail:
	fprintf(stderr, "stitch record: %s\n", err);
	return -1;
}

int attach_all(struct recorder *r)
{
	struct record_opts *o = r->o;
	char err[1024];
	int i;

	if (attach_prepare(r, err, sizeof(err)) != 0) {
		fprintf(stderr, "stitch record: %s\n", err);
		return -1;
	}
	for (i = 0; i < o->nevents; i++) {
		if (attach_event(&r->att, &o->events[i], i, err, sizeof(err)) != 0) {
			fprintf(stderr, "stitch record: %s\n", err);
			return -1;
		}
	}
	return 0;
}

int record_gate_share(struct capture_bpf *skel, const char *who, int gate_threads_fd,
		      int traced_tgids_fd)
{
	int err;

	skel->rodata->gate_on = true;
	err = bpf_map__reuse_fd(skel->maps.gate_threads, gate_threads_fd);
	if (!err)
		err = bpf_map__reuse_fd(skel->maps.traced_tgids, traced_tgids_fd);
	if (err)
		fprintf(stderr, "%s: cannot share maps with the sampler: %s\n", who,
			strerror(-err));
	return err ? -1 : 0;
}

/* prog attached, its link where the skeleton's destroy finds it: 0, or -1 (errno). */
static int attach_kept(struct bpf_program *prog, struct bpf_link **link)
{
	*link = bpf_program__attach(prog);
	return *link ? 0 : -1;
}

int attach_process_tracking(struct recorder *r)
{
	struct capture_bpf *skel = r->skel;

	/* kunwind: forget a process's mapping list when it execs or exits. */
	if (r->kw_ready &&
	    (attach_kept(skel->progs.kunwind_on_exec, &skel->links.kunwind_on_exec) ||
	     attach_kept(skel->progs.kunwind_on_exit, &skel->links.kunwind_on_exit)))
		goto fail;
	if (r->o->target.all)
		return 0;
	if (attach_kept(skel->progs.on_fork, &skel->links.on_fork) ||
	    attach_kept(skel->progs.on_exit, &skel->links.on_exit))
		goto fail;
	return 0;
fail:
	fprintf(stderr, "stitch record: cannot follow new processes: %s\n", strerror(errno));
	return -1;
}
