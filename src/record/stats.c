// SPDX-License-Identifier: GPL-2.0
/* stitch record: what was lost (always said) and what recording cost (--stats). */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "capture.skel.h"
#include "legacy_walk.skel.h"
#include "capture/offcpu.h"
#include "symbolize/debug_cache.h"
#include "unwind/table_cache.h"

#include "record/record_internal.h"
#include "util/core_btf.h"

void read_stats(struct recorder *r, uint64_t out[STAT_NR])
{
	int ncpu = libbpf_num_possible_cpus(), c;
	uint64_t *vals;
	uint32_t k;

	memset(out, 0, STAT_NR * sizeof(out[0]));
	if (ncpu <= 0)
		return;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return;
	for (k = 0; k < STAT_NR; k++) {
		if (bpf_map__lookup_elem(r->skel->maps.stats, &k, sizeof(k), vals,
					 ncpu * sizeof(*vals), 0) != 0)
			continue;
		for (c = 0; c < ncpu; c++)
			out[k] += vals[c];
	}
	free(vals);
}

/*
 * Events the kernel skipped because a BPF program was already running on
 * that CPU (its recursion guard): lost too, and counted per program.
 */
static uint64_t prog_misses(struct recorder *r)
{
	struct bpf_program *progs[] = {
		r->skel->progs.on_perf_event, r->skel->progs.on_tracepoint,
		r->skel->progs.on_uprobe, r->skel->progs.on_kprobe,
		r->skel->progs.on_raw_sys_enter,
		r->skel->progs.capture_legacy_perf_event, r->skel->progs.capture_legacy_tracepoint,
		r->skel->progs.capture_legacy_uprobe, r->skel->progs.capture_legacy_kprobe,
		r->skel->progs.capture_legacy_raw_sys_enter,
	};
	uint64_t misses = 0;
	size_t i;

	for (i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);

		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(bpf_program__fd(progs[i]), &info, &len) == 0)
			misses += info.recursion_misses;
	}
	return misses;
}

static bool recording_alloc(const struct recorder *r)
{
	int i;

	for (i = 0; i < r->o->nevents; i++)
		if (r->o->events[i].kind == EVENT_ALLOC)
			return true;
	return false;
}

void report_losses(struct recorder *r, const uint64_t st[STAT_NR])
{
	uint64_t lost = st[STAT_RINGBUF_LOST];

	/* Only record has --ringbuf-mb: the other commands' advice names what they have. */
	if (lost && r->o->has_ringbuf_flag)
		fprintf(stderr, "stitch: LOST %" PRIu64 " of %" PRIu64 " events: ring buffer full "
			"(try --ringbuf-mb %zu or a lower rate)\n",
			lost, st[STAT_EVENTS],
			r->ringbuf_mb * 4 > 4096 ? (size_t)4096 : r->ringbuf_mb * 4);
	else if (lost)
		fprintf(stderr, "stitch: LOST %" PRIu64 " of %" PRIu64 " events: ring buffer full "
			"(try a lower rate, -F)\n", lost, st[STAT_EVENTS]);
	if (st[STAT_NO_WORKER])
		fprintf(stderr, "stitch: LOST %" PRIu64 " events: no capture program took them "
			"(a bug: please report it)\n", st[STAT_NO_WORKER]);
	if (prog_misses(r) + st[STAT_NESTED])
		fprintf(stderr, "stitch: LOST %" PRIu64 " events the kernel did not let us see: "
			"another BPF program was running on that CPU\n",
			prog_misses(r) + st[STAT_NESTED]);
	if (st[STAT_ALLOC_LOST])
		fprintf(stderr, "stitch: LOST %" PRIu64 " sampled allocations: their stack could "
			"not be kept (maps or ring buffer full): bytes are a lower bound\n",
			st[STAT_ALLOC_LOST]);
	inuse_report_losses(r, st);
	if (st[STAT_INTERP_LOST])
		fprintf(stderr, "stitch: %" PRIu64 " events lost their interpreter frames: ring "
			"buffer full (marked [interpreter frames lost])\n", st[STAT_INTERP_LOST]);
	if (st[STAT_USTACK_FAULT])
		fprintf(stderr, "stitch: %" PRIu64 " events had an unreadable user stack "
			"(marked [user stack unreadable])\n", st[STAT_USTACK_FAULT]);
	if (st[STAT_KSTACK_FAULT])
		fprintf(stderr, "stitch: %" PRIu64 " events had no kernel stack\n",
			st[STAT_KSTACK_FAULT]);
	if (r->ptrack.lost)
		fprintf(stderr, "stitch: the kernel dropped %" PRIu64 " process-tracking records; "
			"%" PRIu64 " live processes' mappings were read again from /proc, but stacks "
			"sampled in the ~20 ms before may be named from out-of-date mappings\n",
			r->ptrack.lost, r->procs.reread);
	/* -e alloc's stacks wait for their weight as off-CPU stacks do (offcpu_pending.h) */
	if (recording_alloc(r) && r->offcpu.lost_weight + r->offcpu.lost_stack)
		fprintf(stderr, "stitch: LOST %" PRIu64 " sampled allocations (%" PRIu64 " whose "
			"weight never came, %" PRIu64 " whose stack never came): bytes are a "
			"lower bound\n", r->offcpu.lost_weight + r->offcpu.lost_stack,
			r->offcpu.lost_weight, r->offcpu.lost_stack);
	else if (st[STAT_OFFCPU_UNTRACKED] + st[STAT_OFFCPU_LOST] + r->offcpu.lost_weight +
	    r->offcpu.lost_stack)
		fprintf(stderr, "stitch: LOST %" PRIu64 " off-CPU intervals (%" PRIu64 " threads "
			"beyond %d tracked, %" PRIu64 " with full maps, %" PRIu64 " whose weight "
			"never came, %" PRIu64 " whose stack never came)\n",
			st[STAT_OFFCPU_UNTRACKED] + st[STAT_OFFCPU_LOST] + r->offcpu.lost_weight +
			r->offcpu.lost_stack, st[STAT_OFFCPU_UNTRACKED], OFFCPU_MAX_THREADS,
			st[STAT_OFFCPU_LOST], r->offcpu.lost_weight, r->offcpu.lost_stack);
	if (r->bad_records + r->ptrack.malformed)
		fprintf(stderr, "stitch: %" PRIu64 " malformed records ignored\n",
			r->bad_records + r->ptrack.malformed);
}

/* BPF run time of one of our programs (kernel.bpf_stats_enabled). */
static void prog_cost(struct bpf_program *p, uint64_t *ns, uint64_t *cnt)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	/* bpf_obj_get_info_by_fd: libbpf 1.1 has no bpf_prog_get_info_by_fd yet. */
	if (bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len) == 0) {
		*ns += info.run_time_ns;
		*cnt += info.run_cnt;
	}
}

/* utime + stime (+ cutime + cstime with children) of /proc/PID/stat, in ns; 0 if gone. */
static uint64_t proc_cpu_ns(pid_t pid, bool children)
{
	unsigned long long ut, st, cut, cst;
	char path[64], buf[1024], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* past "pid (comm)": the comm may hold spaces and parentheses */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu",
			 &ut, &st, &cut, &cst) != 4)
		return 0;
	return (ut + st + (children ? cut + cst : 0)) * (1000000000ull / sysconf(_SC_CLK_TCK));
}

/* The machine's busy CPU time (all but idle and iowait), from /proc/stat, in ns. */
static uint64_t machine_cpu_ns(void)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "re");
	int n;

	if (!f)
		return 0;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n != 8)
		return 0;
	return (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) * (1000000000ull / sysconf(_SC_CLK_TCK));
}

uint64_t targets_cpu_ns(struct recorder *r)
{
	struct rusage ru;
	uint64_t ns = 0;
	int i;

	if (r->o->target.all)
		return machine_cpu_ns();
	if (r->o->target.command) {
		/* Reaped: its time (and its children's) is ours to read; else still in /proc. */
		if (r->child_done && getrusage(RUSAGE_CHILDREN, &ru) == 0)
			return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull +
			       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull;
		return r->child > 0 ? proc_cpu_ns(r->child, true) : 0;
	}
	for (i = 0; i < r->o->target.npids; i++)
		ns += proc_cpu_ns(r->o->target.pids[i], false);
	return ns;
}

/* Tables read back from disk, and built into it (unwind/table_cache.h). */
static void report_table_cache(void)
{
	const char *dir = table_cache_dir();
	struct table_cache_stats tc;

	table_cache_get_stats(&tc);
	fprintf(stderr, "stitch stats: unwind tables: %lu read from the cache, %lu built into it, "
		"%lu entries that did not hold, %lu pruned (%s%s)\n", tc.read, tc.written,
		tc.refused, tc.pruned, dir ? "cache " : "no cache used", dir ? dir : "");
}

/* The instructions the verifier processed to load obj's programs (5.16+ says). */
static void verified_insns(struct bpf_object *obj, uint64_t *sum, uint64_t *top,
			   const char **top_name)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);

		if (bpf_program__fd(p) < 0)
			continue;
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len) != 0)
			continue;
		*sum += info.verified_insns;
		if (info.verified_insns > *top) {
			*top = info.verified_insns;
			*top_name = bpf_program__name(p);
		}
	}
}

/*
 * What loading cost the kernel: a start-up cost every run pays, that
 * grows unseen with each capability (--fetch's evaluator, walked for every
 * worker, once made each record verify 4x the instructions it needed).
 */
static void report_verified(struct recorder *r)
{
	uint64_t sum = 0, top = 0;
	const char *top_name = "";

	verified_insns(r->skel->obj, &sum, &top, &top_name);
	if (r->walkers)
		verified_insns(r->walkers->obj, &sum, &top, &top_name);
	if (r->legacy_walkers)
		verified_insns(r->legacy_walkers->obj, &sum, &top, &top_name);
	if (!sum) {
		fprintf(stderr, "stitch stats: BPF verification: the kernel does not say what it "
			"processed (before 5.16)\n");
		return;
	}
	fprintf(stderr, "stitch stats: BPF verification: %" PRIu64 " instructions processed, "
		"%" PRIu64 " of them for %s\n", sum, top, top_name);
}

void report_stats(struct recorder *r, const uint64_t st[STAT_NR])
{
	struct capture_bpf *sk = r->skel;
	uint64_t ns = 0, cnt = 0, got = r->stacks.total, ends = 0;
	int i;

	prog_cost(sk->progs.on_perf_event, &ns, &cnt);
	prog_cost(sk->progs.on_tracepoint, &ns, &cnt);
	prog_cost(sk->progs.on_uprobe, &ns, &cnt);
	prog_cost(sk->progs.on_kprobe, &ns, &cnt);
	prog_cost(sk->progs.on_raw_sys_enter, &ns, &cnt);
	prog_cost(sk->progs.capture_legacy_perf_event, &ns, &cnt);
	prog_cost(sk->progs.capture_legacy_tracepoint, &ns, &cnt);
	prog_cost(sk->progs.capture_legacy_uprobe, &ns, &cnt);
	prog_cost(sk->progs.capture_legacy_kprobe, &ns, &cnt);
	prog_cost(sk->progs.capture_legacy_raw_sys_enter, &ns, &cnt);
	if (bpf_program__autoload(sk->progs.on_sched_switch)) {
		uint64_t sns = 0, scnt = 0;

		/* Every switch of the machine runs it; traced threads' ones take stacks. */
		prog_cost(sk->progs.on_sched_switch, &sns, &scnt);
		fprintf(stderr, "stitch stats: off-CPU: %" PRIu64 " switch-outs of traced threads "
			"took a stack; sched_switch ran %" PRIu64 " times, %.0f ns per run\n",
			st[STAT_OFFCPU_OUT], scnt, scnt ? (double)sns / scnt : 0.0);
		fprintf(stderr, "stitch stats: off-CPU: %" PRIu64 " intervals ended by a switch-in "
			"no sched_switch showed (timed by the thread's CPU time since)\n",
			st[STAT_OFFCPU_UNSEEN_IN]);
		ns += sns;
		cnt += scnt;
		got = st[STAT_OFFCPU_OUT];
	}
	for (i = 0; i <= UNWIND_STOP_UNREADABLE; i++)
		ends += r->unwind_stops[i];
	fprintf(stderr, "stitch stats: events %" PRIu64 ", received %" PRIu64 ", bytes/event %.0f\n",
		st[STAT_EVENTS], got, got ? (double)r->bytes_received / got : 0.0);
	if (cnt) {
		uint64_t cpu = r->target_cpu_end > r->target_cpu_start ?
			       r->target_cpu_end - r->target_cpu_start : 0;

		/* per event: every run's time over the events kept, an upper bound */
		fprintf(stderr, "stitch stats: bpf runs %" PRIu64 ", %.0f ns/run, %.0f ns per "
			"event\n", cnt, (double)ns / cnt,
			st[STAT_EVENTS] ? (double)ns / st[STAT_EVENTS] : 0.0);
		/*
		 * What the target pays: our programs run in its threads' context
		 * (and, filtered out early, in others').  Its CPU time is the
		 * kernel's, in clock ticks: short or idle targets read coarsely.
		 */
		if (cpu)
			fprintf(stderr, "stitch stats: bpf time %.1f ms, %.3f%% of the %s CPU time "
				"(%.2f s)\n", ns / 1e6, 100.0 * ns / cpu,
				r->o->target.all ? "machine's busy" : "traced processes'",
				cpu / 1e9);
	} else
		fprintf(stderr, "stitch stats: bpf run time unknown "
			"(sysctl kernel.bpf_stats_enabled=1 to measure it)\n");
	fprintf(stderr, "stitch stats: user stacks: %" PRIu64 " complete, %" PRIu64
		" truncated, %" PRIu64 " left a module, %" PRIu64 " without a rule, %" PRIu64
		" inconsistent, %" PRIu64 " unreadable (of %" PRIu64 ")\n",
		r->unwind_stops[UNWIND_STOP_END], r->unwind_stops[UNWIND_STOP_TRUNCATED],
		r->unwind_stops[UNWIND_STOP_NO_MODULE], r->unwind_stops[UNWIND_STOP_NO_RULE],
		r->unwind_stops[UNWIND_STOP_BAD], r->unwind_stops[UNWIND_STOP_UNREADABLE], ends);
	fprintf(stderr, "stitch stats: interpreter stacks not stitched %" PRIu64
		", stitched without an entry frame being pushed or popped %" PRIu64
		", interpreter walks that failed %" PRIu64 "\n",
		r->interp.unstitched, r->interp.in_transition, r->interp.walk_errors);
	walkers_report(r);
	report_verified(r);
	fprintf(stderr, "stitch stats: kernel BTF for CO-RE relocations: %s\n", core_btf_status());
	fprintf(stderr, "stitch stats: binaries unreadable %" PRIu64 ", unwind rows loaded %zu\n",
		r->procs.unreadable_maps, r->bins.table_rows);
	report_table_cache();
	fprintf(stderr, "stitch stats: held at the end: %zu processes (%" PRIu64 " exited ones "
		"freed), %zu binaries (%" PRIu64 " freed, %" PRIu64 " tables and %" PRIu64
		" symbol tables dropped), %zu interpreter code objects named, %zu interpreter "
		"walks defined\n",
		r->procs.by_pid.count, r->procs_reaped, r->bins.by_file.count, r->bins.swept,
		r->bins.tables_evicted, r->bins.syms_dropped, r->interp.codes.count,
		r->interp.defs.count);
	fprintf(stderr, "stitch stats: process images never looked at (their files never opened): "
		"%" PRIu64 "\n", r->procs.never_opened);
	if (r->kw_ready)
		fprintf(stderr, "stitch stats: counted in the kernel %" PRIu64 ", sent as records "
			"%" PRIu64 " (maps full %" PRIu64 ", hash collisions %" PRIu64 ")\n",
			st[STAT_COUNTED_IN_KERNEL], st[STAT_EVENTS] - st[STAT_COUNTED_IN_KERNEL],
			st[STAT_COUNTED_FULL], st[STAT_COUNTED_COLLISION]);
	if (st[STAT_INTERP_DEFINED] || st[STAT_INTERP_NOT_KEPT])
		fprintf(stderr, "stitch stats: interpreter stacks counted in the kernel: %" PRIu64
			" distinct walks sent once (%" PRIu64 " named), %" PRIu64 " walks sent "
			"with their samples (hash collisions, map full)\n",
			st[STAT_INTERP_DEFINED], r->interp.defined, st[STAT_INTERP_NOT_KEPT]);
	if (st[STAT_KUNWIND_WALKS])
		fprintf(stderr, "stitch stats: kernel unwinding: %.0f ns per walk, %.1f frames "
			"per walk (%" PRIu64 " walks, %" PRIu64 " ended as this CPU's last)\n",
			(double)st[STAT_KUNWIND_NS] / st[STAT_KUNWIND_WALKS],
			(double)st[STAT_KUNWIND_FRAMES] / st[STAT_KUNWIND_WALKS],
			st[STAT_KUNWIND_WALKS], st[STAT_KUNWIND_MEMO]);
	if (r->kw_ready && r->o->target.npids)
		fprintf(stderr, "stitch stats: kernel unwinding: targets' tables loaded in %.0f ms\n",
			r->kw_setup_s * 1e3);
	if (r->kw_ready)
		fprintf(stderr, "stitch stats: kernel unwinding: %zu rows (%.1f MiB of %g, at most %.1f; "
			"%zu chunks of %u KiB in the kernel) "
			"for %" PRIu64 " binaries, %" PRIu64 " over budget, %" PRIu64 " dropped when "
			"unmapped, %" PRIu64 " kept unmapped and mapped again, %" PRIu64 " mapped and "
			"never needed, %" PRIu64 " process lists written (%" PRIu64 " before a stack was "
			"copied), %" PRIu64 " events copied while tables were missing\n",
			r->kw.rows_live, r->kw.rows_live * r->kw.row_stride / 1048576.0,
			r->o->max_table_mb, r->kw.rows_used * r->kw.row_stride / 1048576.0,
			r->kw.chunks_live, (unsigned)(KUNWIND_CHUNK_ROWS * r->kw.row_stride / 1024),
			r->kw.tables_loaded, r->kw.tables_refused, r->kw.tables_dropped,
			r->kw.tables_reused, r->kw.tables_deferred,
			r->kw.procs_written, r->kw.procs_written_early, st[STAT_KUNWIND_FALLBACK]);
	else
		fprintf(stderr, "stitch stats: stacks copied and unwound in user space\n");
}

/* After the output: naming the frames is what opens DWARF. */
void report_debug_cache(void)
{
	const char *dir = debug_cache_dir();
	struct debug_cache_stats st;

	debug_cache_get_stats(&st);
	fprintf(stderr, "stitch stats: compressed DWARF: %lu files from the cache, %lu "
		"decompressed into it, %lu decompressed in memory (%s%s)\n",
		st.used, st.written, st.uncached, dir ? "cache " : "no cache used", dir ? dir : "");
}
