# A sliding-log rate limiter in front of an API, counted and stated as Flask-Limiter does it: the `limits` library's
# moving window in memory, at most RATE requests per key (the Authorization header) in any second, the refused not
# counted; X-RateLimit-Limit, -Remaining and -Reset (the oldest request's expiry, a Unix time: int(reset + 1)) and
# Retry-After on every answer. Run by scripts/lib/log-front.mjs: log-front.py PORT UPSTREAM_PORT RATE. Each decision
# is printed as its status, a line each.
import http.client
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from limits import RateLimitItemPerSecond
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

PORT, UPSTREAM_PORT, RATE = (int(arg) for arg in sys.argv[1:4])
LIMITER = MovingWindowRateLimiter(MemoryStorage())
ITEM = RateLimitItemPerSecond(RATE)
HOP = {"host", "content-length", "connection", "transfer-encoding", "date", "server"}


class Front(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, headers, body):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def handle_any(self):
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else None
        key = self.headers.get("authorization", "")
        taken = LIMITER.hit(ITEM, key)
        stats = LIMITER.get_window_stats(ITEM, key)
        reset_at = int(stats.reset_time + 1)
        hints = [
            ("X-RateLimit-Limit", str(RATE)),
            ("X-RateLimit-Remaining", str(stats.remaining)),
            ("X-RateLimit-Reset", str(reset_at)),
            ("Retry-After", str(int(reset_at - time.time()))),
        ]
        print(200 if taken else 429, flush=True)
        if not taken:
            return self.reply(429, hints + [("content-type", "application/json")], b'{"error":"too many requests"}')
        upstream = http.client.HTTPConnection("127.0.0.1", UPSTREAM_PORT, timeout=60)
        upstream.request(self.command, self.path, body=body, headers={k: v for k, v in self.headers.items() if k.lower() not in HOP})
        answer = upstream.getresponse()
        data = answer.read()
        upstream.close()
        self.reply(answer.status, [(k, v) for k, v in answer.getheaders() if k.lower() not in HOP] + hints, data)

    do_GET = do_POST = handle_any


ThreadingHTTPServer(("127.0.0.1", PORT), Front).serve_forever()
