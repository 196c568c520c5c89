"""A scripted HTTP server on loopback: answers requests with a given list of responses and records them."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Answer:
    """One scripted answer; `stall` seconds of silence before it (longer than the client's read timeout)."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    stall: float = 0.0


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


class ScriptedServer:
    """Serves `answers` in order (the last one repeats), recording every request."""

    def __init__(self, *answers: Answer) -> None:
        self.answers = list(answers) or [Answer()]
        self.seen: list[Seen] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                with outer._lock:
                    outer.seen.append(Seen(self.command, self.path, dict(self.headers.items()), body))
                    answer = outer.answers[min(len(outer.seen), len(outer.answers)) - 1]
                if answer.stall:
                    outer._stop.wait(answer.stall)
                data = b"" if answer.body is None else json.dumps(answer.body).encode()
                try:
                    self.send_response(answer.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in answer.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client gave up (timeout) and closed the connection
                    pass

            do_GET = do_POST = _handle

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> ScriptedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._server.shutdown()
        self._server.server_close()


@dataclass
class Sleeps:
    """Replaces the retry library's sleep: records each wait instead of waiting."""

    waits: list[float] = field(default_factory=list)

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def iter_pages(*pages: tuple[list[Any], str]) -> Iterator[Answer]:
    for items, token in pages:
        yield Answer(200, {"list": items, "nextPageToken": token})
