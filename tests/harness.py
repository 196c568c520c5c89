"""Start an ASGI app under uvicorn on a free loopback port, in a thread, for real-HTTP tests."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import uvicorn


@contextlib.contextmanager
def serve(app: Any, host: str = "127.0.0.1") -> Iterator[str]:
    """Serve `app` until the block exits; yields its base URL (`http://127.0.0.1:<port>`)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, 0))
    port = sock.getsockname()[1]
    # proxy_headers=False as in `accessgov serve`: uvicorn would otherwise trust X-Forwarded-For from loopback
    # peers itself, before the app sees the TCP peer (and the listener CIDR checks would test nothing).
    config = uvicorn.Config(app, log_level="warning", lifespan="on", proxy_headers=False, timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("server did not start")
        time.sleep(0.01)
    try:
        yield f"http://[{host}]:{port}" if family == socket.AF_INET6 else f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
