"""A minimal asyncio WebSocket client (RFC 6455, text frames only) for the load tool.

The load tool is part of the installed app (``manage.py loadtest``) and runs with the runtime
dependencies only: ``websockets`` is pinned in the dev extra alone (uvicorn's WebSocket protocol for
the serving-layer benchmark), and the one client library at runtime is autobahn's, which Daphne
brings in (no dependency of ours) and which is driven through a protocol class of callbacks. The
handshake and text frames below are all the load tool's await-style loop needs.
"""

from __future__ import annotations

import asyncio
import base64
import os
import struct
from urllib.parse import urlsplit

import orjson


class WebSocket:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader, self.writer = reader, writer

    @classmethod
    async def connect(cls, url: str, *, cookie: str = "", origin: str = "") -> WebSocket:
        parts = urlsplit(url)
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port or 80)
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [f"GET {parts.path} HTTP/1.1", f"Host: {parts.netloc}", "Upgrade: websocket",
                 "Connection: Upgrade", f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13"]
        if cookie:
            lines.append(f"Cookie: {cookie}")
        if origin:
            lines.append(f"Origin: {origin}")
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        await writer.drain()
        status = await reader.readline()
        if b" 101 " not in status:
            raise ConnectionError(f"handshake refused: {status!r}")
        while (await reader.readline()) not in (b"\r\n", b""):
            pass
        return cls(reader, writer)

    async def send_json(self, obj) -> None:
        data = orjson.dumps(obj)
        header = bytearray([0x81])
        n = len(data)
        if n < 126:
            header.append(0x80 | n)
        elif n < 65536:
            header += bytes([0x80 | 126]) + struct.pack("!H", n)
        else:
            header += bytes([0x80 | 127]) + struct.pack("!Q", n)
        mask = os.urandom(4)
        key = int.from_bytes((mask * (n // 4 + 1))[:n], "big")  # (one XOR of big ints, not one per byte)
        masked = (int.from_bytes(data, "big") ^ key).to_bytes(n, "big")
        self.writer.write(bytes(header) + mask + masked)
        await self.writer.drain()

    async def recv_json(self):
        """The next text message as JSON; None when the server closed the connection."""
        chunks = b""
        while True:
            head = await self.reader.readexactly(2)
            fin, opcode, n = head[0] & 0x80, head[0] & 0x0F, head[1] & 0x7F
            if n == 126:
                n = struct.unpack("!H", await self.reader.readexactly(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", await self.reader.readexactly(8))[0]
            payload = await self.reader.readexactly(n)
            if opcode == 0x8:
                return None
            if opcode == 0x9:  # ping -> pong
                self.writer.write(bytes([0x8A, 0x80 | len(payload)]) + b"\0\0\0\0" + payload)
                continue
            chunks += payload
            if fin:
                return orjson.loads(chunks)

    async def close(self) -> None:
        try:
            self.writer.write(bytes([0x88, 0x80]) + b"\0\0\0\0")
            await self.writer.drain()
        finally:
            self.writer.close()
