// SPDX-License-Identifier: GPL-2.0
/* stitch latency's roots: parsing -e, the BPF side's settings, attaching: see lat_root.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "kernel/features.h"
#include "kernel/tp_format.h"
#include "record/attach.h"
#include "latency/lat_root.h"
#include "proc/usdt.h"
#include "util/cli.h"
#include "util/elf_util.h"
#include "interp/interp.h"	/* the skeleton's root_L */
#include "latency.skel.h"

#define TRACEFS_EVENTS TP_EVENTS_DIR
#define KPROBE_PMU "/sys/bus/event_source/devices/kprobe"

static const char ident_chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";

static int usage_error(const char *fmt, const char *arg)
{
	return cli_usage_error("latency", fmt, arg);
}

static bool is_ident(const char *s, size_t max)
{
	size_t n = strlen(s);

	return n && n < max && strspn(s, ident_chars) == n;
}

/*
 * The fields latency reads of a format (kernel/tp_format.h): values of up to
 * 8 bytes, not arrays nor __data_loc strings.
 */
int lat_tp_fields_read(FILE *f, struct lat_field *fields, int max)
{
	struct tp_field tf[64];
	int n = tp_format_read(f, tf, 64), i, k = 0;

	for (i = 0; i < n && k < max; i++) {
		if (tf[i].array || tf[i].data_loc || tf[i].size == 0)
			continue;
		memset(&fields[k], 0, sizeof(fields[k]));
		snprintf(fields[k].name, sizeof(fields[k].name), "%s", tf[i].name);
		fields[k].off = tf[i].off;
		fields[k].size = tf[i].size;
		fields[k].is_signed = tf[i].is_signed;
		k++;
	}
	return k;
}

int lat_tp_fields(const char *category, const char *name, struct lat_field *fields, int max)
{
	char path[512];
	FILE *f;
	int n;

	snprintf(path, sizeof(path), TRACEFS_EVENTS "/%s/%s/format", category, name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = lat_tp_fields_read(f, fields, max);
	fclose(f);
	return n;
}

static const struct lat_field *find_field(const struct lat_field *fl, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(fl[i].name, name))
			return &fl[i];
	return NULL;
}

/* The first LAT_NARGS readable fields (up to 8 bytes) as the call's arguments. */
static void take_args(struct lat_root *r, const struct lat_field *fl, int n)
{
	int i;

	for (i = 0; i < n && r->nargs < LAT_NARGS; i++)
		if (fl[i].size <= 8 && strcmp(fl[i].name, "__syscall_nr"))
			r->args[r->nargs++] = fl[i];
}

static int parse_syscall(struct lat_root *r, const char *name)
{
	struct lat_field fl[16];
	char ev[128], err[256];
	int n;

	if (!is_ident(name, 64))
		return usage_error("-e: '%s' is not a system call name", r->spec);
	if (ensure_tracefs(err, sizeof(err))) {
		fprintf(stderr, "stitch latency: %s\n", err);
		return 1;
	}
	snprintf(ev, sizeof(ev), "sys_enter_%s", name);
	n = lat_tp_fields("syscalls", ev, fl, 16);
	if (n < 0)
		return usage_error("-e: this kernel has no system call '%s' (see "
				   TRACEFS_EVENTS "/syscalls)", name);
	take_args(r, fl, n);
	snprintf(r->ret.name, sizeof(r->ret.name), "ret");
	r->ret.size = 8;
	r->kind = ROOT_SYSCALL;
	snprintf(r->name, sizeof(r->name), "%s", name);
	return 0;
}

/* uprobe:BINARY:FUNCTION: the last ':' splits. */
static int parse_function(struct lat_root *r, const char *rest)
{
	const char *colon = strrchr(rest, ':');

	if (!colon || colon == rest || !colon[1] || (size_t)(colon - rest) >= sizeof(r->binary) ||
	    strlen(colon + 1) >= sizeof(r->function))
		return usage_error("-e: '%s' is not uprobe:BINARY:FUNCTION", r->spec);
	memcpy(r->binary, rest, colon - rest);
	r->binary[colon - rest] = '\0';
	if (access(r->binary, R_OK) != 0)
		return usage_error("-e: cannot read the binary '%s'", r->binary);
	snprintf(r->function, sizeof(r->function), "%s", colon + 1);
	snprintf(r->name, sizeof(r->name), "%s", colon + 1);
	r->kind = ROOT_FUNCTION;
	return 0;
}

static int parse_kfunction(struct lat_root *r, const char *name)
{
	struct stat st;

	if (!is_ident(name, sizeof(r->function)))
		return usage_error("-e: '%s' is not kprobe:FUNCTION", r->spec);
	if (stat(KPROBE_PMU, &st) != 0) {
		fprintf(stderr, "stitch latency: -e %s: this kernel has no kprobes (CONFIG_KPROBES is "
			"off: " KPROBE_PMU " is missing), so kernel functions cannot be roots here; "
			"time the system call that reaches it (syscall:NAME) or a tracepoint pair "
			"(tracepoint:CATEGORY:BEGIN,END)\n", r->spec);
		return 1;
	}
	snprintf(r->function, sizeof(r->function), "%s", name);
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->kind = ROOT_KFUNCTION;
	return 0;
}

/* "BEGIN,END" into r->begin and r->end. */
static int split_pair(struct lat_root *r, const char *pair, const char *form)
{
	const char *comma = strchr(pair, ',');

	if (!comma || comma == pair || !comma[1] || strchr(comma + 1, ',') ||
	    (size_t)(comma - pair) >= sizeof(r->begin) || strlen(comma + 1) >= sizeof(r->end))
		return usage_error(form, r->spec);
	memcpy(r->begin, pair, comma - pair);
	r->begin[comma - pair] = '\0';
	snprintf(r->end, sizeof(r->end), "%s", comma + 1);
	if (!is_ident(r->begin, sizeof(r->begin)) || !is_ident(r->end, sizeof(r->end)))
		return usage_error(form, r->spec);
	return 0;
}

/* Does the ELF file at path have USDT probe provider:name?  -errno if unreadable. */
static int has_usdt(const char *path, const char *provider, const char *name)
{
	struct usdt_site site;
	int fd, n;
	Elf *elf = elf_open_file(path, &fd);

	if (!elf)
		return -errno;
	n = usdt_find(elf, provider, name, &site, 1);
	elf_end(elf);
	close(fd);
	return n > 0;
}

/* usdt:BINARY:PROVIDER:BEGIN,END */
static int parse_usdt_pair(struct lat_root *r, const char *rest)
{
	static const char form[] = "-e: '%s' is not usdt:BINARY:PROVIDER:BEGIN,END";
	const char *c2 = strrchr(rest, ':'), *c1;
	const char *probes[2] = { r->begin, r->end };
	int i, rc;

	if (!c2 || c2 == rest)
		return usage_error(form, r->spec);
	for (c1 = c2 - 1; c1 > rest && *c1 != ':'; c1--)
		;
	if (c1 == rest || (size_t)(c1 - rest) >= sizeof(r->binary) ||
	    (size_t)(c2 - c1 - 1) >= sizeof(r->provider) || c2 == c1 + 1)
		return usage_error(form, r->spec);
	memcpy(r->binary, rest, c1 - rest);
	r->binary[c1 - rest] = '\0';
	memcpy(r->provider, c1 + 1, c2 - c1 - 1);
	r->provider[c2 - c1 - 1] = '\0';
	rc = split_pair(r, c2 + 1, form);
	if (rc)
		return rc;
	for (i = 0; i < 2; i++) {
		rc = has_usdt(r->binary, r->provider, probes[i]);
		if (rc < 0)
			return usage_error("-e: cannot read '%s' as ELF", r->binary);
		if (!rc) {
			fprintf(stderr, "stitch latency: -e %s: %s has no USDT probe %s:%s (readelf -n "
				"lists its probes)\n", r->spec, r->binary, r->provider, probes[i]);
			return 2;
		}
	}
	snprintf(r->name, sizeof(r->name), "%s:%s", r->provider, r->begin);
	r->kind = ROOT_USDT_PAIR;
	return 0;
}

/* FIELD or BEGINFIELD=ENDFIELD, up to LAT_NKEYS of them, comma-separated. */
static int parse_keys(struct lat_root *r, const char *keys, const struct lat_field *bf, int nb,
		      const struct lat_field *ef, int ne)
{
	char buf[256], *save = NULL, *tok;

	if (strlen(keys) >= sizeof(buf))
		return usage_error("--key: '%s' is too long", keys);
	snprintf(buf, sizeof(buf), "%s", keys);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		const char *bn = tok, *en = eq ? eq + 1 : tok;
		const struct lat_field *b, *e;

		if (eq)
			*eq = '\0';
		if (r->nkeys == LAT_NKEYS)
			return usage_error("--key: at most 2 fields ('%s')", keys);
		b = find_field(bf, nb, bn);
		e = find_field(ef, ne, en);
		if (!b || !e) {
			fprintf(stderr, "stitch latency: --key: %s:%s has no field '%s' (its fields are "
				"in " TRACEFS_EVENTS "/%s/%s/format)\n", r->provider,
				b ? r->end : r->begin, b ? en : bn, r->provider, b ? r->end : r->begin);
			return 2;
		}
		if (b->size > 8 || e->size > 8)
			return usage_error("--key: '%s' is not a number field", tok);
		r->key_begin[r->nkeys] = *b;
		r->key_end[r->nkeys++] = *e;
	}
	if (!r->nkeys)
		return usage_error("--key: '%s' names no field", keys);
	return 0;
}

/* tracepoint:CATEGORY:BEGIN,END */
static int parse_tp_pair(struct lat_root *r, const char *rest, const char *keys)
{
	static const char form[] = "-e: '%s' is not tracepoint:CATEGORY:BEGIN,END";
	struct lat_field bf[32], ef[32];
	const char *colon = strchr(rest, ':'), *ret;
	char err[256];
	int nb, ne, rc;

	if (!colon || colon == rest || (size_t)(colon - rest) >= sizeof(r->provider))
		return usage_error(form, r->spec);
	memcpy(r->provider, rest, colon - rest);
	r->provider[colon - rest] = '\0';
	if (!is_ident(r->provider, sizeof(r->provider)))
		return usage_error(form, r->spec);
	rc = split_pair(r, colon + 1, form);
	if (rc)
		return rc;
	if (ensure_tracefs(err, sizeof(err))) {
		fprintf(stderr, "stitch latency: %s\n", err);
		return 1;
	}
	nb = lat_tp_fields(r->provider, r->begin, bf, 32);
	ne = lat_tp_fields(r->provider, r->end, ef, 32);
	if (nb < 0 || ne < 0) {
		fprintf(stderr, "stitch latency: -e %s: this kernel has no tracepoint %s:%s (see "
			TRACEFS_EVENTS "/%s)\n", r->spec, r->provider, nb < 0 ? r->begin : r->end,
			r->provider);
		return 2;
	}
	take_args(r, bf, nb);
	ret = find_field(ef, ne, "ret") ? "ret" : NULL;
	if (ret && find_field(ef, ne, ret)->size <= 8)
		r->ret = *find_field(ef, ne, ret);
	if (keys) {
		rc = parse_keys(r, keys, bf, nb, ef, ne);
		if (rc)
			return rc;
	}
	snprintf(r->name, sizeof(r->name), "%s", r->begin);
	r->kind = ROOT_TP_PAIR;
	return 0;
}

/*
 * LANG:NAME: every call of the interpreted function NAME, on its language's
 * own call path; the language says where its probes go (interp_root_find,
 * interp.h "Roots").
 */
static int parse_interp(struct lat_root *r, const struct interp_ops *ops, const char *name,
			pid_t pid, char *const *command)
{
	char why[512], msg[640], forms[128];

	switch (interp_root_find(ops, &r->interp, name, pid, command, why, sizeof(why))) {
	case 0:
		break;
	case INTERP_ROOT_BAD_NAME:
		snprintf(msg, sizeof(msg), "-e: '%s' is %s", r->spec, why);
		return usage_error("%s", msg);
	case INTERP_ROOT_NONE:
		/*
		 * Measured here: CPython 3.11 fires function__entry only under
		 * sys.settrace/setprofile (5 entries for 3,240 returns), Ruby 3.1's
		 * method__entry only with a TracePoint on (0 for 143 returns): a
		 * root made of them would never open, or open wrong.
		 */
		interp_root_forms(forms, sizeof(forms));
		fprintf(stderr, "stitch latency: -e %s: the interpreter's function entry probe "
			"does not fire for every call on this version (CPython 3.11, Ruby 3.1: only "
			"while a tracer or profiler hook is set), so its functions cannot be timed "
			"as roots; time the system call or C function they wait in "
			"(syscall:NAME, uprobe:BINARY:FUNCTION): the breakdown still names the "
			"script's functions and lines (roots of interpreted functions: %s)\n",
			r->spec, forms);
		return 2;
	default:
		fprintf(stderr, "stitch latency: -e %s: %s\n", r->spec, why);
		return 2;
	}
	snprintf(r->binary, sizeof(r->binary), "%s", r->interp.binary);
	snprintf(r->function, sizeof(r->function), "%s", name);
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->kind = ROOT_INTERP;
	return 0;
}

int lat_root_parse(struct lat_root *r, const char *spec, const char *keys, pid_t pid,
		   char *const *command)
{
	const struct interp_ops *lang;
	char msg[320], forms[128];
	const char *name;

	memset(r, 0, sizeof(*r));
	r->spec = spec;
	if (keys && strncmp(spec, "tracepoint:", 11))
		return usage_error("--key: only tracepoint pairs are matched by key ('%s' is not "
				   "tracepoint:CATEGORY:BEGIN,END)", spec);
	if (!strncmp(spec, "syscall:", 8))
		return parse_syscall(r, spec + 8);
	if (!strncmp(spec, "uprobe:", 7))
		return parse_function(r, spec + 7);
	if (!strncmp(spec, "kprobe:", 7))
		return parse_kfunction(r, spec + 7);
	if (!strncmp(spec, "fentry:", 7) || !strncmp(spec, "kfunc:", 6))
		return usage_error("-e: '%s': fentry roots are not supported; use kprobe:FUNCTION "
				   "where the kernel has kprobes", spec);
	if (!strncmp(spec, "usdt:", 5))
		return parse_usdt_pair(r, spec + 5);
	if (!strncmp(spec, "tracepoint:", 11))
		return parse_tp_pair(r, spec + 11, keys);
	lang = interp_root_lang(spec, &name);
	if (lang)
		return parse_interp(r, lang, name, pid, command);
	interp_root_forms(forms, sizeof(forms));
	snprintf(msg, sizeof(msg), "-e: '%%s' is not a root: syscall:NAME, uprobe:BINARY:FUNCTION, "
		 "kprobe:FUNCTION, usdt:BINARY:PROVIDER:BEGIN,END, "
		 "tracepoint:CATEGORY:BEGIN,END or %s", forms);
	return usage_error(msg, spec);
}

void lat_root_configure(const struct lat_root *r, struct latency_bpf *skel)
{
	struct bpf_program *syscalls[] = { skel->progs.lat_sys_enter, skel->progs.lat_sys_exit };
	struct bpf_program *funcs[] = { skel->progs.lat_func_enter, skel->progs.lat_func_exit };
	struct bpf_program *usdts[] = { skel->progs.lat_usdt_begin, skel->progs.lat_usdt_end };
	struct bpf_program *tps[] = { skel->progs.lat_tp_begin, skel->progs.lat_tp_end };
	struct bpf_program *interps[] = { skel->progs.lat_interp_enter,
					  skel->progs.lat_interp_leave,
					  skel->progs.lat_interp_unwind,
					  skel->progs.lat_interp_raise };
	int i;

	for (i = 0; i < 4; i++)
		bpf_program__set_autoload(interps[i], r->kind == ROOT_INTERP);
	if (r->kind == ROOT_INTERP) {
		skel->rodata->root_L = r->interp.layout;
		memcpy((char *)skel->rodata->root_fn, r->function, strlen(r->function));
		skel->rodata->root_fn_len = strlen(r->function);
	}

	for (i = 0; i < 2; i++) {
		bpf_program__set_autoload(syscalls[i], r->kind == ROOT_SYSCALL);
		bpf_program__set_autoload(funcs[i], r->kind == ROOT_FUNCTION ||
					  r->kind == ROOT_KFUNCTION);
		bpf_program__set_autoload(usdts[i], r->kind == ROOT_USDT_PAIR);
		bpf_program__set_autoload(tps[i], r->kind == ROOT_TP_PAIR);
	}
	if (r->kind == ROOT_SYSCALL)
		skel->rodata->sys_nargs = r->nargs;
	if (r->kind != ROOT_TP_PAIR)
		return;
	for (i = 0; i < r->nargs; i++) {
		skel->rodata->arg_off[i] = r->args[i].off;
		skel->rodata->arg_size[i] = r->args[i].size;
	}
	skel->rodata->ret_off = r->ret.off;
	skel->rodata->ret_size = r->ret.size;
	skel->rodata->nkeys = r->nkeys;
	for (i = 0; i < r->nkeys; i++) {
		skel->rodata->key_begin_off[i] = r->key_begin[i].off;
		skel->rodata->key_begin_size[i] = r->key_begin[i].size;
		skel->rodata->key_end_off[i] = r->key_end[i].off;
		skel->rodata->key_end_size[i] = r->key_end[i].size;
	}
}

int lat_root_attach(const struct lat_root *r, struct latency_bpf *skel, struct bpf_link **links,
		    int pid)
{
	const char *hint = "";
	char enter[160], leave[160];

	switch (r->kind) {
	case ROOT_SYSCALL:
		snprintf(enter, sizeof(enter), "sys_enter_%s", r->name);
		snprintf(leave, sizeof(leave), "sys_exit_%s", r->name);
		links[0] = bpf_program__attach_tracepoint(skel->progs.lat_sys_enter, "syscalls",
							  enter);
		links[1] = links[0] ? bpf_program__attach_tracepoint(skel->progs.lat_sys_exit,
								     "syscalls", leave) : NULL;
		break;
	case ROOT_FUNCTION: {
		LIBBPF_OPTS(bpf_uprobe_opts, uo, .func_name = r->function);

		links[0] = bpf_program__attach_uprobe_opts(skel->progs.lat_func_enter, -1,
							   r->binary, 0, &uo);
		uo.retprobe = true;
		links[1] = links[0] ? bpf_program__attach_uprobe_opts(skel->progs.lat_func_exit, -1,
								      r->binary, 0, &uo) : NULL;
		hint = " (is the function in the binary's symbol table?)";
		break;
	}
	case ROOT_KFUNCTION:
		links[0] = bpf_program__attach_kprobe(skel->progs.lat_func_enter, false, r->function);
		links[1] = links[0] ? bpf_program__attach_kprobe(skel->progs.lat_func_exit, true,
								 r->function) : NULL;
		hint = " (is it in /proc/kallsyms, and not inlined or notrace?)";
		break;
	case ROOT_USDT_PAIR:
		/*
		 * Without BPF cookies (5.10) libbpf tells a probe's spec by its
		 * address, in one process: then the target's, where there is one.
		 */
		if (kfeat_has(KFEAT_ATTACH_COOKIE) || pid <= 0)
			pid = -1;
		links[0] = bpf_program__attach_usdt(skel->progs.lat_usdt_begin, pid, r->binary,
						    r->provider, r->begin, NULL);
		links[1] = links[0] ? bpf_program__attach_usdt(skel->progs.lat_usdt_end, pid,
							       r->binary, r->provider, r->end,
							       NULL) : NULL;
		if (!links[0] && pid < 0 && !kfeat_has(KFEAT_ATTACH_COOKIE))
			hint = " (this kernel has no BPF cookies, before 5.15: give -p PID)";
		break;
	case ROOT_INTERP: {
		/* By file offset: the language found each function (perl 5.40+ exports none). */
		struct bpf_program *progs[INTERP_ROOT_PROBE_KINDS] = {
			[INTERP_ROOT_ENTER] = skel->progs.lat_interp_enter,
			[INTERP_ROOT_LEAVE] = skel->progs.lat_interp_leave,
			[INTERP_ROOT_UNWIND] = skel->progs.lat_interp_unwind,
			[INTERP_ROOT_RAISE] = skel->progs.lat_interp_raise };
		const struct interp_root_probe_at *p = r->interp.probes;
		int i;

		for (i = 0; i < r->interp.nprobes; i++) {
			links[i] = bpf_program__attach_uprobe(progs[p[i].kind], false, -1,
							      r->binary, p[i].off);
			if (!links[i]) {
				fprintf(stderr, "stitch latency: cannot attach to %s in %s: %s\n",
					p[i].what, r->binary, strerror(errno));
				return -1;
			}
		}
		return 0;
	}
	case ROOT_TP_PAIR:
		links[0] = bpf_program__attach_tracepoint(skel->progs.lat_tp_begin, r->provider,
							  r->begin);
		links[1] = links[0] ? bpf_program__attach_tracepoint(skel->progs.lat_tp_end,
								     r->provider, r->end) : NULL;
		break;
	}
	if (!links[0] || !links[1]) {
		fprintf(stderr, "stitch latency: cannot attach to %s: %s%s\n", r->spec,
			strerror(errno), hint);
		return -1;
	}
	return 0;
}

const char *lat_root_arg_name(const struct lat_root *r, int i, char *buf, size_t len)
{
	if (i < r->nargs && r->args[i].name[0])
		return r->args[i].name;
	snprintf(buf, len, "arg%d", i);
	return buf;
}

bool lat_root_has_args(const struct lat_root *r)
{
	return r->kind != ROOT_INTERP;
}

bool lat_root_has_ret(const struct lat_root *r)
{
	return r->kind == ROOT_SYSCALL || r->kind == ROOT_FUNCTION || r->kind == ROOT_KFUNCTION ||
	       r->ret.size > 0;
}
