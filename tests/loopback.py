"""A real HTTP server on a free loopback port, for the tests' webhook receivers: each POST is
handed to `answer(path, headers, body)`, which returns the status and any headers to send."""
from __future__ import annotations

import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Answer = Callable[[str, dict[str, str], bytes], tuple[int, dict[str, str]]]


def serve_posts(answer: Answer, bind: str = "127.0.0.1") -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            status, extra = answer(self.path, dict(self.headers.items()), body)
            self.send_response(status)
            for name, value in extra.items():
                self.send_header(name, value)
            self.send_header("Content-Length", "0")
            self.end_headers()

    # Port 0: the kernel picks a free one.
    httpd = ThreadingHTTPServer((bind, 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


def url_of(httpd: ThreadingHTTPServer | None) -> str:
    assert httpd is not None
    return f"http://127.0.0.1:{httpd.server_address[1]}/hook"


def stop(httpd: ThreadingHTTPServer | None) -> None:
    if httpd is not None:
        httpd.shutdown()
        httpd.server_close()
