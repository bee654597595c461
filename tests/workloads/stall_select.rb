# SPDX-License-Identifier: GPL-2.0
# A Ruby event loop waiting in IO.select (pselect6 underneath), with short
# tasks and one stall on purpose: 200 ms of CPU without returning to select.
# A third of a second of computing first, before the loop's first select (so
# no stall, and no syscall that would be taken as the loop's): a just-started
# interpreter's first ~30 ms (more under ASan: the walkers load once it is
# found) have no script frames yet, and this is a test of a stall's chain,
# not of start-up (CI's ASan pass once showed the whole stall without them).
t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 0.3
nil while Process.clock_gettime(Process::CLOCK_MONOTONIC) < t0
r, w = IO.pipe

def spin_for_stall(sec)
  t = Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID) + sec
  x = 0
  x += 1 while Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID) < t
end

def turn(r, w)
  w.write('x')
  IO.select([r])
  r.read(1)
end

300.times { turn(r, w) }
spin_for_stall(0.2)
300.times { turn(r, w) }
