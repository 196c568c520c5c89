"""The server's HTTP protocols driven in process, without sockets: bytes in, what the protocol wrote out."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import uvicorn
from uvicorn.server import ServerState

PEER = ("192.0.2.7", 5555)
SOCKNAME = ("127.0.0.1", 8080)


class RecordingTransport(asyncio.Transport):
    """The calls a transport received, each write as the bytes one system call would send."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[bytes] = []
        self.calls: list[str] = []
        self.closing = False

    @property
    def written(self) -> bytes:
        return b"".join(self.sent)

    def write(self, data: Any) -> None:
        self.calls.append("write")
        self.sent.append(bytes(data))

    def writelines(self, lines: Any) -> None:
        self.calls.append("writelines")
        self.sent.append(b"".join(lines))

    def close(self) -> None:
        self.calls.append("close")
        self.closing = True

    def abort(self) -> None:
        self.calls.append("abort")
        self.closing = True

    def is_closing(self) -> bool:
        return self.closing

    def get_write_buffer_size(self) -> int:
        return 0

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": PEER, "sockname": SOCKNAME}.get(name, default)

    def pause_reading(self) -> None:
        self.calls.append("pause_reading")

    def resume_reading(self) -> None:
        self.calls.append("resume_reading")


def drive(
    config: uvicorn.Config, data: bytes, *, read: int = 65536, prepare: Callable[[Any], None] | None = None
) -> RecordingTransport:
    """Feed `data` to a new connection of `config`'s HTTP protocol in reads of `read` bytes (until the protocol
    closes the connection), run the loop until every request's task is done, then drop the connection.
    `prepare(protocol)` runs before the connection is made."""
    config.load()
    loop = asyncio.new_event_loop()
    try:
        state = ServerState()
        protocol_class: Any = config.http_protocol_class
        protocol = protocol_class(config, state, {}, _loop=loop)
        if prepare is not None:
            prepare(protocol)
        transport = RecordingTransport()
        protocol.connection_made(transport)

        async def feed() -> None:
            for start in range(0, len(data), read):
                if transport.closing:
                    break
                protocol.data_received(data[start : start + read])
            await asyncio.sleep(0)
            while state.tasks:
                await asyncio.gather(*state.tasks)
                # The tasks leave `state.tasks` in their done callbacks, which need a turn of the loop: gathering
                # tasks that are already done does not yield one (Python 3.13 spun here forever).
                await asyncio.sleep(0)

        loop.run_until_complete(feed())
        protocol.connection_lost(None)
        return transport
    finally:
        loop.close()
