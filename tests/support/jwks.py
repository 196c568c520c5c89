"""A JWKS endpoint on 127.0.0.1 (a real HTTP server in a thread), and a loopback URL nothing answers."""

from __future__ import annotations

import json
import socket
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class JwksServer:
    """Serves a mutable `document` with `status` at /jwks.json, HTML at /not-json, a document without a key list at
    /no-keys and 404 elsewhere, counting GETs per path. A context manager, or `start()` and `close()`."""

    def __init__(self, document: dict[str, Any] | None = None) -> None:
        self.document: dict[str, Any] = document if document is not None else {"keys": []}
        self.status = 200
        self.hits: Counter[str] = Counter()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # the name http.server dispatches to
                outer.hits[self.path] += 1
                path = self.path.split("?")[0]  # the query only tells caches apart
                if path == "/jwks.json":
                    status, body = outer.status, json.dumps(outer.document).encode()
                elif path == "/not-json":
                    status, body = 200, b"<html>this is not a JWKS</html>"
                elif path == "/no-keys":
                    status, body = 200, b'{"keys": "nope"}'
                else:
                    status, body = 404, b"{}"
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        # A short poll interval keeps shutdown() fast.
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def start(self) -> JwksServer:
        self._thread.start()
        return self

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> JwksServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    @property
    def url(self) -> str:
        return self.base + "/jwks.json"

    @property
    def fetches(self) -> int:
        return self.hits["/jwks.json"]

    def reset(self, document: dict[str, Any] | None = None) -> None:
        """Back to serving `document` (default: no keys) with 200, counters cleared."""
        self.document = document if document is not None else {"keys": []}
        self.status = 200
        self.hits.clear()


def closed_port_url() -> str:
    """A loopback URL nothing listens on: the port was bound, then released."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/jwks.json"
