# SPDX-License-Identifier: GPL-2.0
# Off-CPU twin of tests/workloads/waits.c in Python: threads that wait in
# known functions and lines (time.sleep, os.read of a pipe, a held Lock)
# and measure their own off-CPU time: wall time less thread CPU time around
# the call.  Prints "waited KIND SECONDS" per kind.
#   python3.11 py_waits.py SECONDS
import os
import sys
import threading
import time


def report(kind, waited):
    # One write(2) per line: print() from several threads writes the text
    # and the newline separately, and a CI run read "waited sleep 1.99waited
    # pipe 1.99" when two threads finished together.
    os.write(1, b"waited %s %.6f\n" % (kind.encode(), waited))


def timed(fn):
    a, c = time.monotonic(), time.thread_time()
    fn()  # CALL_LINE
    return (time.monotonic() - a) - (time.thread_time() - c)


def sleeper(total):
    end, waited = time.monotonic() + total, 0.0
    while time.monotonic() < end:
        waited += timed(lambda: time.sleep(0.01))  # SLEEP_LINE
    report("sleep", waited)


def reader(fd, total):
    end, waited = time.monotonic() + total, 0.0
    while time.monotonic() < end:
        waited += timed(lambda: os.read(fd, 1))  # READ_LINE
    report("pipe", waited)


def locker(lock, total):
    end, waited = time.monotonic() + total, 0.0
    while time.monotonic() < end:
        waited += timed(lock.acquire)  # LOCK_LINE
        lock.release()
        time.sleep(0.0001)
    report("lock", waited)


def feeder(fd, total):
    end = time.monotonic() + total + 0.2
    while time.monotonic() < end:
        time.sleep(0.01)
        os.write(fd, b"x")


def holder(lock, total):
    end = time.monotonic() + total + 0.2
    while time.monotonic() < end:
        with lock:
            time.sleep(0.01)
        time.sleep(0.0001)


def main():
    total = float(sys.argv[1])
    r, w = os.pipe()
    lock = threading.Lock()
    threads = [threading.Thread(target=f, args=a) for f, a in (
        (sleeper, (total,)), (reader, (r, total)), (locker, (lock, total)),
        (feeder, (w, total)), (holder, (lock, total)))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


main()
