// SPDX-License-Identifier: GPL-2.0
// A JavaScript call chain that blocks in waiter, 10 ms at a time (off-CPU):
//   node --perf-basic-prof --interpreted-frames-native-stack wait.js SECONDS
const cell = new Int32Array(new SharedArrayBuffer(4));
function waiter() { Atomics.wait(cell, 0, 0, 10); }
function middle() { waiter(); }
function outer() { middle(); }

const end = Date.now() + Number(process.argv[2]) * 1000;
while (Date.now() < end)
	outer();
