// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/privileges.h"

#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT 38
#define CAP_BPF_BIT 39

static uint64_t effective_caps(void)
{
	char line[256];
	uint64_t caps = 0;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %" SCNx64, &caps) == 1)
			break;
	fclose(f);
	return caps;
}

int check_tracing_privileges(const char *who)
{
	uint64_t caps = effective_caps();
	bool bpf = caps & (1ULL << CAP_BPF_BIT), perfmon = caps & (1ULL << CAP_PERFMON_BIT);
	bool admin = caps & (1ULL << CAP_SYS_ADMIN_BIT);

	if (admin || (bpf && perfmon))
		return 0;
	fprintf(stderr, "%s: needs root, or CAP_BPF and CAP_PERFMON (missing:%s%s); "
		"run it with sudo\n", who, bpf ? "" : " CAP_BPF", perfmon ? "" : " CAP_PERFMON");
	return -1;
}
