/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report format of libstitch-stall (lib/stall/stitch/stall.h), one line
 * at a time.  The log is untrusted input: whatever a line holds, parsing
 * reads only inside it and never fails hard; a line that does not have the
 * exact shape of a report line is STALL_LINE_OTHER and passes through.
 */
#ifndef STITCH_STALL_REPORT_PARSER_H
#define STITCH_STALL_REPORT_PARSER_H

#include <stddef.h>
#include <stdint.h>

#define STALL_LOG_COMM_MAX 64		/* prctl names are 16; room for odd logs */
#define STALL_LOG_PATH_MAX 4096
#define STALL_LOG_BUILD_ID_MAX 64	/* hex digits: 32 bytes, well above SHA-1's 20 */

enum stall_line_kind {
	STALL_LINE_OTHER,	/* not part of a report */
	STALL_LINE_HEADER,	/* stitch-stall: tid=... stall=...ms ... */
	STALL_LINE_SUPPRESSED,	/* stitch-stall: tid=N suppressed=N (...): a note, no stack */
	STALL_LINE_KERNEL,	/*   kernel 0xADDR */
	STALL_LINE_USER,	/*   user /path+0xOFF [build-id=HEX] */
	STALL_LINE_USER_RAW,	/*   user 0xADDR (in no known module) */
	STALL_LINE_STOP,	/*   user-stop REASON, or   [cut] */
};

struct stall_line {
	enum stall_line_kind kind;
	/* HEADER */
	uint32_t tid;
	char comm[STALL_LOG_COMM_MAX];
	uint32_t stall_ms;
	uint32_t threshold_ms;	/* 0 if absent */
	/* KERNEL (addr), USER (path, addr = ELF vaddr, build_id), USER_RAW (addr) */
	uint64_t addr;
	char path[STALL_LOG_PATH_MAX];
	char build_id[STALL_LOG_BUILD_ID_MAX + 1];	/* lower-case hex, "" if absent */
};

/*
 * Parse one line (len bytes, with or without its '\n'; need not be
 * NUL-terminated).  Always fills out->kind.
 */
enum stall_line_kind stall_log_parse(const char *line, size_t len, struct stall_line *out);

#endif /* STITCH_STALL_REPORT_PARSER_H */
