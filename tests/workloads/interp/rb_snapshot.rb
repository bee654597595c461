# Workload for stitch snapshot's tests: threads parked in known places, each
# on one line (the MARK comments): 4 waiting for a mutex the main thread
# holds, 3 sleeping, 2 reading a pipe nobody writes, and the main thread
# sleeping.  Prints "ready" once every thread has started.
LOCK = Mutex.new
RD, WR = IO.pipe

def lock_wait
  LOCK.synchronize { }  # MARK: lock_wait
end

def lock_worker
  lock_wait  # MARK: lock_worker
end

def sleep_wait
  loop { sleep 100 }  # MARK: sleep_wait
end

def sleep_worker
  sleep_wait  # MARK: sleep_worker
end

class Reader
  def wait
    RD.sysread(1)  # MARK: pipe_wait
  end

  def run
    wait  # MARK: pipe_worker
  end
end

LOCK.lock
threads = Array.new(4) { Thread.new { lock_worker } }  # MARK: lock_threads
threads += Array.new(3) { Thread.new { sleep_worker } }  # MARK: sleep_threads
threads += Array.new(2) { Thread.new { Reader.new.run } }  # MARK: pipe_threads
sleep 0.3
puts "ready"
$stdout.flush
loop { sleep 100 }  # MARK: main_wait
