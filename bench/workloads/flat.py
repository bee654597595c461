# SPDX-License-Identifier: GPL-2.0
# bench/interp_cost.sh: 20 Python frames (<module>, loop, f1..f17, leaf),
# every one a different function, as most real stacks are (deep.py, a
# recursion, is the best case: a walk reads a repeated code object once);
# the leaf's line changes between samples, the call chain does not.
#   python3.11 flat.py SECONDS
import sys
import time


def leaf(i):
    s = 0
    for k in range(300):
        s += k * i
    return s


def f17(i):
    return leaf(i + 17)


def f16(i):
    return f17(i + 16)


def f15(i):
    return f16(i + 15)


def f14(i):
    return f15(i + 14)


def f13(i):
    return f14(i + 13)


def f12(i):
    return f13(i + 12)


def f11(i):
    return f12(i + 11)


def f10(i):
    return f11(i + 10)


def f9(i):
    return f10(i + 9)


def f8(i):
    return f9(i + 8)


def f7(i):
    return f8(i + 7)


def f6(i):
    return f7(i + 6)


def f5(i):
    return f6(i + 5)


def f4(i):
    return f5(i + 4)


def f3(i):
    return f4(i + 3)


def f2(i):
    return f3(i + 2)


def f1(i):
    return f2(i + 1)


def loop(seconds):
    end = time.monotonic() + seconds
    i = 0
    while time.monotonic() < end:
        f1(i)
        i += 1


loop(float(sys.argv[1]))
