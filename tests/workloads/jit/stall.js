// SPDX-License-Identifier: GPL-2.0
// node's event loop (epoll_pwait) with short timers and, once every 5 ticks,
// a callback that spins 100 ms without returning to the loop: stitch stalls.
//   node --perf-basic-prof --interpreted-frames-native-stack stall.js SECONDS
function spinFor(ms) {
	const end = Date.now() + ms;
	let s = 0;
	while (Date.now() < end)
		for (let i = 0; i < 10000; i++)
			s += Math.sqrt(i);
	return s;
}
function stallOnce() { return spinFor(100); }

const end = Date.now() + Number(process.argv[2]) * 1000;
let tick = 0;
const timer = setInterval(() => {
	if (++tick % 5 === 0)
		stallOnce();
	if (Date.now() > end)
		clearInterval(timer);
}, 20);
