// SPDX-License-Identifier: GPL-2.0
// node's event loop (epoll_pwait) with short timers and, once every 5 ticks,
// a callback that spins 100 ms of CPU time without returning to the loop:
// stitch stalls.
//   node --perf-basic-prof --interpreted-frames-native-stack stall.js SECONDS
// CPU time, not wall time: a busy machine must not shorten a stall.
function spinFor(ms) {
	const end = process.cpuUsage().user + ms * 1000;
	let s = 0;
	while (process.cpuUsage().user < end)
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
