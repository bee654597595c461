// SPDX-License-Identifier: GPL-2.0
/* Threads still off the CPU at the end: see offcpu_blocked.h. */
#include <bpf/bpf.h>

#include "capture/offcpu.h"
#include "capture/offcpu_blocked.h"

void offcpu_count_blocked(int threads_fd, uint64_t min_block_ns, uint64_t now,
			  const struct offcpu_sink *s)
{
	uint64_t ns;
	struct offcpu_thread t;
	uint32_t tid, *prev = NULL;

	while (bpf_map_get_next_key(threads_fd, prev, &tid) == 0) {
		prev = &tid;
		if (bpf_map_lookup_elem(threads_fd, &tid, &t) != 0 || t.out_ns > now)
			continue;
		ns = now - t.out_ns;
		if (ns < min_block_ns)
			ns = 0;
		if (t.counted && ns)
			kunwind_count_key(s->kw, &s->fds, &t.key, ns, s->stacks,
					  s->stops, s->bytes);
		else if (t.sent)
			offcpu_weigh(s->pending, tid, ns, s->stacks);
	}
}
