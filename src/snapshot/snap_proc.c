// SPDX-License-Identifier: GPL-2.0
/*
 * snapshot's records from /proc: see snap_proc.h.  Each thread's files are
 * read in the order that lets a change be seen: its CPU time first, its
 * registers and stacks, its CPU time again.  A thread blocked the whole
 * time has stacks that belong together; one that ran did not keep still,
 * and is reported as running (as the iterator reports a thread on a CPU).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "snapshot/snap_proc.h"
#include "snapshot/snapshot.h"
#include "util/hashmap.h"

#define PF_KTHREAD 0x00200000
#define PAGE 4096

/* A kernel frame by name, its address found in kallsyms once all are read. */
struct kname {
	struct hmap_node node;
	uint64_t addr;		/* 0: not found */
	char name[128];
};

/* Where a record's kernel frame goes: its name's address plus its offset. */
struct kframe_fix {
	size_t at;		/* byte offset in the buffer of the frame's word */
	struct kname *name;
	uint64_t off;
};

struct reader {
	uint8_t **buf;
	size_t *len, *cap;
	struct hmap names;
	struct kframe_fix *fixes;
	size_t nfixes, fixes_cap;
	bool oom;
};

static bool name_eq(const struct hmap_node *n, const void *key)
{
	return strcmp(((const struct kname *)n)->name, key) == 0;
}

/* bytes more room at the end of the buffer, or false. */
static bool room(struct reader *rd, size_t bytes)
{
	size_t cap = *rd->cap ? *rd->cap : 1 << 20;
	uint8_t *b;

	while (cap - *rd->len < bytes)
		cap *= 2;
	if (cap == *rd->cap)
		return true;
	b = realloc(*rd->buf, cap);
	if (!b)
		return false;
	*rd->buf = b;
	*rd->cap = cap;
	return true;
}

/* The first line of a small /proc file, or false. */
static bool read_line(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return false;
	ok = fgets(out, len, f) != NULL;
	fclose(f);
	return ok;
}

static bool cpu_time(const char *dir, uint64_t *ns)
{
	char path[96], line[128];

	snprintf(path, sizeof(path), "%s/schedstat", dir);
	return read_line(path, line, sizeof(line)) && sscanf(line, "%" SCNu64, ns) == 1;
}

/* stat: comm, state letter, flags (field 9) and CPU (field 39). */
static bool read_stat(const char *dir, struct snap_record *r, char *state)
{
	char path[96], line[1024], *open, *close, *tok, *save = NULL;
	unsigned long long v;
	int field = 3;

	snprintf(path, sizeof(path), "%s/stat", dir);
	if (!read_line(path, line, sizeof(line)))
		return false;
	open = strchr(line, '(');
	close = strrchr(line, ')');
	if (!open || !close || close < open || !close[1])
		return false;
	/* A comm may hold any byte, ')' too: it ends at the last one. */
	snprintf(r->comm, sizeof(r->comm), "%.*s", (int)(close - open - 1), open + 1);
	for (tok = strtok_r(close + 2, " ", &save); tok; tok = strtok_r(NULL, " ", &save), field++) {
		if (field == 3)
			*state = tok[0];
		else if (field == 9 && sscanf(tok, "%llu", &v) == 1 && (v & PF_KTHREAD))
			r->flags |= SNAP_KTHREAD;
		else if (field == 39 && sscanf(tok, "%llu", &v) == 1)
			r->cpu = v;
	}
	return field > 39;
}

/* The state letter as the kernel's task state bits (snap_state_letter's inverse). */
static void set_state(struct snap_record *r, char letter)
{
	switch (letter) {
	case 'S': r->state = 0x1; break;
	case 'D': r->state = 0x2; break;
	case 'T': r->state = 0x4; break;
	case 't': r->state = 0x8; break;
	case 'X': r->exit_state = 0x10; break;
	case 'Z': r->exit_state = 0x20; break;
	case 'P': r->state = 0x40; break;
	case 'I': r->state = 0x402; break;
	default: r->state = 0; break;	/* R */
	}
}

/*
 * syscall: "NR ARG1..ARG6 SP PC" blocked in a system call, "-1 SP PC"
 * blocked elsewhere (a fault, a preemption), "running" on a CPU.
 */
static void read_regs(const char *dir, struct snap_record *r)
{
	char path[96], line[512];
	unsigned long long v[9];
	long long nr;
	int n;

	snprintf(path, sizeof(path), "%s/syscall", dir);
	if (!read_line(path, line, sizeof(line)))
		return;
	if (!strncmp(line, "running", 7)) {
		r->flags |= SNAP_ON_CPU;
		return;
	}
	n = sscanf(line, "%lld %llx %llx %llx %llx %llx %llx %llx %llx", &nr, &v[0], &v[1], &v[2],
		   &v[3], &v[4], &v[5], &v[6], &v[7]);
	r->syscall_nr = (uint64_t)nr;
	if (n == 9) {
		memcpy(r->args, v, sizeof(r->args));
		r->sp = v[6];
		r->ip = v[7];
	} else if (n == 3 && nr == -1) {
		r->sp = v[0];
		r->ip = v[1];
	} else {
		return;
	}
	r->flags |= SNAP_USER_REGS;
}

/* stack: "[<0>] name+0xoff/0xsize": frames by name, each fixed up later. */
static uint32_t read_kstack(struct reader *rd, const char *dir, size_t at)
{
	char path[96], line[512], name[128];
	unsigned long long off;
	uint32_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/stack", dir);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (n < SNAP_MAX_KSTACK && fgets(line, sizeof(line), f)) {
		const char *p = strchr(line, ']');
		struct kname *k;
		bool added;

		if (!p || sscanf(p + 1, " %127[^+ \n]+0x%llx", name, &off) != 2)
			continue;
		k = (struct kname *)hmap_find_or_add(&rd->names, hash_bytes(name, strlen(name), 0),
						     name_eq, name, sizeof(*k), &added);
		if (!k)
			break;
		if (added)
			snprintf(k->name, sizeof(k->name), "%s", name);
		if (rd->nfixes == rd->fixes_cap) {
			size_t cap = rd->fixes_cap ? rd->fixes_cap * 2 : 1024;
			struct kframe_fix *fx = realloc(rd->fixes, cap * sizeof(*fx));

			if (!fx)
				break;
			rd->fixes = fx;
			rd->fixes_cap = cap;
		}
		rd->fixes[rd->nfixes++] = (struct kframe_fix){ at + n * 8, k, off };
		n++;
	}
	fclose(f);
	return n;
}

/* The user stack from sp up, page by page: it stops at the first unreadable one. */
static uint32_t read_ustack(uint32_t pid, uint64_t sp, uint8_t *dst, uint32_t *flags)
{
	struct iovec remote[SNAP_MAX_USTACK / PAGE + 1], local = { dst, SNAP_MAX_USTACK };
	uint64_t page = sp & ~(uint64_t)(PAGE - 1);
	size_t n = 0, left = SNAP_MAX_USTACK;
	ssize_t got;

	remote[n].iov_base = (void *)(uintptr_t)sp;
	remote[n].iov_len = page + PAGE - sp < left ? page + PAGE - sp : left;
	left -= remote[n++].iov_len;
	for (page += PAGE; left && n < sizeof(remote) / sizeof(remote[0]); page += PAGE) {
		remote[n].iov_base = (void *)(uintptr_t)page;
		remote[n].iov_len = left < PAGE ? left : PAGE;
		left -= remote[n++].iov_len;
	}
	got = process_vm_readv(pid, &local, 1, remote, n, 0);
	if (got <= 0)
		return 0;
	if (got == SNAP_MAX_USTACK)
		*flags |= SNAP_USTACK_CUT;
	return got & ~7;
}

/* One thread's record, appended. */
static int read_thread(struct reader *rd, const struct snap_proc_targets *t, uint32_t pid,
		       uint32_t tid)
{
	char dir[64], state = 'R';
	struct snap_record *r;
	uint64_t before, after;
	size_t at = *rd->len;
	uint32_t nk, nu = 0;

	snprintf(dir, sizeof(dir), "/proc/%u/task/%u", pid, tid);
	if (!room(rd, sizeof(*r) + SNAP_MAX_KSTACK * 8 + SNAP_MAX_USTACK))
		return -1;
	r = (struct snap_record *)(*rd->buf + at);
	memset(r, 0, sizeof(*r));
	r->magic = SNAP_MAGIC;
	r->pid = pid;
	r->tid = tid;
	r->flags = SNAP_NO_SINCE;
	if (!cpu_time(dir, &before) || !read_stat(dir, r, &state))
		return 0;	/* gone */
	if (t->no_kthreads && (r->flags & SNAP_KTHREAD))
		return 0;
	set_state(r, state);
	r->cpu_ns = before;
	if (!(r->flags & SNAP_KTHREAD))
		read_regs(dir, r);
	nk = read_kstack(rd, dir, at + sizeof(*r));
	r->nkernel = nk;
	if ((r->flags & SNAP_USER_REGS) && !(r->flags & SNAP_ON_CPU))
		nu = read_ustack(pid, r->sp, *rd->buf + at + sizeof(*r) + nk * 8, &r->flags);
	if (!nu && (r->flags & SNAP_USER_REGS) && r->exit_state)
		r->flags |= SNAP_NO_MM;
	/* It ran meanwhile: its stacks need not belong together. */
	if (!cpu_time(dir, &after) || after != before)
		r->flags |= SNAP_ON_CPU;
	r->ustack_bytes = nu;
	r->bytes = sizeof(*r) + nk * 8 + nu;
	*rd->len += r->bytes;
	return 0;
}

static int read_process(struct reader *rd, const struct snap_proc_targets *t, uint32_t pid)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int rc = 0;

	if (pid == t->self && !t->npids)
		return 0;
	snprintf(path, sizeof(path), "/proc/%u/task", pid);
	dir = opendir(path);
	if (!dir)
		return 0;	/* gone */
	while (!rc && (d = readdir(dir)))
		if (isdigit((unsigned char)d->d_name[0]))
			rc = read_thread(rd, t, pid, strtoul(d->d_name, NULL, 10));
	closedir(dir);
	return rc;
}

/* The addresses of the names the stacks hold: one pass over kallsyms. */
static void find_names(struct reader *rd)
{
	char line[512], name[256], type;
	unsigned long long addr;
	struct kname *k;
	size_t i, found = 0;
	FILE *f;

	if (!rd->names.count)
		return;
	f = fopen("/proc/kallsyms", "re");
	while (f && found < rd->names.count && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 || !addr ||
		    !strchr("TtWw", type))
			continue;
		k = (struct kname *)hmap_find(&rd->names, hash_bytes(name, strlen(name), 0),
					      name_eq, name);
		if (k && !k->addr) {
			k->addr = addr;
			found++;
		}
	}
	if (f)
		fclose(f);
	for (i = 0; i < rd->nfixes; i++) {
		uint64_t a = rd->fixes[i].name->addr;

		/* A name kallsyms does not have (hidden addresses): the frame is 0, the stack ends. */
		a = a ? a + rd->fixes[i].off : 0;
		memcpy(*rd->buf + rd->fixes[i].at, &a, sizeof(a));
	}
}

int snap_proc_read(const struct snap_proc_targets *t, uint8_t **buf, size_t *len, size_t *cap)
{
	struct reader rd = { .buf = buf, .len = len, .cap = cap };
	struct dirent *d;
	DIR *proc;
	size_t i;
	int rc = 0;

	if (hmap_init(&rd.names, 1024))
		return -1;
	*len = 0;
	if (t->all) {
		proc = opendir("/proc");
		while (proc && !rc && (d = readdir(proc)))
			if (isdigit((unsigned char)d->d_name[0]))
				rc = read_process(&rd, t, strtoul(d->d_name, NULL, 10));
		if (proc)
			closedir(proc);
	} else {
		for (i = 0; !rc && i < t->npids; i++)
			rc = read_process(&rd, t, t->pids[i]);
	}
	if (!rc)
		find_names(&rd);
	hmap_free_all(&rd.names);
	free(rd.fixes);
	return rc;
}
