"""Seals: a runtime file under `.claude/deliberation/` is believed only if this user's plugin wrote
it (docs/SECURITY.md says what a committed one could do, and which files are the team's data).

`seal` ends each document and each JSON line with a `"mac"` member: keyed BLAKE2b-128 (32 hex)
over the file's place relative to the state folder and its bytes without that member, with this
user's key (`user_data`, 0600, outside every project). `unseal` gives back the bytes as they
were, or None: the caller treats the file as absent, moves it aside and says so. The member sits
where the serialiser put the last one, so the file stays valid JSON in either layout (indented,
or compact on one line). Standard library only (`_blake2`, a C module: the fast path checks seals).
"""

import os

try:
    from _blake2 import blake2b as _blake2b
except ImportError:  # pragma: no cover - a Python built without it
    from hashlib import blake2b as _blake2b
try:
    from _operator import _compare_digest as _same
except ImportError:  # pragma: no cover
    from hmac import compare_digest as _same  # type: ignore[no-redef]  # the same function, public name

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from typing import Callable

    from deliberation.state.paths import Layout

HEX = 32
_CONTEXT = b"deliberation-seal/1\0"
_FORMS = ((b',\n  "mac": "', b"\n}"), (b',"mac":"', b"}"))
_HEXDIGITS = frozenset(b"0123456789abcdef")
# Every file of the state folder, by its place (fnmatch patterns, '/' separated), is of one of
# three kinds; tests/unit/test_seal_coverage.py holds each file the plugin reads back to SEALED or
# SHARED, and tests/integration/test_state_files_sealed.py each SEALED file a session writes to
# its seal.
# Sealed: runtime files the plugin writes and reads back to decide an answer or what it shows.
SEALED = (
    "escalations.json",
    "cache/config.resolved.json",
    "cache/retention.json",
    "sessions/*/session.json",
    "sessions/*/lineage.json",
    "sessions/*/events.jsonl",
    "sessions/*/prompt.json",
    "sessions/*/switch.json",
    "sessions/*/commit.journal",
    "deliberations/*.json",
)
# The team's files: data, never sealed and never believed beyond what consent.py and the text
# frames allow.
SHARED = {
    "config.json": "the team's settings, committed on purpose: read through consent.py (what runs, widens "
    "what runs, deletes sooner or switches a catch off waits for this user's approval)",
    "reversals.json": "the team's registry of reversed decisions, committed on purpose: its labels are "
    "checked identifiers and its reasons reach the model only quoted as the team's words",
    "adjudications.jsonl": "the audit log of people's approvals and rejections: appended, never read back "
    "to decide anything (doctor checks its schema only)",
}
# Written for people and never read back by the plugin: nothing to believe.
UNREAD = {
    "records/*.md": "the decision record for people; its structured form lives in the sealed deliberation",
    "records/*.html": "the rendered report for people, rewritten from the sealed deliberation each time",
    "errors.log": "internal errors for people; the prune only trims it, by size",
    ".gitignore": "written once if absent; only its existence is checked",
    "install-manifest.json": "install.sh's own list, checked by install's rules (entries must stay inside the target)",
}


class Unsealed(ValueError):
    """A runtime file without a valid seal: not written by this user's plugin."""


def _mac(key: bytes, rel: str, body: bytes) -> bytes:
    return (
        _blake2b(_CONTEXT + rel.encode("utf-8", "surrogateescape") + b"\0" + body, key=key[:64], digest_size=HEX // 2)
        .hexdigest()
        .encode()
    )


def seal(key: bytes, rel: str, data: bytes) -> bytes:
    """`data` (one JSON object, as serialised) with its seal for the place `rel`."""
    stripped = data.rstrip(b" \t\r\n")
    trail = data[len(stripped) :]
    mac = _mac(key, rel, data)
    for sep, close in _FORMS:
        if stripped.endswith(close) and not stripped[: -len(close)].rstrip().endswith(b"{"):
            return stripped[: -len(close)] + sep + mac + b'"' + close + trail
    raise ValueError("only a non-empty JSON object can be sealed")


def split(data: bytes) -> "tuple[bytes | None, bytes]":
    """(the seal's hex digits, the bytes without the seal), or (None, data) when there is none."""
    stripped = data.rstrip(b" \t\r\n")
    trail = data[len(stripped) :]
    for sep, close in _FORMS:
        span = len(sep) + HEX + 1
        if not stripped.endswith(close) or len(stripped) < span + len(close):
            continue
        part = stripped[-(span + len(close)) : -len(close)]
        if part.startswith(sep) and part.endswith(b'"'):
            digits = part[len(sep) : -1]
            if _HEXDIGITS.issuperset(digits):
                return digits, stripped[: -(span + len(close))] + close + trail
    return None, data


def unseal(key: bytes, rel: str, data: bytes) -> "bytes | None":
    """The bytes as written before sealing when `data` carries this key's seal for `rel`, else None."""
    digits, body = split(data)
    if digits is None or not _same(digits, _mac(key, rel, body)):
        return None
    return body


def is_sealed_by(key: bytes, rel: str, data: bytes) -> bool:
    return unseal(key, rel, data) is not None


def rel_of(layout: "Layout", path: str) -> str:
    """The place of `path` in the state folder ('/' separated), the seal's context."""
    rel = os.path.relpath(os.path.abspath(path), os.path.abspath(layout.root))
    return rel.replace(os.sep, "/")


def key_for(layout: "Layout") -> bytes:
    """This user's key (raises user_data.Unavailable); the hook's own environment decides where
    it lives, in the warm worker the request's."""
    from deliberation.state import user_data
    from deliberation.state.paths import hook_env

    return user_data.key(hook_env(), layout.project)


def seal_file(layout: "Layout", path: str, data: bytes) -> bytes:
    return seal(key_for(layout), rel_of(layout, path), data)


def unseal_file(layout: "Layout", path: str, data: bytes) -> bytes:
    """unseal() for a file of `layout`'s state folder; raises Unsealed."""
    body = unseal(key_for(layout), rel_of(layout, path), data)
    if body is None:
        raise Unsealed(f"{rel_of(layout, path)} was not written by this user's plugin (no valid seal)")
    return body


def read_runtime(layout: "Layout", path: str, limit: int) -> bytes:
    """The bytes of a state file as its writer serialised them: read safely (safe_read, inside
    the project, at most `limit` bytes) and, unless it is one of the team's shared files, with
    its seal checked and removed. Raises FileNotFoundError, safe_read.Refused (an OSError),
    Unsealed, or user_data.Unavailable."""
    from deliberation.state import safe_read

    raw = safe_read.read_bytes(path, limit, root=layout.project)
    if rel_of(layout, path) in SHARED:
        return raw
    return unseal_file(layout, path, raw)


def seal_lines(layout: "Layout", path: str, lines: bytes) -> bytes:
    """Every newline-terminated JSON line of `lines` sealed for the file `path`."""
    key, rel = key_for(layout), rel_of(layout, path)
    return b"".join(seal(key, rel, line) + b"\n" for line in lines.split(b"\n") if line.strip())


def line_opener(layout: "Layout", path: str) -> "Callable[[bytes], bytes | None]":
    """A function: one line of `path` (bytes, no newline) → its bytes without the seal, or None."""
    key, rel = key_for(layout), rel_of(layout, path)
    return lambda line: unseal(key, rel, line)
