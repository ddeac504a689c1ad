"""JSON as the other runtimes write it.

Every runtime prints the same bytes, so this module writes JSON the way
serde_json and `JSON.stringify` do: compact, keys in insertion order, strings
escaped only where JSON requires (`"`, `\\`, control characters; everything
else, U+2028 and DEL included, as itself), and numbers read from JSON text
written back exactly as they were written (serde_json's `arbitrary_precision`,
which the Rust runner uses), never re-rounded through a float.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

_quote = json.encoder.py_encode_basestring  # type: ignore[attr-defined]
_quote = getattr(json.encoder, "c_encode_basestring", None) or _quote


class RawNumber(str):
    """A JSON number, kept as the text it was written as."""


def loads(text: str | bytes) -> Any:
    """Parses JSON text, keeping every number's text (see `RawNumber`)."""
    return json.loads(text, parse_int=RawNumber, parse_float=RawNumber)


def quote(text: str) -> str:
    """A string as a JSON string literal."""
    return _quote(text)


def dumps(value: Any) -> str:
    """Compact JSON; dataclasses as objects of their fields, in field order."""
    out: list[str] = []
    _write(value, out)
    return "".join(out)


def _write(value: Any, out: list[str]) -> None:
    if isinstance(value, RawNumber):
        out.append(str.__str__(value))
    elif isinstance(value, str):
        out.append(_quote(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(str(value))
    elif isinstance(value, float):
        out.append(json.dumps(value))
    elif isinstance(value, dict):
        out.append("{")
        for i, (key, item) in enumerate(value.items()):
            if i:
                out.append(",")
            out.append(_quote(str(key)))
            out.append(":")
            _write(item, out)
        out.append("}")
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _write(item, out)
        out.append("]")
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        out.append("{")
        for i, field in enumerate(dataclasses.fields(value)):
            if i:
                out.append(",")
            out.append(_quote(field.name))
            out.append(":")
            _write(getattr(value, field.name), out)
        out.append("}")
    else:
        raise TypeError(f"cannot write {type(value).__name__} as JSON")
