# Workload for tools/interp-walk/run-checks.sh: three threads, each parked in a known innermost
# frame on a single source line (so the walked line is exact whatever instruction is current).
# Lines are found by the MARK comments; do not put two MARKs on one line.
import os
import sys
import threading
import time

stop = False


def outer_a():
    return inner_a()  # MARK: a_outer


def inner_a():
    spin = lambda n: [n := n + 1 for _ in iter(int, 1)]  # MARK: a_lambda
    return spin(0)  # MARK: a_inner


class Worker:
    def run(self):
        return self.step()  # MARK: b_run

    def step(self):
        while True: time.sleep(0.001)  # MARK: b_step


def main_wait():
    while True: time.sleep(0.01)  # MARK: m_wait


def main():
    ta = threading.Thread(target=outer_a, name="A", daemon=True)
    tb = threading.Thread(target=Worker().run, name="B", daemon=True)
    ta.start()
    tb.start()
    time.sleep(0.2)
    print("ready main=%d a=%d b=%d" % (threading.get_native_id(), ta.native_id, tb.native_id), flush=True)
    main_wait()  # MARK: m_main


main()  # MARK: m_module
