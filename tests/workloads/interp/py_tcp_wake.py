# SPDX-License-Identifier: GPL-2.0
# A reader thread blocked in recv() on a loopback TCP connection, woken N
# times by the main thread's send() 10 ms later: the receive runs in a
# softirq on the sender's stack (__local_bh_enable_ip after the loopback
# transmit), not in the sender's own code.
#   python3.11 py_tcp_wake.py N
import socket
import sys
import threading
import time


def reader(conn, n):
    for _ in range(n):
        conn.recv(1)


def main():
    n = int(sys.argv[1])
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    cli = socket.create_connection(srv.getsockname())
    conn, _ = srv.accept()
    t = threading.Thread(target=reader, args=(conn, n))
    t.start()
    for _ in range(n):
        time.sleep(0.01)
        cli.send(b"x")
    t.join()


main()
