"""Wrong and hostile targets on loopback, for the kit's bounds: real sockets, one thread per connection.

Each server answers its first `honest` requests as a conforming target answers the kit's preflight (a 404 Error
of the contract), then misbehaves in its own way: so one server tests both the preflight (`honest=0`) and how
every rule ends when the target turns hostile after it (`honest=1`).
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache

HONEST_BODY = json.dumps({"code": "NOT_FOUND", "message": "no such app"}).encode()
BIG = 50 * 1024 * 1024


def honest_answer() -> bytes:
    return _head(404, "application/json", len(HONEST_BODY), "X-Request-Id: hostile-1") + HONEST_BODY


def _head(status: int, content_type: str, length: int | None, *extra: str) -> bytes:
    lines = [f"HTTP/1.1 {status} {'OK' if status == 200 else 'Status'}", f"Content-Type: {content_type}"]
    if length is not None:
        lines.append(f"Content-Length: {length}")
    lines += [*extra, "", ""]
    return "\r\n".join(lines).encode()


@cache
def gzip_bomb(gigabytes: float = 1.0) -> bytes:
    """`gigabytes` of zeros, gzip-compressed (about 1 MB per GB)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    zeros = b"\0" * (1 << 20)
    parts = [compressor.compress(zeros) for _ in range(int(gigabytes * 1024))]
    return b"".join(parts) + compressor.flush()


def _drip(sock: socket.socket, data: bytes, interval: float) -> None:
    for byte in data:
        sock.sendall(bytes([byte]))
        time.sleep(interval)


def _slow_drip(sock: socket.socket) -> None:
    """The status line and headers one byte at a time, a byte every 0.2 s: no read ever times out."""
    _drip(sock, _head(200, "application/json", 2) + b"{}", 0.2)


def _slow_body(sock: socket.socket) -> None:
    """Headers at once, then a long JSON body a byte every 0.2 s."""
    sock.sendall(_head(200, "application/json", 10_000))
    _drip(sock, b"[" + b"0," * 4998 + b"0]", 0.2)


def _gzip_bomb(sock: socket.socket) -> None:
    bomb = gzip_bomb()
    sock.sendall(_head(200, "application/json", len(bomb), "Content-Encoding: gzip", "X-Request-Id: x") + bomb)


def _brotli(sock: socket.socket) -> None:
    body = b"\x1b\xff\xff\x1f" * 256  # what it decodes to does not matter: the kit never asked for br
    sock.sendall(_head(200, "application/json", len(body), "Content-Encoding: br", "X-Request-Id: x") + body)


def _big_body(sock: socket.socket) -> None:
    sock.sendall(_head(200, "application/json", BIG, "X-Request-Id: x"))
    chunk = b" " * (1 << 20)
    for _ in range(BIG // len(chunk)):
        sock.sendall(chunk)


def _redirect_loop(sock: socket.socket) -> None:
    sock.sendall(_head(302, "text/plain", 0, "Location: /again"))


def _html(sock: socket.socket) -> None:
    page = b"<!doctype html><html><body><h1>Welcome</h1></body></html>"
    sock.sendall(_head(200, "text/html; charset=utf-8", len(page)) + page)


def _truncated_json(sock: socket.socket) -> None:
    """A 200 whose JSON stops half-way (the connection closes after the bytes it announced)."""
    body = b'{"entitlements": [{"id": "e1", "appId": '
    sock.sendall(_head(200, "application/json", len(body), "X-Request-Id: x", "Connection: close") + body)


def _silent(sock: socket.socket) -> None:
    """Takes the request and never answers (until the client gives up)."""
    while sock.recv(65536):
        pass


def _hang_up(sock: socket.socket) -> None:
    sock.shutdown(socket.SHUT_RDWR)


def _not_http(sock: socket.socket) -> None:
    """Another protocol on the port (an SSH banner)."""
    sock.sendall(b"SSH-2.0-OpenSSH_9.6\r\n")
    sock.shutdown(socket.SHUT_RDWR)


BEHAVIOURS: dict[str, Callable[[socket.socket], None]] = {
    "silent": _silent,
    "hang-up": _hang_up,
    "not-http": _not_http,
    "slow-drip": _slow_drip,
    "slow-body": _slow_body,
    "gzip-bomb": _gzip_bomb,
    "brotli": _brotli,
    "big-body": _big_body,
    "redirect-loop": _redirect_loop,
    "html": _html,
    "truncated-json": _truncated_json,
}


@dataclass
class Hostile:
    """A running hostile server: its URL and how many requests it received."""

    port: int
    requests: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def _read_request(sock: socket.socket) -> bool:
    """Read one request (head and Content-Length body); False when the client went away."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return False
        data += chunk
        if not data[:1].isalpha():
            return True  # not HTTP (a TLS ClientHello): answered at once, as a plain-HTTP server does
    head, _, rest = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
        if name.strip().lower() == b"transfer-encoding":
            length = -1
    if length < 0:  # chunked: read until the last chunk
        while not rest.endswith(b"0\r\n\r\n"):
            chunk = sock.recv(65536)
            if not chunk:
                return False
            rest += chunk
        return True
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            return False
        rest += chunk
    return True


@contextlib.contextmanager
def serve(behaviour: str, *, honest: int = 0) -> Iterator[Hostile]:
    """Serve `behaviour` on a free loopback port until the block exits."""
    act = BEHAVIOURS[behaviour]
    if behaviour == "gzip-bomb":
        gzip_bomb()  # built before the first request, not while the client waits
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)  # so that the accept loop sees `stop`
    server = Hostile(listener.getsockname()[1])
    stop = threading.Event()

    def connection(sock: socket.socket) -> None:
        with contextlib.suppress(OSError), sock:
            while not stop.is_set() and _read_request(sock):
                with server.lock:
                    server.requests += 1
                    number = server.requests
                if number <= honest:
                    sock.sendall(honest_answer())
                    continue
                act(sock)
                if behaviour in ("truncated-json", "hang-up", "not-http"):
                    return

    def accept() -> None:
        while not stop.is_set():
            try:
                sock, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            sock.settimeout(None)
            threading.Thread(target=connection, args=(sock,), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        stop.set()
        listener.close()
        thread.join(5)


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
