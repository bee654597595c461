# SPDX-License-Identifier: GPL-2.0
# bench/interp_cost.sh: ~20 Ruby frames (main, loop, 17 of dive, leaf and its
# block) over a leaf that computes, as deep.py.
#   ruby deep.rb SECONDS
def leaf(i)
  s = 0
  300.times { |k| s += k * i }
  s
end

def dive(n, i)
  return leaf(i) if n.zero?

  dive(n - 1, i + 1)
end

def run(seconds)
  stop = Process.clock_gettime(Process::CLOCK_MONOTONIC) + seconds
  i = 0
  while Process.clock_gettime(Process::CLOCK_MONOTONIC) < stop
    dive(16, i)
    i += 1
  end
end

run(ARGV[0].to_f)
