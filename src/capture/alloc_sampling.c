// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "capture/alloc_sampling.h"
#include "profile/profile.h"

_Static_assert(ALLOC_OBJECT_ONE == PROFILE_OBJECT_ONE, "objects' fixed point, BPF and profile");

void alloc_tables_fill(uint32_t *gap, uint32_t *weight)
{
	int i;

	gap[0] = (uint32_t)lround(log(ALLOC_GAP_SLOTS) * ALLOC_FIXED_ONE);
	for (i = 1; i <= ALLOC_GAP_SLOTS; i++)
		gap[i] = (uint32_t)lround(-log((double)i / ALLOC_GAP_SLOTS) * ALLOC_FIXED_ONE);
	weight[0] = ALLOC_FIXED_ONE;	/* x / (1 - e^-x) -> 1 as x -> 0 */
	for (i = 1; i <= ALLOC_WEIGHT_SLOTS; i++) {
		double x = (double)i / ALLOC_WEIGHT_STEPS;

		weight[i] = (uint32_t)lround(x / -expm1(-x) * ALLOC_FIXED_ONE);
	}
}

bool alloc_parse_period(const char *s, uint64_t *bytes)
{
	unsigned long long v;
	uint64_t unit = 1;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return false;
	switch (tolower((unsigned char)*end)) {
	case 'k':
		unit = 1024;
		end++;
		break;
	case 'm':
		unit = 1024 * 1024;
		end++;
		break;
	case 'g':
		unit = 1024 * 1024 * 1024;
		end++;
		break;
	}
	/* "512K", "512KiB", "512KB" alike */
	if (unit > 1 && (*end == 'i' || *end == 'I'))
		end++;
	if (unit > 1 && (*end == 'b' || *end == 'B'))
		end++;
	if (*end || v == 0 || v > ALLOC_MAX_PERIOD / unit)
		return false;
	*bytes = v * unit;
	return true;
}
