"""A streaming multipart/form-data reader for snapshot uploads (archives can be gigabytes).

File parts are written to temp files as they arrive; nothing is held in memory beyond a buffer.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

_CHUNK = 1 << 20
_DISPOSITION_PARAM = re.compile(r';\s*([A-Za-z0-9_*-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)')


@dataclass
class Part:
    name: str
    filename: str | None
    path: Path


class MultipartError(ValueError):
    pass


def boundary_of(content_type: str | None) -> str | None:
    if not content_type:
        return None
    mime, _, params = content_type.partition(";")
    if mime.strip().lower() != "multipart/form-data":
        return None
    for m in re.finditer(r'boundary\s*=\s*("([^"]+)"|[^;\s]+)', params, re.IGNORECASE):
        return m.group(2) or m.group(1)
    return None


def _disposition(headers: dict[str, str]) -> tuple[str | None, str | None]:
    value = headers.get("content-disposition", "")
    if not value.lower().startswith("form-data"):
        return None, None
    params: dict[str, str] = {}
    for m in _DISPOSITION_PARAM.finditer(value):
        v = m.group(2).strip()
        if v.startswith('"') and v.endswith('"'):
            v = re.sub(r"\\(.)", r"\1", v[1:-1])
        params[m.group(1).lower()] = v
    return params.get("name"), params.get("filename")


def read_parts(read: Callable[[int], bytes], boundary: str, tmp_dir: Path) -> list[Part]:
    """Reads the whole body through `read(n)` (b"" at the end), writing each part to a file in tmp_dir."""
    delimiter = b"--" + boundary.encode("latin-1")
    marker = b"\r\n" + delimiter
    buf = b""
    eof = False

    def fill() -> bool:
        nonlocal buf, eof
        if eof:
            return False
        chunk = read(_CHUNK)
        if not chunk:
            eof = True
            return False
        buf += chunk
        return True

    # Preamble: up to the first delimiter (at the very start or after a CRLF).
    while True:
        if buf.startswith(delimiter):
            buf = buf[len(delimiter) :]
            break
        i = buf.find(marker)
        if i >= 0:
            buf = buf[i + len(marker) :]
            break
        buf = buf[-len(marker) :]
        if not fill():
            raise MultipartError("no multipart boundary in the body")

    parts: list[Part] = []
    while True:
        while len(buf) < 2 and fill():
            pass
        if buf.startswith(b"--"):
            break  # the closing delimiter
        if not buf.startswith(b"\r\n"):
            raise MultipartError("malformed multipart delimiter")
        buf = buf[2:]
        while (end := buf.find(b"\r\n\r\n")) < 0:
            if len(buf) > 64 * 1024 or not fill():
                raise MultipartError("malformed multipart part headers")
        headers: dict[str, str] = {}
        for line in buf[:end].decode("utf-8", "replace").split("\r\n"):
            key, sep, value = line.partition(":")
            if sep:
                headers[key.strip().lower()] = value.strip()
        buf = buf[end + 4 :]
        name, filename = _disposition(headers)
        path = tmp_dir / f"part-{uuid.uuid4().hex}"
        with path.open("wb") as out:
            while True:
                i = buf.find(marker)
                if i >= 0:
                    out.write(buf[:i])
                    buf = buf[i + len(marker) :]
                    break
                keep = len(marker) - 1
                if len(buf) > keep:
                    out.write(buf[:-keep])
                    buf = buf[-keep:]
                if not fill():
                    raise MultipartError("multipart body ended inside a part")
        parts.append(Part(name or "", filename, path))
    # Drain an epilogue, if any.
    while fill():
        buf = b""
    return parts
