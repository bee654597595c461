// SPDX-License-Identifier: GPL-2.0
/*
 * The interpreter walkers, verified only when needed (capture.bpf.c:
 * interp_lazy).  The capture program is loaded without them unless an
 * interpreter is known to be traced from the start; the first interpreter
 * recognized later loads the same object again with them, sharing every
 * map, and puts its entry points in the slots the first copy tail-calls.
 * A 1 s profile of a native program (recurse 40, -F 999 -p): ~100 ms of
 * stitch CPU with the walkers loaded up front, ~68 without, the maps sized
 * by use too (perf stat task-clock, medians of 5, two interleaved pairs);
 * all programs load in ~25 ms instead of ~49.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "capture.skel.h"
#include "legacy_walk.skel.h"

#include "record/record_internal.h"
#include "util/clock.h"
#include "util/core_btf.h"
#include "util/exec_path.h"

/*
 * Whether a file name (a module's or an executable's) is an interpreter
 * stitch walks (a version it does not walk never needs the walkers).
 */
static bool names_interpreter(const char *path)
{
	const char *base = strrchr(path, '/');
	char lang[32], ver[32];

	base = base ? base + 1 : path;
	return interp_version_for_module(base, lang, sizeof(lang), ver, sizeof(ver)) != NULL;
}

/* Whether process pid maps an interpreter's executable or library. */
static bool maps_interpreter(uint32_t pid)
{
	char path[64], line[4096 + 128];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *name = strchr(line, '/');

		if (name) {
			name[strcspn(name, "\n")] = '\0';
			found = names_interpreter(name);
		}
	}
	fclose(f);
	return found;
}

/*
 * COMMAND's executable as execvp() finds it, resolved through symlinks
 * (python3), or its name: ruby3.1 runs libruby-3.1.so's interpreter, which
 * only the process's mappings show.
 */
static bool command_is_interpreter(const char *cmd)
{
	char path[PATH_MAX], real[PATH_MAX];

	if (exec_path_find(cmd, path, sizeof(path)) && realpath(path, real) &&
	    (names_interpreter(real) || interp_command_word_names_interpreter(real)))
		return true;
	return interp_command_word_names_interpreter(cmd);
}

bool walkers_wanted_at_start(const struct record_opts *o)
{
	int i;

	if (o->no_interp)
		return false;
	/* The whole machine runs interpreters more often than not. */
	if (o->target.all)
		return true;
	for (i = 0; i < o->target.npids; i++)
		if (maps_interpreter(o->target.pids[i]))
			return true;
	if (!o->target.command)
		return false;
	if (command_is_interpreter(o->target.command[0]))
		return true;
	/*
	 * A wrapper that runs one (env, nice, timeout, chroot, unshare
	 * --root=DIR python3 app.py, as a container starts): its path is
	 * another root's, so the name decides.  Loaded on demand instead,
	 * the walkers' ~250 ms of verification would leave the interpreter's
	 * first quarter second native only (a 2 s off-CPU profile of
	 * py_waits.py in a Debian 12 root lost 8% of its sleep's script frames).
	 */
	for (i = 1; o->target.command[i]; i++)
		if (interp_command_word_names_interpreter(o->target.command[i]))
			return true;
	return false;
}

/* w's maps are r's: every one but its own read-only data, the same as r's but for interp_lazy. */
static int share_maps(struct capture_bpf *w, struct capture_bpf *r)
{
	struct bpf_map *m, *mine;
	int err;

	bpf_object__for_each_map(m, w->obj) {
		if (m == w->maps.rodata)
			continue;
		mine = bpf_object__find_map_by_name(r->obj, bpf_map__name(m));
		err = mine ? bpf_map__reuse_fd(m, bpf_map__fd(mine)) : -ENOENT;
		if (err)
			return err;
	}
	return 0;
}

/* An entry point, its workers' slots and its worker in a copy of the object. */
struct capture_entry {
	struct bpf_program *entry;
	struct bpf_map *workers;
	struct bpf_program *worker;
};

#define CAPTURE_ENTRIES 7

/* The entry points e of object c, and their workers in object w. */
static void capture_entries(struct capture_bpf *c, struct capture_bpf *w,
			    struct capture_entry e[CAPTURE_ENTRIES])
{
	e[0] = (struct capture_entry){ c->progs.on_perf_event, c->maps.perf_event_workers,
				       w->progs.capture_perf_event };
	e[1] = (struct capture_entry){ c->progs.on_tracepoint, c->maps.tracepoint_workers,
				       w->progs.capture_tracepoint };
	e[2] = (struct capture_entry){ c->progs.on_uprobe, c->maps.uprobe_workers,
				       w->progs.capture_uprobe };
	e[3] = (struct capture_entry){ c->progs.on_kprobe, c->maps.kprobe_workers,
				       w->progs.capture_kprobe };
	e[4] = (struct capture_entry){ c->progs.on_sched_switch, c->maps.sched_switch_workers,
				       w->progs.capture_sched_switch };
	e[5] = (struct capture_entry){ c->progs.on_raw_sys_enter, c->maps.raw_sys_enter_workers,
				       w->progs.capture_raw_sys_enter };
	/* -e alloc's entry points are loaded together: one stands for all. */
	e[6] = (struct capture_entry){ c->progs.on_alloc_size1, c->maps.alloc_workers,
				       w->progs.capture_alloc };
}

int workers_set(struct capture_bpf *c, struct capture_bpf *w, uint32_t slot)
{
	struct capture_entry e[CAPTURE_ENTRIES];
	int i, fd, err;

	capture_entries(c, w, e);
	for (i = 0; i < CAPTURE_ENTRIES; i++) {
		if (!bpf_program__autoload(e[i].entry))
			continue;
		fd = bpf_program__fd(e[i].worker);
		if (bpf_map_update_elem(bpf_map__fd(e[i].workers), &slot, &fd, BPF_ANY)) {
			err = -errno;
			/* All entry points or none: events of one kind must not differ. */
			while (i--)
				bpf_map_delete_elem(bpf_map__fd(e[i].workers), &slot);
			return err;
		}
	}
	return 0;
}

static int load_walkers(struct recorder *r)
{
	struct capture_entry e[CAPTURE_ENTRIES];
	struct bpf_program *p;
	const void *rodata;
	size_t size;
	int err, i;

	r->walkers = capture_bpf__open_opts(&r->open_opts);
	if (!r->walkers)
		return -errno;
	rodata = bpf_map__initial_value(r->skel->maps.rodata, &size);
	err = bpf_map__set_initial_value(r->walkers->maps.rodata, rodata, size);
	if (err)
		return err;
	r->walkers->rodata->interp_lazy = false;
	err = share_maps(r->walkers, r->skel);
	if (err)
		return err;
	/* Only the workers of the entry points in use. */
	bpf_object__for_each_program(p, r->walkers->obj)
		bpf_program__set_autoload(p, false);
	capture_entries(r->skel, r->walkers, e);
	for (i = 0; i < CAPTURE_ENTRIES; i++)
		bpf_program__set_autoload(e[i].worker, bpf_program__autoload(e[i].entry));
	err = capture_bpf__load(r->walkers);
	if (err)
		return err;
	return workers_set(r->skel, r->walkers, CAPTURE_WORKER_WALKERS);
}

/*
 * The legacy workers' walkers (record/legacy_walk.bpf.c, kernels without
 * bpf_loop): a program per type of the workers in use, tail-called from
 * their slot in the capture object; every map but its own data is the
 * capture object's.
 */
static int load_legacy_walkers(struct recorder *r)
{
	struct bpf_object_open_opts opts = { .sz = sizeof(opts) };
	struct capture_bpf *c = r->skel;
	struct legacy_walk_bpf *w;
	struct bpf_map *m, *mine;
	const void *obj;
	size_t size;
	int err = 0, i;
	struct {
		struct bpf_program *worker, *walker;
		struct bpf_map *slot;
	} kinds[4];

	obj = legacy_walk_bpf__elf_bytes(&size);
	opts.btf_custom_path = core_btf_path(obj, size);
	w = r->legacy_walkers = legacy_walk_bpf__open_opts(&opts);
	if (!w)
		return -errno;
	bpf_object__for_each_map(m, w->obj) {
		if (bpf_map__is_internal(m))
			continue;
		mine = bpf_object__find_map_by_name(c->obj, bpf_map__name(m));
		err = mine ? bpf_map__reuse_fd(m, bpf_map__fd(mine)) : -ENOENT;
		if (err)
			return err;
	}
	kinds[0] = (typeof(kinds[0])){ c->progs.capture_legacy_perf_event,
				       w->progs.legacy_walk_perf_event, c->maps.legacy_walk_perf_event };
	kinds[1] = (typeof(kinds[0])){ c->progs.capture_legacy_tracepoint,
				       w->progs.legacy_walk_tracepoint, c->maps.legacy_walk_tracepoint };
	kinds[2] = (typeof(kinds[0])){ c->progs.capture_legacy_raw_sys_enter,
				       w->progs.legacy_walk_raw_tp, c->maps.legacy_walk_raw_tp };
	/* uprobe, kprobe and alloc workers are one program type: one walker for all. */
	kinds[3] = (typeof(kinds[0])){ bpf_program__autoload(c->progs.capture_legacy_uprobe) ?
				       c->progs.capture_legacy_uprobe :
				       bpf_program__autoload(c->progs.on_alloc_size1) ?
				       c->progs.on_alloc_size1 : c->progs.capture_legacy_kprobe,
				       w->progs.legacy_walk_kprobe, c->maps.legacy_walk_kprobe };
	for (i = 0; i < 4; i++)
		bpf_program__set_autoload(kinds[i].walker, bpf_program__autoload(kinds[i].worker));
	err = legacy_walk_bpf__load(w);
	for (i = 0; !err && i < 4; i++) {
		__u32 zero = 0;
		int fd = bpf_program__fd(kinds[i].walker);

		if (bpf_program__autoload(kinds[i].walker) &&
		    bpf_map_update_elem(bpf_map__fd(kinds[i].slot), &zero, &fd, BPF_ANY))
			err = -errno;
	}
	return err;
}

int walkers_load(void *ctx)
{
	struct recorder *r = ctx;
	double start = mono_s();
	int err = r->att.legacy ? load_legacy_walkers(r) : load_walkers(r);

	r->walkers_load_s = mono_s() - start;
	if (err) {
		fprintf(stderr, "stitch record: cannot load the interpreter walkers: %s; "
			"interpreter frames stay native (run with STITCH_DEBUG_BPF=1 for the "
			"verifier log)\n", strerror(-err));
		walkers_free(r);
	}
	return err;
}

void walkers_free(struct recorder *r)
{
	capture_bpf__destroy(r->walkers);
	r->walkers = NULL;
	legacy_walk_bpf__destroy(r->legacy_walkers);
	r->legacy_walkers = NULL;
}

void walkers_report(struct recorder *r)
{
	if (r->o->no_interp)
		fprintf(stderr, "stitch stats: interpreter walkers: off (--no-interp)\n");
	else if (!r->skel->rodata->interp_lazy)
		fprintf(stderr, "stitch stats: interpreter walkers: loaded with the capture "
			"program (an interpreter was traced from the start)\n");
	else if (r->walkers_at_start)
		fprintf(stderr, "stitch stats: interpreter walkers: loaded at the start (%.0f ms, "
			"bounded walks of kernels without bpf_loop)\n", r->walkers_load_s * 1e3);
	else if (r->walkers || r->legacy_walkers)
		fprintf(stderr, "stitch stats: interpreter walkers: loaded when the first "
			"interpreter was recognized (%.0f ms%s)\n", r->walkers_load_s * 1e3,
			r->legacy_walkers ? ", bounded walks of kernels without bpf_loop" : "");
	else
		fprintf(stderr, "stitch stats: interpreter walkers: not loaded (%s)\n",
			r->interp.walkers_err ? "they could not be" : "no interpreter seen");
}
