// SPDX-License-Identifier: GPL-2.0
/*
 * stitch symbolize: name the addresses of libstitch-stall reports (user
 * frames by build-id, kernel frames by kallsyms), or fold many reports into
 * stacks weighted by stall milliseconds for `stitch report`.
 *
 * The log is untrusted: lines are read into a fixed buffer (a longer line is
 * passed through in pieces and never parsed), every report line is parsed
 * by stall_report_parser.c, and a frame is only ever named by a symbol that covers
 * its address.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/cli.h"
#include "capture/capture.h"
#include "stalls/symbolize_cmd.h"
#include "symbolize/debuginfod_fetch.h"
#include "symbolize/kallsyms.h"
#include "formats/output.h"
#include "profile/resolve.h"
#include "stalls/stall_report_parser.h"
#include "stalls/stall_report_modules.h"
#include "profile/stacks.h"
#include "symbolize/symbolize.h"
#include "util/outfile.h"

#define LINE_MAX_BYTES 8192
/*
 * The input is untrusted and may never end (symbolize /dev/zero, an endless
 * stream without newlines): a line longer than this is no log, and a log
 * longer than that is refused rather than read for ever.
 */
#define INPUT_MAX_LINE (1u << 20)
#define INPUT_MAX_BYTES (4ull << 30)
#define REPORT_MAX_KFRAMES STITCH_MAX_KSTACK
#define REPORT_MAX_UFRAMES 1024
#define MAX_INLINE 16

struct symbolize_opts {
	const char *root;	/* --binary-root, or /proc/PID/root */
	char pid_root[64];
	const char *kallsyms;
	bool kallsyms_given;	/* --kallsyms: a file that must be read */
	bool force;		/* -o may replace a symlink */
	const char *output;	/* NULL: symbolized text on stdout */
	int format;
	const char *input;	/* "-": stdin */
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: stitch symbolize [--pid PID | --binary-root DIR] [--folded | -o FILE]\n"
"                        [LOG]\n"
"\n"
"Name the addresses in libstitch-stall reports read from LOG (default: stdin).\n"
"User frames (MODULE+0xOFF build-id=...) are named from the binary if its\n"
"build-id matches, else from the debug file of that build-id (also under\n"
"/usr/lib/debug/.build-id); kernel frames from /proc/kallsyms.  Lines that are\n"
"not part of a report pass through unchanged; an address that cannot be named\n"
"stays as it was.  LOG is a file or a pipe; reading stops with an error at a\n"
"line over 1 MiB or past 4 GiB of input (not a log).\n"
"\n"
"Options:\n"
"  -p, --pid PID            read binaries through /proc/PID/root (the process's\n"
"                           mount namespace, e.g. a container)\n"
"  -r, --binary-root DIR    read binaries under DIR (a container's root, a\n"
"                           copy of the target's file system)\n"
"  -k, --kallsyms FILE      kernel symbols from FILE (default /proc/kallsyms;\n"
"                           an unreadable FILE is an error)\n"
"  -f, --folded             write folded stacks instead, each report weighted\n"
"                           by the stall milliseconds it adds:\n"
"                           'comm;outermost;...;innermost MS'\n"
"  -o, --output FILE        like --folded, into FILE; the name sets the format:\n"
"                           FILE.folded, FILE.svg, FILE.pb.gz,\n"
"                           FILE.speedscope.json, FILE.txt or -; written whole\n"
"                           or not at all (a new file renamed over FILE)\n"
"      --force              let -o replace a symlink (the link itself; what it\n"
"                           points to is never written)\n"
"      --no-debuginfod      ask no debuginfod server (DEBUGINFOD_URLS) for\n"
"                           debug files\n"
"  -h, --help               this help\n"
"\n"
"A symbolized report reads, innermost frame first:\n"
"  kernel NAME+0xOFF [MODULE] (0xADDR)\n"
"  user NAME [inlined] FILE:LINE (MODULE+0xOFF)\n"
"\n"
"Examples:\n"
"  ./server 2> stalls.log; stitch symbolize < stalls.log\n"
"  stitch symbolize --pid 1234 stalls.log\n"
"  stitch symbolize --folded stalls.log > stalls.folded && \\\n"
"      stitch report stalls.folded -o stalls.svg\n");
}

static int fail_usage(const char *fmt, const char *arg)
{
	return cli_usage_error("symbolize", fmt, arg);
}

static const struct option longopts[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "binary-root", required_argument, NULL, 'r' },
	{ "kallsyms", required_argument, NULL, 'k' },
	{ "folded", no_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "force", no_argument, NULL, 'F' },
	{ "no-debuginfod", no_argument, NULL, 'D' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const struct cli_cmd symbolize_cmd = { "symbolize", usage, "p:r:k:fo:h", longopts };

/* --pid PID: the binaries as that process sees them. */
static int set_pid_root(struct symbolize_opts *o, const char *arg)
{
	long pid;

	if (!cli_parse_long(arg, 1, 0x7fffffff, &pid))
		return fail_usage("--pid: '%s' is not a process id", arg);
	if (o->root)
		return fail_usage("%s", "give --pid or --binary-root, not both");
	snprintf(o->pid_root, sizeof(o->pid_root), "/proc/%ld/root", pid);
	o->root = o->pid_root;
	return 0;
}

/* --folded or -o FILE: where the stacks go, in format (-1: as the name says). */
static int set_output(struct symbolize_opts *o, const char *arg, int format)
{
	if (o->output)
		return fail_usage("%s", "give --folded or -o FILE, not both");
	o->format = format < 0 ? output_format_for(arg) : format;
	if (o->format < 0)
		return fail_usage("-o: cannot tell the format of '%s': use " OUTPUT_EXTENSIONS,
				  arg);
	o->output = arg;
	return 0;
}

/* One option of stitch symbolize: a cli_opt_fn. */
static int take_opt(void *ctx, int c, const char *arg)
{
	struct symbolize_opts *o = ctx;

	switch (c) {
	case 'p':
		return set_pid_root(o, arg);
	case 'r':
		if (o->root)
			return fail_usage("%s", "give --pid or --binary-root, not both");
		o->root = arg;
		break;
	case 'k':
		o->kallsyms = arg;
		o->kallsyms_given = true;
		break;
	case 'f':
		return set_output(o, "-", OUTPUT_FOLDED);
	case 'o':
		return set_output(o, arg, -1);
	case 'F':
		o->force = true;
		break;
	case 'D':
		debuginfod_disable();
		break;
	}
	return 0;
}

static int parse_opts(int argc, char **argv, struct symbolize_opts *o)
{
	char err[PATH_MAX + 128];
	int rc;

	o->kallsyms = "/proc/kallsyms";
	o->input = "-";
	rc = cli_parse(&symbolize_cmd, argc, argv, take_opt, o);
	if (rc)
		return rc;
	/* Found before reading any input. */
	if (o->output && strcmp(o->output, "-") &&
	    outfile_check(o->output, o->force, err, sizeof(err))) {
		fprintf(stderr, "stitch symbolize: cannot write %s\n", err);
		return 1;
	}
	if (optind < argc)
		o->input = argv[optind++];
	if (optind < argc)
		return fail_usage("one log at a time: unexpected '%s'", argv[optind]);
	return 0;
}

/* ---- text: each report line rewritten in place ------------------------- */

static void print_kernel(struct kallsyms *ks, const struct stall_line *l, const char *raw,
			 size_t len, FILE *out)
{
	const char *module = NULL, *name = NULL;
	uint64_t off = 0;

	if (ks)
		name = kallsyms_lookup(ks, l->addr, &module, &off);
	if (!name) {
		fwrite(raw, 1, len, out);
		return;
	}
	fprintf(out, "  kernel %s+0x%" PRIx64 "%s%s (0x%" PRIx64 ")\n", name, off,
		module ? " " : "", module ? module : "", l->addr);
}

static void print_user(struct stall_modules *m, const struct stall_line *l, const char *raw,
		       size_t len, FILE *out)
{
	struct binary *b = stall_module_get(m, l->path, l->build_id);
	struct sym_source *syms = b ? binary_syms(b) : NULL;
	struct sym_frame sf[MAX_INLINE];
	int n = syms ? sym_source_lookup(syms, l->addr, sf, MAX_INLINE) : 0, i;

	if (n <= 0) {
		fwrite(raw, 1, len, out);
		return;
	}
	for (i = 0; i < n; i++) {
		fprintf(out, "  user %s%s", sf[i].name, sf[i].inlined ? " [inlined]" : "");
		if (sf[i].file && sf[i].line)
			fprintf(out, " %s:%u", sf[i].file, sf[i].line);
		else if (sf[i].file)
			fprintf(out, " %s", sf[i].file);
		fprintf(out, " (%s+0x%" PRIx64 ")\n", l->path, l->addr);
	}
}

/* ---- folded: reports into weighted stacks ------------------------------ */

struct report {
	bool open;
	struct stall_line head;
	uint64_t kernel[REPORT_MAX_KFRAMES];
	int nkernel;
	struct uframe user[REPORT_MAX_UFRAMES + 1];
	int nuser;
};

/* Per thread, the last report's stall: a longer one continues the same stall. */
struct last_stall {
	struct hmap_node node;
	uint32_t tid;
	uint32_t stall_ms;
};

static bool last_eq(const struct hmap_node *n, const void *key)
{
	return ((const struct last_stall *)n)->tid == *(const uint32_t *)key;
}

struct folder {
	struct stall_modules *mods;
	struct stack_table stacks;
	struct hmap last;
	uint8_t *key_buf;
	uint64_t reports, weight;
};

/*
 * The library reports a long stall several times (at the threshold, then
 * twice as long, ...), each report with the stall so far; a new stall starts
 * again at the threshold.  So a report adds only what its stall grew since
 * the same thread's previous report, unless it is not longer: then it is a
 * new stall and counts whole.
 */
static uint64_t weight_of(struct folder *fo, const struct stall_line *h)
{
	struct last_stall *ls;
	uint32_t prev;
	bool added;

	ls = (struct last_stall *)hmap_find_or_add(&fo->last, hash_u64(h->tid), last_eq, &h->tid,
						   sizeof(*ls), &added);
	if (!ls)
		return h->stall_ms;
	if (added)
		ls->tid = h->tid;
	prev = ls->stall_ms;	/* 0 if just added */
	ls->stall_ms = h->stall_ms;
	return h->stall_ms > prev ? h->stall_ms - prev : h->stall_ms;
}

static int flush_report(struct folder *fo, struct report *r)
{
	struct stack_key *key = (struct stack_key *)fo->key_buf;
	uint64_t w;
	size_t bytes;

	if (!r->open)
		return 0;
	r->open = false;
	w = weight_of(fo, &r->head);
	if (!w)
		return 0;
	memset(key, 0, sizeof(*key));
	key->tid = r->head.tid;
	/* A longer name than the kernel's 16 bytes is cut like the kernel cuts it. */
	memcpy(key->comm, r->head.comm, strnlen(r->head.comm, STITCH_COMM_LEN - 1));
	key->nkernel = r->nkernel;
	key->nuser = r->nuser;
	memcpy(key + 1, r->kernel, r->nkernel * sizeof(uint64_t));
	memcpy((uint64_t *)(key + 1) + r->nkernel, r->user, r->nuser * sizeof(struct uframe));
	bytes = sizeof(*key) + r->nkernel * sizeof(uint64_t) + r->nuser * sizeof(struct uframe);
	fo->reports++;
	fo->weight += w;
	return stacks_add_n(&fo->stacks, key, bytes, w);
}

static void add_user(struct report *r, uint8_t kind, struct binary *b, uint64_t addr)
{
	struct uframe *u;

	if (r->nuser >= REPORT_MAX_UFRAMES)
		return;
	u = &r->user[r->nuser++];
	memset(u, 0, sizeof(*u));
	u->kind = kind;
	u->bin = b;
	u->addr = addr;
	u->exact = 1;	/* the library already moved return addresses into the call */
}

static int fold_line(struct folder *fo, struct report *r, const struct stall_line *l,
		     const char *raw)
{
	struct binary *b;
	int rc = 0;

	switch (l->kind) {
	case STALL_LINE_HEADER:
		rc = flush_report(fo, r);
		memset(r, 0, sizeof(*r));
		r->open = true;
		r->head = *l;
		break;
	case STALL_LINE_KERNEL:
		if (r->open && r->nuser == 0 && r->nkernel < REPORT_MAX_KFRAMES)
			r->kernel[r->nkernel++] = l->addr;
		break;
	case STALL_LINE_USER:
		if (!r->open)
			break;
		b = stall_module_get(fo->mods, l->path, l->build_id);
		add_user(r, b ? UFRAME_ELF : UFRAME_UNKNOWN, b, l->addr);
		break;
	case STALL_LINE_USER_RAW:
		if (r->open)
			add_user(r, UFRAME_UNKNOWN, NULL, l->addr);
		break;
	case STALL_LINE_STOP:
		/* The unwind ended early: mark where the stack stops being known
		 * (an unknown outermost frame already says so). */
		if (r->open && !(r->nuser && r->user[r->nuser - 1].kind == UFRAME_UNKNOWN))
			add_user(r, strstr(raw, "truncated") || strstr(raw, "[cut]") ?
				 UFRAME_TRUNCATED : UFRAME_CUT, NULL, 0);
		break;
	default:
		rc = flush_report(fo, r);
		break;
	}
	return rc;
}

static int write_folded_profile(struct folder *fo, struct kallsyms *ks,
				const struct symbolize_opts *o)
{
	static const char *const events[] = { "stall" };
	char err[PATH_MAX + 128] = "";
	struct output_opts oo = { .top = 10, .subtitle = "stall milliseconds", .force = o->force,
				  .err = err, .errlen = sizeof(err) };
	struct resolver res;
	struct profile p;
	int rc;

	profile_init(&p);
	rc = resolver_init(&res, ks);
	if (!rc)
		rc = profile_from_stacks(&p, &fo->stacks, &res, events, 1);
	if (!rc) {
		p.title = profile_str(&p, "event-loop stalls (ms)");
		rc = output_write(o->output, o->format, &p, &oo);
		if (rc)
			fprintf(stderr, "stitch symbolize: cannot write %s\n",
				err[0] ? err : strerror(-rc));
	}
	profile_free(&p);
	resolver_free(&res);
	return rc;
}

/* Bounds on the input as read so far (INPUT_MAX_*). */
struct input_pos {
	unsigned long long bytes;
	size_t line_bytes;	/* of the current line, across pieces */
	size_t lineno;
};

/*
 * The next piece of a line: up to its newline (kept) or len - 1 bytes.  NUL
 * bytes are data, not the end (fgets would hide them, and /dev/zero read as
 * empty pieces for ever).  0 at the end of the input; -E2BIG past a bound.
 */
static ssize_t read_piece(FILE *in, char *buf, size_t len, struct input_pos *pos)
{
	size_t n = 0;
	int c;

	if (pos->line_bytes == 0)
		pos->lineno++;
	while (n + 1 < len && (c = getc_unlocked(in)) != EOF) {
		buf[n++] = c;
		if (c == '\n')
			break;
	}
	buf[n] = '\0';
	pos->bytes += n;
	pos->line_bytes = n && buf[n - 1] == '\n' ? 0 : pos->line_bytes + n;
	if (pos->line_bytes > INPUT_MAX_LINE || pos->bytes > INPUT_MAX_BYTES)
		return -E2BIG;
	return n;
}

static int run(const struct symbolize_opts *o, FILE *in, struct stall_modules *mods,
	       struct kallsyms *ks)
{
	static char line[LINE_MAX_BYTES];
	struct folder fo = { .mods = mods };
	struct input_pos pos = { 0 };
	struct report *r = NULL;
	bool in_long = false;
	ssize_t got;
	int rc = 0;

	if (o->output) {
		r = calloc(1, sizeof(*r));
		fo.key_buf = malloc(sizeof(struct stack_key) + sizeof(r->kernel) + sizeof(r->user));
		if (!r || !fo.key_buf || stacks_init(&fo.stacks) || hmap_init(&fo.last, 64)) {
			rc = -ENOMEM;
			goto out;
		}
	}
	while ((got = read_piece(in, line, sizeof(line), &pos)) > 0) {
		size_t len = got;
		bool whole = line[len - 1] == '\n';
		struct stall_line l;

		/* A line longer than the buffer is no report line: pass it on as it is. */
		if (in_long || (!whole && !feof(in))) {
			in_long = !whole;
			if (!o->output)
				fwrite(line, 1, len, stdout);
			else if (r)
				flush_report(&fo, r);
			continue;
		}
		stall_log_parse(line, len, &l);
		if (o->output) {
			rc = fold_line(&fo, r, &l, line);
			if (rc)
				goto out;
			continue;
		}
		switch (l.kind) {
		case STALL_LINE_KERNEL:
			print_kernel(ks, &l, line, len, stdout);
			break;
		case STALL_LINE_USER:
			print_user(mods, &l, line, len, stdout);
			break;
		default:
			fwrite(line, 1, len, stdout);
			break;
		}
	}
	if (got == -E2BIG) {
		rc = -E2BIG;
		fprintf(stderr, "stitch symbolize: %s:%zu: %s: not a log, stopped\n",
			strcmp(o->input, "-") ? o->input : "stdin",
			pos.lineno, pos.line_bytes > INPUT_MAX_LINE ? "a line over 1 MiB" :
			"more than 4 GiB of input");
		goto out;
	}
	if (ferror(in)) {
		rc = -errno;
		fprintf(stderr, "stitch symbolize: reading %s: %s\n", o->input, strerror(errno));
		goto out;
	}
	if (o->output) {
		rc = flush_report(&fo, r);
		if (!rc)
			rc = write_folded_profile(&fo, ks, o);
		if (!rc && strcmp(o->output, "-"))
			fprintf(stderr, "stitch: %" PRIu64 " reports, %" PRIu64 " stall ms, written "
				"to %s\n", fo.reports, fo.weight, o->output);
	}
out:
	if (o->output) {
		stacks_free(&fo.stacks);
		hmap_free_all(&fo.last);
	}
	free(fo.key_buf);
	free(r);
	return rc;
}

/*
 * A log named on the command line: a regular file or a pipe, never a
 * device (/dev/zero never ends) or a directory.  Opened without blocking,
 * so a FIFO without a writer reads as empty instead of waiting for one.
 */
static FILE *open_log(const char *path)
{
	struct stat st;
	FILE *in;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) != 0) {
		fprintf(stderr, "stitch symbolize: cannot open %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode)) {
		fprintf(stderr, "stitch symbolize: %s is not a file or a pipe\n", path);
		close(fd);
		return NULL;
	}
	/* Blocking again: a pipe with a writer is read as it comes. */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	in = fdopen(fd, "r");
	if (!in) {
		fprintf(stderr, "stitch symbolize: cannot open %s: %s\n", path, strerror(errno));
		close(fd);
	}
	return in;
}

/* A kallsyms file must be a regular file (as /proc/kallsyms is): a FIFO could block. */
static bool kallsyms_file_ok(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return false;
	if (S_ISREG(st.st_mode))
		return true;
	errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
	return false;
}

int cmd_symbolize(int argc, char **argv)
{
	struct symbolize_opts o = { 0 };
	struct stall_modules mods;
	struct kallsyms *ks;
	FILE *in = stdin;
	int rc;

	rc = parse_opts(argc, argv, &o);
	if (rc)
		return rc;
	if (strcmp(o.input, "-") != 0) {
		in = open_log(o.input);
		if (!in)
			return 1;
	}
	rc = stall_modules_init(&mods, o.root);
	if (rc) {
		fprintf(stderr, "stitch symbolize: cannot use %s as the binaries' root: %s%s\n",
			o.root, strerror(-rc), o.root == o.pid_root ?
			" (is the process running, and are we root?)" : "");
		if (in != stdin)
			fclose(in);
		return 1;
	}
	ks = kallsyms_file_ok(o.kallsyms) ? kallsyms_load(o.kallsyms) : NULL;
	if (!ks && o.kallsyms_given) {
		fprintf(stderr, "stitch symbolize: cannot read --kallsyms %s: %s\n", o.kallsyms,
			errno == EINVAL ? "not a regular file" : strerror(errno));
		stall_modules_free(&mods);
		if (in != stdin)
			fclose(in);
		return 1;
	}
	if (!ks)
		fprintf(stderr, "stitch symbolize: cannot read %s (%s): kernel frames stay "
			"addresses\n", o.kallsyms, strerror(errno));
	else if (kallsyms_all_zero(ks))
		fprintf(stderr, "stitch symbolize: %s hides addresses (kernel.kptr_restrict; "
			"run as root): kernel frames stay addresses\n", o.kallsyms);
	rc = run(&o, in, &mods, ks);
	debuginfod_report();
	if (ks)
		kallsyms_free(ks);
	stall_modules_free(&mods);
	if (in != stdin)
		fclose(in);
	return rc ? 1 : 0;
}
