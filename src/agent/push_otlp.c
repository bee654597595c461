// SPDX-License-Identifier: GPL-2.0
/*
 * OpenTelemetry profiles: an ExportProfilesServiceRequest for OTLP/HTTP
 * (POST /v1development/profiles, application/x-protobuf), one
 * ResourceProfiles per series, all of them sharing the request's
 * ProfilesDictionary.
 *
 * Layout from open-telemetry/opentelemetry-proto at commit
 * ac2c4b5d1f3a6079de62f9afec860158ecc8af09 (v1.11.0 + 16; profiles last
 * changed by 7c63f7b8, 2026-06-26), vendored in tests/agent/proto/otel:
 *   collector/profiles/v1development/profiles_service.proto
 *     ExportProfilesServiceRequest { repeated ResourceProfiles resource_profiles = 1;
 *                                    ProfilesDictionary dictionary = 2; }
 *   profiles/v1development/profiles.proto
 *     ProfilesDictionary { mapping_table = 1; location_table = 2; function_table = 3;
 *                          link_table = 4; string_table = 5; attribute_table = 6;
 *                          stack_table = 7; }   (all repeated; [0] MUST be the zero value)
 *     ResourceProfiles { Resource resource = 1; repeated ScopeProfiles scope_profiles = 2; }
 *     ScopeProfiles { InstrumentationScope scope = 1; repeated Profile profiles = 2; }
 *     Profile { ValueType sample_type = 1; repeated Sample samples = 2;
 *               fixed64 time_unix_nano = 3; uint64 duration_nano = 4;
 *               ValueType period_type = 5; int64 period = 6; bytes profile_id = 7; }
 *     ValueType { int32 type_strindex = 1; int32 unit_strindex = 2; }
 *     Sample { int32 stack_index = 1; repeated int32 attribute_indices = 2;
 *              repeated int64 values = 4; }
 *     Mapping { int32 filename_strindex = 4; repeated int32 attribute_indices = 5; }
 *     Stack { repeated int32 location_indices = 1; }      (leaf first)
 *     Location { int32 mapping_index = 1; uint64 address = 2; repeated Line lines = 3;
 *                repeated int32 attribute_indices = 4; } (inlined first, caller last)
 *     Line { int32 function_index = 1; int64 line = 2; }
 *     Function { int32 name_strindex = 1; int32 filename_strindex = 3; }
 *     KeyValueAndUnit { int32 key_strindex = 1; AnyValue value = 2; }
 *     Link { bytes trace_id = 1; bytes span_id = 2; }
 *   common/v1/common.proto, resource/v1/resource.proto
 *     Resource { repeated KeyValue attributes = 1; }
 *     KeyValue { string key = 1; AnyValue value = 2; }
 *     AnyValue { string string_value = 1; int64 int_value = 3; ... }
 *     InstrumentationScope { string name = 1; }
 *
 * Attribute names are the semantic conventions': service.name, host.name,
 * container.id, k8s.pod.uid, process.pid, process.executable.name on the
 * resource; thread.name, thread.id on samples; profile.frame.type on
 * locations; process.executable.build_id.gnu on mappings.  Values are plain
 * string_value, not the newer string_value_strindex, which receivers older
 * than v1.10 would drop.
 *
 * Every dictionary entry is interned by its encoded bytes: an entry's
 * bytes are its value (our encoding is deterministic), so equal values
 * share an index across all series, and the zero value is the empty
 * encoding, interned first at index 0.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agent/push.h"
#include "agent/push_pb.h"
#include "profile/profile.h"
#include "util/array.h"
#include "util/hashmap.h"
#include "util/utf8.h"

enum { REQ_RESOURCE_PROFILES = 1, REQ_DICTIONARY = 2 };
enum { RP_RESOURCE = 1, RP_SCOPE_PROFILES = 2 };
enum { SP_SCOPE = 1, SP_PROFILES = 2 };
enum { SCOPE_NAME = 1 };
enum { RESOURCE_ATTRIBUTES = 1 };
enum { KV_KEY = 1, KV_VALUE = 2 };
enum { ANY_STRING = 1, ANY_INT = 3 };
enum {
	PROF_SAMPLE_TYPE = 1,
	PROF_SAMPLES = 2,
	PROF_TIME_UNIX_NANO = 3,
	PROF_DURATION_NANO = 4,
	PROF_PERIOD_TYPE = 5,
	PROF_PERIOD = 6,
	PROF_PROFILE_ID = 7,
};
enum { VT_TYPE = 1, VT_UNIT = 2 };
enum { SAMPLE_STACK = 1, SAMPLE_ATTRIBUTES = 2, SAMPLE_VALUES = 4 };
enum { MAPPING_FILENAME = 4, MAPPING_ATTRIBUTES = 5 };
enum { STACK_LOCATIONS = 1 };
enum { LOC_MAPPING = 1, LOC_ADDRESS = 2, LOC_LINES = 3, LOC_ATTRIBUTES = 4 };
enum { LINE_FUNCTION = 1, LINE_LINE = 2 };
enum { FUNC_NAME = 1, FUNC_FILENAME = 3 };
enum { KVU_KEY = 1, KVU_VALUE = 2 };
enum { LINK_TRACE_ID = 1, LINK_SPAN_ID = 2 };

/* The dictionary's tables, by their field number in ProfilesDictionary (link: zero entry only). */
enum dict_table { T_MAPPING, T_LOCATION, T_FUNCTION, T_STRING, T_ATTRIBUTE, T_STACK, T_NR };
static const uint32_t table_field[T_NR] = { 1, 2, 3, 5, 6, 7 };
#define DICT_LINK_TABLE 4

struct dent {
	size_t off;
	size_t len;
};

/* One table: its entries' bytes end to end, and an index from bytes to entry number. */
struct dtable {
	struct hmap index;
	struct pb_buf data;
	struct dent *ents;
	size_t cap;
	uint32_t n;
};

struct dnode {
	struct hmap_node node;
	uint32_t idx;
};

struct dkey {
	const struct dtable *t;
	const void *data;
	size_t len;
};

/* What one request's encoding keeps. */
struct otlp {
	struct dtable t[T_NR];
	bool oom;
	/* per profile: its string and frame indices -> dictionary indices (0: not yet) */
	const struct profile *p;
	uint32_t *str_of, *map_of;	/* by string index */
	uint32_t *fn_of, *loc_of;	/* by frame index; loc_of: a location of that frame alone */
	uint32_t *type_attr_of;		/* by frame kind */
	size_t cap_str, cap_map, cap_fn, cap_loc;
	uint32_t *locs;		/* one sample's location indices, leaf first */
	size_t cap_locs;
	/* scratch for entries; each nesting level has its own */
	struct pb_buf ent, sub, prof, scope, rp;
	/* common strings */
	uint32_t s_thread_name, s_thread_id, s_pid, s_frame_type, s_build_id;
};

static bool dent_eq(const struct hmap_node *node, const void *key)
{
	const struct dnode *n = (const struct dnode *)node;
	const struct dkey *k = key;
	const struct dent *e = &k->t->ents[n->idx];

	return e->len == k->len && (!e->len || memcmp(k->t->data.data + e->off, k->data,
							k->len) == 0);
}

/* Entry i's bytes (an empty entry may have no storage at all). */
static const void *dent_data(const struct dtable *t, uint32_t i)
{
	return t->ents[i].len ? t->data.data + t->ents[i].off : (const void *)"";
}

/* The index of the entry whose encoding is data[len], added if new; 0 (and o->oom) on failure. */
static uint32_t intern(struct otlp *o, enum dict_table which, const void *data, size_t len)
{
	struct dtable *t = &o->t[which];
	struct dkey key = { t, len ? data : "", len };	/* an empty buffer may be NULL */
	uint64_t h = hash_bytes(key.data, len, which);
	struct dnode *n;
	bool added;

	if (o->oom)
		return 0;
	/* Indices are int32 on the wire. */
	if (t->n == INT32_MAX ||
	    array_reserve((void **)&t->ents, &t->cap, t->n + 1, sizeof(*t->ents), 256))
		goto oom;
	n = (struct dnode *)hmap_find_or_add(&t->index, h, dent_eq, &key, sizeof(*n), &added);
	if (!n)
		goto oom;
	if (!added)
		return n->idx;
	t->ents[t->n].off = t->data.len;
	t->ents[t->n].len = len;
	n->idx = t->n++;
	pb_put_raw(&t->data, key.data, len);
	if (t->data.oom) {
		/* Its bytes never arrived: the entry must not be found again. */
		hmap_remove(&t->index, &n->node);
		free(n);
		t->n--;
		goto oom;
	}
	return n->idx;
oom:
	o->oom = true;
	return 0;
}

/* Intern the entry built in o->ent, and empty it. */
static uint32_t intern_ent(struct otlp *o, enum dict_table which)
{
	uint32_t idx;

	if (o->ent.oom) {
		o->oom = true;
		return 0;
	}
	idx = intern(o, which, o->ent.data, o->ent.len);
	pb_buf_reset(&o->ent);
	return idx;
}

/* A string's index: its bytes as valid UTF-8 (invalid ones as U+FFFD), as protobuf asks. */
static uint32_t str_idx(struct otlp *o, const char *s)
{
	size_t n = s ? strlen(s) : 0, len;
	uint32_t idx;
	char *clean;

	if (!n)
		return 0;
	if (utf8_valid(s, n))
		return intern(o, T_STRING, s, n);
	clean = utf8_clean(s, n, &len);
	if (!clean) {
		o->oom = true;
		return 0;
	}
	idx = intern(o, T_STRING, clean, len);
	free(clean);
	return idx;
}

/* The dictionary index of the profile's string i (0 for "" or out of range). */
static uint32_t pstr(struct otlp *o, uint32_t i)
{
	if (!i || i >= o->p->nstr)
		return 0;
	if (!o->str_of[i])
		o->str_of[i] = str_idx(o, o->p->str[i]);
	return o->str_of[i];
}

/* An attribute: key and a string value (if s) or an int value. */
static uint32_t attr_idx(struct otlp *o, uint32_t key, const char *s, int64_t v)
{
	pb_buf_reset(&o->sub);
	if (s)
		pb_put_str(&o->sub, ANY_STRING, s);
	else
		pb_put_uint(&o->sub, ANY_INT, (uint64_t)v);
	pb_put_uint(&o->ent, KVU_KEY, key);
	pb_put_bytes(&o->ent, KVU_VALUE, o->sub.data, o->sub.len);
	if (o->sub.oom)
		o->oom = true;
	return intern_ent(o, T_ATTRIBUTE);
}

static void put_packed(struct pb_buf *b, struct pb_buf *scratch, uint32_t field,
		       const uint32_t *v, size_t n)
{
	size_t i;

	if (!n)
		return;
	pb_buf_reset(scratch);
	for (i = 0; i < n; i++)
		pb_put_varint(scratch, v[i]);
	if (scratch->oom)
		b->oom = true;
	else
		pb_put_bytes(b, field, scratch->data, scratch->len);
}

static bool native_kind(uint8_t kind)
{
	return kind == FRAME_USER || kind == FRAME_INLINED;
}

/* profile.frame.type of a frame kind (semantic conventions' values), or NULL. */
static const char *frame_type(uint8_t kind)
{
	static const char *const interp[] = {
#define INTERP_LANG(ID, name, ...) #name,
#include "interp/languages.def"
#undef INTERP_LANG
	};
	const char *name;

	if (native_kind(kind))
		return "native";
	if (kind == FRAME_KERNEL)
		return "kernel";
	if (!frame_kind_is_interp(kind))
		return NULL;
	name = interp[kind - FRAME_INTERP];
	/* The convention names the interpreter: CPython's is "cpython". */
	return strcmp(name, "python") == 0 ? "cpython" : name;
}

static const struct prof_frame *pframe(const struct otlp *o, uint32_t i)
{
	static const struct prof_frame unknown = { .kind = FRAME_MARK };

	return i < o->p->nframes ? &o->p->frames[i] : &unknown;
}

/* Function index of frame i: 0 when it has neither name nor file. */
static uint32_t function_of(struct otlp *o, uint32_t i)
{
	const struct prof_frame *f = pframe(o, i);
	uint32_t name, file;

	if (i >= o->p->nframes)
		return 0;
	if (o->fn_of[i])
		return o->fn_of[i];
	name = pstr(o, f->name);
	file = pstr(o, f->file);
	if (!name && !file)
		return 0;
	if (name)
		pb_put_uint(&o->ent, FUNC_NAME, name);
	if (file)
		pb_put_uint(&o->ent, FUNC_FILENAME, file);
	o->fn_of[i] = intern_ent(o, T_FUNCTION);
	return o->fn_of[i];
}

/* Mapping index of a native or kernel frame's module, its build-id as an attribute. */
static uint32_t mapping_of(struct otlp *o, const struct prof_frame *f)
{
	const char *build_id;
	uint32_t file, attr = 0;

	if (!(native_kind(f->kind) || f->kind == FRAME_KERNEL) || !(file = pstr(o, f->module)))
		return 0;
	if (o->map_of[f->module])
		return o->map_of[f->module];
	build_id = profile_module_build_id(o->p, f->module);
	if (build_id && build_id[0])
		attr = attr_idx(o, o->s_build_id, build_id, 0);
	pb_put_uint(&o->ent, MAPPING_FILENAME, file);
	put_packed(&o->ent, &o->sub, MAPPING_ATTRIBUTES, &attr, attr ? 1 : 0);
	o->map_of[f->module] = intern_ent(o, T_MAPPING);
	return o->map_of[f->module];
}

/* How many frames from frames[0] form one Location: a native frame and those inlined at it. */
static uint32_t group_len(const struct otlp *o, const uint32_t *frames, uint32_t n)
{
	const struct prof_frame *head = pframe(o, frames[0]), *f;
	uint32_t j;

	if (!native_kind(head->kind))
		return 1;
	for (j = 1; j < n; j++) {
		f = pframe(o, frames[j]);
		if (f->kind != FRAME_INLINED || f->module != head->module || f->addr != head->addr)
			break;
	}
	return j;
}

/*
 * The location of frames[0..n) (outermost first), its lines innermost
 * first.  Everything it refers to is interned before o->ent is filled
 * (interning uses o->ent too); its lines gather in a buffer of their own.
 */
static uint32_t location_of(struct otlp *o, const uint32_t *frames, uint32_t n)
{
	const struct prof_frame *head = pframe(o, frames[0]);
	const char *type = frame_type(head->kind);
	uint32_t map = mapping_of(o, head), attr = 0, fn, j;
	struct pb_buf lines = { 0 }, line = { 0 };

	if (type) {
		if (!o->type_attr_of[head->kind])
			o->type_attr_of[head->kind] = attr_idx(o, o->s_frame_type, type, 0);
		attr = o->type_attr_of[head->kind];
	}
	for (j = n; j-- > 0;) {
		const struct prof_frame *f = pframe(o, frames[j]);

		fn = function_of(o, frames[j]);
		if (!fn)
			continue;
		pb_buf_reset(&line);
		pb_put_uint(&line, LINE_FUNCTION, fn);
		if (f->line)
			pb_put_uint(&line, LINE_LINE, f->line);
		if (line.oom)
			lines.oom = true;
		else
			pb_put_bytes(&lines, LOC_LINES, line.data, line.len);
	}
	/* A frame we know nothing of still needs a location other than the zero one. */
	if (!map && !lines.len && !(head->addr && head->kind != FRAME_MARK)) {
		pb_put_uint(&o->ent, FUNC_NAME, str_idx(o, "[unknown]"));
		pb_buf_reset(&line);
		pb_put_uint(&line, LINE_FUNCTION, intern_ent(o, T_FUNCTION));
		if (!line.oom)
			pb_put_bytes(&lines, LOC_LINES, line.data, line.len);
	}
	if (map)
		pb_put_uint(&o->ent, LOC_MAPPING, map);
	if (head->addr && head->kind != FRAME_MARK)
		pb_put_uint(&o->ent, LOC_ADDRESS, head->addr);
	if (lines.len)
		pb_put_raw(&o->ent, lines.data, lines.len);
	if (lines.oom || line.oom)
		o->oom = true;
	pb_buf_free(&lines);
	pb_buf_free(&line);
	put_packed(&o->ent, &o->sub, LOC_ATTRIBUTES, &attr, attr ? 1 : 0);
	return intern_ent(o, T_LOCATION);
}

/* The stack of a sample: its frames grouped into locations, leaf first. */
static uint32_t stack_of(struct otlp *o, const struct prof_sample *s)
{
	size_t n = 0, k;
	uint32_t i, len;

	for (i = 0; i < s->nframes; i += len) {
		uint32_t f = s->frames[i];

		len = group_len(o, s->frames + i, s->nframes - i);
		if (array_reserve((void **)&o->locs, &o->cap_locs, n + 1, sizeof(*o->locs), 64)) {
			o->oom = true;
			return 0;
		}
		/* A frame alone (most are) has one location: encode it once per profile. */
		if (len == 1 && f < o->p->nframes) {
			if (!o->loc_of[f])
				o->loc_of[f] = location_of(o, s->frames + i, 1);
			o->locs[n++] = o->loc_of[f];
		} else {
			o->locs[n++] = location_of(o, s->frames + i, len);
		}
	}
	/* Ours are outermost first; Stack wants the leaf first. */
	for (k = 0; k < n / 2; k++) {
		uint32_t t = o->locs[k];

		o->locs[k] = o->locs[n - 1 - k];
		o->locs[n - 1 - k] = t;
	}
	put_packed(&o->ent, &o->sub, STACK_LOCATIONS, o->locs, n);
	return intern_ent(o, T_STACK);
}

static void put_value_type(struct pb_buf *b, struct pb_buf *scratch, uint32_t field,
			   uint32_t type, uint32_t unit)
{
	pb_buf_reset(scratch);
	pb_put_uint(scratch, VT_TYPE, type);
	pb_put_uint(scratch, VT_UNIT, unit);
	if (scratch->oom)
		b->oom = true;
	else
		pb_put_bytes(b, field, scratch->data, scratch->len);
}

/* objects: the allocations the sample stands for (profile.objects_type), not its count. */
static void put_sample(struct otlp *o, const struct push_series *series,
		       const struct prof_sample *s, bool objects)
{
	uint64_t v = objects ? (s->objects + PROFILE_OBJECT_ONE / 2) / PROFILE_OBJECT_ONE :
			       s->count;
	uint32_t attrs[3], nattrs = 0, stack = stack_of(o, s);
	struct pb_buf *b = &o->ent;
	const char *comm = profile_s(o->p, s->comm);

	if (comm[0])
		attrs[nattrs++] = attr_idx(o, o->s_thread_name, comm, 0);
	if (s->tid)
		attrs[nattrs++] = attr_idx(o, o->s_thread_id, NULL, s->tid);
	/* The resource names the process when the series has one; else each sample does. */
	if (s->pid && !series->pid)
		attrs[nattrs++] = attr_idx(o, o->s_pid, NULL, s->pid);
	pb_buf_reset(b);
	if (stack)
		pb_put_uint(b, SAMPLE_STACK, stack);
	put_packed(b, &o->sub, SAMPLE_ATTRIBUTES, attrs, nattrs);
	/* values: one aggregated value, int64 (a count past INT64_MAX is capped). */
	pb_buf_reset(&o->sub);
	pb_put_varint(&o->sub, v < INT64_MAX ? v : INT64_MAX);
	pb_put_bytes(b, SAMPLE_VALUES, o->sub.data, o->sub.len);
	if (b->oom || o->sub.oom)
		o->oom = true;
	else
		pb_put_bytes(&o->prof, PROF_SAMPLES, b->data, b->len);
	pb_buf_reset(b);
}

static void put_fixed64(struct pb_buf *b, uint32_t field, uint64_t v)
{
	uint8_t le[8];
	int i;

	for (i = 0; i < 8; i++)
		le[i] = v >> (8 * i);
	pb_put_varint(b, (uint64_t)field << 3 | PB_FIXED64);
	pb_put_raw(b, le, sizeof(le));
}

/*
 * profile_id: 16 bytes from the series' identity (labels, pid, period), so
 * a period sent again after a failed push carries the same id and a
 * receiver that deduplicates by it keeps one; never all zero (invalid).
 */
static void put_profile_id(struct pb_buf *b, const struct push_series *s, bool objects)
{
	uint64_t h[2] = { hash_u64(s->start_ns) ^ s->pid, hash_u64(s->end_ns) ^ objects };
	uint8_t id[16];
	int i, k;

	for (i = 0; i < s->nlabels; i++) {
		if (!push_label_set(&s->labels[i]))
			continue;
		for (k = 0; k < 2; k++) {
			h[k] = hash_bytes(s->labels[i].name, strlen(s->labels[i].name), h[k] + k);
			h[k] = hash_bytes(s->labels[i].value, strlen(s->labels[i].value), h[k] + 1);
		}
	}
	if (!h[0] && !h[1])
		h[0] = 1;
	memcpy(id, h, sizeof(id));
	pb_put_bytes(b, PROF_PROFILE_ID, id, sizeof(id));
}

/*
 * One series' Profile into o->prof.  objects: the one of the allocations
 * counted beside the bytes (a Profile has one sample type).
 */
static void put_profile(struct otlp *o, const struct push_series *series, bool objects)
{
	const struct profile *p = o->p;
	uint64_t start = series->start_ns, end = series->end_ns;
	size_t i;

	pb_buf_reset(&o->prof);
	/*
	 * Counted events: samples/count, with the sampling period (cpu, ns)
	 * beside it when there is one; time (off-CPU, wall): nanoseconds.
	 */
	if (objects)
		put_value_type(&o->prof, &o->sub, PROF_SAMPLE_TYPE, pstr(o, p->objects_type),
			       str_idx(o, "count"));
	else if (p->value_unit)
		put_value_type(&o->prof, &o->sub, PROF_SAMPLE_TYPE, pstr(o, p->value_type),
			       pstr(o, p->value_unit));
	else
		put_value_type(&o->prof, &o->sub, PROF_SAMPLE_TYPE, str_idx(o, "samples"),
			       str_idx(o, "count"));
	for (i = 0; i < p->nsamples && !o->oom; i++)
		put_sample(o, series, &p->samples[i], objects);
	if (!start) {
		start = p->time_ns;
		end = p->time_ns + p->duration_ns;
	}
	if (start)
		put_fixed64(&o->prof, PROF_TIME_UNIX_NANO, start);
	if (end > start)
		pb_put_uint(&o->prof, PROF_DURATION_NANO, end - start);
	if (p->period_ns && !p->value_unit) {
		put_value_type(&o->prof, &o->sub, PROF_PERIOD_TYPE, str_idx(o, "cpu"),
			       str_idx(o, "nanoseconds"));
		pb_put_uint(&o->prof, PROF_PERIOD, p->period_ns);
	}
	put_profile_id(&o->prof, series, objects);
	if (o->prof.oom)
		o->oom = true;
}

static void put_attr(struct pb_buf *b, struct pb_buf *kv, struct pb_buf *any, const char *key,
		     const char *s, uint64_t v)
{
	pb_buf_reset(any);
	pb_buf_reset(kv);
	if (s)
		pb_put_str(any, ANY_STRING, s);
	else
		pb_put_uint(any, ANY_INT, v);
	pb_put_str(kv, KV_KEY, key);
	pb_put_bytes(kv, KV_VALUE, any->data, any->len);
	if (any->oom || kv->oom)
		b->oom = true;
	else
		pb_put_bytes(b, RESOURCE_ATTRIBUTES, kv->data, kv->len);
}

/* Our label names and the attributes the conventions name them on a resource. */
static const char *const resource_names[][2] = {
	{ "service_name", "service.name" },
	{ "host_name", "host.name" },
	{ "container_id", "container.id" },
	{ "pod_uid", "k8s.pod.uid" },
};

/* The Resource of a series into b: the labels under their attribute names, then the process. */
static void put_resource(struct otlp *o, struct pb_buf *b, const struct push_series *s)
{
	struct pb_buf kv = { 0 }, any = { 0 };
	size_t k;
	int i;

	for (i = 0; i < s->nlabels; i++) {
		const struct push_label *l = &s->labels[i];
		const char *key = l->name;

		/* __name__ is the profile's type, which sample_type says. */
		if (!push_label_set(l) || strcmp(l->name, "__name__") == 0)
			continue;
		for (k = 0; k < sizeof(resource_names) / sizeof(resource_names[0]); k++)
			if (strcmp(l->name, resource_names[k][0]) == 0)
				key = resource_names[k][1];
		put_attr(b, &kv, &any, key, l->value, 0);
	}
	if (s->pid)
		put_attr(b, &kv, &any, "process.pid", NULL, s->pid);
	if (s->exe_name && s->exe_name[0])
		put_attr(b, &kv, &any, "process.executable.name", s->exe_name, 0);
	pb_buf_free(&kv);
	pb_buf_free(&any);
}

/* One series as a ResourceProfiles into out. */
static int put_series(struct otlp *o, const struct push_series *s, struct pb_buf *out)
{
	static const struct profile none;	/* no profile: a Profile without samples */
	const struct profile *p = s->prof ? s->prof : &none;
	size_t i;

	o->p = p;
	if (array_reserve((void **)&o->str_of, &o->cap_str, p->nstr, sizeof(*o->str_of), 256) ||
	    array_reserve((void **)&o->map_of, &o->cap_map, p->nstr, sizeof(*o->map_of), 256) ||
	    array_reserve((void **)&o->fn_of, &o->cap_fn, p->nframes, sizeof(*o->fn_of), 256) ||
	    array_reserve((void **)&o->loc_of, &o->cap_loc, p->nframes, sizeof(*o->loc_of), 256))
		return -ENOMEM;
	if (p->nstr) {
		memset(o->str_of, 0, p->nstr * sizeof(*o->str_of));
		memset(o->map_of, 0, p->nstr * sizeof(*o->map_of));
	}
	if (p->nframes) {
		memset(o->fn_of, 0, p->nframes * sizeof(*o->fn_of));
		memset(o->loc_of, 0, p->nframes * sizeof(*o->loc_of));
	}
	for (i = 0; i < FRAME_KIND_NR; i++)
		o->type_attr_of[i] = 0;
	pb_buf_reset(&o->scope);
	pb_buf_reset(&o->rp);
	pb_buf_reset(&o->sub);
	pb_put_str(&o->sub, SCOPE_NAME, "stitch");
	pb_put_bytes(&o->scope, SP_SCOPE, o->sub.data, o->sub.len);
	put_profile(o, s, false);
	pb_put_bytes(&o->scope, SP_PROFILES, o->prof.data, o->prof.len);
	if (p->objects_type) {
		put_profile(o, s, true);
		pb_put_bytes(&o->scope, SP_PROFILES, o->prof.data, o->prof.len);
	}
	pb_buf_reset(&o->sub);
	put_resource(o, &o->sub, s);
	pb_put_bytes(&o->rp, RP_RESOURCE, o->sub.data, o->sub.len);
	pb_put_bytes(&o->rp, RP_SCOPE_PROFILES, o->scope.data, o->scope.len);
	if (o->oom || o->sub.oom || o->scope.oom || o->rp.oom)
		return -ENOMEM;
	pb_put_bytes(out, REQ_RESOURCE_PROFILES, o->rp.data, o->rp.len);
	return 0;
}

/* The dictionary: every table's entries in index order; the link table's zero entry. */
static void put_dictionary(struct otlp *o, struct pb_buf *out)
{
	static const uint8_t zero[16];
	struct pb_buf *d = &o->prof;
	uint32_t i;
	int t;

	pb_buf_reset(d);
	for (t = 0; t < T_NR; t++)
		for (i = 0; i < o->t[t].n; i++)
			pb_put_bytes(d, table_field[t], dent_data(&o->t[t], i),
				     o->t[t].ents[i].len);
	/* link_table[0]: 16 and 8 zero bytes, as profiles.proto asks of codecs that check sizes. */
	pb_buf_reset(&o->sub);
	pb_put_bytes(&o->sub, LINK_TRACE_ID, zero, 16);
	pb_put_bytes(&o->sub, LINK_SPAN_ID, zero, 8);
	pb_put_bytes(d, DICT_LINK_TABLE, o->sub.data, o->sub.len);
	if (d->oom || o->sub.oom)
		out->oom = true;
	else
		pb_put_bytes(out, REQ_DICTIONARY, d->data, d->len);
}

static void otlp_free(struct otlp *o)
{
	int t;

	for (t = 0; t < T_NR; t++) {
		hmap_free_all(&o->t[t].index);
		pb_buf_free(&o->t[t].data);
		free(o->t[t].ents);
	}
	free(o->str_of);
	free(o->map_of);
	free(o->fn_of);
	free(o->loc_of);
	free(o->type_attr_of);
	free(o->locs);
	pb_buf_free(&o->ent);
	pb_buf_free(&o->sub);
	pb_buf_free(&o->prof);
	pb_buf_free(&o->scope);
	pb_buf_free(&o->rp);
}

int push_encode_otlp(const struct push_series *s, int n, struct pb_buf *out)
{
	struct otlp o = { 0 };
	int t, i, rc = 0;

	pb_buf_reset(out);
	out->oom = false;
	o.type_attr_of = calloc(FRAME_KIND_NR, sizeof(*o.type_attr_of));
	if (!o.type_attr_of)
		rc = -ENOMEM;
	for (t = 0; t < T_NR && !rc; t++) {
		if (hmap_init(&o.t[t].index, 256))
			rc = -ENOMEM;
		/* [0]: the zero value, whose encoding is empty ("" for strings). */
		else if (intern(&o, t, "", 0) != 0)
			rc = -ENOMEM;
	}
	if (!rc) {
		o.s_thread_name = str_idx(&o, "thread.name");
		o.s_thread_id = str_idx(&o, "thread.id");
		o.s_pid = str_idx(&o, "process.pid");
		o.s_frame_type = str_idx(&o, "profile.frame.type");
		o.s_build_id = str_idx(&o, "process.executable.build_id.gnu");
	}
	for (i = 0; i < n && !rc && !o.oom; i++)
		rc = put_series(&o, &s[i], out);
	if (!rc && !o.oom)
		put_dictionary(&o, out);
	if (o.oom)
		rc = -ENOMEM;
	otlp_free(&o);
	return rc || out->oom ? -1 : 0;
}
