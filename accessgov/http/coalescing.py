"""One write per response instead of two: a response head is held until its body follows. uvicorn writes them
apart, and each write wakes the client, the expensive part on a virtual machine (joined, the bare endpoint went
from 16,500-18,500 to 17,300-21,400 requests/s: docs/performance.md, "Why the fast paths are shaped as they are").

`CoalescingTransport` wraps a connection's transport: a write that ends a head (`\\r\\n\\r\\n`) is held and
goes out with the next write, or alone at the end of the loop step that wrote it (a streaming response that
awaits before its first chunk, a `100 Continue`, a HEAD response). Bytes leave in the order written and never
later than the step after the one that wrote them; `close()` sends what is held first, `abort()` drops it as the
transport drops its own buffer.
"""

from __future__ import annotations

import asyncio
from typing import Any

HEAD_END = b"\r\n\r\n"


class CoalescingTransport:
    """An `asyncio.Transport` in front of another that joins a response head with the write after it."""

    __slots__ = ("_held", "_loop", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._held: bytes | None = None

    @classmethod
    def around(cls, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> asyncio.Transport:
        """`transport` wrapped, typed as what the protocol expects (everything else is delegated)."""
        return cls(transport, loop)  # type: ignore[return-value]

    def write(self, data: bytes | bytearray | memoryview) -> None:
        held = self._held
        if held is not None:
            self._held = None
            self._transport.writelines((held, data))  # one writev, no copy
        elif data[-4:] == HEAD_END:
            self._held = bytes(data)
            self._loop.call_soon(self.flush)
        else:
            self._transport.write(data)

    def flush(self) -> None:
        """Send what is held, if anything; dropped when the connection is already closing (the peer left)."""
        held = self._held
        if held is not None:
            self._held = None
            if not self._transport.is_closing():
                self._transport.write(held)

    def writelines(self, lines: Any) -> None:
        self.write(b"".join(lines))

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def abort(self) -> None:
        self._held = None
        self._transport.abort()

    def write_eof(self) -> None:
        self.flush()
        self._transport.write_eof()

    def is_closing(self) -> bool:
        return self._transport.is_closing()

    def get_write_buffer_size(self) -> int:
        return self._transport.get_write_buffer_size() + len(self._held or b"")

    def __getattr__(self, name: str) -> Any:
        # get_extra_info, pause_reading, resume_reading, set_protocol, ...: the transport's own.
        return getattr(self._transport, name)
