/* interp-walk: print one thread's interpreter stack (CPython 3.11, Ruby 3.1, Perl 5.36) from
 * outside the process, the way the BPF walker will: from that thread's fs_base, through the
 * interpreter's TLS/TSD slot, with bounded reads of untrusted memory (process_vm_readv).
 *
 *   interp-walk [-v] [-n] [-F N] [-l python|ruby|perl] PID TID
 *     -v  trace every load of the chain to stderr (the evidence in docs/interpreters.md)
 *     -n  do not keep the thread stopped while walking (only stopped to read fs_base): a walk
 *         that races the target may end in "[truncated: ...]" but must never print a wrong frame
 *     -F N  make the Nth read of target memory fail (tests: every failure must give a marked,
 *         truncated walk, never a wrong frame); with -v, the number of reads is logged
 *
 * Output: one frame per line, innermost first: "name (file:line)". A walk that cannot be
 * completed ends with a line "[truncated: reason]" and exits 3. Perl also marks where native
 * frames sit between its frames: "[from C]" (frame entered by call_sv/MULTICALL) and
 * "[stackinfo TYPE]" (end of a nested sort/signal/DESTROY/... stack).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perl532.h"
#include "perl536.h"
#include "perl540.h"
#include "perl542.h"
#include "perl544.h"
#include "python311.h"
#include "ruby31.h"

#define MAX_FRAMES 128
#define MAX_STR 256

static pid_t g_pid;
static int g_verbose;
static int g_truncated;

static void vlog(const char *fmt, ...)
{
	va_list ap;

	if (!g_verbose)
		return;
	va_start(ap, fmt);
	fputs("  # ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void truncated(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("[truncated: ");
	vprintf(fmt, ap);
	printf("]\n");
	va_end(ap);
	g_truncated = 1;
}

/* ---- bounded reads of the target ---- */

/* Read exactly len bytes at addr; 0 on success. Rejects NULL and non-canonical addresses. */
static long g_fail_read;	/* -F N: the Nth read fails (fault injection for run-checks.sh) */
static long g_reads;

static int rd(uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };

	if (++g_reads == g_fail_read)
		return -1;
	if (addr < 4096 || addr >= 0x800000000000ULL || len > 1 << 20 || addr + len < addr)
		return -1;
	return process_vm_readv(g_pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -1;
}

static int rd64(uint64_t addr, uint64_t *v) { return rd(addr, v, 8); }
static int rd32(uint64_t addr, uint32_t *v) { return rd(addr, v, 4); }

/* ---- modules and ELF symbols ---- */

struct module {
	char path[PATH_MAX];
	uint64_t bias;		/* runtime address = st_value + bias */
	int found;
};

/* Find the first mapping whose path's basename starts with prefix. */
static int find_module(const char *prefix, struct module *m)
{
	char maps[64], line[PATH_MAX + 128];
	FILE *f;

	memset(m, 0, sizeof(*m));
	snprintf(maps, sizeof(maps), "/proc/%d/maps", g_pid);
	f = fopen(maps, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, end, off;
		char perms[8], *path = strchr(line, '/'), *base;

		if (!path || sscanf(line, "%lx-%lx %7s %lx", &start, &end, perms, &off) != 4)
			continue;
		path[strcspn(path, "\n")] = 0;
		base = strrchr(path, '/') + 1;
		if (strncmp(base, prefix, strlen(prefix)) || off != 0)
			continue;
		snprintf(m->path, sizeof(m->path), "/proc/%d/root%s", g_pid, path);
		/* a process chrooted by unshare --root (no pivot_root): its maps show our path */
		if (access(m->path, R_OK))
			snprintf(m->path, sizeof(m->path), "%s", path);
		m->bias = start;	/* adjusted by the lowest PT_LOAD below */
		m->found = 1;
		break;
	}
	fclose(f);
	if (!m->found)
		return -1;
	/* bias = map start - page-aligned lowest PT_LOAD p_vaddr (0 for ET_DYN, 0x400000 for ET_EXEC) */
	{
		int fd = open(m->path, O_RDONLY);
		Elf *e;
		size_t n;
		uint64_t lo = UINT64_MAX;

		if (fd < 0)
			return -1;
		e = elf_begin(fd, ELF_C_READ, NULL);
		if (e && !elf_getphdrnum(e, &n))
			for (size_t i = 0; i < n; i++) {
				GElf_Phdr ph;

				if (gelf_getphdr(e, i, &ph) && ph.p_type == PT_LOAD && ph.p_vaddr < lo)
					lo = ph.p_vaddr;
			}
		if (e)
			elf_end(e);
		close(fd);
		if (lo == UINT64_MAX)
			return -1;
		m->bias -= lo & ~0xfffULL;
	}
	return 0;
}

/* st_value of a symbol from .symtab or .dynsym; 0 if absent. */
static uint64_t elf_sym(const struct module *m, const char *name)
{
	int fd = open(m->path, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;
	uint64_t val = 0;

	if (fd < 0)
		return 0;
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && !val && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *nm;

			if (!gelf_getsym(d, i, &s) || s.st_shndx == SHN_UNDEF)
				continue;
			nm = elf_strptr(e, sh.sh_link, s.st_name);
			if (nm && !strcmp(nm, name)) {
				val = s.st_value;
				break;
			}
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return val;
}

/* PT_TLS of a module: p_vaddr, p_memsz, p_align; -1 if none. */
static int elf_tls(const struct module *m, uint64_t *vaddr, uint64_t *memsz, uint64_t *align)
{
	int fd = open(m->path, O_RDONLY), ret = -1;
	Elf *e;
	size_t n;

	if (fd < 0)
		return -1;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && !elf_getphdrnum(e, &n))
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(e, i, &ph) && ph.p_type == PT_TLS) {
				*vaddr = ph.p_vaddr;
				*memsz = ph.p_memsz;
				*align = ph.p_align ? ph.p_align : 1;
				ret = 0;
			}
		}
	if (e)
		elf_end(e);
	close(fd);
	return ret;
}

/* glibc x86-64 (TLS_TCB_AT_TP) static TLS offset of the executable's block, the first one laid
 * out (_dl_determine_tlsoffset): off = roundup(memsz - firstbyte, align) + firstbyte with
 * firstbyte = -p_vaddr & (align - 1). The block starts at fs_base - off. */
static uint64_t exe_tls_offset(uint64_t vaddr, uint64_t memsz, uint64_t align)
{
	uint64_t firstbyte = (-(vaddr & (align - 1))) & (align - 1);

	return ((memsz - firstbyte + align - 1) / align) * align + firstbyte;
}

/* ---- the thread's fs_base ---- */

static int g_stopped;

static int seize_thread(pid_t tid, uint64_t *fs_base)
{
	int st;
	long v;

	if (ptrace(PTRACE_SEIZE, tid, 0, 0)) {
		fprintf(stderr, "interp-walk: PTRACE_SEIZE %d: %s\n", tid, strerror(errno));
		return -1;
	}
	if (ptrace(PTRACE_INTERRUPT, tid, 0, 0) || waitpid(tid, &st, __WALL) != tid) {
		fprintf(stderr, "interp-walk: PTRACE_INTERRUPT %d: %s\n", tid, strerror(errno));
		ptrace(PTRACE_DETACH, tid, 0, 0);
		return -1;
	}
	g_stopped = 1;
	errno = 0;
	v = ptrace(PTRACE_PEEKUSER, tid, offsetof(struct user, regs.fs_base), 0);
	if (errno) {
		fprintf(stderr, "interp-walk: PTRACE_PEEKUSER fs_base: %s\n", strerror(errno));
		return -1;
	}
	*fs_base = (uint64_t)v;
	return 0;
}

static void release_thread(pid_t tid)
{
	if (g_stopped)
		ptrace(PTRACE_DETACH, tid, 0, 0);
	g_stopped = 0;
}

/* ---- strings ---- */

static void sanitize(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

/* ============================ CPython 3.11 ============================ */

struct py_ctx {
	uint64_t runtime, code_type, unicode_type, bytes_type;
};

/* A str object -> UTF-8 (ASCII, latin-1, UCS-2/4 compact forms). -1 if not a valid str. */
static int py_str(const struct py_ctx *c, uint64_t obj, char *out, size_t outsz)
{
	uint8_t hdr[PY311_COMPACT_DATA];
	uint64_t type, len;
	uint32_t state;
	unsigned kind;
	size_t o = 0;

	if (rd(obj, hdr, sizeof(hdr)))
		return -1;
	memcpy(&type, hdr + PY311_OB_TYPE, 8);
	memcpy(&len, hdr + PY311_UNICODE_LENGTH, 8);
	memcpy(&state, hdr + PY311_UNICODE_STATE, 4);
	if (type != c->unicode_type || !(state & (1 << 5)))	/* not str, or not compact */
		return -1;
	kind = (state >> 2) & 7;
	if (len > MAX_STR - 1)
		len = MAX_STR - 1;
	if (state & (1 << 6)) {	/* ascii */
		if (len >= outsz || rd(obj + PY311_ASCII_DATA, out, len))
			return -1;
		out[len] = 0;
	} else {
		uint8_t raw[MAX_STR * 4];

		if ((kind != 1 && kind != 2 && kind != 4) || rd(obj + PY311_COMPACT_DATA, raw, len * kind))
			return -1;
		for (size_t i = 0; i < len; i++) {
			uint32_t cp = kind == 1 ? raw[i] : kind == 2 ? ((uint16_t *)raw)[i] : ((uint32_t *)raw)[i];

			if (o + 5 >= outsz)
				break;
			if (cp < 0x80)
				out[o++] = cp;
			else if (cp < 0x800)
				out[o++] = 0xc0 | cp >> 6, out[o++] = 0x80 | (cp & 63);
			else if (cp < 0x10000)
				out[o++] = 0xe0 | cp >> 12, out[o++] = 0x80 | ((cp >> 6) & 63), out[o++] = 0x80 | (cp & 63);
			else
				out[o++] = 0xf0 | cp >> 18, out[o++] = 0x80 | ((cp >> 12) & 63),
				out[o++] = 0x80 | ((cp >> 6) & 63), out[o++] = 0x80 | (cp & 63);
		}
		out[o] = 0;
	}
	sanitize(out);
	return 0;
}

/* 3.11 location table (Objects/locations.md): entries of one byte 1CCCCLLL (code, length-1 in
 * code units) then data by code: 0-9 short form (1 byte, same line); 10-12 one-line form (line
 * delta = code-10, 2 bytes of columns); 13 no columns (svarint line delta); 14 long form (svarint
 * line delta, varint end-line delta, varint col, varint end col); 15 no location. */
static int py_varint(const uint8_t *t, size_t n, size_t *i, unsigned *v)
{
	unsigned shift = 0, b;

	*v = 0;
	do {
		if (*i >= n || shift > 28)
			return -1;
		b = t[(*i)++];
		*v |= (b & 63) << shift;
		shift += 6;
	} while (b & 64);
	return 0;
}

static int py_svarint(const uint8_t *t, size_t n, size_t *i, int *v)
{
	unsigned u;

	if (py_varint(t, n, i, &u))
		return -1;
	*v = (u & 1) ? -(int)(u >> 1) : (int)(u >> 1);
	return 0;
}

/* Line of the instruction at byte offset addrq; -1 no line; -2 malformed table. */
int py311_addr2line(const uint8_t *t, size_t n, int firstlineno, long addrq)
{
	int line = firstlineno;
	long addr = 0;
	size_t i = 0;

	if (addrq < 0)
		return firstlineno;
	while (i < n) {
		uint8_t b = t[i++];
		int code = (b >> 3) & 15, delta = 0;
		unsigned skip;

		if (!(b & 0x80))
			return -2;
		switch (code) {
		case 15:
			break;
		case 13:
			if (py_svarint(t, n, &i, &delta))
				return -2;
			break;
		case 14:
			if (py_svarint(t, n, &i, &delta) || py_varint(t, n, &i, &skip) ||
			    py_varint(t, n, &i, &skip) || py_varint(t, n, &i, &skip))
				return -2;
			break;
		case 10: case 11: case 12:
			delta = code - 10;
			i += 2;
			break;
		default:
			i += 1;
			break;
		}
		line += delta;
		addr += ((b & 7) + 1) * PY311_CODEUNIT;
		if (addrq < addr)
			return code == 15 ? -1 : line;
	}
	return -1;
}

static uint64_t py_tstate_by_tss(const struct py_ctx *c, uint64_t fs_base)
{
	uint32_t init, key;
	uint64_t ts = 0;

	if (rd32(c->runtime + PY311_RUNTIME_AUTOTSS_INIT, &init) ||
	    rd32(c->runtime + PY311_RUNTIME_AUTOTSS_KEY, &key) || !init)
		return 0;
	if (key >= GLIBC_PTHREAD_KEY_2NDLEVEL_SIZE) {
		vlog("autoTSSkey=%u >= 32: second-level specific[] not implemented", key);
		return 0;
	}
	if (rd64(fs_base + GLIBC236_PTHREAD_SPECIFIC_1STBLOCK + key * GLIBC236_PTHREAD_KEY_DATA_SIZE +
		 GLIBC236_PTHREAD_KEY_DATA_DATA, &ts))
		return 0;
	vlog("_PyRuntime=%#lx autoTSSkey=%u -> fs_base+%u+%u*16+8 = %#lx -> tstate=%#lx", c->runtime, key,
	     GLIBC236_PTHREAD_SPECIFIC_1STBLOCK, key,
	     fs_base + GLIBC236_PTHREAD_SPECIFIC_1STBLOCK + key * 16 + 8, ts);
	return ts;
}

static uint64_t py_tstate_by_tid(const struct py_ctx *c, pid_t tid)
{
	uint64_t interp, ts;

	if (rd64(c->runtime + PY311_RUNTIME_INTERPRETERS_HEAD, &interp))
		return 0;
	for (int i = 0; interp && i < 16; i++) {
		if (rd64(interp + PY311_INTERP_THREADS_HEAD, &ts))
			return 0;
		for (int j = 0; ts && j < 4096; j++) {
			uint64_t ntid;

			if (rd64(ts + PY311_TSTATE_NATIVE_THREAD_ID, &ntid))
				return 0;
			if (ntid == (uint64_t)tid)
				return ts;
			if (rd64(ts + PY311_TSTATE_NEXT, &ts))
				return 0;
		}
		if (rd64(interp + PY311_INTERP_NEXT, &interp))
			return 0;
	}
	return 0;
}

static int walk_python(const struct module *m, pid_t tid, uint64_t fs_base)
{
	struct py_ctx c;
	uint64_t ts, ts2, ntid, cframe, frame;
	int n = 0;

	c.runtime = elf_sym(m, "_PyRuntime");
	c.code_type = elf_sym(m, "PyCode_Type");
	c.unicode_type = elf_sym(m, "PyUnicode_Type");
	c.bytes_type = elf_sym(m, "PyBytes_Type");
	if (!c.runtime || !c.code_type || !c.unicode_type || !c.bytes_type) {
		fprintf(stderr, "interp-walk: %s: _PyRuntime/PyCode_Type/... not found\n", m->path);
		return 2;
	}
	c.runtime += m->bias, c.code_type += m->bias, c.unicode_type += m->bias, c.bytes_type += m->bias;

	/* The way BPF does it: the thread's own TSD slot. Cross-checked against native_thread_id. */
	ts = py_tstate_by_tss(&c, fs_base);
	ts2 = py_tstate_by_tid(&c, tid);
	vlog("tstate by autoTSSkey=%#lx, by native_thread_id=%#lx", ts, ts2);
	if (!ts) {
		truncated("no PyThreadState in this thread's TSD slot");
		return 3;
	}
	if (ts != ts2 || rd64(ts + PY311_TSTATE_NATIVE_THREAD_ID, &ntid) || ntid != (uint64_t)tid) {
		truncated("tstate from TSD (%#lx) does not match native_thread_id list (%#lx)", ts, ts2);
		return 3;
	}
	if (rd64(ts + PY311_TSTATE_CFRAME, &cframe) || rd64(cframe + PY311_CFRAME_CURRENT_FRAME, &frame)) {
		truncated("unreadable tstate->cframe->current_frame");
		return 3;
	}
	vlog("tstate->cframe=%#lx ->current_frame=%#lx", cframe, frame);
	while (frame) {
		uint8_t f[PY311_FRAME_SIZE], co[PY311_CODE_READ];
		uint64_t code, prev, prev_instr, ctype, qn, fn, lt, ltype, ltlen;
		int32_t firstlineno, firsttraceable;
		char qname[MAX_STR], file[MAX_STR];
		uint8_t tab[4096];
		long lasti;
		int line;

		if (n >= MAX_FRAMES) {
			truncated("more than %d frames", MAX_FRAMES);
			return 3;
		}
		if (rd(frame, f, sizeof(f))) {
			truncated("unreadable frame %#lx", frame);
			return 3;
		}
		memcpy(&code, f + PY311_FRAME_F_CODE, 8);
		memcpy(&prev, f + PY311_FRAME_PREVIOUS, 8);
		memcpy(&prev_instr, f + PY311_FRAME_PREV_INSTR, 8);
		if (rd(code, co, sizeof(co)) || (memcpy(&ctype, co + PY311_OB_TYPE, 8), ctype != c.code_type)) {
			truncated("frame %#lx: f_code %#lx is not a code object", frame, code);
			return 3;
		}
		memcpy(&firstlineno, co + PY311_CODE_FIRSTLINENO, 4);
		memcpy(&firsttraceable, co + PY311_CODE_FIRSTTRACEABLE, 4);
		memcpy(&qn, co + PY311_CODE_QUALNAME, 8);
		memcpy(&fn, co + PY311_CODE_FILENAME, 8);
		memcpy(&lt, co + PY311_CODE_LINETABLE, 8);
		lasti = (long)(prev_instr - (code + PY311_CODE_CODE_ADAPTIVE)) / PY311_CODEUNIT;
		vlog("frame %#lx code=%#lx prev_instr=%#lx lasti=%ld owner=%u is_entry=%u", frame, code,
		     prev_instr, lasti, f[PY311_FRAME_OWNER], f[PY311_FRAME_IS_ENTRY]);
		/* _PyFrame_IsIncomplete: still copying free vars / making cells before RESUME */
		if (f[PY311_FRAME_OWNER] != PY311_FRAME_OWNED_BY_GENERATOR && lasti < firsttraceable) {
			vlog("  incomplete frame, skipped");
			frame = prev;
			continue;
		}
		if (py_str(&c, qn, qname, sizeof(qname)) || py_str(&c, fn, file, sizeof(file))) {
			truncated("frame %#lx: unreadable co_qualname/co_filename", frame);
			return 3;
		}
		if (rd64(lt + PY311_OB_TYPE, &ltype) || ltype != c.bytes_type ||
		    rd64(lt + PY311_VAR_SIZE, &ltlen) || ltlen > sizeof(tab) ||
		    rd(lt + PY311_BYTES_SVAL, tab, ltlen)) {
			truncated("frame %#lx: unreadable co_linetable", frame);
			return 3;
		}
		line = py311_addr2line(tab, ltlen, firstlineno, lasti * PY311_CODEUNIT);
		if (line == -2) {
			truncated("frame %#lx: malformed co_linetable", frame);
			return 3;
		}
		printf("%s (%s:%d)\n", qname, file, line);
		n++;
		frame = prev;
	}
	return 0;
}

/* ============================ Ruby 3.1 ============================ */
struct rb_ctx {
	uint64_t symbols;	/* &ruby_global_symbols, 0 if not found */
	uint64_t classpath;	/* ID of __classpath__ (made at boot), 0 if not found */
};

static uint64_t rb_type(uint64_t flags) { return flags & 0x1f; }

/* String VALUE -> C string. -1 unless a T_STRING. */
static int rb_str(uint64_t v, char *out, size_t outsz)
{
	uint64_t flags, len, ptr;

	if ((v & 7) || rd64(v, &flags) || rb_type(flags) != RB31_T_STRING)
		return -1;
	if (flags & RB31_RSTRING_NOEMBED) {
		if (rd64(v + RB31_RSTRING_HEAP_LEN, &len) || rd64(v + RB31_RSTRING_HEAP_PTR, &ptr))
			return -1;
	} else {
		len = RB31_RSTRING_EMBED_LEN(flags);
		ptr = v + RB31_RSTRING_EMBED_ARY;
	}
	if (len >= outsz)
		len = outsz - 1;
	if (len && rd(ptr, out, len))
		return -1;
	out[len] = 0;
	sanitize(out);
	return 0;
}

/* Array VALUE [i]; -1 unless a T_ARRAY with i < len. */
static int rb_aref(uint64_t v, uint64_t i, uint64_t *out)
{
	uint64_t flags, len, ptr;

	if ((v & 7) || rd64(v, &flags) || rb_type(flags) != RB31_T_ARRAY)
		return -1;
	if (flags & RB31_RARRAY_EMBED_FLAG) {
		len = RB31_RARRAY_EMBED_LEN(flags);
		ptr = v + RB31_RARRAY_EMBED_ARY;
	} else if (rd64(v + RB31_RARRAY_HEAP_LEN, &len) || rd64(v + RB31_RARRAY_HEAP_PTR, &ptr))
		return -1;
	if (i >= len)
		return -1;
	return rd64(ptr + i * 8, out);
}

/* rb_id2str: ID -> name through ruby_global_symbols.ids. */
static int rb_id2name(const struct rb_ctx *c, uint64_t id, char *out, size_t outsz)
{
	uint64_t serial = id > RB31_TLAST_OP_ID ? id >> RB31_ID_SCOPE_SHIFT : id, ids, ary, str;
	uint32_t last;

	if (!c->symbols || !serial || rd32(c->symbols + RB31_SYMBOLS_LAST_ID, &last) || serial > last ||
	    rd64(c->symbols + RB31_SYMBOLS_IDS, &ids) ||
	    rb_aref(ids, serial / RB31_ID_ENTRY_UNIT, &ary) ||
	    rb_aref(ary, (serial % RB31_ID_ENTRY_UNIT) * RB31_ID_ENTRY_SIZE, &str))
		return -1;
	return rb_str(str, out, outsz);
}

/* &ruby_global_symbols is not exported: rb_id2str is "mov; shr; cmp; cmova; xor; jmp
 * rb_id_serial_to_str-ish", whose body starts by comparing the serial with
 * ruby_global_symbols.last_id: "cmp %edi, rel32(%rip)" (39 3d rel32). */
static uint64_t rb_find_symbols(const struct module *m)
{
	uint64_t f = elf_sym(m, "rb_id2str"), tgt;
	uint8_t code[24], body[96];
	int32_t rel;

	if (!f || rd(f + m->bias, code, sizeof(code)) || code[19] != 0xe9)
		return 0;
	memcpy(&rel, code + 20, 4);
	tgt = f + m->bias + 24 + rel;
	if (rd(tgt, body, sizeof(body)))
		return 0;
	for (size_t i = 0; i + 6 <= sizeof(body); i++)
		if (body[i] == 0x39 && body[i + 1] == 0x3d) {
			memcpy(&rel, body + i + 2, 4);
			return tgt + i + 6 + rel;
		}
	return 0;
}

/* ---- Class#method names, as Ruby 3.4's backtraces print them ---- */

/* RBasic flags of a T_CLASS or T_MODULE; -1 if v is not one. */
static int rb_class_flags(uint64_t v, uint64_t *flags)
{
	if (!v || (v & 7) || rd64(v, flags))
		return -1;
	return rb_type(*flags) == RB31_T_CLASS || rb_type(*flags) == RB31_T_MODULE ? 0 : -1;
}

/* Instance variable id of a class: RCLASS(klass)->ptr->iv_tbl, an st_table scanned in
 * entry order (deleted entries have the hash ~0). At most 256 entries believed. */
static int rb_class_ivar(uint64_t klass, uint64_t id, uint64_t *out)
{
	uint64_t ext, tbl, start, bound, entries, e[3];

	if (!id || rd64(klass + RB31_RCLASS_PTR, &ext) || !ext || rd64(ext + RB31_CLASSEXT_IV_TBL, &tbl) ||
	    !tbl || rd64(tbl + RB31_ST_ENTRIES_START, &start) || rd64(tbl + RB31_ST_ENTRIES_BOUND, &bound) ||
	    rd64(tbl + RB31_ST_ENTRIES, &entries) || start > bound || bound - start > 256)
		return -1;
	for (uint64_t i = start; i < bound; i++) {
		if (rd(entries + i * RB31_ST_ENTRY_SIZE, e, sizeof(e)))
			return -1;
		if (e[0] != ~0ULL && e[RB31_ST_ENTRY_KEY / 8] == id) {
			*out = e[RB31_ST_ENTRY_RECORD / 8];
			return 0;
		}
	}
	return -1;
}

/* __classpath__'s ID is made at boot: it is the key of Object's iv_tbl named so. */
static uint64_t rb_find_classpath_id(const struct module *m, const struct rb_ctx *c)
{
	uint64_t var = elf_sym(m, "rb_cObject"), obj, flags, ext, tbl, start, bound, entries, key;
	char name[MAX_STR];

	if (!var || rd64(var + m->bias, &obj) || rb_class_flags(obj, &flags) ||
	    rd64(obj + RB31_RCLASS_PTR, &ext) || rd64(ext + RB31_CLASSEXT_IV_TBL, &tbl) ||
	    rd64(tbl + RB31_ST_ENTRIES_START, &start) || rd64(tbl + RB31_ST_ENTRIES_BOUND, &bound) ||
	    rd64(tbl + RB31_ST_ENTRIES, &entries) || start > bound || bound - start > 256)
		return 0;
	for (uint64_t i = start; i < bound; i++)
		if (!rd64(entries + i * RB31_ST_ENTRY_SIZE + RB31_ST_ENTRY_KEY, &key) &&
		    !rb_id2name(c, key, name, sizeof(name)) && !strcmp(name, "__classpath__"))
			return key;
	return 0;
}

/* rb_vm_frame_method_entry(): ep[-2] if a method entry, else the enclosing envs
 * (ep[-1] & ~3) up to the local one, whose ep[-2] may be an svar holding it. The
 * entry's owner, or 0 (top level, class bodies, anything unreadable). */
static uint64_t rb_frame_owner(uint64_t ep)
{
	for (int hop = 0; hop < 16; hop++) {
		uint64_t v, flags, specval, oflags, owner;

		if (rd64(ep + RB31_EP_ME_CREF, &v) || rd64(ep, &flags) || rd64(ep + RB31_EP_SPECVAL, &specval))
			return 0;
		if (v && !(v & 7) && !rd64(v, &oflags) && rb_type(oflags) == RB31_T_IMEMO) {
			unsigned t = (oflags >> RB31_FL_USHIFT) & 0xf;

			if (t == RB31_IMEMO_SVAR && (flags & RB31_ENV_FLAG_LOCAL) &&
			    !rd64(v + RB31_SVAR_CREF_OR_ME, &v) && v && !(v & 7) && !rd64(v, &oflags) &&
			    rb_type(oflags) == RB31_T_IMEMO)
				t = (oflags >> RB31_FL_USHIFT) & 0xf;
			if (t == RB31_IMEMO_MENT)
				return rd64(v + RB31_ME_OWNER, &owner) ? 0 : owner;
		}
		if (flags & RB31_ENV_FLAG_LOCAL)
			return 0;
		ep = specval & ~3ULL;
	}
	return 0;
}

/* What goes before a method of klass: "Name#", "Name." for a named class's singleton,
 * "" for Object, anonymous classes and other objects' singletons. */
static void rb_class_prefix(const struct rb_ctx *c, uint64_t klass, char *out, size_t outsz)
{
	uint64_t flags, attached, aflags, path;
	char name[MAX_STR], sep = '#';

	out[0] = 0;
	if (rb_class_flags(klass, &flags))
		return;
	if (flags & RB31_FL_SINGLETON) {
		if (rb_class_ivar(klass, RB31_ID_ATTACHED, &attached) || rb_class_flags(attached, &aflags) ||
		    (aflags & RB31_FL_SINGLETON))
			return;
		klass = attached;
		sep = '.';
	}
	if (rb_class_ivar(klass, c->classpath, &path) || rb_str(path, name, sizeof(name)) ||
	    (sep == '#' && !strcmp(name, "Object")))
		return;
	snprintf(out, outsz, "%s%c", name, sep);
}

/* Is a block (rescue, ensure) iseq inside a method? Its local iseq's type and label. */
static int rb_in_method(const uint8_t *body, const char *label)
{
	uint64_t local, flags, lbody, llabel;
	uint32_t type;
	const char *in = NULL;
	char name[MAX_STR];

	for (const char *p = strstr(label, " in "); p; p = strstr(p + 1, " in "))
		in = p + 4;
	memcpy(&local, body + RB31_BODY_LOCAL_ISEQ, 8);
	return in && local && !(local & 7) && !rd64(local, &flags) && rb_type(flags) == RB31_T_IMEMO &&
	       ((flags >> RB31_FL_USHIFT) & 0xf) == RB31_IMEMO_ISEQ && !rd64(local + RB31_ISEQ_BODY, &lbody) &&
	       !rd32(lbody + RB31_BODY_TYPE, &type) && type == RB31_ISEQ_TYPE_METHOD &&
	       !rd64(lbody + RB31_BODY_LABEL, &llabel) && !rb_str(llabel, name, sizeof(name)) &&
	       !strcmp(name, in);
}

/* Prefix the class before a method label, or before the method part of "block in m". */
static void rb_qualify(char *name, size_t namesz, const char *prefix, int whole)
{
	char tmp[2 * MAX_STR];
	const char *in = name;

	if (!prefix[0])
		return;
	if (!whole)
		for (const char *p = strstr(name, " in "); p; p = strstr(p + 1, " in "))
			in = p + 4;
	if (snprintf(tmp, sizeof(tmp), "%.*s%s%s", (int)(in - name), name, prefix, in) < (int)namesz)
		strcpy(name, tmp);
}

/* iseq.c succ_index_lookup(): rank of position x = number of insns_info entries that start
 * at or before x. The first 54 positions are 7-bit ranks packed 9 per u64; beyond, blocks of
 * 512 bits hold a 32-bit rank, 7 9-bit small-block ranks, and 8 u64 bitmaps. */
static int rb_succ_lookup(uint64_t sd, unsigned x, unsigned *rank)
{
	if (x < RB31_SUCC_IMM_SIZE) {
		uint64_t imm;

		if (rd64(sd + (x / 9) * 8, &imm))
			return -1;
		*rank = (imm >> ((x % 9) * 7)) & 0x7f;
	} else {
		uint8_t blk[RB31_SUCC_BLOCK_SIZE];
		unsigned bbi = (x - RB31_SUCC_IMM_SIZE) % 512, sbi = bbi / 64, r, small = 0;
		uint64_t small_ranks, bits;

		if (rd(sd + RB31_SUCC_PART + (uint64_t)((x - RB31_SUCC_IMM_SIZE) / 512) * RB31_SUCC_BLOCK_SIZE,
		       blk, sizeof(blk)))
			return -1;
		memcpy(&r, blk + RB31_SUCC_BLOCK_RANK, 4);
		memcpy(&small_ranks, blk + RB31_SUCC_BLOCK_SMALL_RANKS, 8);
		memcpy(&bits, blk + RB31_SUCC_BLOCK_BITS + sbi * 8, 8);
		if (sbi)
			small = (small_ranks >> ((sbi - 1) * 9)) & 0x1ff;
		*rank = r + small + __builtin_popcountll(bits << (63 - bbi % 64));
	}
	return 0;
}

/* calc_lineno(): pos = pc - iseq_encoded, minus one (pc already points past the insn). */
static int rb_line(const uint8_t *body, uint64_t pc)
{
	uint64_t enc, info, sd;
	uint32_t iseq_size, size;
	unsigned idx = 1;
	int32_t line;
	int64_t pos;

	memcpy(&enc, body + RB31_BODY_ISEQ_ENCODED, 8);
	memcpy(&iseq_size, body + RB31_BODY_ISEQ_SIZE, 4);
	memcpy(&info, body + RB31_BODY_INSNS_INFO_BODY, 8);
	memcpy(&size, body + RB31_BODY_INSNS_INFO_SIZE, 4);
	memcpy(&sd, body + RB31_BODY_SUCC_INDEX, 8);
	pos = (int64_t)(pc - enc) / 8;
	if (pos < 0 || pos > iseq_size || size == 0 || size > 1 << 20)
		return -1;
	if (pos)
		pos--;
	if (size > 1 && (rb_succ_lookup(sd, pos, &idx) || idx < 1 || idx > size))
		return -1;
	if (rd(info + (idx - 1) * RB31_INSN_INFO_ENTRY_SIZE + RB31_INSN_INFO_LINE_NO, &line, 4))
		return -1;
	return line;
}

/* The thread's ec: ruby_current_ec in libruby's TLS block, through the DTV (what
 * __tls_get_addr does) and, as a cross-check, through the static TLS offset. */
static uint64_t rb_current_ec(const struct module *m, uint64_t fs_base)
{
	struct module ld;
	uint64_t tlsoff = elf_sym(m, "ruby_current_ec"), rdebug, lm, modid = 0, tls_offset = 0;
	uint64_t dtv, block, ec = 0, ec2 = 0;

	if (find_module("ld-linux-x86-64", &ld) || !(rdebug = elf_sym(&ld, "_r_debug")))
		return 0;
	if (rd64(rdebug + ld.bias + GLIBC236_R_DEBUG_R_MAP, &lm))
		return 0;
	for (int i = 0; lm && i < 512; i++) {
		uint64_t nameptr;
		char name[PATH_MAX], *base;

		if (rd64(lm + GLIBC236_LM_L_NAME, &nameptr) || rd(nameptr, name, 64))
			return 0;
		name[63] = 0;
		base = strrchr(name, '/');
		if (base && !strncmp(base + 1, "libruby-3.1", 11)) {
			if (rd64(lm + GLIBC236_LM_L_TLS_MODID, &modid) || rd64(lm + GLIBC236_LM_L_TLS_OFFSET, &tls_offset))
				return 0;
			break;
		}
		if (rd64(lm + GLIBC236_LM_L_NEXT, &lm))
			return 0;
	}
	if (!modid)
		return 0;
	if (rd64(fs_base + GLIBC_TCB_DTV, &dtv) || rd64(dtv + modid * GLIBC_DTV_ENTRY_SIZE, &block) ||
	    rd64(block + tlsoff, &ec))
		return 0;
	if (rd64(fs_base - tls_offset + tlsoff, &ec2))
		ec2 = 0;
	vlog("libruby link_map l_tls_modid=%lu l_tls_offset=%#lx; ruby_current_ec st_value=%#lx", modid,
	     tls_offset, tlsoff);
	vlog("dtv=*(fs_base+8)=%#lx block=dtv[%lu].val=%#lx ec=*(block+%#lx)=%#lx; static: *(fs_base-%#lx+%#lx)=%#lx",
	     dtv, modid, block, tlsoff, ec, tls_offset, tlsoff, ec2);
	if (ec != ec2)
		return 0;
	return ec;
}

struct rb_frame {
	char name[2 * MAX_STR], file[MAX_STR];
	int line, cfunc;
};

static int walk_ruby(const struct module *m, pid_t tid, uint64_t fs_base)
{
	static struct rb_frame fr[MAX_FRAMES];
	struct rb_ctx c = { rb_find_symbols(m), 0 };
	uint64_t ec, stack, stack_size, cfp, end;
	int n = 0, trunc = 0;

	(void)tid;
	c.classpath = rb_find_classpath_id(m, &c);
	vlog("ruby_global_symbols=%#lx (from rb_id2str), __classpath__ ID %#lx", c.symbols, c.classpath);
	ec = rb_current_ec(m, fs_base);
	if (!ec || rd64(ec + RB31_EC_VM_STACK, &stack) || rd64(ec + RB31_EC_VM_STACK_SIZE, &stack_size) ||
	    rd64(ec + RB31_EC_CFP, &cfp)) {
		truncated("no rb_execution_context_t in this thread's TLS");
		return 3;
	}
	end = stack + stack_size * 8;
	vlog("ec=%#lx vm_stack=%#lx size=%lu end=%#lx cfp=%#lx", ec, stack, stack_size, end, cfp);
	if (stack_size > 1 << 24 || cfp < stack || cfp > end || (end - cfp) % RB31_CFP_SIZE) {
		truncated("ec->cfp %#lx outside the VM stack", cfp);
		return 3;
	}
	for (; cfp + RB31_CFP_SIZE <= end; cfp += RB31_CFP_SIZE) {
		uint8_t f[RB31_CFP_SIZE], body[RB31_BODY_READ_NAMES];
		uint64_t pc, iseq, ep, flags, magic, ibody, iflags, me, meflags, def, id, pathobj, label, owner;
		char prefix[MAX_STR + 2];
		uint32_t type;

		if (n >= MAX_FRAMES) {
			trunc = 1;
			break;
		}
		if (rd(cfp, f, sizeof(f))) {
			trunc = 2;
			break;
		}
		memcpy(&pc, f + RB31_CFP_PC, 8);
		memcpy(&iseq, f + RB31_CFP_ISEQ, 8);
		memcpy(&ep, f + RB31_CFP_EP, 8);
		if (rd64(ep, &flags)) {	/* ep may be in the heap: an env captured by a block */
			trunc = 3;
			break;
		}
		magic = flags & RB31_FRAME_MAGIC_MASK;
		vlog("cfp %#lx pc=%#lx iseq=%#lx ep=%#lx flags=%#lx", cfp, pc, iseq, ep, flags);
		if ((magic & 0xffff) != 1) {
			trunc = 4;
			break;
		}
		if (flags & RB31_FRAME_FLAG_CFRAME) {
			if (magic != RB31_FRAME_MAGIC_CFUNC)
				continue;	/* IFUNC: C block (e.g. Enumerator), no name of its own */
			if (rd64(ep + RB31_EP_ME_CREF, &me) || rd64(me, &meflags) || rb_type(meflags) != RB31_T_IMEMO ||
			    ((meflags >> RB31_FL_USHIFT) & 0xf) != RB31_IMEMO_MENT || rd64(me + RB31_ME_DEF, &def) ||
			    rd64(def + RB31_DEF_ORIGINAL_ID, &id) || rb_id2name(&c, id, fr[n].name, MAX_STR) ||
			    rd64(me + RB31_ME_OWNER, &owner)) {
				trunc = 5;
				break;
			}
			rb_class_prefix(&c, owner, prefix, sizeof(prefix));
			rb_qualify(fr[n].name, sizeof(fr[n].name), prefix, 1);
			fr[n].cfunc = 1;
			n++;
			continue;
		}
		if (!iseq || !pc || magic == RB31_FRAME_MAGIC_DUMMY)
			continue;	/* dummy frames (th_init's root, rb_vm_call0 barriers): not Ruby code */
		if (rd64(iseq, &iflags) || rb_type(iflags) != RB31_T_IMEMO ||
		    ((iflags >> RB31_FL_USHIFT) & 0xf) != RB31_IMEMO_ISEQ || rd64(iseq + RB31_ISEQ_BODY, &ibody) ||
		    rd(ibody, body, sizeof(body))) {
			trunc = 6;
			break;
		}
		memcpy(&pathobj, body + RB31_BODY_PATHOBJ, 8);
		memcpy(&label, body + RB31_BODY_LABEL, 8);
		if (rb_str(pathobj, fr[n].file, MAX_STR) &&
		    (rb_aref(pathobj, 0, &pathobj) || rb_str(pathobj, fr[n].file, MAX_STR))) {
			trunc = 7;
			break;
		}
		if (rb_str(label, fr[n].name, MAX_STR) || (fr[n].line = rb_line(body, pc)) < 0) {
			trunc = 8;
			break;
		}
		memcpy(&type, body + RB31_BODY_TYPE, 4);
		if (type == RB31_ISEQ_TYPE_METHOD ||
		    ((type == RB31_ISEQ_TYPE_BLOCK || type == RB31_ISEQ_TYPE_RESCUE ||
		      type == RB31_ISEQ_TYPE_ENSURE) && rb_in_method(body, fr[n].name))) {
			rb_class_prefix(&c, rb_frame_owner(ep), prefix, sizeof(prefix));
			rb_qualify(fr[n].name, sizeof(fr[n].name), prefix, type == RB31_ISEQ_TYPE_METHOD);
		}
		fr[n].cfunc = 0;
		n++;
	}
	/* A cfunc has no location of its own: like Ruby's backtrace, show its caller's. */
	for (int i = 0; i < n; i++) {
		int j = i;

		while (j < n && fr[j].cfunc)
			j++;
		if (fr[i].cfunc && j < n)
			printf("%s (%s:%d)\n", fr[i].name, fr[j].file, fr[j].line);
		else if (fr[i].cfunc)
			printf("%s (<cfunc>)\n", fr[i].name);
		else
			printf("%s (%s:%d)\n", fr[i].name, fr[i].file, fr[i].line);
	}
	if (trunc) {
		truncated("control frame %#lx unreadable or inconsistent (%d)", cfp, trunc);
		return 3;
	}
	return 0;
}

/* ============================ Perl 5.36 ============================ */

/* A NUL-terminated string at addr, read page by page (a short string may end just before
 * an unmapped page). Bytes beyond outsz-1 fail: a cut name would be a different name. */
static int rd_cstr(uint64_t addr, char *out, size_t outsz)
{
	size_t o = 0;

	while (o < outsz) {
		size_t chunk = 4096 - ((addr + o) & 4095);
		char *nul;

		if (chunk > outsz - o)
			chunk = outsz - o;
		if (rd(addr + o, out + o, chunk))
			return -1;
		nul = memchr(out + o, 0, chunk);
		if (nul) {
			sanitize(out);
			return 0;
		}
		o += chunk;
	}
	return -1;
}

static const char *pl_si_name(int type)
{
	static const char *const names[] = { "UNDEF", "MAIN", "MAGIC", "SORT", "SIGNAL", "OVERLOAD",
		"DESTROY", "WARNHOOK", "DIEHOOK", "REQUIRE", "MULTICALL", "REGCOMP" };

	return type >= 0 && type < (int)(sizeof(names) / sizeof(names[0])) ? names[type] : "UNKNOWN";
}

/* SvTYPE of an SV head; -1 if unreadable. */
static int pl_sv_type(const struct perl_layout *L, uint64_t sv, uint32_t *flags)
{
	if (rd32(sv + L->sv_flags, flags))
		return -1;
	return *flags & L->svtypemask;
}

/* HEK -> its key. */
static int pl_hek(const struct perl_layout *L, uint64_t hek, char *out, size_t outsz)
{
	int32_t len;

	if (rd(hek + L->hek_len, &len, 4) || len < 0 || (size_t)len >= outsz ||
	    rd(hek + L->hek_key, out, len))
		return -1;
	out[len] = 0;
	sanitize(out);
	return 0;
}

/* HvNAME of a stash: the name HEK in the HV's aux struct (SVf_OOK); with several names
 * (xhv_name_count != 0) the first one is the name, NULL if the stash lost it. */
static int pl_stash_name(const struct perl_layout *L, uint64_t hv, char *out, size_t outsz)
{
	uint64_t any, name, array, max;
	uint32_t flags;
	int32_t count;

	if (pl_sv_type(L, hv, &flags) != (int)L->svt_pvhv || !(flags & L->svf_ook) ||
	    rd64(hv + L->sv_any, &any))
		return -1;
	/* before 5.36 the aux struct follows the bucket array: &HvARRAY(hv)[HvMAX(hv) + 1] */
	if (L->hv_aux_after_array) {
		if (rd64(hv + L->sv_u, &array) || rd64(any + L->xhv_max, &max) || max >= 1u << 28)
			return -1;
		any = array + (max + 1) * 8;
	}
	if (rd64(any + L->xhv_aux_name, &name) || rd(any + L->xhv_aux_name_count, &count, 4))
		return -1;
	if (count && rd64(name, &name))
		return -1;
	return name ? pl_hek(L, name, out, outsz) : -1;
}

/* A CV's name as caller() prints it: Package::name (anonymous subs are Package::__ANON__,
 * lexical subs only their name; a format, an SVt_PVFM with a CV body, is Package::NAME). Named through its GV, or through a name HEK + CvSTASH
 * when CVf_NAMED (subs stored in the stash without a glob, lexical subs). */
static int pl_cv_name(const struct perl_layout *L, uint64_t cv, int format, char *out, size_t outsz)
{
	char pkg[MAX_STR], name[MAX_STR];
	uint64_t any, gv, gvany, hek, stash;
	uint32_t flags, cvflags, gvflags;

	if (pl_sv_type(L, cv, &flags) != (int)(format ? L->svt_pvfm : L->svt_pvcv) || rd64(cv + L->sv_any, &any) ||
	    rd32(any + L->xcv_flags, &cvflags) || rd64(any + L->xcv_gv_or_hek, &gv))
		return -1;
	if (cvflags & L->cvf_named) {
		hek = gv;
		if (rd64(any + L->xcv_stash, &stash))
			return -1;
	} else {
		/* isGV_with_GP: a real glob, not a string that was once one */
		if (pl_sv_type(L, gv, &gvflags) != (int)L->svt_pvgv ||
		    (gvflags & (L->svp_pok | L->svpgv_gp)) != L->svpgv_gp ||
		    rd64(gv + L->sv_any, &gvany) || rd64(gvany + L->xgv_namehek, &hek) ||
		    rd64(gvany + L->xgv_stash, &stash))
			return -1;
	}
	if (pl_hek(L, hek, name, sizeof(name)))
		return -1;
	if ((cvflags & L->cvf_named) && (cvflags & L->cvf_lexical)) {
		snprintf(out, outsz, "%s", name);
		return 0;
	}
	if (pl_stash_name(L, stash, pkg, sizeof(pkg)))
		return -1;
	snprintf(out, outsz, "%s::%s", pkg, name);
	return 0;
}

/* A COP's file and line. PL_curcop is a nextstate/dbstate op, or &PL_compiling while
 * compiling (BEGIN, require). */
static int pl_cop(const struct perl_layout *L, uint64_t my_perl, uint64_t cop, char *file, size_t filesz,
		  uint32_t *line)
{
	uint64_t fp;
	uint16_t type;

	if (rd(cop + L->op_type_word, &type, 2))
		return -1;
	type &= L->op_type_mask;
	if (cop != my_perl + L->interp_compiling && type != L->op_nextstate && type != L->op_dbstate)
		return -1;
	if (rd32(cop + L->cop_line, line) || rd64(cop + L->cop_file, &fp) || rd_cstr(fp, file, filesz))
		return -1;
	return 0;
}

/* The thread's interpreter: PL_current_context in static TLS, cross-checked with
 * pthread_getspecific(PL_thr_key). 0 if absent or if they disagree.  Perl before 5.36 has
 * no PL_current_context: TSD alone (specific_1stblock is at 784 in glibc 2.31 too). */
static uint64_t pl_my_perl(const struct module *m, uint64_t fs_base)
{
	uint64_t sym = elf_sym(m, "PL_current_context"), key_addr = elf_sym(m, "PL_thr_key");
	uint64_t vaddr, memsz, align, off, ctx = 0, ctx2 = 0;
	uint32_t key;

	if (!sym && key_addr) {
		if (rd32(key_addr + m->bias, &key) || key >= GLIBC_PTHREAD_KEY_2NDLEVEL_SIZE ||
		    rd64(fs_base + GLIBC236_PTHREAD_SPECIFIC_1STBLOCK +
			 key * GLIBC236_PTHREAD_KEY_DATA_SIZE + GLIBC236_PTHREAD_KEY_DATA_DATA, &ctx2))
			return 0;
		vlog("no PL_current_context (perl < 5.36): PL_thr_key=%u -> %#lx", key, ctx2);
		return ctx2;
	}
	if (!key_addr || elf_tls(m, &vaddr, &memsz, &align)) {
		vlog("%s: no PL_thr_key / PT_TLS", m->path);
		return 0;
	}
	off = exe_tls_offset(vaddr, memsz, align);
	if (rd64(fs_base - off + sym, &ctx) || rd32(key_addr + m->bias, &key) ||
	    key >= GLIBC_PTHREAD_KEY_2NDLEVEL_SIZE ||
	    rd64(fs_base + GLIBC236_PTHREAD_SPECIFIC_1STBLOCK + key * GLIBC236_PTHREAD_KEY_DATA_SIZE +
		 GLIBC236_PTHREAD_KEY_DATA_DATA, &ctx2))
		return 0;
	vlog("PT_TLS vaddr=%#lx memsz=%#lx align=%#lx -> tls offset %#lx; PL_current_context=*(fs_base-%#lx+%#lx)=%#lx",
	     vaddr, memsz, align, off, off, sym, ctx);
	vlog("PL_thr_key=%u -> specific_1stblock[%u].data=%#lx", key, key, ctx2);
	return ctx == ctx2 ? ctx : 0;
}

#define PL_MAX_STACKINFOS 64
#define PL_MAX_CONTEXTS 100000

/* Frame-creating contexts of one stackinfo, innermost first, by the si_cxsubix chain
 * (what BPF follows: one read per frame), checked against a scan of every context from
 * si_cxix down (what caller() does) as far as the chain was followed. At most max frames;
 * *more tells that the chain goes on. Returns the count, -1 on any inconsistency. */
static int pl_si_frames(const struct perl_layout *L, uint64_t cxstack, int32_t cxix, int32_t cxsubix,
			int32_t *ix, int max, int *more)
{
	int32_t i, low;
	int n = 0, k = 0;

	*more = 0;
	if (cxix < -1 || cxix >= PL_MAX_CONTEXTS || cxsubix < -1 || cxsubix > cxix)
		return -1;
	for (i = cxsubix; i >= 0;) {
		uint8_t type;
		int32_t next;

		if (n >= max) {
			*more = 1;
			break;
		}
		if (rd(cxstack + (uint64_t)i * L->cx_size + L->cx_type_byte, &type, 1))
			return -1;
		type &= L->cxtypemask;
		if (type != L->cxt_sub && type != L->cxt_format && type != L->cxt_eval)
			return -1;
		if (rd(cxstack + (uint64_t)i * L->cx_size + L->cx_old_cxsubix, &next, 4) || next >= i)
			return -1;
		ix[n++] = i;
		i = next;
	}
	if (*more && !n)
		return 0;
	low = *more ? ix[n - 1] : 0;
	for (i = cxix; i >= low; i--) {
		uint8_t type;

		if (rd(cxstack + (uint64_t)i * L->cx_size + L->cx_type_byte, &type, 1))
			return -1;
		type &= L->cxtypemask;
		if (type == L->cxt_sub || type == L->cxt_format || type == L->cxt_eval) {
			if (k >= n || ix[k] != i)
				return -1;
			k++;
		} else if (k < n && ix[k] == i) {
			return -1;
		}
	}
	return k == n ? n : -1;
}

/* Output, innermost first: one "name (file:line)" per sub/format/eval context, then
 * "<main> (file:line)" for the main program. Between them, the points where native frames
 * sit: "[from C]" after a frame entered by call_sv/MULTICALL (blk_sub.retop == NULL: no Perl
 * op to return to), "[stackinfo TYPE]" after the frames of a nested stackinfo (sort, signal
 * handler, DESTROY, ...: a nested runops loop). */
static char pl_out[MAX_FRAMES * 3][2 * MAX_STR + MAX_STR + 32];
static int pl_nout;

#define pl_emit(...) do { \
	if (pl_nout < (int)(sizeof(pl_out) / sizeof(pl_out[0]))) \
		snprintf(pl_out[pl_nout++], sizeof(pl_out[0]), __VA_ARGS__); \
} while (0)

#define pl_trunc(fmt, ...) do { \
	pl_emit("[truncated: " fmt "]", ##__VA_ARGS__); \
	g_truncated = 1; \
} while (0)

/* The walk proper; lines go to pl_out. 0 when complete, 3 after truncated(). */
static int pl_walk(const struct perl_layout *L, uint64_t my_perl, uint64_t si, uint64_t curcop)
{
	uint64_t pending;
	int frames = 0, main_from_c = 0, first = 1;

	pending = curcop;
	for (int depth = 0;; depth++) {
		uint64_t cxstack, prev;
		int32_t cxix, cxsubix, type, ix[MAX_FRAMES];
		int n, more;

		if (depth >= PL_MAX_STACKINFOS || !si || rd64(si + L->si_cxstack, &cxstack) ||
		    rd64(si + L->si_prev, &prev) || rd(si + L->si_cxix, &cxix, 4) ||
		    rd(si + L->si_cxsubix, &cxsubix, 4) || rd(si + L->si_type, &type, 4)) {
			pl_trunc("stackinfo %#lx unreadable", si);
			return 3;
		}
		n = pl_si_frames(L, cxstack, cxix, cxsubix, ix, MAX_FRAMES - frames, &more);
		vlog("stackinfo %#lx type %s cxix=%d cxsubix=%d prev=%#lx: %d frames", si, pl_si_name(type),
		     cxix, cxsubix, prev, n);
		if (n < 0) {
			pl_trunc("stackinfo %#lx: contexts inconsistent (cxix %d, cxsubix %d)", si, cxix, cxsubix);
			return 3;
		}
		for (int k = 0; k < n; k++) {
			uint64_t cx = cxstack + (uint64_t)ix[k] * L->cx_size, cv, retop, oldcop, any, start;
			char name[2 * MAX_STR + 8], file[MAX_STR];
			uint32_t line;
			uint16_t u16;
			uint8_t ctype;

			if (rd(cx + L->cx_type_byte, &ctype, 1) || rd(cx + L->cx_u16, &u16, 2) ||
			    rd64(cx + L->cx_retop, &retop) || rd64(cx + L->cx_oldcop, &oldcop) ||
			    rd64(cx + L->cx_sub_cv, &cv)) {
				pl_trunc("context %#lx unreadable", cx);
				return 3;
			}
			if ((ctype & L->cxtypemask) == L->cxt_eval)
				snprintf(name, sizeof(name), "(eval)");
			else if (pl_cv_name(L, cv, (ctype & L->cxtypemask) == L->cxt_format, name, sizeof(name))) {
				pl_trunc("context %#lx: CV %#lx has no readable name", cx, cv);
				return 3;
			}
			/* Just entered (pp_entersub done, the sub's first nextstate not yet): PL_curcop
			 * is still the caller's. The sub is at its first statement, CvSTART. */
			if (first && pending == oldcop && (ctype & L->cxtypemask) != L->cxt_eval) {
				if (rd64(cv + L->sv_any, &any) || rd64(any + L->xcv_start, &start)) {
					pl_trunc("context %#lx (%s): just entered, CvSTART unreadable", cx, name);
					return 3;
				}
				vlog("  sub entered, no statement yet: line of CvSTART %#lx", start);
				pending = start;
			}
			if (pl_cop(L, my_perl, pending, file, sizeof(file), &line)) {
				pl_trunc("context %#lx (%s): COP %#lx unreadable or not a COP", cx, name, pending);
				return 3;
			}
			vlog("  cx[%d] %#lx type %#x u16 %#x (old op %u) cv=%#lx retop=%#lx oldcop=%#lx", ix[k], cx,
			     ctype, u16, u16 >> L->old_op_type_shift, cv, retop, oldcop);
			pl_emit("%s (%s:%u)", name, file, line);
			if (!retop)
				pl_emit("[from C]");
			pending = oldcop;
			first = 0;
			frames++;
			if (type == L->perlsi_main)
				main_from_c = !retop;
		}
		if (more) {
			pl_trunc("more than %d frames", MAX_FRAMES);
			return 3;
		}
		if (type == L->perlsi_main)
			break;
		pl_emit("[stackinfo %s]", pl_si_name(type));
		si = prev;
	}
	/* The main program, unless the outermost frame was called from C: a thread's entry
	 * sub (threads.xs: call_sv), BEGIN/END blocks (call_list). */
	if (!main_from_c) {
		char file[MAX_STR];
		uint32_t line;

		if (pl_cop(L, my_perl, pending, file, sizeof(file), &line)) {
			pl_trunc("main program: COP %#lx unreadable or not a COP", pending);
			return 3;
		}
		pl_emit("<main> (%s:%u)", file, line);
	}
	return 0;
}

/* What the innermost state looks like: changes whenever a sub/eval/block is entered or
 * left, or a statement starts. Equal before and after a walk of a running thread means
 * no frame was pushed or popped meanwhile (barring an exact ABA within the walk). */
struct pl_snap {
	uint64_t si, curcop;
	int32_t cxix, cxsubix;
};

static int pl_snapshot(const struct perl_layout *L, uint64_t my_perl, struct pl_snap *s)
{
	uint64_t curcop2 = 0;

	memset(s, 0, sizeof(*s));
	/* curcop read on both sides of the context index: a change between is a torn read */
	return rd64(my_perl + L->interp_curstackinfo, &s->si) || rd64(my_perl + L->interp_curcop, &s->curcop) ||
	       rd(s->si + L->si_cxix, &s->cxix, 4) || rd(s->si + L->si_cxsubix, &s->cxsubix, 4) ||
	       rd64(my_perl + L->interp_curcop, &curcop2) || curcop2 != s->curcop ? -1 : 0;
}

/* One entry per supported perl: adding a version is adding its table here. */
static const struct perl_layout *const perl_layouts[] = { &perl_5_32, &perl_5_36, &perl_5_40,
							  &perl_5_42, &perl_5_44 };

/* The table for the target's perl, from its PL_revision/PL_version; NULL if none. */
static const struct perl_layout *pl_layout(const struct module *m, unsigned *rev, unsigned *major)
{
	uint64_t r = elf_sym(m, "PL_revision"), v = elf_sym(m, "PL_version");
	uint8_t rb, vb;

	*rev = *major = 0;
	if (!r || !v || rd(r + m->bias, &rb, 1) || rd(v + m->bias, &vb, 1))
		return NULL;
	*rev = rb, *major = vb;
	for (size_t i = 0; i < sizeof(perl_layouts) / sizeof(perl_layouts[0]); i++)
		if (perl_layouts[i]->revision == rb && perl_layouts[i]->major == vb)
			return perl_layouts[i];
	return NULL;
}

static int walk_perl(const struct module *m, pid_t tid, uint64_t fs_base)
{
	const struct perl_layout *L;
	struct pl_snap before, after, again;
	unsigned rev, major;
	uint64_t my_perl;
	int ret;

	(void)tid;
	L = pl_layout(m, &rev, &major);
	if (!L) {
		if (!rev)
			truncated("perl version unreadable (PL_revision/PL_version)");
		else
			truncated("perl %u.%u: no offsets table (supported: 5.32, 5.36, 5.40, 5.42, 5.44); add one, see perl536.h", rev, major);
		return 3;
	}
	my_perl = pl_my_perl(m, fs_base);
	if (!my_perl) {
		truncated("no perl interpreter in this thread's TLS (or TLS and TSD disagree)");
		return 3;
	}
	/*
	 * Running (-n), one snapshot can itself be torn: curcop read while the
	 * thread was in leaf(), cxix once it had returned to mid() (seen once in
	 * ~1,000 walks of pl_churn.pl: mid shown with leaf's line).  Two equal
	 * snapshots in a row before the walk, and two after equal to them.
	 */
	if (pl_snapshot(L, my_perl, &before) ||
	    (!g_stopped && (pl_snapshot(L, my_perl, &again) || memcmp(&before, &again, sizeof(again))))) {
		if (!g_stopped) {
			truncated("interpreter state changed during the walk");
			return 3;
		}
		truncated("unreadable my_perl %#lx", my_perl);
		return 3;
	}
	vlog("perl %s: my_perl=%#lx curstackinfo=%#lx curcop=%#lx", L->version, my_perl, before.si, before.curcop);
	ret = pl_walk(L, my_perl, before.si, before.curcop);
	/* A thread that ran meanwhile (-n) may have mixed two states: a line of one sub shown
	 * for its caller. Print nothing of such a walk. (BPF runs on the triggering thread
	 * itself, which cannot change its interpreter state under the walk.) */
	if (!g_stopped && (pl_snapshot(L, my_perl, &after) || memcmp(&before, &after, sizeof(before)) ||
			   pl_snapshot(L, my_perl, &again) || memcmp(&after, &again, sizeof(after)))) {
		truncated("interpreter state changed during the walk");
		return 3;
	}
	for (int i = 0; i < pl_nout; i++)
		printf("%s\n", pl_out[i]);
	return ret;
}

/* ============================ main ============================ */

static void usage(void)
{
	fprintf(stderr, "usage: interp-walk [-v] [-n] [-F N] [-l python|ruby|perl] PID TID\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *lang = NULL;
	struct module m;
	uint64_t fs_base;
	int opt, nostop = 0, ret;
	pid_t tid;

	while ((opt = getopt(argc, argv, "vnl:F:")) != -1) {
		switch (opt) {
		case 'F': g_fail_read = atol(optarg); break;
		case 'v': g_verbose = 1; break;
		case 'n': nostop = 1; break;
		case 'l': lang = optarg; break;
		default: usage();
		}
	}
	if (argc - optind != 2)
		usage();
	g_pid = atoi(argv[optind]);
	tid = atoi(argv[optind + 1]);
	elf_version(EV_CURRENT);
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (!lang) {
		if (!find_module("libruby-3.1", &m))
			lang = "ruby";
		else if (!find_module("python3.11", &m) || !find_module("libpython3.11", &m))
			lang = "python";
		else if (!find_module("perl", &m))
			lang = "perl";
		else {
			fprintf(stderr, "interp-walk: %d: no known interpreter mapped\n", g_pid);
			return 2;
		}
	}
	if (!strcmp(lang, "python")) {
		if (find_module("libpython3.11", &m) && find_module("python3.11", &m))
			return fprintf(stderr, "interp-walk: python3.11 not mapped\n"), 2;
	} else if (!strcmp(lang, "ruby")) {
		if (find_module("libruby-3.1", &m))
			return fprintf(stderr, "interp-walk: libruby-3.1 not mapped\n"), 2;
	} else if (!strcmp(lang, "perl")) {
		if (find_module("perl", &m))
			return fprintf(stderr, "interp-walk: perl not mapped\n"), 2;
	} else
		usage();
	vlog("%s module %s bias %#lx", lang, m.path, m.bias);

	if (seize_thread(tid, &fs_base)) {
		release_thread(tid);
		return 2;
	}
	vlog("tid %d fs_base %#lx", tid, fs_base);
	if (nostop)
		release_thread(tid);
	if (!strcmp(lang, "python"))
		ret = walk_python(&m, tid, fs_base);
	else if (!strcmp(lang, "ruby"))
		ret = walk_ruby(&m, tid, fs_base);
	else
		ret = walk_perl(&m, tid, fs_base);
	release_thread(tid);
	vlog("%ld reads of target memory", g_reads);
	return ret ? ret : g_truncated ? 3 : 0;
}
