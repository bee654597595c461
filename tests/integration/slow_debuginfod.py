# SPDX-License-Identifier: GPL-2.0
# A debuginfod that is slow to answer: every request is passed on to the
# real server UPSTREAM after DELAY seconds (many at once, as a busy server
# far away).  Prints its port, then serves until killed.
# With --trickle BUILDID SECONDS, the first request for BUILDID's files is
# answered as a download still moving but never ending: 200 and a size of
# 64 MiB, 64 KiB every 0.2 s for SECONDS, then nothing (a large file over a
# slow link, then a stalled one): the client spends its whole time budget
# on it.  Later requests are passed on.  (Slower than 100 bytes/s,
# libcurl's low-speed limit as libdebuginfod sets it would end it as a
# timeout after DEBUGINFOD_TIMEOUT.)
# Usage: python3 slow_debuginfod.py DELAY UPSTREAM [--trickle BUILDID SECONDS]
import http.server
import socketserver
import sys
import threading
import time
import urllib.error
import urllib.request

delay = float(sys.argv[1])
upstream = sys.argv[2]
trickle_id, trickle_s = None, 0.0
if len(sys.argv) == 6 and sys.argv[3] == "--trickle":
    trickle_id, trickle_s = sys.argv[4], float(sys.argv[5])
trickled = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    def trickle(self):
        self.send_response(200)
        self.send_header("Content-Length", str(64 << 20))
        self.end_headers()
        self.wfile.flush()
        end = time.monotonic() + trickle_s
        try:
            while time.monotonic() < end:
                self.wfile.write(bytes(64 << 10))
                self.wfile.flush()
                time.sleep(0.2)
            # Stalled: the client gives up (and closes) when it will.
            time.sleep(60)
        except OSError:
            pass

    def do_GET(self):
        if trickle_id and "/buildid/%s/" % trickle_id in self.path and \
                trickled.acquire(blocking=False):
            self.trickle()
            return
        time.sleep(delay)
        try:
            with urllib.request.urlopen(upstream + self.path) as r:
                body, code = r.read(), r.status
        except urllib.error.HTTPError as e:
            body, code = b"", e.code
        self.send_response(code)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    # 16 queries connect at once: the default backlog of 5 drops the rest's
    # first SYN, which the kernel sends again a second later.
    request_queue_size = 64


server = Server(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
