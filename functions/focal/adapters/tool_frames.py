"""The frames between the engine and a tool worker process: a 4-byte big-endian length, then that many
bytes of UTF-8 JSON (one object). A frame over `limit` bytes, or one that is not a JSON object, is a
broken stream: the reader raises ValueError and the side that reads it stops talking to the other."""

from __future__ import annotations

import json
import struct
from typing import Any, BinaryIO

_HEADER = struct.Struct(">I")
MAX_FRAME_BYTES = 8 * 1024 * 1024  # a tool's answer above this is refused by the worker before it is sent


def encode_frame(message: dict[str, Any]) -> bytes:
    """The frame of `message`; TypeError/ValueError when it is not JSON."""
    data = json.dumps(message, separators=(",", ":")).encode("utf-8")
    return _HEADER.pack(len(data)) + data


def write_frame(stream: BinaryIO, frame: bytes) -> None:
    stream.write(frame)
    stream.flush()


def _read_exactly(stream: BinaryIO, size: int) -> bytes | None:
    chunks, left = [], size
    while left:
        chunk = stream.read(left)
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_frame(stream: BinaryIO, limit: int = MAX_FRAME_BYTES) -> dict[str, Any] | None:
    """The next message, or None at the end of the stream."""
    header = _read_exactly(stream, _HEADER.size)
    if header is None:
        return None
    (size,) = _HEADER.unpack(header)
    if size > limit:
        raise ValueError(f"a frame of {size} bytes, over the limit of {limit}")
    data = _read_exactly(stream, size)
    if data is None:
        raise ValueError("the stream ended inside a frame")
    message = json.loads(data)
    if not isinstance(message, dict):
        raise ValueError("a frame that is not a JSON object")
    return message
