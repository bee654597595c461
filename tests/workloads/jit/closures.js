// SPDX-License-Identifier: GPL-2.0
// A new closure every few milliseconds, hot while V8's young generation
// turns over under it (tests/integration/jit.sh): each round's work
// function is a new JSFunction, made in the young generation, which the
// next scavenges move (and promote), while its SharedFunctionInfo (one per
// function literal) stays where it is.  Two literals take turns, each
// called from a caller of its own: a frame named as the other one is
// a wrong frame.
//   node closures.js SECONDS
function makeLeft(round) {
	return function workLeft(n) {
		let keep = [];
		for (let i = 0; i < n; i++) {
			keep.push({ i: i, round: round });
			if (keep.length > 256)
				keep = [];
		}
		return keep.length;
	};
}
function makeRight(round) {
	return function workRight(n) {
		let keep = [];
		for (let i = 0; i < n; i++) {
			keep.push({ i: i, round: round, right: true });
			if (keep.length > 256)
				keep = [];
		}
		return keep.length;
	};
}
function runLeft(round) {
	const stop = Date.now() + 5;
	let t = 0;
	while (Date.now() < stop)
		t += makeLeft(round)(2000);
	return t;
}
function runRight(round) {
	const stop = Date.now() + 5;
	let t = 0;
	while (Date.now() < stop)
		t += makeRight(round)(2000);
	return t;
}

const end = Date.now() + Number(process.argv[2]) * 1000;
let round = 0, t = 0;
console.log("ready");
while (Date.now() < end) {
	t += runLeft(round);
	t += runRight(round);
	round++;
}
console.log(t >= 0 ? "ok" : "no");
