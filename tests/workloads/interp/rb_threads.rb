# Workload for tools/interp-walk/run-checks.sh: thread A only calls Process.pid, thread B only
# writes to $stderr, the main thread sleeps. Each innermost loop sits on one line (MARK).
module Work
  class Pinger
    def run
      [1].each do |x|  # MARK: a_each
        spin_a(x)  # MARK: a_block
      end
    end

    def spin_a(x)
      while true; Process.pid; end  # MARK: a_spin
    end
  end
end

def writer_b
  3.times { |i| spin_b }  # MARK: b_block
end

def spin_b
  while true; $stderr.write("."); end  # MARK: b_spin
end

def main_wait
  while true; sleep 0.01; end  # MARK: m_wait
end

ta = Thread.new { Work::Pinger.new.run }  # MARK: a_thread
tb = Thread.new { writer_b }  # MARK: b_thread
sleep 0.2
tids = [ta, tb].map { |t| t.native_thread_id }
puts "ready main=#{Thread.current.native_thread_id} a=#{tids[0]} b=#{tids[1]}"
$stdout.flush
main_wait  # MARK: m_main
