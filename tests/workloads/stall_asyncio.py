# SPDX-License-Identifier: GPL-2.0
# An asyncio event loop (epoll_wait underneath) that stalls once on purpose:
# a callback spins 200 ms of CPU without awaiting, between short tasks.
import asyncio
import time


def spin_for_stall(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


async def main():
    for _ in range(300):
        await asyncio.sleep(0)
    spin_for_stall(0.2)
    for _ in range(300):
        await asyncio.sleep(0.0005)


asyncio.run(main())
