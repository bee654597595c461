// SPDX-License-Identifier: GPL-2.0
/*
 * Unnamed native frames per binary in the text summary (formats/unnamed.c):
 * which frames count (binary+0xOFFSET of their own module only), distinct
 * addresses, samples counted once however many such frames they hold.
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "formats/output.h"
#include "formats/unnamed.h"

static uint32_t frame(struct profile *p, const char *name, const char *module, uint8_t kind)
{
	struct prof_frame f = {
		.name = profile_str(p, name), .module = profile_str(p, module), .kind = kind,
	};

	return profile_frame(p, &f);
}

static void add(struct profile *p, const uint32_t *fr, uint32_t n, uint64_t count)
{
	struct prof_sample labels = { .comm = profile_str(p, "app"), .count = count };

	assert_int_equal(profile_add_sample(p, fr, n, &labels), 0);
}

static char *text_of(struct profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(profile_write_text(f, p, 10), 0);
	fclose(f);
	return buf;
}

/* p->frames moves as frames are added: look it up after adding. */
static bool unnamed(struct profile *p, const char *name, const char *module, uint8_t kind)
{
	uint32_t i = frame(p, name, module, kind);

	return frame_is_unnamed(p, &p->frames[i]);
}

static void test_which_frames_are_unnamed(void **state)
{
	struct profile p;

	profile_init(&p);
	assert_true(unnamed(&p, "app+0x1a2f", "/usr/bin/app", FRAME_USER));
	/* Named, someone else's name, no offset, not hex, kernel or mark: not counted. */
	assert_false(unnamed(&p, "main", "/usr/bin/app", FRAME_USER));
	assert_false(unnamed(&p, "libc.so.6+0x10", "/usr/bin/app", FRAME_USER));
	assert_false(unnamed(&p, "app+0x", "/usr/bin/app", FRAME_USER));
	assert_false(unnamed(&p, "app+0x12g", "/usr/bin/app", FRAME_USER));
	assert_false(unnamed(&p, "app+0x12", "/usr/bin/app", FRAME_INLINED));
	assert_false(unnamed(&p, "app+0x12", NULL, FRAME_USER));
	assert_false(unnamed(&p, "app+0x12", "[kernel]", FRAME_KERNEL));
	assert_false(unnamed(&p, "[unknown]", "/usr/bin/app", FRAME_MARK));
	profile_free(&p);
}

static void test_counts_per_binary(void **state)
{
	struct profile p;
	uint32_t s1[4], s2[2], s3[2];
	char *out;

	profile_init(&p);
	/* Two unnamed frames of app in one sample: the sample counts once. */
	s1[0] = frame(&p, "_start", "/usr/bin/app", FRAME_USER);
	s1[1] = frame(&p, "app+0x100", "/usr/bin/app", FRAME_USER);
	s1[2] = frame(&p, "app+0x200", "/usr/bin/app", FRAME_USER);
	s1[3] = frame(&p, "liby.so+0x30", "/lib/liby.so", FRAME_USER);
	add(&p, s1, 4, 5);
	s2[0] = s1[0];
	s2[1] = frame(&p, "app+0x100", "/usr/bin/app", FRAME_USER);
	add(&p, s2, 2, 3);
	s3[0] = s1[0];
	s3[1] = frame(&p, "main", "/usr/bin/app", FRAME_USER);
	add(&p, s3, 2, 2);
	assert_int_equal(profile_merge_samples(&p), 0);
	out = text_of(&p);
	assert_non_null(strstr(out, "by binary: " UNNAMED_HINT "\n"
				    "  /usr/bin/app: 2 addresses, in 8 of 10 samples\n"
				    "  /lib/liby.so: 1 addresses, in 5 of 10 samples\n"));
	free(out);
	profile_free(&p);
}

static void test_all_named_says_nothing(void **state)
{
	struct profile p;
	uint32_t s[1];
	char *out;

	profile_init(&p);
	s[0] = frame(&p, "main", "/usr/bin/app", FRAME_USER);
	add(&p, s, 1, 4);
	out = text_of(&p);
	assert_null(strstr(out, UNNAMED_HINT));
	free(out);
	profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_which_frames_are_unnamed),
		cmocka_unit_test(test_counts_per_binary),
		cmocka_unit_test(test_all_named_says_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
