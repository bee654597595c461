// SPDX-License-Identifier: GPL-2.0
/*
 * Names kernel addresses with the kernel's own symbol lookup (see
 * ksym_namer.h).  Run on demand by BPF_PROG_TEST_RUN; user space fills
 * and reads the batch through the mmaped .bss.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "symbolize/ksym_namer.h"

struct ksym_batch batch;

/* %pS: the symbol at the address; %pB: at address - 1 (a return address). */
static const char exact_fmt[] = "%pS";
static const char ret_fmt[] = "%pB";

static long name_one(__u64 i, void *ctx)
{
	__u32 k = i & (KSYM_BATCH - 1);
	__u64 addr = batch.addrs[k];

	if (batch.exact[k])
		bpf_snprintf(batch.text[k], KSYM_TEXT_LEN, exact_fmt, &addr, sizeof(addr));
	else
		bpf_snprintf(batch.text[k], KSYM_TEXT_LEN, ret_fmt, &addr, sizeof(addr));
	return 0;
}

SEC("syscall")
int name_addrs(void *ctx)
{
	__u32 n = batch.n;

	if (n > KSYM_BATCH)
		n = KSYM_BATCH;
	bpf_loop(n, name_one, NULL, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
