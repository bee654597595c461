// SPDX-License-Identifier: GPL-2.0
/*
 * User side of the kernel address namer (ksym_namer.h): load the program
 * once, then name addresses in batches of KSYM_BATCH, one BPF_PROG_TEST_RUN
 * each.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "symbolize/ksym_namer.h"
#include "ksym_namer.skel.h"

#define KSYM_NAME_MAX 200
#define KSYM_MODULE_MAX 64

struct ksym_namer {
	struct ksym_namer_bpf *skel;
	char names[KSYM_BATCH][KSYM_NAME_MAX];
	char modules[KSYM_BATCH][KSYM_MODULE_MAX];
};

static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

struct ksym_namer *ksym_namer_open(void)
{
	struct ksym_namer *kn = calloc(1, sizeof(*kn));
	libbpf_print_fn_t old;
	int err;

	if (!kn)
		return NULL;
	/* A kernel without this program type is told by errno, not by libbpf's log. */
	old = libbpf_set_print(quiet_print);
	kn->skel = ksym_namer_bpf__open_and_load();
	err = errno;
	libbpf_set_print(old);
	if (!kn->skel || !kn->skel->bss) {
		ksym_namer_bpf__destroy(kn->skel);
		free(kn);
		errno = err ? err : ENOTSUP;
		return NULL;
	}
	return kn;
}

void ksym_namer_close(struct ksym_namer *kn)
{
	if (!kn)
		return;
	ksym_namer_bpf__destroy(kn->skel);
	free(kn);
}

/* Copy [s, s + len) as a C string into out (cut to fit). */
static void copy_part(char *out, size_t out_len, const char *s, size_t len)
{
	if (len >= out_len)
		len = out_len - 1;
	memcpy(out, s, len);
	out[len] = '\0';
}

bool ksym_parse_text(const char *text, char *name, size_t name_len, char *module,
		     size_t module_len)
{
	const char *plus = strchr(text, '+'), *open, *close;
	size_t len;

	module[0] = '\0';
	/* No symbol: the kernel prints the address itself ("0xffff..."). */
	if (!plus || plus == text || strncmp(plus, "+0x", 3) != 0)
		return false;
	len = plus - text;
	if (memchr(text, ' ', len))
		return false;
	copy_part(name, name_len, text, len);
	/* "... [module]" (modules; BPF programs and vmlinux have none) */
	open = strstr(plus, " [");
	close = open ? strchr(open, ']') : NULL;
	if (open && close && close > open + 2)
		copy_part(module, module_len, open + 1, close - open);
	return true;
}

int ksym_namer_name(struct ksym_namer *kn, const uint64_t *addrs, const bool *exact, size_t n,
		    const char **name, const char **module)
{
	struct ksym_batch *b = &kn->skel->bss->batch;
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	size_t i;

	if (n > KSYM_BATCH)
		return -E2BIG;
	b->n = n;
	for (i = 0; i < n; i++) {
		b->addrs[i] = addrs[i];
		b->exact[i] = exact ? exact[i] : 0;
		b->text[i][0] = '\0';
	}
	if (bpf_prog_test_run_opts(bpf_program__fd(kn->skel->progs.name_addrs), &opts))
		return -errno;
	for (i = 0; i < n; i++) {
		/* The kernel wrote the text: still, never trust its end. */
		char text[KSYM_TEXT_LEN];

		memcpy(text, b->text[i], sizeof(text));
		text[sizeof(text) - 1] = '\0';
		if (!ksym_parse_text(text, kn->names[i], KSYM_NAME_MAX, kn->modules[i],
				     KSYM_MODULE_MAX))
			kn->names[i][0] = '\0';
		name[i] = kn->names[i];
		module[i] = kn->modules[i][0] ? kn->modules[i] : NULL;
	}
	return 0;
}
