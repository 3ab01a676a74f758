"""The one way to show a name that came from a project: a path, a file name, a setting's text.

A repository chooses its file names, and a file name may hold any byte but `/` and NUL: a
newline that starts a fake instruction inside a hook's reason, an escape sequence that retitles
the terminal, writes its clipboard (OSC 52) or clears the screen. Every such name that reaches
the model or the terminal goes through `quoted`: it comes out in double quotes, on one line, with
every character that could act — C0 and C1 controls, DEL, the line and paragraph separators,
the invisible format characters (bidi overrides, zero-width marks) and a byte that is not UTF-8 —
written as a visible escape (`\\n`, `\\x1b`, `\\u202e`). The escape sequence is still there to read,
and does nothing. `command_word` is the same name as one word of a shell command the person may
paste (docs/SECURITY.md, "One way to show a name").

Imports nothing (BASE): every layer and every tier, the hook process's own, may use it.
"""

_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t", '"': '\\"', "\\": "\\\\"}
# invisible format characters that reorder or hide text (Unicode Cf), the line and paragraph
# separators (Zl, Zp): ranges, inclusive
_FORMAT = (
    (0x00AD, 0x00AD),
    (0x0600, 0x0605),
    (0x061C, 0x061C),
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x08E2, 0x08E2),
    (0x180E, 0x180E),
    (0x200B, 0x200F),
    (0x2028, 0x202E),
    (0x2060, 0x2064),
    (0x2066, 0x206F),
    (0xFEFF, 0xFEFF),
    (0xFFF9, 0xFFFB),
    (0x110BD, 0x110BD),
    (0x1D173, 0x1D17A),
    (0xE0001, 0xE0001),
    (0xE0020, 0xE007F),
)
LIMIT = 400  # characters of the name shown, before the escapes; the rest is said as a count


def acts(ch: str) -> bool:
    """Whether one character could act on a terminal or hide text: C0, DEL, C1, a surrogate (a
    byte that was not UTF-8), an invisible format character, a line or paragraph separator."""
    code = ord(ch)
    if code < 0x20 or 0x7F <= code <= 0x9F or 0xD800 <= code <= 0xDFFF:
        return True
    if code < 0xAD:
        return False
    for low, high in _FORMAT:
        if low <= code <= high:
            return True
    return False


def _escape(ch: str) -> str:
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # os.fsdecode's surrogateescape: the raw byte
        return "\\x%02x" % (code - 0xDC00)
    if code <= 0xFF:
        return "\\x%02x" % code
    if code <= 0xFFFF:
        return "\\u%04x" % code
    return "\\U%08x" % code


def _text(value: object) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "surrogateescape")
    return value if isinstance(value, str) else str(value)


def inert(value: object, limit: "int | None" = LIMIT) -> str:
    """The name's characters with every one that could act written as an escape, without quotes
    (for a place that already quotes, such as a JSON string). At most `limit` characters of the
    name are shown; a longer one ends with `…(+N)`."""
    text = _text(value)
    cut = text[:limit] if limit is not None and len(text) > limit else text
    out = []
    for ch in cut:
        if ch in _SHORT and ch not in '"\\':
            out.append(_SHORT[ch])
        elif acts(ch):
            out.append(_escape(ch))
        else:
            out.append(ch)
    if len(cut) < len(text):
        out.append("…(+%d)" % (len(text) - len(cut)))
    return "".join(out)


def quoted(value: object, limit: "int | None" = LIMIT) -> str:
    """`"name"`: the name in double quotes, one line, nothing in it that acts (see the module
    docstring); a `"` or `\\` in the name is escaped, so where the name ends is never in doubt."""
    text = _text(value)
    cut = text[:limit] if limit is not None and len(text) > limit else text
    out = ['"']
    for ch in cut:
        if ch in _SHORT:
            out.append(_SHORT[ch])
        elif acts(ch):
            out.append(_escape(ch))
        else:
            out.append(ch)
    out.append('"')
    if len(cut) < len(text):
        out.append("…(+%d)" % (len(text) - len(cut)))
    return "".join(out)


_SAFE_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./-_")


def command_word(value: object) -> str:
    """The name as one word of a POSIX shell command, inert: as it is when it needs no quoting,
    in single quotes when it holds nothing that acts, else in `$'…'` quoting (bash, zsh, ksh),
    where each acting character is an escape the shell turns back into the same byte."""
    text = _text(value)
    if text and all(ch in _SAFE_WORD for ch in text):
        return text
    if not any(acts(ch) for ch in text):
        return "'" + text.replace("'", "'\"'\"'") + "'"
    out = ["$'"]
    for ch in text:
        if ch in "'\\":
            out.append("\\" + ch)
        elif acts(ch):
            code = ord(ch)
            if 0xDC80 <= code <= 0xDCFF:
                out.append("\\x%02x" % (code - 0xDC00))
            else:
                out.append("".join("\\x%02x" % b for b in ch.encode("utf-8", "surrogatepass")))
        else:
            out.append(ch)
    out.append("'")
    return "".join(out)
