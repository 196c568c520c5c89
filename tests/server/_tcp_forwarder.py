"""A TCP forwarder on a loopback port that can be cut: the database "goes down" for the server behind it."""

from __future__ import annotations

import contextlib
import socket
import threading


class Forwarder:
    """Forwards 127.0.0.1:<port> to `target` until `stop()`, which closes the listener and every connection."""

    def __init__(self, target: tuple[str, int], port: int = 0) -> None:
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", port))
        self.port = int(self.listener.getsockname()[1])
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._sockets += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)

    def stop(self) -> None:
        with contextlib.suppress(OSError):  # wakes the thread blocked in accept(); close() alone would not
            self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()
        self.cut()

    def cut(self) -> None:
        """Close every open connection (a restarted upstream, a network blip); new ones are still accepted."""
        with self._lock:
            for sock in self._sockets:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()
            self._sockets.clear()
