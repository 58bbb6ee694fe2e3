"""A minimal HTTP/1.1 keep-alive client over asyncio streams (the load generator's transport).

Yamen's responses always carry Content-Length (no chunked bodies on the paths measured here), so
a request is one write and a response is one header read plus one exact body read.  This is several
times cheaper per request than a general-purpose client, so the load generator is not the bottleneck.
"""

from __future__ import annotations

import asyncio
import contextlib


class HTTPError(Exception):
    pass


class Connection:
    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self.port = port
        self._host_header = f"Host: {host}:{port}\r\n".encode()
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def open(self) -> Connection:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port, limit=1 << 22)
        return self

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(ConnectionError, OSError):
                await self.writer.wait_closed()
            self.writer = None

    def build(self, method: str, path: str, headers: bytes = b"", body: bytes | None = None) -> bytes:
        """The request bytes; *headers* are pre-rendered ``Name: value\\r\\n`` lines."""
        head = f"{method} {path} HTTP/1.1\r\n".encode() + self._host_header + headers
        if body is not None:
            return (
                head
                + b"Content-Type: application/json\r\nContent-Length: "
                + str(len(body)).encode()
                + b"\r\n\r\n"
                + body
            )
        return head + b"\r\n"

    async def send(self, raw: bytes) -> tuple[int, bytes, bytes]:
        """Send a pre-built request; returns (status, raw header block, body)."""
        if self.writer is None:
            await self.open()
        self.writer.write(raw)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head[9:12])
        lower = head.lower()
        i = lower.find(b"content-length:")
        if i < 0:
            if status in (204, 304):
                return status, head, b""
            raise HTTPError(f"response without Content-Length: {head[:200]!r}")
        j = lower.find(b"\r\n", i)
        length = int(lower[i + 15 : j])
        body = await self.reader.readexactly(length) if length else b""
        return status, head, body

    async def request(
        self, method: str, path: str, headers: bytes = b"", body: bytes | None = None
    ) -> tuple[int, bytes, bytes]:
        return await self.send(self.build(method, path, headers, body))


def header_value(head: bytes, name: bytes) -> bytes | None:
    lower = head.lower()
    i = lower.find(b"\r\n" + name.lower() + b":")
    if i < 0:
        return None
    j = head.find(b"\r\n", i + 2)
    return head[i + 3 + len(name) : j].strip()
