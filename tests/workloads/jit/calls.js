// SPDX-License-Identifier: GPL-2.0
// Calls made from lines below their functions' first (tests/integration/jit.sh):
// run interpreted (node --no-opt --no-sparkplug calls.js SECONDS), each
// caller's frame is at the line of its call.
function leaf(n) {
	let s = 0;
	for (let i = 0; i < n; i++)
		s += i % 7;
	return s;
}
function mid(n) {
	let t = 0;
	t += leaf(n);
	return t;
}
function top(n) {
	const x = n;
	return mid(x) + 1;
}

const end = Date.now() + Number(process.argv[2]) * 1000;
let t = 0;
console.log("ready");
while (Date.now() < end)
	t += top(20000);
console.log(t > 0 ? "ok" : "no");
