// SPDX-License-Identifier: GPL-2.0
// A JavaScript call chain three deep, hot in inner (tests/integration/jit.sh):
//   node --perf-basic-prof --interpreted-frames-native-stack chain.js SECONDS
function inner(n) {
	let s = 0;
	for (let i = 0; i < n; i++)
		s += Math.sqrt(i) * 1.5;
	return s;
}
function middle(n) { return inner(n) + 1; }
function outer(n) { return middle(n) + 1; }

const end = Date.now() + Number(process.argv[2]) * 1000;
let t = 0;
console.log("ready");
while (Date.now() < end)
	t += outer(200000);
console.log(t > 0 ? "ok" : "no");
