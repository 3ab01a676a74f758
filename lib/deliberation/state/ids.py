"""Ids are validated here before they become part of a path.

Session ids, agent ids, tool-use ids and deliberation ids come from payloads written by the
client (or by a model). Only letters, digits, '-' and '_' are accepted, 1..128 characters, so
`../x`, `/etc/passwd`, `a/b` or an empty id can never reach the file system.
"""

MAX_ID_LENGTH = 128
# the accepted characters, as a set: no `re` on the fast path (its import costs more than every check)
_ID_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


class InvalidId(ValueError):
    """An id that must not be used as a path component."""

    def __init__(self, kind: str, value: object) -> None:
        shown = repr(value)
        if len(shown) > 80:
            shown = shown[:77] + "..."
        super().__init__(
            f"invalid {kind} {shown}: ids may contain only letters, digits, '-' and '_' (1-{MAX_ID_LENGTH} characters)"
        )
        self.kind = kind


def is_valid_id(value: object) -> bool:
    return isinstance(value, str) and 0 < len(value) <= MAX_ID_LENGTH and _ID_CHARS.issuperset(value)


def check_id(kind: str, value: object) -> str:
    """Return `value` if it is a safe id, else raise InvalidId naming `kind`."""
    if not isinstance(value, str) or not is_valid_id(value):
        raise InvalidId(kind, value)
    return value
