# Workload for the integration tests of interpreter frames (tests/integration/interp_tests.sh).
# Lines are found by their MARK comments: keep one MARK per line, and keep each call on
# the line of its MARK.
#
#   py_stitch.py threads SECONDS  thread A calls os.getppid() through nested functions and
#                                 through sorted(key=...) (Python -> C -> Python); thread B
#                                 only writes to stderr and calls os.getpid(); the main
#                                 thread waits.  No getppid stack may show B's functions.
#   py_stitch.py cpu SECONDS      thread A burns CPU in a known line, B sleeps.
#   py_stitch.py deep SECONDS     os.getppid() under 200 nested Python calls.
#   py_stitch.py reenter SECONDS  the main thread calls os.getppid() in a generator, in a
#                                 list comprehension, and in a SIGALRM handler that CPython
#                                 runs from inside the comprehension.
#   py_stitch.py twins SECONDS    two forked children, named twin_x and twin_y, call
#                                 os.getppid() through chains of the same shape (x_* and
#                                 y_*): their frames lie at the same addresses in each.
#   py_stitch.py last SECONDS     the main thread burns CPU for SECONDS, then for 50 ms in
#                                 a function not seen before, and exits at once.
import os
import signal
import sys
import threading
import time


def leaf():
    return os.getppid()  # MARK: leaf


def middle():
    return leaf()  # MARK: middle


def outer():
    return middle()  # MARK: outer


def key_fn(x):
    os.getppid()  # MARK: key_fn
    return -x


def thread_a(end):
    while time.time() < end:
        outer()  # MARK: a_outer
        sorted([3, 1, 2], key=key_fn)  # MARK: a_sorted


def b_write(end):
    while time.time() < end:
        os.write(2, b"")  # MARK: b_write
        os.getpid()


def cpu_burn(end):
    n = 0
    while time.time() < end: n += 1  # MARK: cpu_burn
    return n


def cpu_a(end):
    return cpu_burn(end)  # MARK: cpu_a


def b_sleep(end):
    while time.time() < end:
        time.sleep(0.01)  # MARK: b_sleep


def rec(n):
    if n:
        return rec(n - 1)  # MARK: rec
    return os.getppid()  # MARK: rec_leaf


def deep(end):
    while time.time() < end:
        rec(200)  # MARK: deep


def ticker():
    while True:
        os.getppid()  # MARK: g_ppid
        yield 1


def on_alarm(sig, frame):
    os.getppid()  # MARK: h_ppid


def reenter(end):
    signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, 0.001, 0.001)
    g = ticker()
    while time.time() < end:
        next(g)  # MARK: r_next
        [os.getppid() for _ in range(2)]  # MARK: r_comp
    signal.setitimer(signal.ITIMER_REAL, 0)


def x_leaf():
    os.getppid()  # MARK: x_leaf


def x_mid():
    x_leaf()  # MARK: x_mid


def x_outer(end):
    while time.time() < end:
        x_mid()  # MARK: x_outer


def y_leaf():
    os.getppid()  # MARK: y_leaf


def y_mid():
    y_leaf()  # MARK: y_mid


def y_outer(end):
    while time.time() < end:
        y_mid()  # MARK: y_outer


def twin(name, fn, end):
    pid = os.fork()
    if pid:
        return pid
    with open("/proc/self/comm", "w") as comm:
        comm.write(name)
    fn(end)  # MARK: twin
    os._exit(0)


def twins(end):
    pids = [twin("twin_x", x_outer, end), twin("twin_y", y_outer, end)]
    for pid in pids:
        os.waitpid(pid, 0)


def last_burn(end):
    while time.time() < end: pass  # MARK: last_burn


def main():
    mode, seconds = sys.argv[1], float(sys.argv[2])
    end = time.time() + seconds
    if mode == "last":
        cpu_burn(end)  # MARK: l_main
        last_burn(time.time() + 0.05)  # MARK: l_last
        os._exit(0)
    if mode == "reenter":
        reenter(end)  # MARK: r_main
        return
    if mode == "twins":
        twins(end)  # MARK: twins
        return
    a, b = {"threads": (thread_a, b_write), "cpu": (cpu_a, b_sleep),
            "deep": (deep, b_sleep)}[mode]
    ta = threading.Thread(target=a, args=(end,))
    tb = threading.Thread(target=b, args=(end,))
    ta.start()
    tb.start()
    ta.join()  # MARK: main_join
    tb.join()


main()  # MARK: module
