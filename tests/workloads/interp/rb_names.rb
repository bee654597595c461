# Workload for tests/integration/interp_tests.sh: the ways a Ruby frame gets (or does not
# get) a class in its name.  Every case calls Process.pid (getpid) from one line (MARK).
#
#   rb_names.rb SECONDS
module Names
  class Inner
    def svar_m
      "a" =~ /a/  # $~: this method's local env now holds an svar, not the method entry
      Process.pid  # MARK: svar
    end

    def resc
      raise "x"
    rescue
      Process.pid  # MARK: resc
    end

    define_method(:dm) { Process.pid }  # MARK: dm
  end

  module Util
    module_function

    def helper
      Process.pid  # MARK: helper
    end
  end
end

anon = Class.new { def am; Process.pid; end }  # MARK: anon

obj = Object.new
def obj.single
  Process.pid  # MARK: single
end

def top_blk
  [1].each { Process.pid }  # MARK: top_blk
end

t = Time.now + ARGV[0].to_f
inner = Names::Inner.new
a = anon.new
while Time.now < t
  inner.svar_m
  inner.resc
  inner.dm
  Names::Util.helper
  a.am
  obj.single
  top_blk
end
