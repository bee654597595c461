// SPDX-License-Identifier: GPL-2.0
/*
 * pprof writer.  The model (profile.h) keeps stacks outermost first with
 * one frame per inlined function; profile.proto keeps them leaf first with
 * inlined functions as extra Lines of one Location, so the writer regroups
 * them.  The kind conventions are in pprof.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "formats/pprof.h"
#include "formats/pprof_proto.h"
#include "formats/protobuf.h"
#include "profile/values_frame.h"

#define FLUSH_AT (256 * 1024)

enum { MAP_HAS_FUNCTIONS = 1, MAP_HAS_FILENAMES = 2, MAP_HAS_LINES = 4, MAP_HAS_INLINE = 8 };

struct wmapping {
	uint32_t filename, build_id;	/* string indices */
	uint8_t flags;
};

/* What a function and a location both begin with: where it is indexed, and its id. */
struct wrow {
	struct hmap_node node;
	uint32_t id;
};

/* Functions or locations, each once, numbered from 1 in the order first met. */
struct wtable {
	struct hmap index;
	struct wrow **rows;	/* rows[id - 1] */
	uint32_t n;
	size_t cap;
};

struct wfunc {
	struct wrow row;
	uint32_t name, file;
};

struct wloc {
	struct wrow row;
	uint32_t first, n;	/* group in w->gframes, outermost first */
};

struct writer {
	const struct profile *p;
	FILE *f;
	z_stream z;
	struct pb_buf out;	/* top-level bytes waiting for deflate */
	struct pb_buf msg, sub;	/* scratch for nested messages */
	/* strings beyond the profile's own, appended to the table */
	const char *extra[16 + NINTERP];	/* writer_strings' and the interpreters' */
	uint32_t nextra;
	/* --fetch's values frames (profile/values_frame.h): their pairs as labels */
	uint32_t s_values;		/* the profile's FRAME_VALUES_MODULE string, 0: none */
	struct hmap lindex;		/* label strings, after the extra ones */
	char **lstr;
	uint32_t nlstr;
	size_t caplstr;
	uint32_t s_samples, s_count, s_cpu, s_ns, s_pid, s_tid, s_comm, s_event;
	uint32_t s_kernel, s_jit, s_interp[NINTERP];
	/* mappings: ids are index + 1 */
	struct wmapping *maps;
	uint32_t nmaps;
	uint32_t *module_map;	/* module string -> mapping id (0: none) */
	uint32_t kernel_map, jit_map, interp_map[NINTERP];
	struct wtable fns, locs;
	uint32_t *gframes;	/* frames of every location group */
	size_t ngframes, capgframes;
	uint64_t *ids;		/* one sample's location ids */
	size_t capids;
};

/*
 * Index of s in the string table we write: the profile's own table comes
 * first unchanged (so frame string indices need no remapping), then the
 * few fixed strings the profile lacks.
 */
static uint32_t wstr_lookup(struct writer *w, const char *s)
{
	const struct profile *p = w->p;
	uint32_t i;

	for (i = 1; i < p->nstr; i++)
		if (p->str[i][0] == s[0] && strcmp(p->str[i], s) == 0)
			return i;
	for (i = 0; i < w->nextra; i++)
		if (strcmp(w->extra[i], s) == 0)
			return p->nstr + i;
	w->extra[w->nextra] = s;
	return p->nstr + w->nextra++;
}

static void writer_strings(struct writer *w)
{
	int i;

	w->s_samples = wstr_lookup(w, "samples");
	w->s_count = wstr_lookup(w, "count");
	w->s_cpu = wstr_lookup(w, "cpu");
	w->s_ns = wstr_lookup(w, "nanoseconds");
	w->s_pid = wstr_lookup(w, "pid");
	w->s_tid = wstr_lookup(w, "tid");
	w->s_comm = wstr_lookup(w, "comm");
	w->s_event = wstr_lookup(w, "event");
	w->s_kernel = wstr_lookup(w, KERNEL_MAPPING);
	for (i = 0; i < NINTERP; i++)
		w->s_interp[i] = wstr_lookup(w, interp_mapping[i]);
}

/* Not FRAME_JIT: its addresses are a process's, in no file. */
static bool native_kind(uint8_t kind)
{
	return kind == FRAME_USER || kind == FRAME_INLINED || kind >= FRAME_KIND_NR;
}

static uint32_t frame_mapping(const struct writer *w, const struct prof_frame *f)
{
	if (f->kind == FRAME_KERNEL)
		return w->kernel_map;
	if (f->kind == FRAME_JIT)
		return w->jit_map;
	if (f->kind == FRAME_MARK)
		return 0;
	if (frame_kind_is_interp(f->kind))
		return w->interp_map[f->kind - FRAME_INTERP];
	return f->module < w->p->nstr ? w->module_map[f->module] : 0;
}

static int add_mapping(struct writer *w, uint32_t filename, uint32_t build_id)
{
	struct wmapping *m = realloc(w->maps, (w->nmaps + 1) * sizeof(*m));

	if (!m)
		return -ENOMEM;
	w->maps = m;
	m[w->nmaps].filename = filename;
	m[w->nmaps].build_id = build_id;
	m[w->nmaps].flags = 0;
	return ++w->nmaps;
}

/*
 * One Mapping per native module (those with build-ids too, so build-ids
 * survive even without frames), one for the kernel, one per interpreter.
 */
static int writer_mappings(struct writer *w)
{
	const struct profile *p = w->p;
	uint32_t i;
	int id;

	w->module_map = calloc(p->nstr ? p->nstr : 1, sizeof(*w->module_map));
	if (!w->module_map)
		return -ENOMEM;
	for (i = 0; i < p->nmodules; i++) {
		const struct prof_module *m = &p->modules[i];

		if (!m->path || m->path >= p->nstr || w->module_map[m->path])
			continue;
		id = add_mapping(w, m->path, m->build_id < p->nstr ? m->build_id : 0);
		if (id < 0)
			return id;
		w->module_map[m->path] = id;
	}
	for (i = 0; i < p->nframes; i++) {
		const struct prof_frame *f = &p->frames[i];
		uint32_t *slot = NULL;
		uint32_t name = 0;
		struct wmapping *m;

		if (f->kind == FRAME_KERNEL) {
			slot = &w->kernel_map;
			name = w->s_kernel;
		} else if (f->kind == FRAME_JIT) {
			/* Its string only in profiles with JIT frames: others stay as they were. */
			if (!w->s_jit)
				w->s_jit = wstr_lookup(w, JIT_MAPPING);
			slot = &w->jit_map;
			name = w->s_jit;
		} else if (frame_kind_is_interp(f->kind)) {
			slot = &w->interp_map[f->kind - FRAME_INTERP];
			name = w->s_interp[f->kind - FRAME_INTERP];
		} else if (native_kind(f->kind) && f->module && f->module < p->nstr) {
			slot = &w->module_map[f->module];
			name = f->module;
		}
		if (!slot)
			continue;
		if (!*slot) {
			id = add_mapping(w, name, 0);
			if (id < 0)
				return id;
			*slot = id;
		}
		m = &w->maps[*slot - 1];
		if (f->name)
			m->flags |= MAP_HAS_FUNCTIONS;
		if (f->file)
			m->flags |= MAP_HAS_FILENAMES;
		if (f->line)
			m->flags |= MAP_HAS_LINES;
		if (f->kind == FRAME_INLINED)
			m->flags |= MAP_HAS_INLINE;
	}
	return 0;
}

/* Hand the top-level bytes gathered so far to deflate and on to the file. */
static int writer_flush(struct writer *w, int flush)
{
	uint8_t chunk[64 * 1024];
	int rc;

	if (w->out.oom)
		return -ENOMEM;
	w->z.next_in = w->out.data;
	w->z.avail_in = w->out.len;
	do {
		w->z.next_out = chunk;
		w->z.avail_out = sizeof(chunk);
		rc = deflate(&w->z, flush);
		if (rc == Z_STREAM_ERROR)
			return -EINVAL;
		if (fwrite(chunk, 1, sizeof(chunk) - w->z.avail_out, w->f) !=
		    sizeof(chunk) - w->z.avail_out)
			return -EIO;
	} while (w->z.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
	pb_buf_reset(&w->out);
	return 0;
}

/* Append a nested message (in b) as top-level field; flush when big. */
static int emit(struct writer *w, uint32_t field, struct pb_buf *b)
{
	if (b->oom)
		return -ENOMEM;
	pb_put_bytes(&w->out, field, b->data, b->len);
	pb_buf_reset(b);
	return w->out.len >= FLUSH_AT ? writer_flush(w, Z_NO_FLUSH) : 0;
}

static int emit_value_type(struct writer *w, uint32_t field, uint32_t type, uint32_t unit)
{
	pb_put_uint(&w->msg, VALUETYPE_TYPE, type);
	pb_put_uint(&w->msg, VALUETYPE_UNIT, unit);
	return emit(w, field, &w->msg);
}

struct group_key {
	const uint32_t *frames;
	uint32_t n;
	const struct writer *w;
};

static bool loc_eq(const struct hmap_node *node, const void *key)
{
	const struct wloc *l = (const struct wloc *)node;
	const struct group_key *k = key;

	return l->n == k->n &&
	       memcmp(&k->w->gframes[l->first], k->frames, k->n * sizeof(*k->frames)) == 0;
}


/*
 * Location id of a group of frames: one frame, or a native frame followed
 * (outermost first) by the frames inlined into it at the same address.
 * Keying on the frames themselves (not just module+address) keeps every
 * name exact even if two symbolizations of one address differed.
 */
/* A new row of size bytes, indexed under h and numbered next; NULL if out of memory or ids. */
static void *wtable_add(struct wtable *t, uint64_t h, size_t size)
{
	struct wrow *row;

	if (t->n == UINT32_MAX - 1 ||
	    array_reserve((void **)&t->rows, &t->cap, t->n + 1, sizeof(*t->rows), 64))
		return NULL;
	row = malloc(size);
	if (!row)
		return NULL;
	row->id = ++t->n;
	t->rows[row->id - 1] = row;
	hmap_insert(&t->index, &row->node, h);
	return row;
}

static int location_of(struct writer *w, const uint32_t *frames, uint32_t n, uint32_t *id)
{
	struct group_key key = { frames, n, w };
	uint64_t h = hash_bytes(frames, n * sizeof(*frames), n);
	struct wloc *l = (struct wloc *)hmap_find(&w->locs.index, h, loc_eq, &key);
	size_t cap;

	if (l) {
		*id = l->row.id;
		return 0;
	}
	cap = w->capgframes;
	if (array_reserve((void **)&w->gframes, &cap, w->ngframes + n, sizeof(*w->gframes), 64))
		return -ENOMEM;
	w->capgframes = cap;
	l = wtable_add(&w->locs, h, sizeof(*l));
	if (!l)
		return -ENOMEM;
	memcpy(&w->gframes[w->ngframes], frames, n * sizeof(*frames));
	l->first = w->ngframes;
	l->n = n;
	w->ngframes += n;
	*id = l->row.id;
	return 0;
}

struct fn_key {
	uint32_t name, file;
};

static bool fn_eq(const struct hmap_node *node, const void *key)
{
	const struct wfunc *f = (const struct wfunc *)node;
	const struct fn_key *k = key;

	return f->name == k->name && f->file == k->file;
}

static int function_of(struct writer *w, uint32_t name, uint32_t file, uint32_t *id)
{
	struct fn_key key = { name, file };
	uint64_t h = hash_u64(name | (uint64_t)file << 32);
	struct wfunc *f = (struct wfunc *)hmap_find(&w->fns.index, h, fn_eq, &key);

	if (!f) {
		f = wtable_add(&w->fns, h, sizeof(*f));
		if (!f)
			return -ENOMEM;
		f->name = name;
		f->file = file;
	}
	*id = f->row.id;
	return 0;
}

static const struct prof_frame *wframe(const struct writer *w, uint32_t i)
{
	static const struct prof_frame unknown = { .kind = FRAME_MARK };

	return i < w->p->nframes ? &w->p->frames[i] : &unknown;
}

/* How many frames from frames[0] form one Location (see location_of). */
static uint32_t group_len(const struct writer *w, const uint32_t *frames, uint32_t n)
{
	const struct prof_frame *head = wframe(w, frames[0]), *f;
	uint32_t j = 1;

	if (!native_kind(head->kind))
		return 1;
	for (; j < n; j++) {
		f = wframe(w, frames[j]);
		if (f->kind != FRAME_INLINED || f->module != head->module || f->addr != head->addr)
			break;
	}
	return j;
}

struct lstr_node {
	struct hmap_node node;
	uint32_t idx;
	const char *s;
	size_t len;
};

struct lstr_key {
	const char *s;
	size_t len;
};

static bool lstr_eq(const struct hmap_node *node, const void *key)
{
	const struct lstr_node *n = (const struct lstr_node *)node;
	const struct lstr_key *k = key;

	return n->len == k->len && memcmp(n->s, k->s, k->len) == 0;
}

/* A label's key or value (len bytes at s) in the string table; 0 if out of memory. */
static uint32_t label_str(struct writer *w, const char *s, size_t len)
{
	struct lstr_key key = { s, len };
	uint64_t h = hash_bytes(s, len, 0x1abe1);
	struct lstr_node *n;
	bool added;
	char *copy;

	n = (struct lstr_node *)hmap_find_or_add(&w->lindex, h, lstr_eq, &key, sizeof(*n),
						 &added);
	if (!n)
		return 0;
	if (!added)
		return n->idx;
	copy = strndup(s, len);
	if (!copy || array_reserve((void **)&w->lstr, &w->caplstr, w->nlstr + 1,
				   sizeof(*w->lstr), 16)) {
		free(copy);
		hmap_remove(&w->lindex, &n->node);
		free(n);
		return 0;
	}
	w->lstr[w->nlstr] = copy;
	n->s = copy;
	n->len = len;
	n->idx = w->p->nstr + w->nextra + w->nlstr++;
	return n->idx;
}

/* A value printed as a number (10, -3, 0x7ffe...): true and *v. */
static bool label_number(const char *s, size_t len, int64_t *v)
{
	char buf[24], *end;

	if (!len || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	if (buf[0] == '0' && buf[1] == 'x')
		*v = (int64_t)strtoull(buf + 2, &end, 16);
	else
		*v = strtoll(buf, &end, 10);
	return !errno && end != buf && !*end && (buf[0] != '0' || buf[1] != 'x' || buf[2]);
}

/* A values frame's pairs as the sample's labels (-tagfocus, -tags): r->len = "10". */
static void write_value_labels(struct writer *w, const struct prof_sample *s)
{
	struct value_pair v[VALUE_PAIRS_MAX];
	uint32_t i, key, val;
	int64_t num;
	int k, n;

	for (i = 0; w->s_values && i < s->nframes; i++) {
		const struct prof_frame *f = &w->p->frames[s->frames[i]];

		if (f->kind != FRAME_MARK || f->module != w->s_values || f->name >= w->p->nstr)
			continue;
		n = values_frame_pairs(w->p->str[f->name], v, VALUE_PAIRS_MAX);
		for (k = 0; k < n; k++) {
			key = label_str(w, v[k].key, v[k].keylen);
			if (!key)
				continue;
			/* A number is a numeric label: -tagfocus takes ranges of it */
			if (!v[k].quoted && label_number(v[k].val, v[k].vallen, &num)) {
				pb_put_uint(&w->sub, LABEL_KEY, key);
				pb_put_uint(&w->sub, LABEL_NUM, (uint64_t)num);
			} else {
				val = label_str(w, v[k].val, v[k].vallen);
				if (!val)
					continue;
				pb_put_uint(&w->sub, LABEL_KEY, key);
				pb_put_uint(&w->sub, LABEL_STR, val);
			}
			pb_put_bytes(&w->msg, SAMPLE_LABEL, w->sub.data, w->sub.len);
			pb_buf_reset(&w->sub);
		}
	}
}

static int write_sample(struct writer *w, const struct prof_sample *s)
{
	const struct profile *p = w->p;
	size_t nids = 0, cap, k;
	uint32_t i, len, id;
	int rc;

	for (i = 0; i < s->nframes; i += len) {
		len = group_len(w, s->frames + i, s->nframes - i);
		rc = location_of(w, s->frames + i, len, &id);
		if (rc)
			return rc;
		cap = w->capids;
		if (array_reserve((void **)&w->ids, &cap, nids + 1, sizeof(*w->ids), 64))
			return -ENOMEM;
		w->capids = cap;
		w->ids[nids++] = id;
	}
	/* pprof wants the leaf first: the reverse of our order. */
	for (k = 0; k < nids; k++)
		pb_put_varint(&w->sub, w->ids[nids - 1 - k]);
	pb_put_bytes(&w->msg, SAMPLE_LOCATION_ID, w->sub.data, w->sub.len);
	pb_buf_reset(&w->sub);
	/* pprof values are int64: a count that would read back negative is capped. */
	pb_put_varint(&w->sub, s->count < INT64_MAX ? s->count : INT64_MAX);
	/* Allocations' objects, fixed point inside, whole numbers in pprof (rounded). */
	if (p->objects_type)
		pb_put_varint(&w->sub, (s->objects + PROFILE_OBJECT_ONE / 2) / PROFILE_OBJECT_ONE);
	if (p->period_ns && !p->value_unit)
		pb_put_varint(&w->sub, s->count < INT64_MAX / p->period_ns ?
				       s->count * p->period_ns : INT64_MAX);
	pb_put_bytes(&w->msg, SAMPLE_VALUE, w->sub.data, w->sub.len);
	pb_buf_reset(&w->sub);
	if (s->pid) {
		pb_put_uint(&w->sub, LABEL_KEY, w->s_pid);
		pb_put_uint(&w->sub, LABEL_NUM, s->pid);
		pb_put_bytes(&w->msg, SAMPLE_LABEL, w->sub.data, w->sub.len);
		pb_buf_reset(&w->sub);
	}
	if (s->tid) {
		pb_put_uint(&w->sub, LABEL_KEY, w->s_tid);
		pb_put_uint(&w->sub, LABEL_NUM, s->tid);
		pb_put_bytes(&w->msg, SAMPLE_LABEL, w->sub.data, w->sub.len);
		pb_buf_reset(&w->sub);
	}
	if (s->comm && s->comm < p->nstr) {
		pb_put_uint(&w->sub, LABEL_KEY, w->s_comm);
		pb_put_uint(&w->sub, LABEL_STR, s->comm);
		pb_put_bytes(&w->msg, SAMPLE_LABEL, w->sub.data, w->sub.len);
		pb_buf_reset(&w->sub);
	}
	if (s->event && s->event < p->nstr) {
		pb_put_uint(&w->sub, LABEL_KEY, w->s_event);
		pb_put_uint(&w->sub, LABEL_STR, s->event);
		pb_put_bytes(&w->msg, SAMPLE_LABEL, w->sub.data, w->sub.len);
		pb_buf_reset(&w->sub);
	}
	write_value_labels(w, s);
	if (w->sub.oom)
		return -ENOMEM;
	return emit(w, PROFILE_SAMPLE, &w->msg);
}

/*
 * Function.filename of a frame.  Kernel frames have no source file in our
 * model, so a module other than the kernel image ("[ext4]") travels there:
 * it is the one thing the single "[kernel.kallsyms]" mapping cannot hold.
 */
static uint32_t function_file(const struct writer *w, const struct prof_frame *f)
{
	const char *mod;

	if (f->kind != FRAME_KERNEL || f->file || !f->module)
		return f->file < w->p->nstr ? f->file : 0;
	mod = profile_s(w->p, f->module);
	return mod[0] == '[' && strcmp(mod, KERNEL_MODULE) != 0 ? f->module : 0;
}

static int write_locations(struct writer *w)
{
	uint32_t i, j, fid;
	int rc;

	for (i = 0; i < w->locs.n; i++) {
		const struct wloc *l = (const struct wloc *)w->locs.rows[i];
		const struct prof_frame *head = wframe(w, w->gframes[l->first]);
		uint32_t map = frame_mapping(w, head);

		pb_put_uint(&w->msg, LOCATION_ID, l->row.id);
		if (map)
			pb_put_uint(&w->msg, LOCATION_MAPPING_ID, map);
		if (head->addr && head->kind != FRAME_MARK)
			pb_put_uint(&w->msg, LOCATION_ADDRESS, head->addr);
		/* Lines innermost first: the caller (our outermost) comes last. */
		for (j = l->n; j-- > 0;) {
			const struct prof_frame *f = wframe(w, w->gframes[l->first + j]);

			rc = function_of(w, f->name < w->p->nstr ? f->name : 0, function_file(w, f),
					 &fid);
			if (rc)
				return rc;
			pb_put_uint(&w->sub, LINE_FUNCTION_ID, fid);
			if (f->line)
				pb_put_uint(&w->sub, LINE_LINE, f->line);
			pb_put_bytes(&w->msg, LOCATION_LINE, w->sub.data, w->sub.len);
			pb_buf_reset(&w->sub);
		}
		if (w->sub.oom)
			return -ENOMEM;
		rc = emit(w, PROFILE_LOCATION, &w->msg);
		if (rc)
			return rc;
	}
	return 0;
}

static int write_rest(struct writer *w)
{
	const struct profile *p = w->p;
	uint32_t i;
	int rc;

	for (i = 0; i < w->nmaps; i++) {
		const struct wmapping *m = &w->maps[i];

		pb_put_uint(&w->msg, MAPPING_ID, i + 1);
		pb_put_uint(&w->msg, MAPPING_FILENAME, m->filename);
		if (m->build_id)
			pb_put_uint(&w->msg, MAPPING_BUILD_ID, m->build_id);
		if (m->flags & MAP_HAS_FUNCTIONS)
			pb_put_uint(&w->msg, MAPPING_HAS_FUNCTIONS, 1);
		if (m->flags & MAP_HAS_FILENAMES)
			pb_put_uint(&w->msg, MAPPING_HAS_FILENAMES, 1);
		if (m->flags & MAP_HAS_LINES)
			pb_put_uint(&w->msg, MAPPING_HAS_LINE_NUMBERS, 1);
		if (m->flags & MAP_HAS_INLINE)
			pb_put_uint(&w->msg, MAPPING_HAS_INLINE_FRAMES, 1);
		rc = emit(w, PROFILE_MAPPING, &w->msg);
		if (rc)
			return rc;
	}
	rc = write_locations(w);
	if (rc)
		return rc;
	for (i = 0; i < w->fns.n; i++) {
		const struct wfunc *f = (const struct wfunc *)w->fns.rows[i];

		/* No start_line: we do not know where functions begin. */
		pb_put_uint(&w->msg, FUNCTION_ID, f->row.id);
		pb_put_uint(&w->msg, FUNCTION_NAME, f->name);
		pb_put_uint(&w->msg, FUNCTION_SYSTEM_NAME, f->name);
		if (f->file)
			pb_put_uint(&w->msg, FUNCTION_FILENAME, f->file);
		rc = emit(w, PROFILE_FUNCTION, &w->msg);
		if (rc)
			return rc;
	}
	for (i = 0; i < p->nstr + w->nextra + w->nlstr; i++) {
		const char *s = i < p->nstr ? p->str[i] :
				i < p->nstr + w->nextra ? w->extra[i - p->nstr] :
				w->lstr[i - p->nstr - w->nextra];

		pb_put_string(&w->out, PROFILE_STRING_TABLE, s, strlen(s));
		if (w->out.len >= FLUSH_AT) {
			rc = writer_flush(w, Z_NO_FLUSH);
			if (rc)
				return rc;
		}
	}
	if (p->time_ns)
		pb_put_uint(&w->out, PROFILE_TIME_NANOS, p->time_ns);
	if (p->duration_ns)
		pb_put_uint(&w->out, PROFILE_DURATION_NANOS, p->duration_ns);
	if (p->period_ns) {
		rc = emit_value_type(w, PROFILE_PERIOD_TYPE, w->s_cpu, w->s_ns);
		if (rc)
			return rc;
		pb_put_uint(&w->out, PROFILE_PERIOD, p->period_ns);
	}
	if (p->title && p->title < p->nstr)
		pb_put_uint(&w->out, PROFILE_COMMENT, p->title);
	return w->out.oom ? -ENOMEM : 0;
}

int pprof_write(FILE *f, const struct profile *p)
{
	return pprof_write_level(f, p, Z_DEFAULT_COMPRESSION);
}

int pprof_write_level(FILE *f, const struct profile *p, int level)
{
	struct writer w = { .p = p, .f = f };
	size_t i;
	int rc;

	if (deflateInit2(&w.z, level, Z_DEFLATED, 16 + MAX_WBITS, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	if (hmap_init(&w.fns.index, 1024) || hmap_init(&w.locs.index, 1024) ||
	    hmap_init(&w.lindex, 16)) {
		rc = -ENOMEM;
		goto out;
	}
	writer_strings(&w);
	rc = writer_mappings(&w);
	if (rc)
		goto out;
	/* The extra strings are all in now: the labels' come after them. */
	for (i = 1; i < p->nstr && !w.s_values; i++)
		if (strcmp(p->str[i], FRAME_VALUES_MODULE) == 0)
			w.s_values = i;
	/*
	 * Counted events: samples/count, and for cpu sampling cpu/nanoseconds
	 * beside it.  Time (off-CPU, wall): one value in its own unit.
	 */
	if (p->value_unit) {
		rc = emit_value_type(&w, PROFILE_SAMPLE_TYPE, p->value_type, p->value_unit);
		/*
		 * Allocations: bytes, then objects (Go writes objects first, and
		 * its tools show the last type unless told: default_sample_type
		 * names the bytes).
		 */
		if (!rc && p->objects_type) {
			rc = emit_value_type(&w, PROFILE_SAMPLE_TYPE, p->objects_type, w.s_count);
			pb_put_uint(&w.out, PROFILE_DEFAULT_SAMPLE_TYPE, p->value_type);
		}
	} else {
		rc = emit_value_type(&w, PROFILE_SAMPLE_TYPE, w.s_samples, w.s_count);
		if (!rc && p->period_ns)
			rc = emit_value_type(&w, PROFILE_SAMPLE_TYPE, w.s_cpu, w.s_ns);
	}
	for (i = 0; !rc && i < p->nsamples; i++)
		rc = write_sample(&w, &p->samples[i]);
	if (!rc)
		rc = write_rest(&w);
	if (!rc)
		rc = writer_flush(&w, Z_FINISH);
	if (!rc && fflush(f) != 0)
		rc = -EIO;
out:
	deflateEnd(&w.z);
	pb_buf_free(&w.out);
	pb_buf_free(&w.msg);
	pb_buf_free(&w.sub);
	hmap_free_all(&w.fns.index);
	hmap_free_all(&w.locs.index);
	hmap_free_all(&w.lindex);
	for (i = 0; i < w.nlstr; i++)
		free(w.lstr[i]);
	free(w.lstr);
	free(w.fns.rows);
	free(w.locs.rows);
	free(w.gframes);
	free(w.ids);
	free(w.maps);
	free(w.module_map);
	return rc;
}
