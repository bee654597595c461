# SPDX-License-Identifier: GPL-2.0
# A Ruby event loop waiting in IO.select (pselect6 underneath), with short
# tasks and one stall on purpose: 200 ms of CPU without returning to select.
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
