# SPDX-License-Identifier: GPL-2.0
# bench/interp_cost.sh: 20 Python frames (<module>, loop, 18 of dive) over a
# leaf that computes; the leaf's line and the depth's arguments change
# between samples, the call chain does not.
#   python3.11 deep.py SECONDS
import sys
import time


def leaf(i):
    s = 0
    for k in range(300):
        s += k * i
    return s


def dive(n, i):
    if n == 0:
        return leaf(i)
    return dive(n - 1, i + 1)


def loop(seconds):
    end = time.monotonic() + seconds
    i = 0
    while time.monotonic() < end:
        dive(16, i)
        i += 1


loop(float(sys.argv[1]))
