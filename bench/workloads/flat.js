// SPDX-License-Identifier: GPL-2.0
// bench/jit_cost.sh: 19 JavaScript frames (loop, f1..f17, leaf), every one a
// different function, as most real stacks are; each is too big for TurboFan to
// inline (its bytecode past V8's 460-byte limit, in a branch never taken), so
// the frames stay frames when optimized; the leaf computes.
//   node flat.js SECONDS
'use strict';
let sink = 0;
// Never true: its statements only make the function's bytecode big.
const never = process.argv.length > 100;
function pad(x) { return x; }

function leaf(i) {
	let s = 0;
	for (let k = 0; k < 3000; k++)
		s += (k * i) % 7;
	return s;
}

function f17(i) {
	if (never) {
		sink += pad(0) + pad(sink) * 0;
		sink += pad(1) + pad(sink) * 1;
		sink += pad(2) + pad(sink) * 2;
		sink += pad(3) + pad(sink) * 3;
		sink += pad(4) + pad(sink) * 4;
		sink += pad(5) + pad(sink) * 5;
		sink += pad(6) + pad(sink) * 6;
		sink += pad(7) + pad(sink) * 7;
		sink += pad(8) + pad(sink) * 8;
		sink += pad(9) + pad(sink) * 9;
		sink += pad(10) + pad(sink) * 10;
		sink += pad(11) + pad(sink) * 11;
		sink += pad(12) + pad(sink) * 12;
		sink += pad(13) + pad(sink) * 13;
		sink += pad(14) + pad(sink) * 14;
		sink += pad(15) + pad(sink) * 15;
		sink += pad(16) + pad(sink) * 16;
		sink += pad(17) + pad(sink) * 17;
		sink += pad(18) + pad(sink) * 18;
		sink += pad(19) + pad(sink) * 19;
		sink += pad(20) + pad(sink) * 20;
		sink += pad(21) + pad(sink) * 21;
		sink += pad(22) + pad(sink) * 22;
		sink += pad(23) + pad(sink) * 23;
		sink += pad(24) + pad(sink) * 24;
		sink += pad(25) + pad(sink) * 25;
		sink += pad(26) + pad(sink) * 26;
		sink += pad(27) + pad(sink) * 27;
		sink += pad(28) + pad(sink) * 28;
		sink += pad(29) + pad(sink) * 29;
		sink += pad(30) + pad(sink) * 30;
		sink += pad(31) + pad(sink) * 31;
		sink += pad(32) + pad(sink) * 32;
		sink += pad(33) + pad(sink) * 33;
		sink += pad(34) + pad(sink) * 34;
		sink += pad(35) + pad(sink) * 35;
		sink += pad(36) + pad(sink) * 36;
		sink += pad(37) + pad(sink) * 37;
		sink += pad(38) + pad(sink) * 38;
		sink += pad(39) + pad(sink) * 39;
	}
	return leaf(i + 17);
}

function f16(i) {
	if (never) {
		sink += pad(0) + pad(sink) * 0;
		sink += pad(1) + pad(sink) * 1;
		sink += pad(2) + pad(sink) * 2;
		sink += pad(3) + pad(sink) * 3;
		sink += pad(4) + pad(sink) * 4;
		sink += pad(5) + pad(sink) * 5;
		sink += pad(6) + pad(sink) * 6;
		sink += pad(7) + pad(sink) * 7;
		sink += pad(8) + pad(sink) * 8;
		sink += pad(9) + pad(sink) * 9;
		sink += pad(10) + pad(sink) * 10;
		sink += pad(11) + pad(sink) * 11;
		sink += pad(12) + pad(sink) * 12;
		sink += pad(13) + pad(sink) * 13;
		sink += pad(14) + pad(sink) * 14;
		sink += pad(15) + pad(sink) * 15;
		sink += pad(16) + pad(sink) * 16;
		sink += pad(17) + pad(sink) * 17;
		sink += pad(18) + pad(sink) * 18;
		sink += pad(19) + pad(sink) * 19;
		sink += pad(20) + pad(sink) * 20;
		sink += pad(21) + pad(sink) * 21;
		sink += pad(22) + pad(sink) * 22;
		sink += pad(23) + pad(sink) * 23;
		sink += pad(24) + pad(sink) * 24;
		sink += pad(25) + pad(sink) * 25;
		sink += pad(26) + pad(sink) * 26;
		sink += pad(27) + pad(sink) * 27;
		sink += pad(28) + pad(sink) * 28;
		sink += pad(29) + pad(sink) * 29;
		sink += pad(30) + pad(sink) * 30;
		sink += pad(31) + pad(sink) * 31;
		sink += pad(32) + pad(sink) * 32;
		sink += pad(33) + pad(sink) * 33;
		sink += pad(34) + pad(sink) * 34;
		sink += pad(35) + pad(sink) * 35;
		sink += pad(36) + pad(sink) * 36;
		sink += pad(37) + pad(sink) * 37;
		sink += pad(38) + pad(sink) * 38;
		sink += pad(39) + pad(sink) * 39;
	}
	return f17(i + 16);
}

function f15(i) {
	if (never) {
		sink += pad(0) + pad(sink) * 0;
		sink += pad(1) + pad(sink) * 1;
		sink += pad(2) + pad(sink) * 2;
		sink += pad(3) + pad(sink) * 3;
		sink += pad(4) + pad(sink) * 4;
		sink += pad(5) + pad(sink) * 5;
		sink += pad(6) + pad(sink) * 6;
		sink += pad(7) + pad(sink) * 7;
		sink += pad(8) + pad(sink) * 8;
		sink += pad(9) + pad(sink) * 9;
		sink += pad(10) + pad(sink) * 10;
		sink += pad(11) + pad(sink) * 11;
		sink += pad(12) + pad(sink) * 12;
		sink += pad(13) + pad(sink) * 13;
		sink += pad(14) + pad(sink) * 14;
		sink += pad(15) + pad(sink) * 15;
		sink += pad(16) + pad(sink) * 16;
		sink += pad(17) + pad(sink) * 17;
		sink += pad(18) + pad(sink) * 18;
		sink += pad(19) + pad(sink) * 19;
		sink += pad(20) + pad(sink) * 20;
		sink += pad(21) + pad(sink) * 21;
		sink += pad(22) + pad(sink) * 22;
		sink += pad(23) + pad(sink) * 23;
		sink += pad(24) + pad(sink) * 24;
		sink += pad(25) + pad(sink) * 25;
		sink += pad(26) + pad(sink) * 26;
		sink += pad(27) + pad(sink) * 27;
		sink += pad(28) + pad(sink) * 28;
		sink += pad(29) + pad(sink) * 29;
		sink += pad(30) + pad(sink) * 30;
		sink += pad(31) + pad(sink) * 31;
		sink += pad(32) + pad(sink) * 32;
		sink += pad(33) + pad(sink) * 33;
		sink += pad(34) + pad(sink) * 34;
		sink += pad(35) + pad(sink) * 35;
		sink += pad(36) + pad(sink) * 36;
		sink += pad(37) + pad(sink) * 37;
		sink += pad(38) + pad(sink) * 38;
		sink += pad(39) + pad(sink) * 39;
	}
	return f16(i + 15);
}

function f14(i) {
	if (never) {
		sink += pad(0) + pad(sink) * 0;
		sink += pad(1) + pad(sink) * 1;
		sink += pad(2) + pad(sink) * 2;
		sink += pad(3) + pad(sink) * 3;
		sink += pad(4) + pad(sink) * 4;
		sink += pad(5) + pad(sink) * 5;
		sink += pad(6) + pad(sink) * 6;
		sink += pad(7) + pad(sink) * 7;
		sink += pad(8) + pad(sink) * 8;
		sink += pad(9) + pad(sink) * 9;
		sink += pad(10) + pad(sink) * 10;
		sink += pad(11) + pad(sink) * 11;
		sink += pad(12) + pad(sink) * 12;
		sink += pad(13) + pad(sink) * 13;
		sink += pad(14) + pad(sink) * 14;
		sink += pad(15) + pad(sink) * 15;
		sink += pad(16) + pad(sink) * 16;
		sink += pad(17) + pad(sink) * 17;
		sink += pad(18) + pad(sink) * 18;
		sink += pad(19) + pad(sink) * 19;
		sink += pad(20) + pad(sink) * 20;
		sink += pad(21) + pad(sink) * 21;
		sink += pad(22) + pad(sink) * 22;
		sink += pad(23) + pad(sink) * 23;
		sink += pad(24) + pad(sink) * 24;
		sink += pad(25) + pad(sink) * 25;
		sink += pad(26) + pad(sink) * 26;
		sink += pad(27) + pad(sink) * 27;
		sink += pad(28) + pad(sink) * 28;
		sink += pad(29) + pad(sink) * 29;
		sink += pad(30) + pad(sink) * 30;
		sink += pad(31) + pad(sink) * 31;
		sink += pad(32) + pad(sink) * 32;
		sink += pad(33) + pad(sink) * 33;
		sink += pad(34) + pad(sink) * 34;
		sink += pad(35) + pad(sink) * 35;
		sink += pad(36) + pad(sink) * 36;
		sink += pad(37) + pad(sink) * 37;
		sink += pad(38) + pad(sink) * 38;
		sink += pad(39) + pad(sink) * 39;
	}
	return f15(i + 14);
}

function f13(i) {
	if (never) {
		sink += pad(0) + pad(sink) * 0;
		sink += pad(1) + pad(sink) * 1;
		sink += pad(2) + pad(sink) * 2;
		sink += pad(3) + pad(sink) * 3;
		sink += pad(4) + pad(sink) * 4;
		sink += pad(5) + pad(sink) * 5;
		sink += pad(6) + pad(sink) * 6;
		sink += pad(7) + pad(sink) * 7;
		sink += pad(8) + pad(sink) * 8;
		sink += pad(9) + pad(sink) * 9;
		sink += pad(10) + pad(sink) * 10;
		sink += pad(11) + pad(sink) * 11;
		sink += pad(12) + pad(sink) * 12;
		sink += pad(13) + pad(sink) * 13;
		sink += pad(14) + pad(sink) * 14;
		sink += pad(15) + pad(sink) * 15;
		sink += pad(16) + pad(sink) * 16;
		sink += pad(17) + pad(sink) * 17;
		sink += pad(18) + pad(sink) * 18;
		sink += pad(19) + pad(sink) * 19;
		sink += pad(20) + pad(sink) * 20;
		sink += pad(21) + pad(sink) * 21;
		sink += pad(22) + pad(sink) * 22;
		sink += pad(23) + pad(sink) * 23;
		sink += pad(24) + pad(sink) * 24;
		sink += pad(25) + pad(sink) * 25;
		sink += pad(26) + pad(sink) * 26;
		sink += pad(27) + pad(sink) * 27;
		sink += pad(28) + pad(sink) * 28;
		sink += pad(29) + pad(sink) * 29;
		sink += pad(30) + pad(sink) * 30;
		sink += pad(31) + pad(sink) * 31;
		sink += pad(32) + pad(sink) * 32;
		sink += pad(33) + pad(sink) * 33;
		sink += pad(34) + pad(sink) * 34;
		sink += pad(35) + pad(sink) * 35;
		sink += pad(36) + pad(sink) * 36;
		sink += pad(37) + pad(sink) * 37;
		sink += pad(38) + pad(sink) * 38;
		sink += pad(39) + pad(sink) * 39;
	}
	return f14(i + 13);
}

function f12(i) {
	if (never) {
		sink += pad(0) + pad(sink) * 0;
		sink += pad(1) + pad(sink) * 1;
		sink += pad(2) + pad(sink) * 2;
		sink += pad(3) + pad(sink) * 3;
		sink += pad(4) + pad(sink) * 4;
		sink += pad(5) + pad(sink) * 5;
		sink += pad(6) + pad(sink) * 6;
		sink += pad(7) + pad(sink) * 7;
		sink += pad(8) + pad(sink) * 8;
		sink += pad(9) + pad(sink) * 9;
		sink += pad(10) + pad(sink) * 10;
		sink += pad(11) + pad(sink) * 11;
		sink += pad(12) + pad(sink) * 12;
		sink += pad(13) + pad(sink) * 13;
		sink += pad(14) + pad(sink) * 14;
		sink += pad(15) + pad(sink) * 15;
		sink += pad(16) + pad(sink) * 16;
		sink += pad(17) + pad(sink) * 17;
		sink += pad(18) + pad(sink) * 18;
		sink += pad(19) + pad(sink) * 19;
		sink += pad(20) + pad(sink) * 20;
		sink += pad(21) + pad(sink) * 21;
		sink += pad(22) + pad(sink) * 22;
		sink += pad(23) + pad(sink) * 23;
		sink += pad(24) + pad(sink) * 24;
		sink += pad(25) + pad(sink) * 25;
		sink += pad(26) + pad(sink) * 26;
		sink += pad(27) + pad(sink) * 27;
		sink += pad(28) + pad(sink) * 28;
		sink += pad(29) + pad(sink) * 29;
		sink += pad(30) + pad(sink) * 30;
		sink += pad(31) + pad(sink) * 31;
		sink += pad(32) + pad(sink) * 32;
		sink += pad(33) + pad(sink) * 33;
		sink += pad(34) + pad(sink) * 34;
		sink += pad(35) + pad(sink) * 35;
		sink += pad(36) + pad(sink) * 36;
		sink += pad(37) + pad(sink) * 37;
		sink += pad(38) + pad(sink) * 38;
		sink += pad(39) + pad(sink) * 39;
	}
	return f13(i + 12);
}

function f11(i) {
	if (never) {
		sink += pad(0) + pad(sink) * 0;
		sink += pad(1) + pad(sink) * 1;
		sink += pad(2) + pad(sink) * 2;
		sink += pad(3) + pad(sink) * 3;
		sink += pad(4) + pad(sink) * 4;
		sink += pad(5) + pad(sink) * 5;
		sink += pad(6) + pad(sink) * 6;
		sink += pad(7) + pad(sink) * 7;
		sink += pad(8) + pad(sink) * 8;
		sink += pad(9) + pad(sink) * 9;
		sink += pad(10) + pad(sink) * 10;
		sink += pad(11) + pad(sink) * 11;
		sink += pad(12) + pad(sink) * 12;
		sink += pad(13) + pad(sink) * 13;
		sink += pad(14) + pad(sink) * 14;
		sink += pad(15) + pad(sink) * 15;
		sink += pad(16) + pad(sink) * 16;
		sink += pad(17) + pad(sink) * 17;
		sink += pad(18) + pad(sink) * 18;
		sink += pad(19) + pad(sink) * 19;
		sink += pad(20) + pad(sink) * 20;
		sink += pad(21) + pad(sink) * 21;
		sink += pad(22) + pad(sink) * 22;
		sink += pad(23) + pad(sink) * 23;
		sink += pad(24) + pad(sink) * 24;
		sink += pad(25) + pad(sink) * 25;
		sink += pad(26) + pad(sink) * 26;
		sink += pad(27) + pad(sink) * 27;
		sink += pad(28) + pad(sink) * 28;
		sink += pad(29) + pad(sink) * 29;
		sink += pad(30) + pad(sink) * 30;
		sink += pad(31) + pad(sink) * 31;
		sink += pad(32) + pad(sink) * 32;
		sink += pad(33) + pad(sink) * 33;
		sink += pad(34) + pad(sink) * 34;
		sink += pad(35) + pad(sink) * 35;
		sink += pad(36) + pad(sink) * 36;
		sink += pad(37) + pad(sink) * 37;
		sink += pad(38) + pad(sink) * 38;
		sink += pad(39) + pad(sink) * 39;
	}
	return f12(i + 11);
}

function f10(i) {
	if (never) {
		sink += pad(0) + pad(sink) * 0;
		sink += pad(1) + pad(sink) * 1;
		sink += pad(2) + pad(sink) * 2;
		sink += pad(3) + pad(sink) * 3;
		sink += pad(4) + pad(sink) * 4;
		sink += pad(5) + pad(sink) * 5;
		sink += pad(6) + pad(sink) * 6;
		sink += pad(7) + pad(sink) * 7;
		sink += pad(8) + pad(sink) * 8;
		sink += pad(9) + pad(sink) * 9;
		sink += pad(10) + pad(sink) * 10;
		sink += pad(11) + pad(sink) * 11;
		sink += pad(12) + pad(sink) * 12;
		sink += pad(13) + pad(sink) * 13;
		sink += pad(14) + pad(sink) * 14;
		sink += pad(15) + pad(sink) * 15;
		sink += pad(16) + pad(sink) * 16;
		sink += pad(17) + pad(sink) * 17;
		sink += pad(18) + pad(sink) * 18;
		sink += pad(19) + pad(sink) * 19;
		sink += pad(20) + pad(sink) * 20;
		sink += pad(21) + pad(sink) * 21;
		sink += pad(22) + pad(sink) * 22;
		sink += pad(23) + pad(sink) * 23;
		sink += pad(24) + pad(sink) * 24;
		sink += pad(25) + pad(sink) * 25;
		sink += pad(26) + pad(sink) * 26;
		sink += pad(27) + pad(sink) * 27;
		sink += pad(28) + pad(sink) * 28;
		sink += pad(29) + pad(sink) * 29;
		sink += pad(30) + pad(sink) * 30;
		sink += pad(31) + pad(sink) * 31;
		sink += pad(32) + pad(sink) * 32;
		sink += pad(33) + pad(sink) * 33;
		sink += pad(34) + pad(sink) * 34;
		sink += pad(35) + pad(sink) * 35;
		sink += pad(36) + pad(sink) * 36;
		sink += pad(37) + pad(sink) * 37;
		sink += pad(38) + pad(sink) * 38;
		sink += pad(39) + pad(sink) * 39;
	}
	return f11(i + 10);
}

function f9(i) {
	if (never) {
		sink += pad(0) + pad(sink) * 0;
		sink += pad(1) + pad(sink) * 1;
		sink += pad(2) + pad(sink) * 2;
		sink += pad(3) + pad(sink) * 3;
		sink += pad(4) + pad(sink) * 4;
		sink += pad(5) + pad(sink) * 5;
		sink += pad(6) + pad(sink) * 6;
		sink += pad(7) + pad(sink) * 7;
		sink += pad(8) + pad(sink) * 8;
		sink += pad(9) + pad(sink) * 9;
		sink += pad(10) + pad(sink) * 10;
		sink += pad(11) + pad(sink) * 11;
		sink += pad(12) + pad(sink) * 12;
		sink += pad(13) + pad(sink) * 13;
		sink += pad(14) + pad(sink) * 14;
		sink += pad(15) + pad(sink) * 15;
		sink += pad(16) + pad(sink) * 16;
		sink += pad(17) + pad(sink) * 17;
		sink += pad(18) + pad(sink) * 18;
		sink += pad(19) + pad(sink) * 19;
		sink += pad(20) + pad(sink) * 20;
		sink += pad(21) + pad(sink) * 21;
		sink += pad(22) + pad(sink) * 22;
		sink += pad(23) + pad(sink) * 23;
		sink += pad(24) + pad(sink) * 24;
		sink += pad(25) + pad(sink) * 25;
		sink += pad(26) + pad(sink) * 26;
		sink += pad(27) + pad(sink) * 27;
		sink += pad(28) + pad(sink) * 28;
		sink += pad(29) + pad(sink) * 29;
		sink += pad(30) + pad(sink) * 30;
		sink += pad(31) + pad(sink) * 31;
		sink += pad(32) + pad(sink) * 32;
		sink += pad(33) + pad(sink) * 33;
		sink += pad(34) + pad(sink) * 34;
		sink += pad(35) + pad(sink) * 35;
		sink += pad(36) + pad(sink) * 36;
		sink += pad(37) + pad(sink) * 37;
		sink += pad(38) + pad(sink) * 38;
		sink += pad(39) + pad(sink) * 39;
	}
	return f10(i + 9);
}

function f8(i) {
	if (never) {
		sink += pad(0) + pad(sink) * 0;
		sink += pad(1) + pad(sink) * 1;
		sink += pad(2) + pad(sink) * 2;
		sink += pad(3) + pad(sink) * 3;
		sink += pad(4) + pad(sink) * 4;
		sink += pad(5) + pad(sink) * 5;
		sink += pad(6) + pad(sink) * 6;
		sink += pad(7) + pad(sink) * 7;
		sink += pad(8) + pad(sink) * 8;
		sink += pad(9) + pad(sink) * 9;
		sink += pad(10) + pad(sink) * 10;
		sink += pad(11) + pad(sink) * 11;
		sink += pad(12) + pad(sink) * 12;
		sink += pad(13) + pad(sink) * 13;
		sink += pad(14) + pad(sink) * 14;
		sink += pad(15) + pad(sink) * 15;
		sink += pad(16) + pad(sink) * 16;
		sink += pad(17) + pad(sink) * 17;
		sink += pad(18) + pad(sink) * 18;
		sink += pad(19) + pad(sink) * 19;
		sink += pad(20) + pad(sink) * 20;
		sink += pad(21) + pad(sink) * 21;
		sink += pad(22) + pad(sink) * 22;
		sink += pad(23) + pad(sink) * 23;
		sink += pad(24) + pad(sink) * 24;
		sink += pad(25) + pad(sink) * 25;
		sink += pad(26) + pad(sink) * 26;
		sink += pad(27) + pad(sink) * 27;
		sink += pad(28) + pad(sink) * 28;
		sink += pad(29) + pad(sink) * 29;
		sink += pad(30) + pad(sink) * 30;
		sink += pad(31) + pad(sink) * 31;
		sink += pad(32) + pad(sink) * 32;
		sink += pad(33) + pad(sink) * 33;
		sink += pad(34) + pad(sink) * 34;
		sink += pad(35) + pad(sink) * 35;
		sink += pad(36) + pad(sink) * 36;
		sink += pad(37) + pad(sink) * 37;
		sink += pad(38) + pad(sink) * 38;
		sink += pad(39) + pad(sink) * 39;
	}
	return f9(i + 8);
}

function f7(i) {
	if (never) {
		sink += pad(0) + pad(sink) * 0;
		sink += pad(1) + pad(sink) * 1;
		sink += pad(2) + pad(sink) * 2;
		sink += pad(3) + pad(sink) * 3;
		sink += pad(4) + pad(sink) * 4;
		sink += pad(5) + pad(sink) * 5;
		sink += pad(6) + pad(sink) * 6;
		sink += pad(7) + pad(sink) * 7;
		sink += pad(8) + pad(sink) * 8;
		sink += pad(9) + pad(sink) * 9;
		sink += pad(10) + pad(sink) * 10;
		sink += pad(11) + pad(sink) * 11;
		sink += pad(12) + pad(sink) * 12;
		sink += pad(13) + pad(sink) * 13;
		sink += pad(14) + pad(sink) * 14;
		sink += pad(15) + pad(sink) * 15;
		sink += pad(16) + pad(sink) * 16;
		sink += pad(17) + pad(sink) * 17;
		sink += pad(18) + pad(sink) * 18;
		sink += pad(19) + pad(sink) * 19;
		sink += pad(20) + pad(sink) * 20;
		sink += pad(21) + pad(sink) * 21;
		sink += pad(22) + pad(sink) * 22;
		sink += pad(23) + pad(sink) * 23;
		sink += pad(24) + pad(sink) * 24;
		sink += pad(25) + pad(sink) * 25;
		sink += pad(26) + pad(sink) * 26;
		sink += pad(27) + pad(sink) * 27;
		sink += pad(28) + pad(sink) * 28;
		sink += pad(29) + pad(sink) * 29;
		sink += pad(30) + pad(sink) * 30;
		sink += pad(31) + pad(sink) * 31;
		sink += pad(32) + pad(sink) * 32;
		sink += pad(33) + pad(sink) * 33;
		sink += pad(34) + pad(sink) * 34;
		sink += pad(35) + pad(sink) * 35;
		sink += pad(36) + pad(sink) * 36;
		sink += pad(37) + pad(sink) * 37;
		sink += pad(38) + pad(sink) * 38;
		sink += pad(39) + pad(sink) * 39;
	}
	return f8(i + 7);
}

function f6(i) {
	if (never) {
		sink += pad(0) + pad(sink) * 0;
		sink += pad(1) + pad(sink) * 1;
		sink += pad(2) + pad(sink) * 2;
		sink += pad(3) + pad(sink) * 3;
		sink += pad(4) + pad(sink) * 4;
		sink += pad(5) + pad(sink) * 5;
		sink += pad(6) + pad(sink) * 6;
		sink += pad(7) + pad(sink) * 7;
		sink += pad(8) + pad(sink) * 8;
		sink += pad(9) + pad(sink) * 9;
		sink += pad(10) + pad(sink) * 10;
		sink += pad(11) + pad(sink) * 11;
		sink += pad(12) + pad(sink) * 12;
		sink += pad(13) + pad(sink) * 13;
		sink += pad(14) + pad(sink) * 14;
		sink += pad(15) + pad(sink) * 15;
		sink += pad(16) + pad(sink) * 16;
		sink += pad(17) + pad(sink) * 17;
		sink += pad(18) + pad(sink) * 18;
		sink += pad(19) + pad(sink) * 19;
		sink += pad(20) + pad(sink) * 20;
		sink += pad(21) + pad(sink) * 21;
		sink += pad(22) + pad(sink) * 22;
		sink += pad(23) + pad(sink) * 23;
		sink += pad(24) + pad(sink) * 24;
		sink += pad(25) + pad(sink) * 25;
		sink += pad(26) + pad(sink) * 26;
		sink += pad(27) + pad(sink) * 27;
		sink += pad(28) + pad(sink) * 28;
		sink += pad(29) + pad(sink) * 29;
		sink += pad(30) + pad(sink) * 30;
		sink += pad(31) + pad(sink) * 31;
		sink += pad(32) + pad(sink) * 32;
		sink += pad(33) + pad(sink) * 33;
		sink += pad(34) + pad(sink) * 34;
		sink += pad(35) + pad(sink) * 35;
		sink += pad(36) + pad(sink) * 36;
		sink += pad(37) + pad(sink) * 37;
		sink += pad(38) + pad(sink) * 38;
		sink += pad(39) + pad(sink) * 39;
	}
	return f7(i + 6);
}

function f5(i) {
	if (never) {
		sink += pad(0) + pad(sink) * 0;
		sink += pad(1) + pad(sink) * 1;
		sink += pad(2) + pad(sink) * 2;
		sink += pad(3) + pad(sink) * 3;
		sink += pad(4) + pad(sink) * 4;
		sink += pad(5) + pad(sink) * 5;
		sink += pad(6) + pad(sink) * 6;
		sink += pad(7) + pad(sink) * 7;
		sink += pad(8) + pad(sink) * 8;
		sink += pad(9) + pad(sink) * 9;
		sink += pad(10) + pad(sink) * 10;
		sink += pad(11) + pad(sink) * 11;
		sink += pad(12) + pad(sink) * 12;
		sink += pad(13) + pad(sink) * 13;
		sink += pad(14) + pad(sink) * 14;
		sink += pad(15) + pad(sink) * 15;
		sink += pad(16) + pad(sink) * 16;
		sink += pad(17) + pad(sink) * 17;
		sink += pad(18) + pad(sink) * 18;
		sink += pad(19) + pad(sink) * 19;
		sink += pad(20) + pad(sink) * 20;
		sink += pad(21) + pad(sink) * 21;
		sink += pad(22) + pad(sink) * 22;
		sink += pad(23) + pad(sink) * 23;
		sink += pad(24) + pad(sink) * 24;
		sink += pad(25) + pad(sink) * 25;
		sink += pad(26) + pad(sink) * 26;
		sink += pad(27) + pad(sink) * 27;
		sink += pad(28) + pad(sink) * 28;
		sink += pad(29) + pad(sink) * 29;
		sink += pad(30) + pad(sink) * 30;
		sink += pad(31) + pad(sink) * 31;
		sink += pad(32) + pad(sink) * 32;
		sink += pad(33) + pad(sink) * 33;
		sink += pad(34) + pad(sink) * 34;
		sink += pad(35) + pad(sink) * 35;
		sink += pad(36) + pad(sink) * 36;
		sink += pad(37) + pad(sink) * 37;
		sink += pad(38) + pad(sink) * 38;
		sink += pad(39) + pad(sink) * 39;
	}
	return f6(i + 5);
}

function f4(i) {
	if (never) {
		sink += pad(0) + pad(sink) * 0;
		sink += pad(1) + pad(sink) * 1;
		sink += pad(2) + pad(sink) * 2;
		sink += pad(3) + pad(sink) * 3;
		sink += pad(4) + pad(sink) * 4;
		sink += pad(5) + pad(sink) * 5;
		sink += pad(6) + pad(sink) * 6;
		sink += pad(7) + pad(sink) * 7;
		sink += pad(8) + pad(sink) * 8;
		sink += pad(9) + pad(sink) * 9;
		sink += pad(10) + pad(sink) * 10;
		sink += pad(11) + pad(sink) * 11;
		sink += pad(12) + pad(sink) * 12;
		sink += pad(13) + pad(sink) * 13;
		sink += pad(14) + pad(sink) * 14;
		sink += pad(15) + pad(sink) * 15;
		sink += pad(16) + pad(sink) * 16;
		sink += pad(17) + pad(sink) * 17;
		sink += pad(18) + pad(sink) * 18;
		sink += pad(19) + pad(sink) * 19;
		sink += pad(20) + pad(sink) * 20;
		sink += pad(21) + pad(sink) * 21;
		sink += pad(22) + pad(sink) * 22;
		sink += pad(23) + pad(sink) * 23;
		sink += pad(24) + pad(sink) * 24;
		sink += pad(25) + pad(sink) * 25;
		sink += pad(26) + pad(sink) * 26;
		sink += pad(27) + pad(sink) * 27;
		sink += pad(28) + pad(sink) * 28;
		sink += pad(29) + pad(sink) * 29;
		sink += pad(30) + pad(sink) * 30;
		sink += pad(31) + pad(sink) * 31;
		sink += pad(32) + pad(sink) * 32;
		sink += pad(33) + pad(sink) * 33;
		sink += pad(34) + pad(sink) * 34;
		sink += pad(35) + pad(sink) * 35;
		sink += pad(36) + pad(sink) * 36;
		sink += pad(37) + pad(sink) * 37;
		sink += pad(38) + pad(sink) * 38;
		sink += pad(39) + pad(sink) * 39;
	}
	return f5(i + 4);
}

function f3(i) {
	if (never) {
		sink += pad(0) + pad(sink) * 0;
		sink += pad(1) + pad(sink) * 1;
		sink += pad(2) + pad(sink) * 2;
		sink += pad(3) + pad(sink) * 3;
		sink += pad(4) + pad(sink) * 4;
		sink += pad(5) + pad(sink) * 5;
		sink += pad(6) + pad(sink) * 6;
		sink += pad(7) + pad(sink) * 7;
		sink += pad(8) + pad(sink) * 8;
		sink += pad(9) + pad(sink) * 9;
		sink += pad(10) + pad(sink) * 10;
		sink += pad(11) + pad(sink) * 11;
		sink += pad(12) + pad(sink) * 12;
		sink += pad(13) + pad(sink) * 13;
		sink += pad(14) + pad(sink) * 14;
		sink += pad(15) + pad(sink) * 15;
		sink += pad(16) + pad(sink) * 16;
		sink += pad(17) + pad(sink) * 17;
		sink += pad(18) + pad(sink) * 18;
		sink += pad(19) + pad(sink) * 19;
		sink += pad(20) + pad(sink) * 20;
		sink += pad(21) + pad(sink) * 21;
		sink += pad(22) + pad(sink) * 22;
		sink += pad(23) + pad(sink) * 23;
		sink += pad(24) + pad(sink) * 24;
		sink += pad(25) + pad(sink) * 25;
		sink += pad(26) + pad(sink) * 26;
		sink += pad(27) + pad(sink) * 27;
		sink += pad(28) + pad(sink) * 28;
		sink += pad(29) + pad(sink) * 29;
		sink += pad(30) + pad(sink) * 30;
		sink += pad(31) + pad(sink) * 31;
		sink += pad(32) + pad(sink) * 32;
		sink += pad(33) + pad(sink) * 33;
		sink += pad(34) + pad(sink) * 34;
		sink += pad(35) + pad(sink) * 35;
		sink += pad(36) + pad(sink) * 36;
		sink += pad(37) + pad(sink) * 37;
		sink += pad(38) + pad(sink) * 38;
		sink += pad(39) + pad(sink) * 39;
	}
	return f4(i + 3);
}

function f2(i) {
	if (never) {
		sink += pad(0) + pad(sink) * 0;
		sink += pad(1) + pad(sink) * 1;
		sink += pad(2) + pad(sink) * 2;
		sink += pad(3) + pad(sink) * 3;
		sink += pad(4) + pad(sink) * 4;
		sink += pad(5) + pad(sink) * 5;
		sink += pad(6) + pad(sink) * 6;
		sink += pad(7) + pad(sink) * 7;
		sink += pad(8) + pad(sink) * 8;
		sink += pad(9) + pad(sink) * 9;
		sink += pad(10) + pad(sink) * 10;
		sink += pad(11) + pad(sink) * 11;
		sink += pad(12) + pad(sink) * 12;
		sink += pad(13) + pad(sink) * 13;
		sink += pad(14) + pad(sink) * 14;
		sink += pad(15) + pad(sink) * 15;
		sink += pad(16) + pad(sink) * 16;
		sink += pad(17) + pad(sink) * 17;
		sink += pad(18) + pad(sink) * 18;
		sink += pad(19) + pad(sink) * 19;
		sink += pad(20) + pad(sink) * 20;
		sink += pad(21) + pad(sink) * 21;
		sink += pad(22) + pad(sink) * 22;
		sink += pad(23) + pad(sink) * 23;
		sink += pad(24) + pad(sink) * 24;
		sink += pad(25) + pad(sink) * 25;
		sink += pad(26) + pad(sink) * 26;
		sink += pad(27) + pad(sink) * 27;
		sink += pad(28) + pad(sink) * 28;
		sink += pad(29) + pad(sink) * 29;
		sink += pad(30) + pad(sink) * 30;
		sink += pad(31) + pad(sink) * 31;
		sink += pad(32) + pad(sink) * 32;
		sink += pad(33) + pad(sink) * 33;
		sink += pad(34) + pad(sink) * 34;
		sink += pad(35) + pad(sink) * 35;
		sink += pad(36) + pad(sink) * 36;
		sink += pad(37) + pad(sink) * 37;
		sink += pad(38) + pad(sink) * 38;
		sink += pad(39) + pad(sink) * 39;
	}
	return f3(i + 2);
}

function f1(i) {
	if (never) {
		sink += pad(0) + pad(sink) * 0;
		sink += pad(1) + pad(sink) * 1;
		sink += pad(2) + pad(sink) * 2;
		sink += pad(3) + pad(sink) * 3;
		sink += pad(4) + pad(sink) * 4;
		sink += pad(5) + pad(sink) * 5;
		sink += pad(6) + pad(sink) * 6;
		sink += pad(7) + pad(sink) * 7;
		sink += pad(8) + pad(sink) * 8;
		sink += pad(9) + pad(sink) * 9;
		sink += pad(10) + pad(sink) * 10;
		sink += pad(11) + pad(sink) * 11;
		sink += pad(12) + pad(sink) * 12;
		sink += pad(13) + pad(sink) * 13;
		sink += pad(14) + pad(sink) * 14;
		sink += pad(15) + pad(sink) * 15;
		sink += pad(16) + pad(sink) * 16;
		sink += pad(17) + pad(sink) * 17;
		sink += pad(18) + pad(sink) * 18;
		sink += pad(19) + pad(sink) * 19;
		sink += pad(20) + pad(sink) * 20;
		sink += pad(21) + pad(sink) * 21;
		sink += pad(22) + pad(sink) * 22;
		sink += pad(23) + pad(sink) * 23;
		sink += pad(24) + pad(sink) * 24;
		sink += pad(25) + pad(sink) * 25;
		sink += pad(26) + pad(sink) * 26;
		sink += pad(27) + pad(sink) * 27;
		sink += pad(28) + pad(sink) * 28;
		sink += pad(29) + pad(sink) * 29;
		sink += pad(30) + pad(sink) * 30;
		sink += pad(31) + pad(sink) * 31;
		sink += pad(32) + pad(sink) * 32;
		sink += pad(33) + pad(sink) * 33;
		sink += pad(34) + pad(sink) * 34;
		sink += pad(35) + pad(sink) * 35;
		sink += pad(36) + pad(sink) * 36;
		sink += pad(37) + pad(sink) * 37;
		sink += pad(38) + pad(sink) * 38;
		sink += pad(39) + pad(sink) * 39;
	}
	return f2(i + 1);
}

function loop(secs) {
	const end = Date.now() + secs * 1000;
	if (never) {
		sink += pad(0) + pad(sink) * 0;
		sink += pad(1) + pad(sink) * 1;
		sink += pad(2) + pad(sink) * 2;
		sink += pad(3) + pad(sink) * 3;
		sink += pad(4) + pad(sink) * 4;
		sink += pad(5) + pad(sink) * 5;
		sink += pad(6) + pad(sink) * 6;
		sink += pad(7) + pad(sink) * 7;
		sink += pad(8) + pad(sink) * 8;
		sink += pad(9) + pad(sink) * 9;
		sink += pad(10) + pad(sink) * 10;
		sink += pad(11) + pad(sink) * 11;
		sink += pad(12) + pad(sink) * 12;
		sink += pad(13) + pad(sink) * 13;
		sink += pad(14) + pad(sink) * 14;
		sink += pad(15) + pad(sink) * 15;
		sink += pad(16) + pad(sink) * 16;
		sink += pad(17) + pad(sink) * 17;
		sink += pad(18) + pad(sink) * 18;
		sink += pad(19) + pad(sink) * 19;
		sink += pad(20) + pad(sink) * 20;
		sink += pad(21) + pad(sink) * 21;
		sink += pad(22) + pad(sink) * 22;
		sink += pad(23) + pad(sink) * 23;
		sink += pad(24) + pad(sink) * 24;
		sink += pad(25) + pad(sink) * 25;
		sink += pad(26) + pad(sink) * 26;
		sink += pad(27) + pad(sink) * 27;
		sink += pad(28) + pad(sink) * 28;
		sink += pad(29) + pad(sink) * 29;
		sink += pad(30) + pad(sink) * 30;
		sink += pad(31) + pad(sink) * 31;
		sink += pad(32) + pad(sink) * 32;
		sink += pad(33) + pad(sink) * 33;
		sink += pad(34) + pad(sink) * 34;
		sink += pad(35) + pad(sink) * 35;
		sink += pad(36) + pad(sink) * 36;
		sink += pad(37) + pad(sink) * 37;
		sink += pad(38) + pad(sink) * 38;
		sink += pad(39) + pad(sink) * 39;
	}
	while (Date.now() < end)
		sink += f1(sink & 1023);
}

loop(Number(process.argv[2]));
if (sink === 0.5)
	console.log(sink);
