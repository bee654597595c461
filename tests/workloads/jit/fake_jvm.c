// SPDX-License-Identifier: GPL-2.0
/*
 * A hostile "JVM" (issue 39's bad input): it exports HotSpot's vmStructs
 * symbols as libjvm does, with tables that describe a code cache of its
 * own whose contents lie, and runs threads in that code cache:
 *
 *   fake_jvm SECONDS
 *
 *   thread "loop":  its pc's segment map sends the lookup back one segment
 *                   a step, forever (a map that never reaches a block start);
 *   thread "huge":  an nmethod of 65,536-word frames, a Method whose names
 *                   are 64 KiB symbols, scopes pointing at their own records;
 *   thread "small": an nmethod of 2-word frames (its caller's address is
 *                   whatever lies above: its own frames wrong, no one else's);
 *   thread "self":  an nmethod whose Method's ConstMethod and constant pool
 *                   point at themselves;
 *   thread "stub":  a stub blob named "StubRoutines (fake)", honest: its name
 *                   shows stitch read the tables and the code cache.
 *
 * stitch may name these frames wrong or not at all; it must not crash,
 * stall, or name another process's frames from them (tests/integration/jit.sh).
 * The threads spin on a branch to itself copied into the fake code cache.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* The tables' entries, in the layout the exported offsets below describe. */
struct vm_struct {
	const char *type, *field, *tstring;
	int32_t is_static;
	uint64_t offset;
	void *address;
};

struct vm_type {
	const char *name;
	uint64_t size;
};

struct vm_int {
	const char *name;
	int32_t value;
};

/* The fake objects' layouts (offsets as the structs table gives them). */
struct fake_ga {
	int32_t len;
	void **data;
};

struct fake_heap {
	uint64_t mem_low, mem_high;	/* _memory: a VirtualSpace */
	uint64_t seg_low, seg_high;	/* _segmap */
	int32_t log2;
};

struct fake_blob {
	const char *name;
	int32_t size, frame_complete, frame_size, data_offset;
	uint64_t code_begin;
	uint64_t method;
	uint64_t scopes_begin;
	int32_t pcs_offset, deps_offset, metadata_offset, compile_id;
};

struct fake_symbol {
	uint16_t length;
	char body[6];
};

#define SEG_LOG2	7
#define HEAP_SIZE	(1 << 20)
#define BLOCK_SIZE	4096	/* one blob a thread, a page apart */
#define NTHREADS	5

void *gHotSpotVMStructs, *gHotSpotVMTypes, *gHotSpotVMIntConstants;
uint64_t gHotSpotVMStructEntryTypeNameOffset = offsetof(struct vm_struct, type);
uint64_t gHotSpotVMStructEntryFieldNameOffset = offsetof(struct vm_struct, field);
uint64_t gHotSpotVMStructEntryTypeStringOffset = offsetof(struct vm_struct, tstring);
uint64_t gHotSpotVMStructEntryIsStaticOffset = offsetof(struct vm_struct, is_static);
uint64_t gHotSpotVMStructEntryOffsetOffset = offsetof(struct vm_struct, offset);
uint64_t gHotSpotVMStructEntryAddressOffset = offsetof(struct vm_struct, address);
uint64_t gHotSpotVMStructEntryArrayStride = sizeof(struct vm_struct);
uint64_t gHotSpotVMTypeEntryTypeNameOffset = offsetof(struct vm_type, name);
uint64_t gHotSpotVMTypeEntrySizeOffset = offsetof(struct vm_type, size);
uint64_t gHotSpotVMTypeEntryArrayStride = sizeof(struct vm_type);
uint64_t gHotSpotVMIntConstantEntryNameOffset = offsetof(struct vm_int, name);
uint64_t gHotSpotVMIntConstantEntryValueOffset = offsetof(struct vm_int, value);
uint64_t gHotSpotVMIntConstantEntryArrayStride = sizeof(struct vm_int);

static struct fake_ga heaps;
static void *heap_list[1];
static struct fake_heap heap;
static uint8_t *code;
static uint8_t segmap[HEAP_SIZE >> SEG_LOG2];
static uint64_t low_bound, high_bound;
/* A Method, ConstMethod and ConstantPool in one: each field points back here. */
static uint64_t selfish[64];
/* A Method whose names are 64 KiB long and unreadable past the first bytes. */
static uint64_t huge_method[64];
static struct fake_symbol huge_symbol = { 65535, "abcde" };

#define F(t, f, ts, off) { t, f, ts, 0, off, NULL }
#define S(t, f, ts, addr) { t, f, ts, 1, 0, addr }
static struct vm_struct structs[] = {
	S("CodeCache", "_heaps", "GrowableArray<CodeHeap*>*", &gHotSpotVMStructs /* set at start */),
	S("CodeCache", "_low_bound", "address", &low_bound),
	S("CodeCache", "_high_bound", "address", &high_bound),
	F("GrowableArrayBase", "_len", "int", offsetof(struct fake_ga, len)),
	F("GrowableArray<int>", "_data", "int*", offsetof(struct fake_ga, data)),
	F("CodeHeap", "_memory", "VirtualSpace", offsetof(struct fake_heap, mem_low)),
	F("CodeHeap", "_segmap", "VirtualSpace", offsetof(struct fake_heap, seg_low)),
	F("CodeHeap", "_log2_segment_size", "int", offsetof(struct fake_heap, log2)),
	F("VirtualSpace", "_low", "char*", 0),
	F("VirtualSpace", "_high", "char*", 8),
	F("HeapBlock::Header", "_used", "bool", 8),
	F("CodeBlob", "_name", "const char*", offsetof(struct fake_blob, name)),
	F("CodeBlob", "_size", "int", offsetof(struct fake_blob, size)),
	F("CodeBlob", "_frame_complete_offset", "int", offsetof(struct fake_blob, frame_complete)),
	F("CodeBlob", "_frame_size", "int", offsetof(struct fake_blob, frame_size)),
	F("CodeBlob", "_data_offset", "int", offsetof(struct fake_blob, data_offset)),
	F("CodeBlob", "_code_begin", "address", offsetof(struct fake_blob, code_begin)),
	F("CompiledMethod", "_method", "Method*", offsetof(struct fake_blob, method)),
	F("CompiledMethod", "_scopes_data_begin", "address", offsetof(struct fake_blob, scopes_begin)),
	F("nmethod", "_scopes_pcs_offset", "int", offsetof(struct fake_blob, pcs_offset)),
	F("nmethod", "_dependencies_offset", "int", offsetof(struct fake_blob, deps_offset)),
	F("nmethod", "_metadata_offset", "int", offsetof(struct fake_blob, metadata_offset)),
	F("nmethod", "_compile_id", "int", offsetof(struct fake_blob, compile_id)),
	F("Method", "_constMethod", "ConstMethod*", 0),
	F("ConstMethod", "_constants", "ConstantPool*", 0),
	F("ConstMethod", "_code_size", "u2", 8),
	F("ConstMethod", "_name_index", "u2", 10),
	F("ConstMethod", "_signature_index", "u2", 12),
	F("ConstMethod", "_flags", "u2", 14),
	F("ConstantPool", "_pool_holder", "InstanceKlass*", 0),
	F("ConstantPool", "_source_file_name_index", "u2", 10),
	F("ConstantPool", "_cache", "ConstantPoolCache*", 16),
	F("Klass", "_name", "Symbol*", 0),
	F("Symbol", "_length", "u2", 0),
	F("Symbol", "_body[0]", "u1", 2),
	F("PcDesc", "_pc_offset", "int", 0),
	F("PcDesc", "_scope_decode_offset", "int", 4),
	{ NULL, NULL, NULL, 0, 0, NULL },
};

static struct vm_type types[] = {
	{ "HeapBlock", 16 }, { "ConstMethod", 48 }, { "ConstantPool", 64 }, { "PcDesc", 16 },
	{ NULL, 0 },
};

static struct vm_int ints[] = {
	{ "ConstMethod::_has_linenumber_table", 1 },
	{ NULL, 0 },
};

static double deadline;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Block i of the heap: its header used, a blob after it, `jmp .` in its code. */
static struct fake_blob *blob_at(int i, const char *name, int32_t frame_size, uint64_t method)
{
	uint8_t *block = code + (size_t)i * BLOCK_SIZE;
	struct fake_blob *b = (struct fake_blob *)(block + 16);
	uint8_t *pc = block + 256;

	block[8] = 1;
	b->name = name;
	b->size = BLOCK_SIZE - 16;
	b->frame_complete = 0;
	b->frame_size = frame_size;
	b->code_begin = (uint64_t)(uintptr_t)(block + 128);
	b->data_offset = BLOCK_SIZE - 64;
	b->method = method;
	b->compile_id = 1000 + i;
	/* Scopes and pcs: the blob itself, read as records that point back at it. */
	b->scopes_begin = (uint64_t)(uintptr_t)b;
	b->pcs_offset = 16;
	b->deps_offset = BLOCK_SIZE - 32;
	b->metadata_offset = 0;
#if defined(__x86_64__)
	pc[0] = 0xeb;	/* jmp . */
	pc[1] = 0xfe;
#elif defined(__aarch64__)
	memcpy(pc, &(uint32_t){ 0x14000000 }, 4);	/* b . */
#endif
	__builtin___clear_cache((char *)pc, (char *)pc + 4);
	return b;
}

static void *spin(void *arg)
{
	void (*fn)(void) = (void (*)(void))(uintptr_t)arg;

	fn();	/* never returns: the process's exit ends it */
	return NULL;
}

int main(int argc, char **argv)
{
	static const char *const thread_names[NTHREADS] = { "loop", "huge", "small", "self", "stub" };
	pthread_t t[NTHREADS];
	size_t s, i;

	deadline = now() + (argc > 1 ? atof(argv[1]) : 5);
	code = mmap(NULL, HEAP_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED) {
		perror("fake_jvm: mmap");
		return 1;
	}
	low_bound = (uint64_t)(uintptr_t)code;
	high_bound = low_bound + HEAP_SIZE;
	heap.mem_low = low_bound;
	heap.mem_high = high_bound;
	heap.seg_low = (uint64_t)(uintptr_t)segmap;
	heap.seg_high = heap.seg_low + sizeof(segmap);
	heap.log2 = SEG_LOG2;
	heap_list[0] = &heap;
	heaps.len = 1;
	heaps.data = heap_list;
	memset(segmap, 0xff, sizeof(segmap));

	/* loop: every segment of block 0 says "one back", its first too. */
	blob_at(0, "nmethod", 4, 0);
	memset(segmap, 1, BLOCK_SIZE >> SEG_LOG2);
	/* huge, small, self: blocks 1-3, their segments leading back to their first. */
	for (i = 1; i < NTHREADS; i++) {
		size_t first = i * (BLOCK_SIZE >> SEG_LOG2);

		segmap[first] = 0;
		for (s = 1; s < (BLOCK_SIZE >> SEG_LOG2); s++)
			segmap[first + s] = (uint8_t)s;
	}
	huge_method[0] = (uint64_t)(uintptr_t)huge_method;	/* its ConstMethod: itself */
	huge_method[1] = 0xffff;				/* code size, indexes */
	huge_method[2] = (uint64_t)(uintptr_t)&huge_symbol;	/* pool holder (a "Klass") */
	for (i = 8; i < 64; i++)
		huge_method[i] = (uint64_t)(uintptr_t)&huge_symbol;
	blob_at(1, "nmethod", 65536, (uint64_t)(uintptr_t)huge_method);
	blob_at(2, "nmethod", 2, (uint64_t)(uintptr_t)huge_method);
	for (i = 0; i < 64; i++)
		selfish[i] = (uint64_t)(uintptr_t)selfish;
	blob_at(3, "nmethod", 6, (uint64_t)(uintptr_t)selfish);
	blob_at(4, "StubRoutines (fake)", 0, 0);

	/* The static _heaps entry's address: a variable holding &heaps. */
	{
		static void *heaps_ptr;

		heaps_ptr = &heaps;
		structs[0].address = &heaps_ptr;
	}
	gHotSpotVMStructs = structs;
	gHotSpotVMTypes = types;
	gHotSpotVMIntConstants = ints;

	for (i = 0; i < NTHREADS; i++) {
		void *pc = code + i * BLOCK_SIZE + 256;

		if (pthread_create(&t[i], NULL, spin, pc)) {
			perror("fake_jvm: pthread_create");
			return 1;
		}
		pthread_setname_np(t[i], thread_names[i]);
	}
	while (now() < deadline)
		usleep(10000);
	return 0;
}
