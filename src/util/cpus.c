// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/cpus.h"

int online_cpus(int *cpus, int max)
{
	char buf[4096], *p;
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	int n = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	/* "0-3,5,7-8" */
	for (p = buf; *p && *p != '\n';) {
		char *end;
		long a = strtol(p, &end, 10), b = a, i;

		if (end == p)
			return -EINVAL;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			p = end;
		}
		for (i = a; i <= b && n < max; i++)
			cpus[n++] = (int)i;
		if (*p == ',')
			p++;
	}
	return n;
}
