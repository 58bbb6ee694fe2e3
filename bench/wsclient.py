"""A minimal WebSocket client over asyncio streams (the socket load generator's transport).

What :mod:`bench.http` is to the HTTP figures: the load generator shares the machine's two cores
with the server, Postgres and Redis, so every microsecond it spends on a message is taken from the
server it measures.  The ``websockets`` library's client is general (fragmentation, compression,
keep-alive pings, a background reader task per connection); this one does what the benchmark's
conversation needs and no more: text frames of one fragment each way, the client's masked (RFC
6455 §5.3, a fresh random key per connection, XORed as one big integer), the server's read with
two exact reads, a server ping answered, a close frame ending the connection.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import os
import struct

_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


class WebSocketClosed(Exception):
    """The server closed the connection (its close code, if it sent one)."""

    def __init__(self, code: int | None) -> None:
        super().__init__(f"closed by the server ({code})")
        self.code = code


class Socket:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self._key = os.urandom(4)
        self._key_int = int.from_bytes(self._key * 32, "big")
        """The mask key repeated over 128 bytes, as an integer (most messages are shorter)."""

    def _mask(self, payload: bytes) -> bytes:
        n = len(payload)
        key = self._key_int if n <= 128 else int.from_bytes(self._key * (n // 4 + 1), "big")
        width = 128 if n <= 128 else (n // 4 + 1) * 4
        return (int.from_bytes(payload, "big") ^ (key >> (8 * (width - n)))).to_bytes(n, "big")

    def _frame(self, opcode: int, payload: bytes) -> bytes:
        n = len(payload)
        if n < 126:
            head = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
        elif n < 1 << 16:
            head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
        else:
            head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
        return head + self._key + self._mask(payload)

    async def send(self, text: bytes) -> None:
        """One text message (*text*: its UTF-8 bytes)."""
        self.writer.write(self._frame(0x1, text))

    async def recv(self) -> bytes:
        """The next text or binary message's payload (a ping is answered on the way)."""
        read = self.reader.readexactly
        while True:
            first, second = await read(2)
            n = second & 0x7F
            if n == 126:
                (n,) = struct.unpack("!H", await read(2))
            elif n == 127:
                (n,) = struct.unpack("!Q", await read(8))
            payload = await read(n) if n else b""
            opcode = first & 0x0F
            if opcode in (0x1, 0x2):
                if not first & 0x80:
                    raise RuntimeError("a fragmented message: the server sends none")
                return payload
            if opcode == 0x9:
                self.writer.write(self._frame(0xA, payload))
            elif opcode == 0x8:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                raise WebSocketClosed(code)

    async def close(self) -> None:
        with contextlib.suppress(ConnectionError, OSError):
            self.writer.write(self._frame(0x8, struct.pack("!H", 1000)))
            self.writer.close()
            await self.writer.wait_closed()

    async def __aenter__(self) -> Socket:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


async def connect(host: str, port: int, path: str) -> Socket:
    """Open a socket at ``ws://host:port/path`` (the upgrade refused: an error with its status)."""
    reader, writer = await asyncio.open_connection(host, port, limit=1 << 22)
    key = base64.b64encode(os.urandom(16))
    writer.write(
        b"GET " + path.encode() + b" HTTP/1.1\r\nHost: " + f"{host}:{port}".encode() + b"\r\n"
        b"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
        b"Sec-WebSocket-Key: " + key + b"\r\n\r\n"
    )
    head = await reader.readuntil(b"\r\n\r\n")
    if head[9:12] != b"101":
        writer.close()
        status = head.partition(b"\r\n")[0].decode(errors="replace")
        raise RuntimeError(f"upgrade refused: {status}")
    accept = base64.b64encode(hashlib.sha1(key + _GUID).digest())
    if b"sec-websocket-accept: " + accept.lower() not in head.lower():
        writer.close()
        raise RuntimeError("the server's Sec-WebSocket-Accept does not match the key")
    return Socket(reader, writer)
