# Workload for tests/integration/interp_tests.sh: the ways a Ruby frame gets (or does not
# get) a class in its name.  Every case calls Process.ppid (getpid) from one line (MARK).
#
#   rb_names.rb SECONDS
module Names
  class Inner
    def svar_m
      "a" =~ /a/  # $~: this method's local env now holds an svar, not the method entry
      Process.ppid  # MARK: svar
    end

    def resc
      raise "x"
    rescue
      Process.ppid  # MARK: resc
    end

    define_method(:dm) { Process.ppid }  # MARK: dm

    # A recursion: the walk reads a repeated frame's iseq and method entry once.
    def rec(n)
      return Process.ppid if n.zero?  # MARK: rec
      rec(n - 1)  # MARK: rec_call
    end
  end

  # Two classes, one method name, calling each other: nothing carried between them.
  class Ping
    def volley(n, other)
      return Process.ppid if n.zero?  # MARK: ping
      other.volley(n - 1, self)  # MARK: ping_call
    end
  end

  class Pong
    def volley(n, other)
      return Process.ppid if n.zero?  # MARK: pong
      other.volley(n - 1, self)  # MARK: pong_call
    end
  end

  module Util
    module_function

    def helper
      Process.ppid  # MARK: helper
    end
  end
end

anon = Class.new { def am; Process.ppid; end }  # MARK: anon

obj = Object.new
def obj.single
  Process.ppid  # MARK: single
end

def top_blk
  [1].each { Process.ppid }  # MARK: top_blk
end

t = Time.now + ARGV[0].to_f
inner = Names::Inner.new
ping = Names::Ping.new
pong = Names::Pong.new
a = anon.new
while Time.now < t
  inner.svar_m
  inner.resc
  inner.dm
  inner.rec(3)
  ping.volley(3, pong)
  Names::Util.helper
  a.am
  obj.single
  top_blk
end
