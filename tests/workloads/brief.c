// SPDX-License-Identifier: GPL-2.0
/*
 * A process that lives a tenth of a second, long enough for stitch to open
 * its binary: copied to many distinct files (each its own binary to
 * stitch), it is what a whole-machine recording sees of builds and shell
 * loops, for the memory tests.
 */
#include <time.h>

int main(void)
{
	struct timespec t = { 0, 100 * 1000 * 1000 };

	return nanosleep(&t, NULL);
}
