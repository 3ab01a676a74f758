"""`json.loads` and `json.dumps` for the fast path, without importing the json package.

Importing `json` loads `json.decoder`, `json.scanner` and `json.encoder`, and with them `re`,
`enum`, `functools` and `collections`, and compiles five regular expressions — about a fifth of
a routine hook's own CPU time. The parsing and the encoding are done by CPython's C accelerator
`_json` either way: this module calls it directly, configured exactly as `json.loads(data)` and
`json.dumps(obj, ensure_ascii=..., separators=...)` configure it, so the results are the same
values and the same bytes.

Whatever the fast route does not cover — bytes in UTF-16 or UTF-32, a byte order mark, any
syntax error, an interpreter without `_json` — is handed to the json package itself, so errors
are `json.JSONDecodeError` with json's own message, and unusual input is decoded as json decodes it.
"""

import math

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from typing import Any, NoReturn

try:
    import _json

    _SCANNER = getattr(_json, "make_scanner", None)
    _ENCODER = getattr(_json, "make_encoder", None)
    _ESCAPE = getattr(_json, "encode_basestring", None)
    _ESCAPE_ASCII = getattr(_json, "encode_basestring_ascii", None)
except ImportError:  # pragma: no cover - an interpreter without the accelerator
    _SCANNER = _ENCODER = _ESCAPE = _ESCAPE_ASCII = None

_WS = " \t\n\r"  # json.decoder.WHITESPACE
_CONSTANTS = {"-Infinity": -math.inf, "Infinity": math.inf, "NaN": math.nan}


class _Context:
    """The attributes the C scanner reads from a json.JSONDecoder() with its defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__


_scan = _SCANNER(_Context()) if _SCANNER is not None else None


def loads(data: "bytes | bytearray | str") -> "Any":
    """json.loads(data): the same value, or the same exception."""
    text: "bytes | bytearray | str | None" = data
    if isinstance(data, (bytes, bytearray)):
        if b"\x00" in data[:4] or data[:3] == b"\xef\xbb\xbf":
            text = None  # UTF-16/32 or a BOM: json's own detection
        else:
            text = data.decode("utf-8", "surrogatepass")  # what json.loads decodes such bytes with
    if _scan is None or not isinstance(text, str) or text[:1] == "\ufeff":
        return _json_loads(data)
    start = len(text) - len(text.lstrip(_WS))
    try:
        value, end = _scan(text, start)
    except (StopIteration, ValueError, SystemError):
        # json raises its JSONDecodeError with its message (in a hook process the C scanner's own
        # error path can fail to build that error and return NULL: SystemError, measured)
        return _json_loads(data)
    if end != len(text) and text[end:].strip(_WS):
        return _json_loads(data)  # "Extra data"
    return value


def _json_loads(data: "bytes | bytearray | str") -> "Any":
    import json

    return json.loads(data)


def _default(o: object) -> "NoReturn":
    raise TypeError(f"Object of type {o.__class__.__name__} is not JSON serializable")


def dumps(obj: object, ensure_ascii: bool = True, separators: "tuple[str, str] | None" = None) -> str:
    """json.dumps(obj, ensure_ascii=..., separators=...): the same text, or the same exception."""
    escape = _ESCAPE_ASCII if ensure_ascii else _ESCAPE
    if _ENCODER is None or escape is None:
        return _json_dumps(obj, ensure_ascii, separators)
    if isinstance(obj, str):
        return escape(obj)
    item_sep, key_sep = separators if separators is not None else (", ", ": ")
    encode = _ENCODER({}, _default, escape, None, key_sep, item_sep, False, False, True)
    return "".join(encode(obj, 0))


def _json_dumps(obj: object, ensure_ascii: bool, separators: "tuple[str, str] | None") -> str:
    import json

    return json.dumps(obj, ensure_ascii=ensure_ascii, separators=separators)
