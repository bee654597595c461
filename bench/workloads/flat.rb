# SPDX-License-Identifier: GPL-2.0
# bench/interp_cost.sh: ~20 Ruby frames (main, run, f1..f17, leaf and its
# block), every method a different one, as flat.py.
#   ruby flat.rb SECONDS
def leaf(i)
  s = 0
  300.times { |k| s += k * i }
  s
end

def f17(i)
  leaf(i + 17)
end

def f16(i)
  f17(i + 16)
end

def f15(i)
  f16(i + 15)
end

def f14(i)
  f15(i + 14)
end

def f13(i)
  f14(i + 13)
end

def f12(i)
  f13(i + 12)
end

def f11(i)
  f12(i + 11)
end

def f10(i)
  f11(i + 10)
end

def f9(i)
  f10(i + 9)
end

def f8(i)
  f9(i + 8)
end

def f7(i)
  f8(i + 7)
end

def f6(i)
  f7(i + 6)
end

def f5(i)
  f6(i + 5)
end

def f4(i)
  f5(i + 4)
end

def f3(i)
  f4(i + 3)
end

def f2(i)
  f3(i + 2)
end

def f1(i)
  f2(i + 1)
end

def run(seconds)
  stop = Process.clock_gettime(Process::CLOCK_MONOTONIC) + seconds
  i = 0
  while Process.clock_gettime(Process::CLOCK_MONOTONIC) < stop
    f1(i)
    i += 1
  end
end

run(ARGV[0].to_f)
