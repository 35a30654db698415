"""A local stand-in for the incident page: the same markup, scripts and CSP, no Django.

Serves the vendored plotly.min.js and static/js/timeline.js from the repository, figure and trace
JSON built from given timelines, and a tiny log-viewer page, all under a strict
Content-Security-Policy (no inline scripts, no eval), so the browser test proves the timeline
works under the policy the dashboard will send. Used by tests/timeline and bench/timeline.py.
"""
from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from triage.timeline.figure import build_figure
from triage.timeline.perfetto import build_trace

ROOT = Path(__file__).resolve().parents[2]
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; connect-src 'self'; worker-src 'self' blob:; object-src 'none'; "
    "base-uri 'none'; frame-ancestors 'none'"
)
PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>incident {name}</title>
<link rel="icon" href="data:,"></head>
<body><h1>Rank timeline</h1>
<div id="rank-timeline" data-figure-url="/{name}/timeline.json" data-trace-url="/{name}/trace.json"
     data-log-url-template="/log/?source=SOURCE#L-LINE"></div>
<script src="/static/vendor/plotly.min.js"></script>
<script src="/static/js/timeline.js"></script>
</body></html>
"""


def chromium_launch_args() -> dict[str, Any]:
    return {
        "executable_path": shutil.which("chromium"),
        "args": ["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    }


@contextmanager
def serve(timelines: dict[str, dict[str, Any]]) -> Iterator[str]:
    """Serve /<name>/ pages for each timeline; yields the base URL (http://127.0.0.1:PORT)."""
    bodies: dict[str, tuple[str, bytes]] = {}
    for name, timeline in timelines.items():
        bodies[f"/{name}/"] = ("text/html; charset=utf-8", PAGE.format(name=name).encode())
        bodies[f"/{name}/timeline.json"] = (
            "application/json", json.dumps(build_figure(timeline), separators=(",", ":")).encode())
        bodies[f"/{name}/trace.json"] = (
            "application/json", json.dumps(build_trace(timeline), separators=(",", ":")).encode())
    bodies["/log/"] = ("text/html; charset=utf-8", b"<!doctype html><title>log</title><p>log viewer</p>")
    statics = {
        "/static/vendor/plotly.min.js": ROOT / "static/vendor/plotly.min.js",
        "/static/js/timeline.js": ROOT / "static/js/timeline.js",
    }

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            path = urlsplit(self.path).path
            # Static files are cacheable as whitenoise serves them; figure JSON is not.
            cache = "public, max-age=3600" if path in statics else "no-store"
            if path in statics:
                found: tuple[str, bytes] | None = ("text/javascript", statics[path].read_bytes())
            else:
                found = bodies.get(path)
            if found is None:
                self.send_error(404)
                return
            ctype, body = found
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Content-Security-Policy", CSP)
            self.send_header("Cache-Control", cache)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
