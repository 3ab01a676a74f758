"""Whether a name the client resolves is the plugin's own: the plugin vouches only for what it
shipped (docs/SECURITY.md, "The plugin vouches only for what it shipped").

The client resolves agents, slash commands and saved workflows from the project too, and a
project's file wins over the plugin's (state/client_files.py has the measured rules). So a name
is not proof: a persona is the plugin's only when the agent that ran is — in the plugin form its
namespaced type, which no project can define; in the install.sh form a bare type whose every
definition the client could pick is byte-identical to the shipped `agents/<slug>.md` — and a
Workflow call is the plugin's only when every script its name could resolve to is the shipped
one. What a file says it is (a front matter's `name:`, a script's `meta.name`) is read here the
way the client reads it, conservatively: a file that cannot be read, or a name that cannot be
told, counts as one that could be the name asked for.

Pure and stdlib-only: the shell hands the files' bytes in (state/client_files.py).
"""

from __future__ import annotations

from deliberation.core import personas

TYPE_CHECKING = False  # mypy reads the block below; the fast path does not load `typing`
if TYPE_CHECKING:
    from typing import Callable

UNKNOWN = "\0unknown"  # a name that cannot be told: it could be any
RENAMED = "deliberation-"  # install.sh's name for a shipped agent whose own name a project file took
SHIPPED_TYPES = frozenset((*personas.ALL, personas.CHECKPOINT))


# --------------------------------------------------------------------------------------------
# agent files: the front matter's name


def frontmatter_name(data: "bytes | None") -> "str | None":
    """The `name:` of an agent file's front matter, lower-cased as the client matches it; None
    when the file defines no agent (no front matter, no name); UNKNOWN when it cannot be told
    (unreadable, a YAML form this reader does not follow)."""
    if data is None:
        return UNKNOWN
    text = data.decode("utf-8", "replace").lstrip("\ufeff")
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return None
    found: "list[str]" = []
    for line in lines[1:]:
        if line.strip() == "---":
            break
        key, sep, value = line.partition(":")
        if not sep or key[:1].isspace():
            continue
        if key.strip().strip("'\"") != "name":
            continue
        value = value.strip()
        if " #" in value:
            value = value.split(" #", 1)[0].rstrip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        elif not value or value[0] in ">|&*![{'\"%@`":
            return UNKNOWN
        found.append(value.strip().lower())
    else:
        return UNKNOWN if len(lines) > 1 else None  # front matter that never closes
    if not found:
        return None
    return found[-1] if len(set(found)) == 1 else UNKNOWN


def _same(data: "bytes | None", ref: "bytes | None") -> bool:
    return data is not None and ref is not None and data.strip() == ref.strip()


def renamed_content(shipped: bytes, slug: str) -> bytes:
    """A shipped agent file as install.sh writes it under its own name (`deliberation-<slug>`),
    when a project file holds the bare one: only the front matter's `name:` changes."""
    lines = shipped.split(b"\n")
    for i, line in enumerate(lines[1:], 1):
        if line.strip() == b"---":
            break
        if line.startswith(b"name:"):
            lines[i] = b"name: " + (RENAMED + slug).encode("ascii")
            break
    return b"\n".join(lines)


class Vouch:
    """Which agent types are the plugin's own in this session: `prefix` is the plugin form's
    namespace ('' in the install.sh form), `files` the agent files the client may resolve a bare
    type from, `shipped(slug)` the plugin's own agents/<slug>.md."""

    __slots__ = ("prefix", "files", "shipped", "_names", "_memo")

    def __init__(
        self, prefix: str, files: "Callable[[], list[tuple[str, bytes | None]]]", shipped: "Callable[[str], bytes | None]"
    ) -> None:
        self.prefix = prefix
        self.files = files  # called once, and only when a bare type names a shipped agent
        self.shipped = shipped
        self._names: "list[tuple[str, str | None, bytes | None]] | None" = None
        self._memo: "dict[str, tuple[bool, list[str]]]" = {}

    def definitions(self) -> "list[tuple[str, str | None, bytes | None]]":
        if self._names is None:
            self._names = [(path, frontmatter_name(data), data) for path, data in self.files()]
        return self._names

    def judge(self, agent_type: str) -> "tuple[bool, list[str]]":
        """(the plugin's own, the files that make it not) for a type naming a shipped agent; a
        type that names none is (True, []): it is no persona either way."""
        if agent_type in self._memo:
            return self._memo[agent_type]
        out = self._judge(agent_type)
        self._memo[agent_type] = out
        return out

    def _judge(self, agent_type: str) -> "tuple[bool, list[str]]":
        name = agent_type.strip()
        if ":" in name:
            space, _, slug = name.rpartition(":")
            if slug.lower() not in SHIPPED_TYPES:
                return True, []
            # a namespaced type is a plugin's, never a project's: the plugin's own namespace only
            return space + ":" == (self.prefix or "deliberation:"), []
        low = name.lower()
        slug = low[len(RENAMED) :] if low.startswith(RENAMED) and low[len(RENAMED) :] in SHIPPED_TYPES else low
        if slug not in SHIPPED_TYPES:
            return True, []
        if self.prefix:
            return False, []  # the plugin form: a bare persona name is the project's (or nobody's)
        ref = self.shipped(slug)
        if ref is not None and slug != low:
            ref = renamed_content(ref, slug)
        bad = [path for path, defined, data in self.definitions() if defined in (low, UNKNOWN) and not _same(data, ref)]
        return not bad, bad

    def own(self, agent_type: "str | None") -> bool:
        return not agent_type or self.judge(agent_type)[0]

    def canonical(self, agent_type: "str | None") -> "str | None":
        """The type as the core reads it: a vouched renamed one as its persona (install.sh's
        `deliberation-security-analyst` is `security-analyst`); one not vouched for marked so
        that no catalogue name can be read out of it; any other unchanged."""
        if not agent_type:
            return agent_type
        ok, _bad = self.judge(agent_type)
        if not ok:
            return foreign(agent_type)
        low = agent_type.strip().lower()
        if ":" not in low and low.startswith(RENAMED) and low[len(RENAMED) :] in SHIPPED_TYPES:
            return low[len(RENAMED) :]
        return agent_type


FOREIGN_MARK = " (not the plugin's agent)"


def foreign(agent_type: str) -> str:
    """An agent type the plugin does not vouch for, as the core keeps it: its name with a mark no
    persona slug can carry (a space), so `personas.kind_of` reads no persona out of it."""
    return agent_type if agent_type.endswith(FOREIGN_MARK) else agent_type + FOREIGN_MARK


def is_foreign(agent_type: "str | None") -> bool:
    return bool(agent_type) and agent_type.endswith(FOREIGN_MARK)  # type: ignore[union-attr]  # bool() checked it


# --------------------------------------------------------------------------------------------
# saved workflows: the script's meta.name


def meta_names(text: str) -> "tuple[set[str], bool]":
    """The names a script's `meta = { name: … }` literals give (every one, commented out or not),
    and whether some meta's name cannot be told (computed, a spread, an unreadable literal)."""
    names: "set[str]" = set()
    unknown = False
    at = text.find("meta")
    while at >= 0:
        before = text[at - 1] if at else " "
        after = at + 4
        if not (before.isalnum() or before in "_$"):
            i = _skip(text, after)
            if i < len(text) and text[i] == "=" and text[i + 1 : i + 2] != "=":
                i = _skip(text, i + 1)
                if i < len(text) and text[i] == "{":
                    try:
                        names |= _object_names(text, i + 1)
                    except ValueError:
                        unknown = True
        at = text.find("meta", after)
    return names, unknown


def _skip(text: str, i: int) -> int:
    """Past whitespace and comments."""
    n = len(text)
    while i < n:
        if text[i].isspace():
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise ValueError("unterminated comment")
            i = end + 2
        else:
            break
    return i


_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


def _string(text: str, i: int) -> "tuple[str, int]":
    """A string literal at i ('…', "…", or `…` without ${}): its value, and the index after it."""
    quote = text[i]
    out: "list[str]" = []
    j, n = i + 1, len(text)
    while j < n:
        c = text[j]
        if c == quote:
            return "".join(out), j + 1
        if quote == "`" and text.startswith("${", j):
            raise ValueError("a template with an expression")
        if c == "\n" and quote != "`":
            raise ValueError("unterminated string")
        if c == "\\":
            e = text[j + 1 : j + 2]
            if e == "x":
                out.append(chr(int(text[j + 2 : j + 4], 16)))
                j += 4
                continue
            if e == "u":
                if text[j + 2 : j + 3] == "{":
                    end = text.index("}", j + 3)
                    out.append(chr(int(text[j + 3 : end], 16)))
                    j = end + 1
                else:
                    out.append(chr(int(text[j + 2 : j + 6], 16)))
                    j += 6
                continue
            if e in ("\n", "\r", "\u2028", "\u2029"):
                j += 2 + (e == "\r" and text[j + 2 : j + 3] == "\n")
                continue
            out.append(_SIMPLE.get(e, e))
            j += 2
            continue
        out.append(c)
        j += 1
    raise ValueError("unterminated string")


_CLOSE = {"{": "}", "[": "]", "(": ")"}


def _value_end(text: str, i: int) -> int:
    """Index of the `,` or `}` that ends the property value starting at i."""
    depth: "list[str]" = []
    n = len(text)
    while i < n:
        i = _skip(text, i)
        if i >= n:
            break
        c = text[i]
        if c in "'\"`":
            if c == "`":
                i = _template_end(text, i)
            else:
                _value, i = _string(text, i)
            continue
        if c in _CLOSE:
            depth.append(_CLOSE[c])
        elif c in "}])":
            if not depth:
                if c == "}":
                    return i
                raise ValueError("unbalanced")
            if depth.pop() != c:
                raise ValueError("unbalanced")
        elif c == "," and not depth:
            return i
        elif c == "/":
            raise ValueError("a slash in meta")
        i += 1
    raise ValueError("unterminated object")


def _template_end(text: str, i: int) -> int:
    j, n = i + 1, len(text)
    while j < n:
        if text[j] == "\\":
            j += 2
            continue
        if text[j] == "`":
            return j + 1
        if text.startswith("${", j):
            j = _value_end(text, j + 2)  # stops at the `}` that closes the expression
        j += 1
    raise ValueError("unterminated template")


def _object_names(text: str, i: int) -> "set[str]":
    """The `name` values of an object literal whose `{` is just before i."""
    names: "set[str]" = set()
    n = len(text)
    while True:
        i = _skip(text, i)
        if i >= n:
            raise ValueError("unterminated object")
        if text[i] == "}":
            return names
        if text.startswith("...", i) or text[i] == "[":
            raise ValueError("a spread or computed key")
        if text[i] in "'\"`":
            key, i = _string(text, i)
        else:
            j = i
            while j < n and (text[j].isalnum() or text[j] in "_$"):
                j += 1
            if j == i:
                raise ValueError("not a key")
            key, i = text[i:j], j
        i = _skip(text, i)
        if i < n and text[i] in ",}":  # shorthand `{ name }`: a variable's value
            if key == "name":
                raise ValueError("a shorthand name")
            if text[i] == ",":
                i += 1
            continue
        if i < n and text[i] != ":":  # a method or an accessor
            if key in ("name", "get", "set", "async"):
                raise ValueError("a method or accessor")
            i = _value_end(text, i)
        else:
            i = _skip(text, i + 1)
            if key == "name":
                if i >= n or text[i] not in "'\"`":
                    raise ValueError("a computed name")
                value, i = _string(text, i)
                i = _skip(text, i)
                if i >= n or text[i] not in ",}":
                    raise ValueError("a computed name")
                names.add(value)
            else:
                i = _value_end(text, i)
        if i < n and text[i] == ",":
            i += 1


def could_be(data: "bytes | None", name: str) -> bool:
    """Whether the client may resolve the workflow `name` to this saved script."""
    if data is None:
        return True
    names, unknown = meta_names(data.decode("utf-8", "replace"))
    return unknown or name in names


def workflow_sources(name: str, files: "list[tuple[str, bytes | None]]", shipped: "bytes | None") -> "tuple[bool, list[str]]":
    """(every saved script the client may resolve `name` to is the shipped one and there is one,
    the paths of those that are not)."""
    candidates = [(path, data) for path, data in files if could_be(data, name)]
    bad = [path for path, data in candidates if not _same(data, shipped)]
    return bool(candidates) and not bad, bad
