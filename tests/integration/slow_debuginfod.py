# SPDX-License-Identifier: GPL-2.0
# A debuginfod that is slow to answer: every request is passed on to the
# real server UPSTREAM after DELAY seconds (many at once, as a busy server
# far away).  Prints its port, then serves until killed.
# Usage: python3 slow_debuginfod.py DELAY UPSTREAM
import http.server
import socketserver
import sys
import time
import urllib.error
import urllib.request

delay = float(sys.argv[1])
upstream = sys.argv[2]


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
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
