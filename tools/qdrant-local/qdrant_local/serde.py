"""Reading a JSON object the way Qdrant's serde_json does where the project depends on the exact error.

serde_json reports where it failed as "at line L column C": the line and 1-based column of the last
byte it consumed (the closing quote of a bad string value, the `}` of an object missing a field).
`read_object` walks the top-level object and remembers where each value ended, so a field check
can fail with the same position serde would give. Only top-level fields are tracked.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from .errors import BadRequest

_WS = re.compile(r"[ \t\n\r]*")
_decoder = json.JSONDecoder()


@dataclass
class JsonObject:
    text: str
    values: dict[str, Any] = field(default_factory=dict)
    ends: dict[str, int] = field(default_factory=dict)
    close: int = 0

    def position(self, index: int) -> str:
        line = self.text.count("\n", 0, index) + 1
        column = index - self.text.rfind("\n", 0, index)
        return f"at line {line} column {column}"

    def fail(self, message: str, key: str | None = None) -> BadRequest:
        """A serde-style "Format error in JSON body: <message> at line L column C" for a field (or the object end)."""
        index = self.ends[key] if key is not None and key in self.ends else self.close
        return BadRequest(f"Format error in JSON body: {message} {self.position(index)}")


def read_object(body: bytes) -> JsonObject:
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadRequest(f"Format error in JSON body: {e}") from None
    obj = JsonObject(text)
    i = _WS.match(text, 0).end()  # type: ignore[union-attr]
    if i >= len(text):
        raise BadRequest(f"Format error in JSON body: EOF while parsing a value {obj.position(max(len(text), 0))}")
    if text[i] != "{":
        raise BadRequest(f"Format error in JSON body: invalid type: {_describe_at(text, i)}, expected struct {obj.position(i)}")
    i += 1
    first = True
    while True:
        i = _WS.match(text, i).end()  # type: ignore[union-attr]
        if i < len(text) and text[i] == "}":
            obj.close = i
            break
        if not first:
            if i >= len(text) or text[i] != ",":
                raise BadRequest(f"Format error in JSON body: expected `,` or `}}` {obj.position(min(i, len(text) - 1) + 1)}")
            i = _WS.match(text, i + 1).end()  # type: ignore[union-attr]
        if i >= len(text) or text[i] != '"':
            raise BadRequest(f"Format error in JSON body: key must be a string {obj.position(min(i, len(text) - 1) + 1)}")
        try:
            key, i = json.decoder.scanstring(text, i + 1)
        except json.JSONDecodeError as e:
            raise BadRequest(f"Format error in JSON body: {e.msg} {obj.position(e.pos)}") from None
        i = _WS.match(text, i).end()  # type: ignore[union-attr]
        if i >= len(text) or text[i] != ":":
            raise BadRequest(f"Format error in JSON body: expected `:` {obj.position(min(i, len(text) - 1) + 1)}")
        i = _WS.match(text, i + 1).end()  # type: ignore[union-attr]
        try:
            value, end = _decoder.raw_decode(text, i)
        except json.JSONDecodeError as e:
            raise BadRequest(f"Format error in JSON body: {e.msg} {obj.position(e.pos)}") from None
        if key in obj.values:
            obj.ends[key] = end - 1
            raise obj.fail(f"duplicate field `{key}`", key)
        obj.values[key] = value
        obj.ends[key] = end - 1
        i = end
        first = False
    rest = _WS.match(text, i + 1).end()  # type: ignore[union-attr]
    if rest != len(text):
        raise BadRequest(f"Format error in JSON body: trailing characters {obj.position(rest)}")
    return obj


def _describe_at(text: str, i: int) -> str:
    try:
        value, _ = _decoder.raw_decode(text, i)
    except json.JSONDecodeError:
        return "value"
    return unexpected(value)


def unexpected(value: Any) -> str:
    """serde's `Unexpected` wording for a JSON value: integer `5`, string "x", map, sequence..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean `{'true' if value else 'false'}`"
    if isinstance(value, int):
        return f"integer `{value}`"
    if isinstance(value, float):
        return f"floating point `{value!r}`"
    if isinstance(value, str):
        return f"string {rust_debug(value)}"
    if isinstance(value, list):
        return "sequence"
    return "map"


def rust_debug(s: str) -> str:
    """Rust's `{:?}` of a str or a Path: double quotes, with \\ \" \\n \\r \\t \\0 escaped."""
    out = ['"']
    for ch in s:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\0":
            out.append("\\0")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{{{ord(ch):x}}}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def optional_string(obj: JsonObject, key: str, expecting: str = "a string") -> str | None:
    v = obj.values.get(key)
    if v is None:
        return None
    if not isinstance(v, str):
        raise obj.fail(f"invalid type: {unexpected(v)}, expected {expecting}", key)
    return v


def enum_variant(obj: JsonObject, key: str, variants: tuple[str, ...]) -> str | None:
    v = obj.values.get(key)
    if v is None:
        return None
    if not isinstance(v, str):
        raise obj.fail(f"invalid type: {unexpected(v)}, expected variant identifier", key)
    if v not in variants:
        expected = ", ".join(f"`{x}`" for x in variants)
        raise obj.fail(f"unknown variant `{v}`, expected one of {expected}", key)
    return v
