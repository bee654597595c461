// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for interpreter stacks counted in the kernel (src/interp/counted.c):
 * a key counted under a definition's hash is spliced exactly as the same
 * walk sent with its sample would be (checked on marked and on random Perl
 * walks, whose names are packed and unpacked); a hash with no definition
 * yet asks to be read again; none and lost are what they say.  A sent walk
 * named ahead of its sample's unwind splices as one named at the stitch.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include "interp/interp_internal.h"
#include "interp/perl/perl.h"
#include "perl_walks.h"

#define PID 42
#define EVAL_START 0x1000
#define EVAL_END 0x2000
#define CAP (INTERP_MAX_FRAMES + 16)

static struct interp_state st;
static struct binary *eval_bin, *other_bin;	/* identities only */
static struct proc proc = { .pid = PID };

static int setup(void **state)
{
	struct interp_proc *ip;
	size_t i;

	(void)state;
	if (interp_init(&st, -1, -1, false))
		return -1;
	eval_bin = calloc(1, 64);
	other_bin = calloc(1, 64);
	ip = calloc(1, sizeof(*ip));
	if (!eval_bin || !other_bin || !ip)
		return -1;
	ip->pid = PID;
	for (i = 0; i < interp_version_count(); i++)
		if (interp_version_at(i)->lang == INTERP_PERL)
			ip->ver = interp_version_at(i);
	ip->ops = &perl_ops;
	ip->eval_bin = eval_bin;
	ip->eval_start = EVAL_START;
	ip->eval_end = EVAL_END;
	hmap_insert(&st.procs, &ip->node, hash_u64(PID));
	return ip->ver ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	interp_free(&st);
	free(eval_bin);
	free(other_bin);
	return 0;
}


/* The record's bytes: its strings moved to follow the frames, as sent. */
static size_t pack(struct perl_walk *r, uint64_t ihash, uint64_t time_ns)
{
	size_t hdr = INTERP_EVENT_HDR_BYTES + r->ev.nframes * sizeof(struct interp_frame);

	r->ev.hdr.type = RING_INTERP_WALK;
	r->ev.hdr.size = hdr + r->used;
	r->ev.time_ns = time_ns;
	r->ev.pid = r->ev.tid = PID;
	r->ev.lang = INTERP_PERL;
	r->ev.ihash = ihash;
	memcpy(r->bytes + hdr, r->strs, r->used);
	return hdr + r->used;
}

/* A native stack, innermost first: a C function, n loop frames apart, main. */
static int natives(struct uframe *uf, int loops)
{
	int n = 0, i;

	memset(uf, 0, CAP * sizeof(*uf));
	uf[n++] = (struct uframe){ .bin = other_bin, .addr = 0x500, .kind = UFRAME_ELF };
	for (i = 0; i < loops; i++) {
		uf[n++] = (struct uframe){ .bin = eval_bin, .addr = EVAL_START + 0x10 + i,
					   .kind = UFRAME_ELF };
		uf[n++] = (struct uframe){ .bin = other_bin, .addr = 0x600 + i,
					   .kind = UFRAME_ELF };
	}
	uf[n++] = (struct uframe){ .bin = other_bin, .addr = 0x700, .kind = UFRAME_ELF };
	return n;
}

/* Splice r both ways, sent (stash + stitch) and counted (define + hash): the same frames. */
static int both_ways(struct perl_walk *r, uint64_t ihash, int loops, bool complete,
		     struct uframe *counted)
{
	static uint64_t time_ns = 1;
	struct uframe sent[CAP];
	size_t size = pack(r, ihash, ++time_ns);
	int ns, nc;

	interp_stash(&st, r->bytes, size);
	ns = interp_stitch(&st, &proc, PID, time_ns, sent, natives(sent, loops), CAP, complete,
			   false);
	interp_define(&st, &proc, r->bytes, size);
	nc = interp_counted_frames(&st, PID, ihash, counted, natives(counted, loops), CAP,
				   complete);
	assert_int_equal(nc, ns);
	assert_memory_equal(counted, sent, ns * sizeof(*sent));
	return nc;
}

static const char *name_at(const struct uframe *u)
{
	return u->kind == UFRAME_INTERP ? ((const struct interp_name *)(uintptr_t)u->addr)->name :
	       "native";
}

static void test_counted_as_sent(void **state)
{
	struct perl_walk *r = calloc(1, sizeof(*r));
	struct uframe uf[CAP];
	int n;

	(void)state;
	perl_walk_frame(r, "Work", "leaf", 0, 10);
	perl_walk_frame(r, "Work", "run", 0, 20);
	perl_walk_frame(r, NULL, NULL, PERL_FRAME_MAIN, 30);
	n = both_ways(r, 0x1234, 1, true, uf);
	/* The loop frame between two natives replaced by the three Perl frames. */
	assert_int_equal(n, 6);
	assert_string_equal(name_at(&uf[0]), "native");
	assert_string_equal(name_at(&uf[1]), "Work::leaf");
	assert_string_equal(name_at(&uf[2]), "Work::run");
	assert_string_equal(name_at(&uf[3]), "<main>");
	assert_string_equal(name_at(&uf[4]), "native");
	assert_string_equal(name_at(&uf[5]), "native");
	/* Read again: the definition stays. */
	n = interp_counted_frames(&st, PID, 0x1234, uf, natives(uf, 1), CAP, true);
	assert_int_equal(n, 6);
	free(r);
}

static void test_no_definition_none_lost(void **state)
{
	struct uframe uf[CAP];
	int nu;

	(void)state;
	nu = natives(uf, 1);
	assert_int_equal(interp_counted_frames(&st, PID, 0x999999, uf, nu, CAP, true), -EAGAIN);
	/* Another process's definition is not this one's. */
	assert_int_equal(interp_counted_frames(&st, PID + 1, 0x1234, uf, nu, CAP, true), -EAGAIN);
	assert_int_equal(interp_counted_frames(&st, PID, INTERP_IHASH_NONE, uf, nu, CAP, true), nu);
	assert_int_equal(interp_counted_frames(&st, PID, INTERP_IHASH_LOST, uf, nu, CAP, true),
			 nu + 1);
	assert_string_equal(name_at(&uf[1]), "[interpreter frames lost]");
}

/* Random walks (names, flags, strings out of bounds), packed and unpacked: as sent. */
static void test_random_walks_counted_as_sent(void **state)
{
	struct perl_walk *r = malloc(sizeof(*r));
	struct uframe uf[CAP];
	unsigned int seed = 11;
	int i, j;

	(void)state;
	for (i = 0; i < 2000; i++) {
		memset(r, 0, sizeof(*r));
		r->used = rand_r(&seed) % 64;
		for (j = 0; j < (int)r->used; j++)
			r->strs[j] = 'a' + rand_r(&seed) % 26;
		r->ev.nframes = rand_r(&seed) % (INTERP_MAX_FRAMES + 1);
		r->ev.flags = rand_r(&seed) % 16;
		for (j = 0; j < r->ev.nframes; j++) {
			struct interp_frame *f = &r->ev.frames[j];

			f->flags = rand_r(&seed) % 0x100 | (rand_r(&seed) % 4) << PERL_FRAME_SI_SHIFT;
			f->id1 = PERL_STR(rand_r(&seed) % 80, rand_r(&seed) % 20) |
				 (uint64_t)PERL_STR(rand_r(&seed) % 80, rand_r(&seed) % 20) << 32;
			f->id2 = PERL_STR(rand_r(&seed) % 80, rand_r(&seed) % 20);
			f->id3 = rand_r(&seed) % 1000;
		}
		both_ways(r, 0x10000 + i, rand_r(&seed) % 6, rand_r(&seed) % 2, uf);
	}
	assert_true(st.defined >= 2000);
	free(r);
}

/*
 * A walk named ahead of its sample's unwind (interp_name_walk) is what the
 * stitch splices, whatever the process holds by then (here: the slot's
 * strings overwritten by a later walk); it is the same as one named at the
 * stitch, and never spliced into another sample of the thread.
 */
static void test_named_ahead(void **state)
{
	struct perl_walk *r = calloc(1, sizeof(*r)), *later = calloc(1, sizeof(*later));
	struct uframe ahead[CAP], at_stitch[CAP];
	size_t size;
	int na, ns;

	(void)state;
	perl_walk_frame(r, "Work", "leaf", 0, 10);
	perl_walk_frame(r, NULL, NULL, PERL_FRAME_MAIN, 30);
	perl_walk_frame(later, "Other", "gone", 0, 10);
	perl_walk_frame(later, NULL, NULL, PERL_FRAME_MAIN, 30);

	size = pack(r, 0, 100);
	interp_stash(&st, r->bytes, size);
	ns = interp_stitch(&st, &proc, PID, 100, at_stitch, natives(at_stitch, 1), CAP, true,
			   false);

	size = pack(r, 0, 200);
	interp_stash(&st, r->bytes, size);
	interp_name_walk(&st, &proc, PID, 200, false);
	size = pack(later, 0, 200);
	interp_stash(&st, later->bytes, size);
	na = interp_stitch(&st, &proc, PID, 200, ahead, natives(ahead, 1), CAP, true, false);
	assert_int_equal(na, 5);
	assert_int_equal(na, ns);
	assert_memory_equal(ahead, at_stitch, na * sizeof(*ahead));
	assert_string_equal(name_at(&ahead[1]), "Work::leaf");

	/* Named and spliced once: the thread's next sample (no walk) gets none of it. */
	interp_name_walk(&st, &proc, PID, 300, false);
	na = interp_stitch(&st, &proc, PID, 300, ahead, natives(ahead, 1), CAP, true, false);
	assert_int_equal(na, natives(at_stitch, 1));
	assert_string_equal(name_at(&ahead[1]), "native");
	free(r);
	free(later);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counted_as_sent),
		cmocka_unit_test(test_no_definition_none_lost),
		cmocka_unit_test(test_random_walks_counted_as_sent),
		cmocka_unit_test(test_named_ahead),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
