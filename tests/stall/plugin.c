// SPDX-License-Identifier: GPL-2.0
/* Loaded by stall_loop after the detector started: its stall must unwind through it. */
#include "../workloads/cpu_spin.h"

__attribute__((noinline)) void plugin_spin(unsigned int ms)
{
	SPIN_CPU_MS(ms);
	__asm__ volatile("" ::: "memory");
}
