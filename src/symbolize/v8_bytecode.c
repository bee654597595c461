// SPDX-License-Identifier: GPL-2.0
/* An interpreted frame's position, from its bytecode offset: see v8_bytecode.h. */
#include "symbolize/v8_bytecode.h"
#include "symbolize/v8_heap.h"
#include "symbolize/v8_inlined.h"

/* The BytecodeArray a function runs (tagged), from its SharedFunctionInfo; 0 if none. */
static uint64_t bytecode_of(uint32_t pid, const struct v8_meta *m, uint64_t sfi)
{
	uint64_t d;
	int t;

	if (v8_field(pid, sfi, m->sfi_data, &d))
		return 0;
	t = v8_type_of(pid, m, d);
	/* Sparkplug's code keeps the bytecode it was compiled from. */
	if (t == m->type_code && v8_field(pid, d, m->code_bytecode, &d))
		return 0;
	else if (t == m->type_code)
		t = v8_type_of(pid, m, d);
	return t == m->type_bytecode_array ? d : 0;
}

int64_t v8_bytecode_position(uint32_t pid, const struct v8_meta *m, uint64_t sfi, uint64_t slot)
{
	int64_t off, len;
	uint64_t ba, w, table, pos;

	if (!m->bc_known || !v8_is_heap(sfi) || !v8_smi(m, slot, &off))
		return -1;
	/*
	 * Counted from the array's tagged address: its header, less the tag.
	 * Before its first bytecode (-1: the function's entry, whose
	 * position is where it is defined) or past its last is no call's.
	 */
	off -= (int64_t)m->bc_data - 1;
	ba = bytecode_of(pid, m, sfi);
	if (off < 0 || !ba || v8_field(pid, ba, m->fixed_array_length, &w) || !v8_smi(m, w, &len) ||
	    off >= len || v8_field(pid, ba, m->bc_positions, &table) ||
	    !v8_position_at(pid, m, table, (uint64_t)off, &pos))
		return -1;
	return v8_position_offset(pos);
}
