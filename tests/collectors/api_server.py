"""A small real HTTP server speaking the collector API of docs/bundle-format.md, for tests.

POST /api/v1/bundles (Bearer token, multipart field `file`, optional `job`, `host`) answers
202 with {"incident", "url", "api"} and keeps what it received. It can be told to answer 503
for the first N requests, and it can be started late on a port chosen in advance, which is how
the tests play "server down, then up".
"""
from __future__ import annotations

import io
import json
import socket
import tarfile
import threading
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Received:
    token: str
    fields: dict[str, str]
    filename: str
    data: bytes
    content_length: int

    def members(self) -> dict[str, bytes]:
        with tarfile.open(fileobj=io.BytesIO(self.data), mode="r:gz") as tar:
            return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}  # type: ignore[union-attr]

    def manifest(self) -> dict[str, Any]:
        return json.loads(self.members()["manifest.json"])


@dataclass
class ApiServer:
    port: int = field(default_factory=free_port)
    token: str = "test-token"
    fail_first: int = 0                  # answer 503 to this many requests first
    received: list[Received] = field(default_factory=list)
    requests: int = 0
    _httpd: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ApiServer:
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _reply(self, code: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                api.requests += 1
                if api.requests <= api.fail_first:
                    return self._reply(503, {"error": "starting up"})
                if self.path != "/api/v1/bundles":
                    return self._reply(404, {"error": "not found"})
                if self.headers.get("Authorization") != f"Bearer {api.token}":
                    return self._reply(401, {"error": "bad token"})
                msg = BytesParser(policy=HTTP).parsebytes(
                    b"Content-Type: " + self.headers["Content-Type"].encode() + b"\r\n\r\n" + body)
                fields: dict[str, str] = {}
                filename, data = "", b""
                for part in msg.iter_parts():
                    name = part.get_param("name", header="content-disposition")
                    if name == "file":
                        filename = part.get_filename() or ""
                        data = part.get_payload(decode=True) or b""
                    else:
                        fields[str(name)] = part.get_content().strip()
                api.received.append(Received(self.headers["Authorization"][7:], fields, filename, data, length))
                n = len(api.received)
                self._reply(202, {"incident": str(n), "url": f"{api.url}/incidents/{n}/",
                                  "api": f"{api.url}/api/v1/incidents/{n}"})

        self._httpd = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._httpd:
            self._httpd.shutdown()
            self._httpd.server_close()
