# Workload for stitch snapshot's tests: threads parked in known places, each
# on one line (the MARK comments): 4 waiting for a lock the main thread
# holds, 3 sleeping, 2 reading a pipe nobody writes, and the main thread
# sleeping.  Prints "ready" once every thread has started.
import os
import threading
import time

lock = threading.Lock()
rfd, wfd = os.pipe()


def lock_wait():
    lock.acquire()  # MARK: lock_wait


def lock_worker():
    lock_wait()  # MARK: lock_worker


def sleep_wait():
    while True: time.sleep(100)  # MARK: sleep_wait


def sleep_worker():
    sleep_wait()  # MARK: sleep_worker


class Reader:
    def wait(self):
        return os.read(rfd, 1)  # MARK: pipe_wait

    def run(self):
        return self.wait()  # MARK: pipe_worker


def main():
    lock.acquire()
    threads = [threading.Thread(target=lock_worker, daemon=True) for _ in range(4)]
    threads += [threading.Thread(target=sleep_worker, daemon=True) for _ in range(3)]
    threads += [threading.Thread(target=Reader().run, daemon=True) for _ in range(2)]
    for t in threads:
        t.start()
    time.sleep(0.3)
    print("ready", flush=True)
    while True: time.sleep(100)  # MARK: main_wait


main()  # MARK: module
