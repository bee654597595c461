// SPDX-License-Identifier: GPL-2.0
/*
 * pprof reader, for untrusted input: every varint, length and index is
 * checked and every count capped before memory is committed.  Each
 * Location's Lines are split back into frames (the caller last line,
 * inlined ones before it), and samples are turned outermost first.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "formats/pprof.h"
#include "formats/pprof_proto.h"
#include "profile/values_frame.h"
#include "formats/protobuf.h"

/*
 * Limits for untrusted input, far above real profiles (usually a few MiB):
 * they bound memory and time before anything big is allocated.
 */
#define MAX_DECOMPRESSED (512u << 20)
#define MAX_STRINGS (16u << 20)
#define MAX_SAMPLES (64u << 20)
#define MAX_LOCATIONS (16u << 20)
#define MAX_FUNCTIONS (16u << 20)
#define MAX_MAPPINGS (1u << 20)
#define MAX_SAMPLE_FRAMES (1u << 16)	/* per sample, after inline expansion */
#define MAX_TOTAL_FRAMES (128u << 20)	/* over all samples */
#define MAX_COMMENTS 64

struct span {
	uint32_t off, len;	/* into the decoded buffer, which is < 4 GiB */
};

struct rmapping {
	uint64_t id;
	uint64_t filename, build_id;	/* pprof string indices */
	uint8_t kind;			/* frame kind of its locations */
};

struct rfunction {
	uint64_t id;
	uint64_t name, system_name, filename;
};

struct rlocation {
	uint64_t id;
	uint32_t first, n;	/* its frames in r->lframes, outermost first */
};

struct reader {
	const uint8_t *base;
	size_t size;
	struct profile *p;
	char *err;
	size_t errlen;
	struct span *strs;
	uint32_t nstrs;
	uint32_t *strmap;	/* pprof string -> profile string + 1 (0: not yet) */
	struct span *sample_msgs, *map_msgs, *loc_msgs, *fn_msgs;
	size_t nsamples;
	uint32_t nmaps, nlocs, nfns;
	struct rmapping *maps;
	struct rfunction *fns;
	struct rlocation *locs;
	uint32_t *lframes;	/* frames of all locations */
	size_t nlframes, caplframes;
	uint64_t comments[MAX_COMMENTS];
	uint32_t ncomments;
	uint64_t period, period_type, period_unit;
	bool have_period_unit;
	uint64_t value_type, value_unit;	/* the first sample_type */
	bool have_value_type;
	uint64_t objects_type, objects_unit;	/* the second */
	uint32_t ntypes;
	bool objects;		/* value[1] is the allocations value[0]'s bytes stand for */
	uint64_t time_ns, duration_ns;
	/* scratch */
	uint64_t *ids;
	size_t capids;
	uint32_t *sframes;
	size_t capsframes;
	uint64_t total_frames;
	uint32_t kernel_module;	/* profile string of "[kernel]", interned lazily */
};

static int rfail(struct reader *r, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int rfail(struct reader *r, int rc, const char *fmt, ...)
{
	va_list ap;

	if (r->errlen) {
		va_start(ap, fmt);
		vsnprintf(r->err, r->errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

static int malformed(struct reader *r, const char *what, const uint8_t *at)
{
	return rfail(r, -EINVAL, "corrupt pprof: malformed %s at offset %zu", what,
		     (size_t)(at - r->base));
}

static struct span span_of(const struct reader *r, const struct pb_field *f)
{
	struct span s = { (uint32_t)(f->data - r->base), (uint32_t)f->len };

	return s;
}

static bool span_is(const struct reader *r, struct span s, const char *lit)
{
	size_t n = strlen(lit);

	return s.len == n && memcmp(r->base + s.off, lit, n) == 0;
}

static bool str_is(const struct reader *r, uint64_t idx, const char *lit)
{
	return idx < r->nstrs && span_is(r, r->strs[idx], lit);
}

static int check_str(struct reader *r, uint64_t idx, const char *what)
{
	if (idx >= r->nstrs)
		return rfail(r, -EINVAL,
			     "corrupt pprof: %s refers to string %llu, the table has %u",
			     what, (unsigned long long)idx, r->nstrs);
	return 0;
}

/*
 * The profile string of pprof string idx (checked by the caller).  Strings
 * are interned only when used; bytes after a NUL are dropped, since our
 * strings are C strings.
 */
static int rstr(struct reader *r, uint64_t idx, uint32_t *out)
{
	struct span s;
	char *copy;
	uint32_t i;

	if (idx == 0 || idx >= r->nstrs) {
		*out = 0;
		return 0;
	}
	if (r->strmap[idx]) {
		*out = r->strmap[idx] - 1;
		return 0;
	}
	s = r->strs[idx];
	copy = strndup((const char *)r->base + s.off, s.len);
	if (!copy)
		return rfail(r, -ENOMEM, "out of memory reading pprof strings");
	i = profile_str(r->p, copy);
	free(copy);
	if (i == UINT32_MAX)
		return rfail(r, -ENOMEM, "out of memory reading pprof strings");
	r->strmap[idx] = i + 1;
	*out = i;
	return 0;
}

static int intern(struct reader *r, const char *s, uint32_t *out)
{
	*out = profile_str(r->p, s);
	return *out == UINT32_MAX ? rfail(r, -ENOMEM, "out of memory reading pprof") : 0;
}

/* ---- decompression ---- */

static bool is_gzip(const uint8_t *d, size_t len)
{
	return len >= 2 && d[0] == 0x1f && d[1] == 0x8b;
}

/*
 * Inflate every gzip member of in, into out (cap bytes) or, with out NULL,
 * only counting the bytes, so that a bomb is refused before any big
 * allocation and the real pass allocates exactly once.
 */
static int inflate_all(struct reader *r, const uint8_t *in, size_t len, uint8_t *out,
		       size_t cap, size_t *total)
{
	uint8_t scratch[64 * 1024];
	z_stream z = { 0 };
	size_t n = 0, room;
	int zrc, rc = 0;

	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return rfail(r, -ENOMEM, "cannot start gzip decompression");
	z.next_in = (Bytef *)in;
	z.avail_in = len;
	for (;;) {
		z.next_out = out ? out + n : scratch;
		z.avail_out = room = out ? cap - n : sizeof(scratch);
		zrc = inflate(&z, Z_NO_FLUSH);
		n += room - z.avail_out;
		if (n > MAX_DECOMPRESSED) {
			rc = rfail(r, -E2BIG, "pprof decompresses to more than %u MiB: refusing it",
				   MAX_DECOMPRESSED >> 20);
			break;
		}
		if (zrc == Z_STREAM_END) {
			if (!z.avail_in)
				break;
			/* Concatenated gzip members form one stream (as gzip -d does). */
			if (!is_gzip(z.next_in, z.avail_in)) {
				rc = rfail(r, -EINVAL, "corrupt pprof: garbage after the gzip stream");
				break;
			}
			inflateReset(&z);
			continue;
		}
		if (zrc == Z_MEM_ERROR) {
			rc = rfail(r, -ENOMEM, "out of memory decompressing pprof");
			break;
		}
		if ((zrc == Z_OK || zrc == Z_BUF_ERROR) && !z.avail_in && z.avail_out) {
			rc = rfail(r, -EINVAL, "corrupt pprof: truncated gzip stream");
			break;
		}
		if (zrc != Z_OK || (out && n == cap)) {
			rc = rfail(r, -EINVAL, "corrupt pprof: bad gzip data (%s)",
				   z.msg ? z.msg : "unexpected end");
			break;
		}
	}
	inflateEnd(&z);
	*total = n;
	return rc;
}

static int gunzip(struct reader *r, const uint8_t *in, size_t len, uint8_t **outp,
		  size_t *outlen)
{
	size_t n, got;
	uint8_t *out;
	int rc;

	if (len > UINT32_MAX)
		return rfail(r, -E2BIG, "pprof file too large (%zu bytes)", len);
	rc = inflate_all(r, in, len, NULL, 0, &n);
	if (rc)
		return rc;
	/* One spare byte: the second pass always has room, so a full buffer means trouble. */
	out = malloc(n + 1);
	if (!out)
		return rfail(r, -ENOMEM, "out of memory decompressing pprof (%zu bytes)", n);
	rc = inflate_all(r, in, len, out, n + 1, &got);
	if (!rc && got != n)
		rc = rfail(r, -EINVAL, "corrupt pprof: gzip stream decoded differently twice");
	if (rc) {
		free(out);
		return rc;
	}
	*outp = out;
	*outlen = n;
	return 0;
}

/* ---- top level ---- */

static int need_len(struct reader *r, const struct pb_field *f, const char *what)
{
	if (f->wire != PB_LEN)
		return rfail(r, -EINVAL, "corrupt pprof: %s has wire type %u, not length-delimited",
			     what, f->wire);
	return 0;
}

static int need_varint(struct reader *r, const struct pb_field *f, const char *what)
{
	if (f->wire != PB_VARINT)
		return rfail(r, -EINVAL, "corrupt pprof: %s has wire type %u, not varint", what,
			     f->wire);
	return 0;
}

/* A varint field wanted from a message: its number, and where its value goes. */
struct want {
	uint32_t num;
	uint64_t *to;
};

#define NWANT(w) (sizeof(w) / sizeof((w)[0]))

/*
 * The fields of a message (len bytes at p) that want names, each a varint
 * into its place; other fields are passed over.  0, or -EINVAL (said, of
 * what: the message's type).
 */
static int read_varints(struct reader *r, const uint8_t *p, size_t len, const struct want *want,
			size_t nwant, const char *what)
{
	struct pb_reader in;
	struct pb_field f;
	size_t k;
	int rc;

	pb_reader_init(&in, p, len);
	while ((rc = pb_next(&in, &f)) > 0) {
		for (k = 0; k < nwant && want[k].num != f.num; k++)
			;
		if (k == nwant)
			continue;
		if (f.wire != PB_VARINT)
			return rfail(r, -EINVAL, "corrupt pprof: %s field has wire type %u, "
				     "not varint", what, f.wire);
		*want[k].to = f.v;
	}
	return rc < 0 ? malformed(r, what, in.p) : 0;
}

static int read_value_type(struct reader *r, const struct pb_field *f, uint64_t *type,
			   uint64_t *unit)
{
	const struct want w[] = { { VALUETYPE_TYPE, type }, { VALUETYPE_UNIT, unit } };

	*type = *unit = 0;
	return read_varints(r, f->data, f->len, w, NWANT(w), "ValueType");
}

/* The arrays the second pass fills, once the counts are within the caps. */
static int alloc_tables(struct reader *r, size_t nsamples, size_t nmaps, size_t nlocs,
			size_t nfns, size_t nstrs)
{
	if (nsamples > MAX_SAMPLES || nlocs > MAX_LOCATIONS || nfns > MAX_FUNCTIONS ||
	    nmaps > MAX_MAPPINGS || nstrs > MAX_STRINGS)
		return rfail(r, -E2BIG,
			     "pprof too large: %zu samples, %zu locations, %zu functions, "
			     "%zu mappings, %zu strings (limits %u, %u, %u, %u, %u)",
			     nsamples, nlocs, nfns, nmaps, nstrs, MAX_SAMPLES, MAX_LOCATIONS,
			     MAX_FUNCTIONS, MAX_MAPPINGS, MAX_STRINGS);
	r->nsamples = nsamples;
	r->nmaps = nmaps;
	r->nlocs = nlocs;
	r->nfns = nfns;
	r->nstrs = nstrs;
	r->sample_msgs = calloc(nsamples ? nsamples : 1, sizeof(struct span));
	r->map_msgs = calloc(nmaps ? nmaps : 1, sizeof(struct span));
	r->loc_msgs = calloc(nlocs ? nlocs : 1, sizeof(struct span));
	r->fn_msgs = calloc(nfns ? nfns : 1, sizeof(struct span));
	r->strs = calloc(nstrs ? nstrs : 1, sizeof(struct span));
	r->strmap = calloc(nstrs ? nstrs : 1, sizeof(uint32_t));
	r->maps = calloc(nmaps ? nmaps : 1, sizeof(*r->maps));
	r->fns = calloc(nfns ? nfns : 1, sizeof(*r->fns));
	r->locs = calloc(nlocs ? nlocs : 1, sizeof(*r->locs));
	if (!r->sample_msgs || !r->map_msgs || !r->loc_msgs || !r->fn_msgs || !r->strs ||
	    !r->strmap || !r->maps || !r->fns || !r->locs)
		return rfail(r, -ENOMEM, "out of memory reading pprof");
	return 0;
}

/*
 * Two passes over the top level: count the repeated messages (so the
 * arrays are allocated once, after the caps are checked), then note where
 * each one is.  Fields may come in any order, so nothing is resolved yet.
 */
static int scan_top(struct reader *r, bool fill)
{
	size_t nsamples = 0, nmaps = 0, nlocs = 0, nfns = 0, nstrs = 0;
	struct pb_reader in;
	struct pb_scalars sc;
	struct pb_field f;
	uint64_t v;
	int rc;

	pb_reader_init(&in, r->base, r->size);
	while ((rc = pb_next(&in, &f)) > 0) {
		switch (f.num) {
		case PROFILE_SAMPLE_TYPE:
			if (need_len(r, &f, "Profile.sample_type"))
				return -EINVAL;
			/*
			 * value[0] is what we read: its type names the unit.
			 * value[1] too when it counts value[0]'s allocations.
			 */
			if (fill)
				break;
			rc = 0;
			if (r->ntypes == 0)
				rc = read_value_type(r, &f, &r->value_type, &r->value_unit);
			else if (r->ntypes == 1)
				rc = read_value_type(r, &f, &r->objects_type, &r->objects_unit);
			if (rc)
				return rc;
			r->have_value_type = true;
			r->ntypes++;
			break;
		case PROFILE_SAMPLE:
			if (need_len(r, &f, "Profile.sample"))
				return -EINVAL;
			if (fill)
				r->sample_msgs[nsamples] = span_of(r, &f);
			nsamples++;
			break;
		case PROFILE_MAPPING:
			if (need_len(r, &f, "Profile.mapping"))
				return -EINVAL;
			if (fill)
				r->map_msgs[nmaps] = span_of(r, &f);
			nmaps++;
			break;
		case PROFILE_LOCATION:
			if (need_len(r, &f, "Profile.location"))
				return -EINVAL;
			if (fill)
				r->loc_msgs[nlocs] = span_of(r, &f);
			nlocs++;
			break;
		case PROFILE_FUNCTION:
			if (need_len(r, &f, "Profile.function"))
				return -EINVAL;
			if (fill)
				r->fn_msgs[nfns] = span_of(r, &f);
			nfns++;
			break;
		case PROFILE_STRING_TABLE:
			if (need_len(r, &f, "Profile.string_table"))
				return -EINVAL;
			if (fill)
				r->strs[nstrs] = span_of(r, &f);
			nstrs++;
			break;
		case PROFILE_TIME_NANOS:
			if (need_varint(r, &f, "Profile.time_nanos"))
				return -EINVAL;
			r->time_ns = (int64_t)f.v > 0 ? f.v : 0;
			break;
		case PROFILE_DURATION_NANOS:
			if (need_varint(r, &f, "Profile.duration_nanos"))
				return -EINVAL;
			r->duration_ns = (int64_t)f.v > 0 ? f.v : 0;
			break;
		case PROFILE_PERIOD_TYPE:
			if (need_len(r, &f, "Profile.period_type"))
				return -EINVAL;
			rc = read_value_type(r, &f, &r->period_type, &r->period_unit);
			if (rc)
				return rc;
			r->have_period_unit = true;
			break;
		case PROFILE_PERIOD:
			if (need_varint(r, &f, "Profile.period"))
				return -EINVAL;
			r->period = (int64_t)f.v > 0 ? f.v : 0;
			break;
		case PROFILE_COMMENT:
			if (!fill)
				break;
			if (pb_scalars_init(&sc, &f))
				return rfail(r, -EINVAL, "corrupt pprof: bad Profile.comment");
			while ((rc = pb_scalars_next(&sc, &v)) > 0)
				if (r->ncomments < MAX_COMMENTS)
					r->comments[r->ncomments++] = v;
			if (rc < 0)
				return malformed(r, "Profile.comment", sc.r.p);
			break;
		default:
			break;	/* drop_frames, keep_frames, ...: not ours */
		}
	}
	if (rc < 0)
		return malformed(r, "Profile field", in.p);
	if (fill)
		return 0;
	return alloc_tables(r, nsamples, nmaps, nlocs, nfns, nstrs);
}

/* ---- mappings, functions ---- */

static int cmp_id(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;	/* id is first */

	return x < y ? -1 : x > y;
}

/* Sort records (each starting with its uint64 id) and refuse 0 or duplicates. */
static int sort_ids(struct reader *r, void *arr, size_t n, size_t size, const char *what)
{
	const uint8_t *a = arr;
	uint64_t prev = 0, id;
	size_t i;

	qsort(arr, n, size, cmp_id);
	for (i = 0; i < n; i++) {
		memcpy(&id, a + i * size, sizeof(id));
		if (id == 0)
			return rfail(r, -EINVAL, "corrupt pprof: %s with id 0", what);
		if (i && id == prev)
			return rfail(r, -EINVAL, "corrupt pprof: two %ss with id %llu", what,
				     (unsigned long long)id);
		prev = id;
	}
	return 0;
}

static const void *find_id(const void *arr, size_t n, size_t size, uint64_t id)
{
	const uint8_t *a = arr;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t v;

		memcpy(&v, a + mid * size, sizeof(v));
		if (v == id)
			return a + mid * size;
		if (v < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static uint8_t mapping_kind(const struct reader *r, uint64_t filename)
{
	int i;

	if (filename < r->nstrs) {
		struct span s = r->strs[filename];

		/* perf's converters write "[kernel.kallsyms]" with suffixes too. */
		if (s.len >= strlen(KERNEL_MAPPING) &&
		    memcmp(r->base + s.off, KERNEL_MAPPING, strlen(KERNEL_MAPPING)) == 0)
			return FRAME_KERNEL;
		if (span_is(r, s, KERNEL_MODULE))
			return FRAME_KERNEL;
		if (span_is(r, s, JIT_MAPPING))
			return FRAME_JIT;
		for (i = 0; i < NINTERP; i++)
			if (span_is(r, s, interp_mapping[i]))
				return FRAME_INTERP + i;
	}
	return FRAME_USER;
}

static int read_mappings(struct reader *r)
{
	uint32_t i;
	int rc;

	for (i = 0; i < r->nmaps; i++) {
		struct rmapping *m = &r->maps[i];
		const struct want w[] = {
			{ MAPPING_ID, &m->id },
			{ MAPPING_FILENAME, &m->filename },
			{ MAPPING_BUILD_ID, &m->build_id },
		};

		rc = read_varints(r, r->base + r->map_msgs[i].off, r->map_msgs[i].len, w, NWANT(w),
				  "Mapping");
		if (rc)
			return rc;
		if (check_str(r, m->filename, "Mapping.filename") ||
		    check_str(r, m->build_id, "Mapping.build_id"))
			return -EINVAL;
		m->kind = mapping_kind(r, m->filename);
	}
	rc = sort_ids(r, r->maps, r->nmaps, sizeof(*r->maps), "mapping");
	if (rc)
		return rc;
	/* Build-ids of the native binaries, for symbolization later. */
	for (i = 0; i < r->nmaps; i++) {
		const struct rmapping *m = &r->maps[i];
		uint32_t path, bid;

		if (m->kind != FRAME_USER || !m->filename || !m->build_id)
			continue;
		if (rstr(r, m->filename, &path) || rstr(r, m->build_id, &bid))
			return -ENOMEM;
		if (path && bid &&
		    profile_module(r->p, profile_s(r->p, path), profile_s(r->p, bid)))
			return rfail(r, -ENOMEM, "out of memory reading pprof");
	}
	return 0;
}

static int read_functions(struct reader *r)
{
	uint32_t i;
	int rc;

	for (i = 0; i < r->nfns; i++) {
		struct rfunction *fn = &r->fns[i];
		const struct want w[] = {
			{ FUNCTION_ID, &fn->id },
			{ FUNCTION_NAME, &fn->name },
			{ FUNCTION_SYSTEM_NAME, &fn->system_name },
			{ FUNCTION_FILENAME, &fn->filename },
		};

		rc = read_varints(r, r->base + r->fn_msgs[i].off, r->fn_msgs[i].len, w, NWANT(w),
				  "Function");
		if (rc)
			return rc;
		if (check_str(r, fn->name, "Function.name") ||
		    check_str(r, fn->system_name, "Function.system_name") ||
		    check_str(r, fn->filename, "Function.filename"))
			return -EINVAL;
	}
	return sort_ids(r, r->fns, r->nfns, sizeof(*r->fns), "function");
}

/* ---- locations ---- */

struct rline {
	uint64_t function_id;
	int64_t line;
};

static int push_lframe(struct reader *r, const struct prof_frame *f)
{
	uint32_t idx = profile_frame(r->p, f);
	size_t cap = r->caplframes;

	if (idx == UINT32_MAX ||
	    array_reserve((void **)&r->lframes, &cap, r->nlframes + 1, sizeof(*r->lframes), 64))
		return rfail(r, -ENOMEM, "out of memory reading pprof locations");
	r->caplframes = cap;
	r->lframes[r->nlframes++] = idx;
	return 0;
}

/* "basename+0xADDR" (as resolve.c names an unsymbolized frame) or "0xADDR". */
static int address_name(struct reader *r, const struct rmapping *m, uint64_t addr,
			uint32_t *out)
{
	char buf[512];
	const char *base = "";
	int baselen = 0;

	if (m && m->filename) {
		struct span s = r->strs[m->filename];
		const char *path = (const char *)r->base + s.off;
		const char *slash = memrchr(path, '/', s.len);

		base = slash ? slash + 1 : path;
		baselen = (int)(s.len - (base - path));
		if (baselen > 256)
			baselen = 256;
	}
	if (baselen)
		snprintf(buf, sizeof(buf), "%.*s+0x%llx", baselen, base, (unsigned long long)addr);
	else
		snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)addr);
	return intern(r, buf, out);
}

static bool is_marker_name(const struct reader *r, uint64_t name)
{
	struct span s;

	if (name >= r->nstrs)
		return false;
	s = r->strs[name];
	return s.len >= 2 && r->base[s.off] == '[' && r->base[s.off + s.len - 1] == ']';
}

/*
 * The frames of one Location, outermost first: its lines reversed, all but
 * the caller (the last line) marked inlined for native code.
 */
static int location_frames(struct reader *r, const struct rmapping *m, uint64_t addr,
			   const struct rline *lines, size_t nlines)
{
	uint8_t kind = m ? m->kind : FRAME_USER;
	struct prof_frame fr = { 0 };
	uint32_t module = 0;
	size_t i;
	int rc;

	if (!m && nlines == 1) {
		const struct rfunction *fn = find_id(r->fns, r->nfns, sizeof(*r->fns),
						     lines[0].function_id);

		if (fn && is_marker_name(r, fn->name))
			kind = FRAME_MARK;
	}
	if (kind == FRAME_USER && m && (rc = rstr(r, m->filename, &module)))
		return rc;
	if (kind == FRAME_KERNEL && (rc = intern(r, KERNEL_MODULE, &module)))
		return rc;
	if (!nlines) {
		/* Not symbolized: name it by its address. */
		fr.kind = kind == FRAME_MARK ? FRAME_USER : kind;
		fr.module = module;
		fr.addr = addr;
		rc = address_name(r, m, addr, &fr.name);
		return rc ? rc : push_lframe(r, &fr);
	}
	for (i = nlines; i-- > 0;) {
		const struct rfunction *fn = find_id(r->fns, r->nfns, sizeof(*r->fns),
						     lines[i].function_id);
		uint32_t file = 0;

		if (!fn)
			return rfail(r, -EINVAL,
				     "corrupt pprof: a location refers to missing function %llu",
				     (unsigned long long)lines[i].function_id);
		memset(&fr, 0, sizeof(fr));
		fr.kind = kind;
		if (kind == FRAME_USER && i != nlines - 1)
			fr.kind = FRAME_INLINED;
		fr.addr = kind == FRAME_MARK ? 0 : addr;
		fr.module = module;
		fr.line = lines[i].line > 0 && lines[i].line <= UINT32_MAX ? lines[i].line : 0;
		rc = rstr(r, fn->name ? fn->name : fn->system_name, &fr.name);
		if (!rc && !fr.name)
			rc = address_name(r, m, addr, &fr.name);
		if (!rc)
			rc = rstr(r, fn->filename, &file);
		if (rc)
			return rc;
		/* The writer's home for a kernel module's name (see function_file). */
		if (kind == FRAME_KERNEL && is_marker_name(r, fn->filename))
			fr.module = file;
		else if (kind != FRAME_MARK)
			fr.file = file;
		/* --fetch's values: a values frame again, whose pairs are labels */
		if (kind == FRAME_MARK && fr.name < r->p->nstr && values_frame_is(r->p->str[fr.name]) &&
		    (rc = intern(r, FRAME_VALUES_MODULE, &fr.module)))
			return rc;
		rc = push_lframe(r, &fr);
		if (rc)
			return rc;
	}
	return 0;
}

/* One Line of a Location: its function's id and its line number. */
static int read_line(struct reader *r, const struct pb_field *f, struct rline *l)
{
	uint64_t line = 0;
	const struct want w[] = { { LINE_FUNCTION_ID, &l->function_id }, { LINE_LINE, &line } };
	int rc;

	l->function_id = 0;
	rc = read_varints(r, f->data, f->len, w, NWANT(w), "Line");
	l->line = (int64_t)line;
	return rc;
}

static int read_locations(struct reader *r)
{
	struct rline *lines = NULL;
	size_t nlines, caplines = 0;
	struct pb_reader in;
	struct pb_field f;
	uint32_t i;
	int rc = 0;

	for (i = 0; i < r->nlocs; i++) {
		struct rlocation *loc = &r->locs[i];
		uint64_t mapping_id = 0, addr = 0;
		const struct rmapping *m = NULL;

		nlines = 0;
		pb_reader_init(&in, r->base + r->loc_msgs[i].off, r->loc_msgs[i].len);
		while ((rc = pb_next(&in, &f)) > 0) {
			size_t cap;

			if (f.num == LOCATION_ID || f.num == LOCATION_MAPPING_ID ||
			    f.num == LOCATION_ADDRESS) {
				if ((rc = need_varint(r, &f, "Location field")))
					goto out;
				if (f.num == LOCATION_ID)
					loc->id = f.v;
				else if (f.num == LOCATION_MAPPING_ID)
					mapping_id = f.v;
				else
					addr = f.v;
				continue;
			}
			if (f.num != LOCATION_LINE)
				continue;
			if ((rc = need_len(r, &f, "Location.line")))
				goto out;
			cap = caplines;
			if (array_reserve((void **)&lines, &cap, nlines + 1, sizeof(*lines), 64)) {
				rc = rfail(r, -ENOMEM, "out of memory reading pprof locations");
				goto out;
			}
			caplines = cap;
			rc = read_line(r, &f, &lines[nlines++]);
			if (rc)
				goto out;
		}
		if (rc < 0) {
			rc = malformed(r, "Location", in.p);
			goto out;
		}
		if (mapping_id) {
			m = find_id(r->maps, r->nmaps, sizeof(*r->maps), mapping_id);
			if (!m) {
				rc = rfail(r, -EINVAL,
					   "corrupt pprof: location %llu refers to missing mapping %llu",
					   (unsigned long long)loc->id,
					   (unsigned long long)mapping_id);
				goto out;
			}
		}
		if (r->nlframes > UINT32_MAX - nlines - 1) {
			rc = rfail(r, -E2BIG, "pprof too large: too many location lines");
			goto out;
		}
		loc->first = r->nlframes;
		rc = location_frames(r, m, addr, lines, nlines);
		if (rc)
			goto out;
		loc->n = r->nlframes - loc->first;
	}
	rc = sort_ids(r, r->locs, r->nlocs, sizeof(*r->locs), "location");
out:
	free(lines);
	return rc;
}

/* ---- samples ---- */

static int read_label(struct reader *r, const struct pb_field *f, struct prof_sample *s)
{
	uint64_t key = 0, str = 0, num = 0;
	const struct want w[] = { { LABEL_KEY, &key }, { LABEL_STR, &str }, { LABEL_NUM, &num } };
	int rc;

	rc = read_varints(r, f->data, f->len, w, NWANT(w), "Label");
	if (rc)
		return rc;
	if (check_str(r, key, "Label.key") || check_str(r, str, "Label.str"))
		return -EINVAL;
	if (str_is(r, key, "pid"))
		s->pid = num <= UINT32_MAX ? num : 0;
	else if (str_is(r, key, "tid"))
		s->tid = num <= UINT32_MAX ? num : 0;
	else if (str_is(r, key, "comm"))
		return rstr(r, str, &s->comm);
	else if (str_is(r, key, "event"))
		return rstr(r, str, &s->event);
	return 0;
}

static int read_sample(struct reader *r, struct span msg)
{
	struct prof_sample s = { 0 };
	size_t nids = 0, cap, k;
	uint32_t nframes = 0;
	struct pb_scalars sc;
	struct pb_reader in;
	struct pb_field f;
	bool have_value = false;
	uint32_t nvalues = 0;
	uint64_t v;
	int rc;

	pb_reader_init(&in, r->base + msg.off, msg.len);
	while ((rc = pb_next(&in, &f)) > 0) {
		switch (f.num) {
		case SAMPLE_LOCATION_ID:
			if (pb_scalars_init(&sc, &f))
				return rfail(r, -EINVAL, "corrupt pprof: bad Sample.location_id");
			while ((rc = pb_scalars_next(&sc, &v)) > 0) {
				cap = r->capids;
				if (array_reserve((void **)&r->ids, &cap, nids + 1, sizeof(*r->ids), 64))
					return rfail(r, -ENOMEM, "out of memory reading pprof");
				r->capids = cap;
				r->ids[nids++] = v;
			}
			if (rc < 0)
				return malformed(r, "Sample.location_id", sc.r.p);
			break;
		case SAMPLE_VALUE:
			if (pb_scalars_init(&sc, &f))
				return rfail(r, -EINVAL, "corrupt pprof: bad Sample.value");
			while ((rc = pb_scalars_next(&sc, &v)) > 0) {
				/*
				 * value[0], whatever its type.  Our counts cannot be
				 * negative (a diff profile's are: read as 0); above
				 * 2^53 they are not a count anything wrote.
				 */
				if (!have_value && (int64_t)v > (int64_t)PROFILE_MAX_COUNT)
					return rfail(r, -ERANGE, "pprof sample value out of "
						     "range (at most 2^53)");
				if (!have_value)
					s.count = (int64_t)v > 0 ? v : 0;
				else if (r->objects && nvalues == 1)
					s.objects = (int64_t)v <= 0 ? 0 :
						    v < PROFILE_MAX_COUNT / PROFILE_OBJECT_ONE ?
						    v * PROFILE_OBJECT_ONE : PROFILE_MAX_COUNT;
				have_value = true;
				nvalues++;
			}
			if (rc < 0)
				return malformed(r, "Sample.value", sc.r.p);
			break;
		case SAMPLE_LABEL:
			if (need_len(r, &f, "Sample.label"))
				return -EINVAL;
			rc = read_label(r, &f, &s);
			if (rc)
				return rc;
			break;
		}
	}
	if (rc < 0)
		return malformed(r, "Sample", in.p);
	/* Leaf first in pprof, outermost first here. */
	for (k = nids; k-- > 0;) {
		const struct rlocation *loc = find_id(r->locs, r->nlocs, sizeof(*r->locs),
						      r->ids[k]);

		if (!loc)
			return rfail(r, -EINVAL,
				     "corrupt pprof: a sample refers to missing location %llu",
				     (unsigned long long)r->ids[k]);
		if (loc->n > MAX_SAMPLE_FRAMES - nframes)
			return rfail(r, -E2BIG, "pprof sample has more than %u frames",
				     MAX_SAMPLE_FRAMES);
		cap = r->capsframes;
		if (array_reserve((void **)&r->sframes, &cap, nframes + loc->n,
				  sizeof(*r->sframes), 64))
			return rfail(r, -ENOMEM, "out of memory reading pprof");
		r->capsframes = cap;
		memcpy(r->sframes + nframes, r->lframes + loc->first,
		       loc->n * sizeof(*r->sframes));
		nframes += loc->n;
	}
	r->total_frames += nframes;
	if (r->total_frames > MAX_TOTAL_FRAMES)
		return rfail(r, -E2BIG, "pprof samples hold more than %u frames in all",
			     MAX_TOTAL_FRAMES);
	/* A sample without frames still needs a non-NULL array (for memcpy). */
	if (profile_add_sample(r->p, nframes ? r->sframes : &nframes, nframes, &s))
		return rfail(r, -ENOMEM, "out of memory reading pprof samples");
	return 0;
}

static int read_description(struct reader *r)
{
	struct profile *p = r->p;
	char *title = NULL;
	size_t len = 0;
	uint32_t i;
	int rc = 0;

	p->time_ns = r->time_ns;
	p->duration_ns = r->duration_ns;
	if (r->period && r->have_period_unit && str_is(r, r->period_unit, "nanoseconds"))
		p->period_ns = r->period;
	/* Time (nanoseconds) and bytes are kept as such; "count" and the rest read as counts. */
	if (r->have_value_type &&
	    (str_is(r, r->value_unit, "nanoseconds") || str_is(r, r->value_unit, "bytes")) &&
	    !check_str(r, r->value_type, "ValueType.type")) {
		rc = rstr(r, r->value_type, &p->value_type);
		if (!rc)
			rc = rstr(r, r->value_unit, &p->value_unit);
		if (!rc && r->objects)
			rc = rstr(r, r->objects_type, &p->objects_type);
		if (rc)
			return rc;
	}
	/* Several comments become one title, joined by "; ". */
	for (i = 0; i < r->ncomments; i++) {
		struct span s;
		char *t;

		if (check_str(r, r->comments[i], "Profile.comment")) {
			free(title);
			return -EINVAL;
		}
		s = r->strs[r->comments[i]];
		if (!s.len)
			continue;
		t = realloc(title, len + s.len + 3);
		if (!t) {
			free(title);
			return rfail(r, -ENOMEM, "out of memory reading pprof");
		}
		title = t;
		if (len) {
			memcpy(title + len, "; ", 2);
			len += 2;
		}
		memcpy(title + len, r->base + s.off, s.len);
		len += s.len;
		title[len] = '\0';
	}
	if (title) {
		/* Embedded NULs end the title early: fine for a title. */
		rc = intern(r, title, &p->title);
		free(title);
	}
	return rc;
}

static void reader_free(struct reader *r)
{
	free(r->strs);
	free(r->strmap);
	free(r->sample_msgs);
	free(r->map_msgs);
	free(r->loc_msgs);
	free(r->fn_msgs);
	free(r->maps);
	free(r->fns);
	free(r->locs);
	free(r->lframes);
	free(r->ids);
	free(r->sframes);
}

int pprof_read(const uint8_t *data, size_t len, struct profile *p, char *err, size_t errlen)
{
	struct reader r = { .p = p, .err = err, .errlen = errlen };
	uint8_t *plain = NULL;
	size_t i;
	int rc;

	if (errlen)
		err[0] = '\0';
	if (!len)
		return rfail(&r, -EINVAL, "empty pprof file");
	if (is_gzip(data, len)) {
		rc = gunzip(&r, data, len, &plain, &r.size);
		if (rc)
			return rc;
		r.base = plain;
	} else {
		if (len > MAX_DECOMPRESSED)
			return rfail(&r, -E2BIG, "pprof larger than %u MiB: refusing it",
				     MAX_DECOMPRESSED >> 20);
		r.base = data;
		r.size = len;
	}
	rc = scan_top(&r, false);
	if (!rc)
		rc = scan_top(&r, true);
	if (!rc && (r.nstrs == 0 || r.strs[0].len != 0))
		rc = rfail(&r, -EINVAL, "corrupt pprof: string_table[0] must be the empty string%s",
			   r.nstrs ? "" : " (no string table: is this a pprof file?)");
	if (!rc)
		rc = read_mappings(&r);
	if (!rc)
		rc = read_functions(&r);
	if (!rc)
		rc = read_locations(&r);
	r.objects = !rc && r.ntypes >= 2 && str_is(&r, r.value_unit, "bytes") &&
		    str_is(&r, r.objects_unit, "count") &&
		    (str_is(&r, r.objects_type, "alloc_objects") ||
		     str_is(&r, r.objects_type, "inuse_objects"));
	for (i = 0; !rc && i < r.nsamples; i++)
		rc = read_sample(&r, r.sample_msgs[i]);
	if (!rc)
		rc = read_description(&r);
	reader_free(&r);
	free(plain);
	return rc;
}
