# Workload for the integration tests of interpreter frames (tests/integration/interp_tests.sh).
# Thread A calls Process.ppid through methods, a block and a C method calling back into Ruby
# (Array#each, sort_by), a method of a mixed-in module and a singleton method with nested
# blocks; thread B only writes to $stderr; the main thread waits.  No getppid stack may show
# B's methods.  (getppid, not getpid: Ruby 3.3 caches the pid, Process.pid makes no syscall.)  Lines are found by their MARK comments.  Frames are named as Ruby 3.4 does:
# Work::Pinger#run, block in Work::Pinger#run, Work::Greeter#greet (the module owns it),
# Work::Pinger.tick, Process.ppid, Array#each; top-level methods keep their plain names.
#
#   rb_stitch.rb threads SECONDS  |  rb_stitch.rb cpu SECONDS  |  rb_stitch.rb main SECONDS
#   (main: the main thread alone calls Process.ppid)
module Work
  module Greeter
    def greet
      Process.ppid  # MARK: a_greet
    end
  end

  class Pinger
    include Greeter

    def self.tick
      1.times { [0].each { Process.ppid } }  # MARK: a_tick
    end

    def run(t)
      [1].each do |x|  # MARK: a_each
        spin_a(x, t)  # MARK: a_block
      end
    end

    def spin_a(x, t)
      while Time.now < t
        Process.ppid  # MARK: a_pid
        [2, 1].sort_by { |v| Process.ppid; v }  # MARK: a_sort
        greet  # MARK: a_greet_call
        Pinger.tick  # MARK: a_tick_call
      end
    end

    # A block called from C (Integer#times): many samples land while its frame
    # is being pushed or popped, outside the VM's loop.
    def burn(t)
      n = 0
      while Time.now < t; 50.times { |k| n += k }; end  # MARK: a_burn
      n
    end
  end
end

def writer_b(t)
  while Time.now < t
    $stderr.write("")  # MARK: b_write
  end
end

def main_loop(t)
  while Time.now < t
    Process.ppid  # MARK: main_pid
  end
end

mode, seconds = ARGV[0], ARGV[1].to_f
t = Time.now + seconds
if mode == "main"
  main_loop(t)  # MARK: main_call
  exit
end
ta = Thread.new do
  if mode == "cpu"
    Work::Pinger.new.burn(t)  # MARK: a_cpu
  else
    Work::Pinger.new.run(t)  # MARK: a_thread
  end
end
tb = Thread.new { writer_b(t) }  # MARK: b_thread
ta.join  # MARK: main_join
tb.join
