# SPDX-License-Identifier: GPL-2.0
# Off-CPU twin of py_waits.py in Ruby (2.7 and later): threads that wait in known methods
# and lines (sleep, IO#sysread of a pipe, a Mutex another thread holds) and measure their
# own off-CPU time: wall time less thread CPU time around the call.  None of them holds
# the GVL while it waits.  Prints "waited KIND SECONDS" per kind.  Lines by MARK comments.
#   ruby rb_waits.rb SECONDS

def now
  Process.clock_gettime(Process::CLOCK_MONOTONIC)
end

def cpu
  Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID)
end

# One write(2) per line, as py_waits.py does.
def report(kind, waited)
  $stdout.syswrite(format("waited %s %.6f\n", kind, waited))
end

def timed
  a = now
  c = cpu
  yield  # MARK: call
  (now - a) - (cpu - c)
end

def sleeper(total)
  t_end = now + total
  waited = 0.0
  waited += timed { sleep 0.01 } while now < t_end  # MARK: sleep
  report("sleep", waited)
end

def reader(rd, total)
  t_end = now + total
  waited = 0.0
  waited += timed { rd.sysread(1) } while now < t_end  # MARK: read
  report("pipe", waited)
end

def locker(lock, total)
  t_end = now + total
  waited = 0.0
  while now < t_end
    waited += timed { lock.lock }  # MARK: lock
    lock.unlock
    sleep 0.0001
  end
  report("lock", waited)
end

def feeder(wr, total)
  t_end = now + total + 0.2
  while now < t_end
    sleep 0.01
    wr.syswrite("x")
  end
end

def holder(lock, total)
  t_end = now + total + 0.2
  while now < t_end
    lock.synchronize { sleep 0.01 }
    sleep 0.0001
  end
end

total = ARGV[0].to_f
rd, wr = IO.pipe
lock = Mutex.new
threads = [
  Thread.new { sleeper(total) },
  Thread.new { reader(rd, total) },
  Thread.new { feeder(wr, total) },
  Thread.new { holder(lock, total) },
  Thread.new { sleep 0.005; locker(lock, total) },
]
threads.each(&:join)
