# SPDX-License-Identifier: GPL-2.0
# Workload for stitch record -e alloc: a Python list that grows by N
# 2000-byte bytearrays (each a malloc of 2001 bytes: past pymalloc's 512,
# CPython asks the C allocator), kept to the end, then N 1000-byte ones
# dropped at once.  Prints what it allocated on each line, and the wall
# time of both loops.  Options: "wait" first waits for a byte on stdin;
# "hold", after printing, holds its memory for a minute (--inuse stopped
# by Ctrl-C sees the list still held, as a live service's); "linger" waits
# half a second before it exits; "alone": no list, no churn (for "small").
import sys
import time


def grow(n):
    data = []
    for _ in range(n):
        data.append(bytearray(2000))  # the line a profile must name
    return data


def churn(n):
    for _ in range(n):
        bytearray(1000)


n = int(sys.argv[1])
if "wait" in sys.argv[2:]:
    sys.stdin.read(1)
t0 = time.monotonic_ns()
kept = grow(n if "alone" not in sys.argv[2:] else 0)
churn(len(kept))
elapsed = time.monotonic_ns() - t0
print("grew", len(kept) * 2001)
print("churned", len(kept) * 1001)
print("elapsed_ns", elapsed, flush=True)
if "hold" in sys.argv[2:]:
    time.sleep(60)
if "linger" in sys.argv[2:]:
    time.sleep(0.5)
if "small" in sys.argv[2:]:
    # "small" keeps N small tuples after the rest: pymalloc's objects,
    # whose 1 MiB arenas it maps itself.  Prints "small_tuples N" and the
    # bytes the tuples hold ("small_bytes").
    def small(n):
        tuples = []
        for i in range(n):
            tuples.append((i, None))  # the tuples' arenas (or the loop's ints', above)
        return tuples

    kept_small = small(n)
    print("small_tuples", n)
    print("small_bytes", n * sys.getsizeof(kept_small[0]), flush=True)
    if "linger" in sys.argv[2:]:
        time.sleep(0.5)  # its last frames named from the living process too
