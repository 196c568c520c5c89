"""Wrong and hostile servers on loopback, for the bounds of the kit and the SDK: real sockets, one thread per
connection.

Each server answers its first `honest` requests as a conforming target answers the kit's preflight (a 404 Error
of the contract), then misbehaves in its own way: so one server tests both the preflight (`honest=0`) and how
every rule ends when the target turns hostile after it (`honest=1`). The server counts the bytes it managed to
send (`sent`): a client bounded in time hangs up long before a drip is over.
"""

from __future__ import annotations

import contextlib
import json
import socket
import struct
import threading
import time
import uuid
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache

HONEST_BODY = json.dumps({"code": "NOT_FOUND", "message": "no such app"}).encode()
BIG = 50 * 1024 * 1024
HUGE = 2 * 1024 * 1024 * 1024  # what a huge answer announces (2 GiB)
DRIP = 0.5  # seconds between two bytes of a drip: no read ever waits long, the whole answer takes minutes
DRIPPED = b"[" + b"0," * 4998 + b"0]"  # 10,000 bytes: 83 minutes at DRIP
CHUNK = 64 * 1024
MIB = 1 << 20


def honest_answer() -> bytes:
    return _head(404, "application/json", len(HONEST_BODY), "X-Request-Id: hostile-1") + HONEST_BODY


def _head(status: int, content_type: str, length: int | None, *extra: str) -> bytes:
    lines = [f"HTTP/1.1 {status} {'OK' if status == 200 else 'Status'}", f"Content-Type: {content_type}"]
    if length is not None:
        lines.append(f"Content-Length: {length}")
    lines += [*extra, "", ""]
    return "\r\n".join(lines).encode()


@cache
def bomb(coding: str = "gzip", mebibytes: int = 1024) -> bytes:
    """`mebibytes` MiB of zeros as a valid `gzip`, `deflate` (zlib) or `raw-deflate` body of about 1 kB per MiB.

    After a full flush deflate starts afresh, so every further MiB of zeros compresses to the same bytes: one
    segment is compressed and repeated, then the empty final block and the trailer (CRC-32 and size, or Adler-32)
    of the whole are appended."""
    wbits = {"gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS, "raw-deflate": -zlib.MAX_WBITS}[coding]
    compressor = zlib.compressobj(9, zlib.DEFLATED, wbits)
    zeros = bytes(MIB)
    first = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
    segment = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
    crc, adler = 0, 1
    for _ in range(mebibytes):
        crc, adler = zlib.crc32(zeros, crc), zlib.adler32(zeros, adler)
    trailer = {
        "gzip": struct.pack("<II", crc, (mebibytes * MIB) & 0xFFFFFFFF),
        "deflate": struct.pack(">I", adler),
        "raw-deflate": b"",
    }[coding]
    return first + segment * (mebibytes - 1) + b"\x03\x00" + trailer  # 03 00: an empty final fixed-Huffman block


def gzip_bomb() -> bytes:
    """1 GiB of zeros, gzip-compressed (about 1 MB)."""
    return bomb("gzip", 1024)


class Counted:
    """A connected socket that counts what the server sends through it."""

    def __init__(self, sock: socket.socket, server: Hostile) -> None:
        self.sock = sock
        self.server = server

    def sendall(self, data: bytes) -> None:
        self.sock.sendall(data)
        with self.server.lock:
            self.server.sent += len(data)

    def recv(self, size: int) -> bytes:
        return self.sock.recv(size)

    def shutdown(self, how: int) -> None:
        self.sock.shutdown(how)


Behaviour = Callable[[Counted], None]


def _drip(sock: Counted, data: bytes, interval: float = DRIP) -> None:
    for byte in data:
        sock.sendall(bytes([byte]))
        time.sleep(interval)


def _slow_drip(sock: Counted) -> None:
    """The status line and headers one byte at a time (slow headers): no read ever times out."""
    _drip(sock, _head(200, "application/json", len(DRIPPED)) + DRIPPED)


def _slow_body(sock: Counted) -> None:
    """Headers at once, then a long JSON body one byte at a time."""
    sock.sendall(_head(200, "application/json", len(DRIPPED)))
    _drip(sock, DRIPPED)


def _chunked_stall(sock: Counted) -> None:
    """Chunked, one small chunk at a time and never the last one."""
    sock.sendall(_head(200, "application/json", None, "Transfer-Encoding: chunked") + b"1\r\n[\r\n")
    while True:
        time.sleep(DRIP)
        sock.sendall(b"2\r\n0,\r\n")


def _chunked_flood(sock: Counted) -> None:
    """Chunked, 64 KiB chunks as fast as the client takes them, never the last one."""
    sock.sendall(_head(200, "application/json", None, "Transfer-Encoding: chunked"))
    chunk = f"{CHUNK:x}\r\n".encode() + b" " * CHUNK + b"\r\n"
    while True:
        sock.sendall(chunk)


def _until_close(sock: Counted) -> None:
    """No length, no chunks: a body that lasts until the connection closes, sent as fast as the client takes it."""
    sock.sendall(_head(200, "application/json", None, "Connection: close"))
    while True:
        sock.sendall(b" " * CHUNK)


def _coded(coding: str) -> Behaviour:
    """A 1 GiB bomb in `coding` (raw deflate goes as `Content-Encoding: deflate`, as some servers send it)."""

    def act(sock: Counted) -> None:
        body = bomb(coding)
        header = coding.removeprefix("raw-")
        sock.sendall(_head(200, "application/json", len(body), f"Content-Encoding: {header}", "X-Request-Id: x"))
        sock.sendall(body)

    return act


BOMBS = {"gzip-bomb": "gzip", "deflate-bomb": "deflate", "raw-deflate-bomb": "raw-deflate"}


def _brotli(sock: Counted) -> None:
    body = b"\x1b\xff\xff\x1f" * 256  # what it decodes to does not matter: the kit never asked for br
    sock.sendall(_head(200, "application/json", len(body), "Content-Encoding: br", "X-Request-Id: x") + body)


def _big_body(sock: Counted) -> None:
    sock.sendall(_head(200, "application/json", BIG, "X-Request-Id: x"))
    chunk = b" " * MIB
    for _ in range(BIG // len(chunk)):
        sock.sendall(chunk)


def _huge_body(sock: Counted) -> None:
    """2 GiB announced, then sent as fast as the client takes it."""
    sock.sendall(_head(200, "application/json", HUGE))
    chunk = b" " * CHUNK
    for _ in range(HUGE // CHUNK):
        sock.sendall(chunk)


def _endless_pages(sock: Counted) -> None:
    """A page of one item whose next-page token is new every time: the walk never ends by itself."""
    page = {"list": [{"appEntitlement": {"id": "e1", "appId": "a"}}], "nextPageToken": uuid.uuid4().hex}
    body = json.dumps(page).encode()
    sock.sendall(_head(200, "application/json", len(body)) + body)


def _redirect_loop(sock: Counted) -> None:
    sock.sendall(_head(302, "text/plain", 0, "Location: /again"))


def _html(sock: Counted) -> None:
    page = b"<!doctype html><html><body><h1>Welcome</h1></body></html>"
    sock.sendall(_head(200, "text/html; charset=utf-8", len(page)) + page)


def _truncated_json(sock: Counted) -> None:
    """A 200 whose JSON stops half-way (the connection closes after the bytes it announced)."""
    body = b'{"entitlements": [{"id": "e1", "appId": '
    sock.sendall(_head(200, "application/json", len(body), "X-Request-Id: x", "Connection: close") + body)


def _silent(sock: Counted) -> None:
    """Takes the request and never answers (until the client gives up)."""
    while sock.recv(65536):
        pass


def _hang_up(sock: Counted) -> None:
    sock.shutdown(socket.SHUT_RDWR)


def _not_http(sock: Counted) -> None:
    """Another protocol on the port (an SSH banner)."""
    sock.sendall(b"SSH-2.0-OpenSSH_9.6\r\n")
    sock.shutdown(socket.SHUT_RDWR)


def redirect_to(location: str) -> Behaviour:
    """A 307 (method and body kept) to `location`, another origin."""
    return lambda sock: sock.sendall(_head(307, "text/plain", 0, f"Location: {location}"))


BEHAVIOURS: dict[str, Behaviour] = {
    "silent": _silent,
    "hang-up": _hang_up,
    "not-http": _not_http,
    "slow-drip": _slow_drip,
    "slow-body": _slow_body,
    "chunked-stall": _chunked_stall,
    "chunked-flood": _chunked_flood,
    "until-close": _until_close,
    **{name: _coded(coding) for name, coding in BOMBS.items()},
    "brotli": _brotli,
    "big-body": _big_body,
    "huge-body": _huge_body,
    "endless-pages": _endless_pages,
    "redirect-loop": _redirect_loop,
    "html": _html,
    "truncated-json": _truncated_json,
}
_CLOSING = frozenset({"truncated-json", "hang-up", "not-http", "until-close"})


@dataclass
class Hostile:
    """A running hostile server: its URL, how many requests it received and how many bytes it sent."""

    port: int
    requests: int = 0
    sent: int = 0
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
def serve(behaviour: str | Behaviour, *, honest: int = 0) -> Iterator[Hostile]:
    """Serve `behaviour` (a name of `BEHAVIOURS`, or a function of the connection) on a free loopback port until
    the block exits."""
    act = BEHAVIOURS[behaviour] if isinstance(behaviour, str) else behaviour
    if isinstance(behaviour, str) and behaviour in BOMBS:
        bomb(BOMBS[behaviour])  # built before the first request, not while the client waits
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
                act(Counted(sock, server))
                if behaviour in _CLOSING:
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
