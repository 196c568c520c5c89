"""A TCP server on a loopback port that accepts connections and never answers: a backend that hangs."""

from __future__ import annotations

import contextlib
import socket
import threading


class SilentServer:
    """Accepts on 127.0.0.1:<port>, reads nothing, answers nothing, until `close()`; counts the connections."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.listener.getsockname()[1])
        self.connections: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            self.connections.append(connection)

    def close(self) -> None:
        self.listener.close()
        for connection in self.connections:
            with contextlib.suppress(OSError):
                connection.close()
