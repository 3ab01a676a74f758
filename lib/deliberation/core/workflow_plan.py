"""How many subagents a Workflow script can start, read from its text: `plan(script, args) -> Plan`.

A workflow's agents never reach PreToolUse, so the Workflow call itself is the one moment the
spawn budget can refuse (docs/CLIENT_CHANNELS.md). `Plan.bound` is an upper bound, never a guess
below the truth: every `agent(` call site counts once times the runs of its context (a `.map` and
its kin, a `pipeline` stage, `Array.from({length: N})`, `for … of` and counted `for` loops, a named
function summed over its uses, both branches of a condition), with sizes known only for literal
arrays, never-mutated consts, object-literal keys, slices and maps of known size, and a list
`args`. Anything else (a `while` loop, a list from an agent's result, a mutated array, recursion,
a callback handed away, a nested `workflow()`) gives `bound` None and `unbounded` says why. Also
collected: the `agentType` and `model` literals, and whether an agentType is computed. Stdlib
only, pure: PreToolUse on the Workflow tool imports it.
"""

from __future__ import annotations

import re
from typing import Any

from deliberation.text import script as words

CLIENT_CAP = 1000  # the client's own cap on agents over one workflow's lifetime
ITERATING = frozenset(
    {
        "map",
        "flatMap",
        "forEach",
        "filter",
        "some",
        "every",
        "find",
        "findIndex",
        "findLast",
        "findLastIndex",
        "reduce",
        "reduceRight",
        "sort",
        "toSorted",
    }
)
SIZE_KEEPING = frozenset({"map", "filter", "sort", "toSorted", "reverse", "toReversed", "fill"})
STATEMENT_WORDS = frozenset(
    {
        "const",
        "let",
        "var",
        "return",
        "if",
        "else",
        "for",
        "while",
        "do",
        "function",
        "export",
        "throw",
        "try",
        "switch",
        "case",
        "default",
        "break",
        "continue",
        "class",
        "import",
    }
)
REGEX_AFTER_WORDS = frozenset(
    {"return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void", "throw", "instanceof", "yield", "await"}
)
PUNCTUATORS = (
    "...",
    "===",
    "!==",
    "**=",
    "<<=",
    ">>=",
    "=>",
    "==",
    "!=",
    "<=",
    ">=",
    "&&",
    "||",
    "??",
    "?.",
    "++",
    "--",
    "+=",
    "-=",
    "*=",
    "/=",
    "%=",
    "**",
    "<<",
    ">>",
)
MUTATORS = frozenset({"push", "unshift", "splice", "concat"})
MAX_SCRIPT = 512 * 1024  # the tool's own maxLength


class Tok:
    __slots__ = ("kind", "text", "line")

    def __init__(self, kind: str, text: str, line: int) -> None:
        self.kind = kind  # id, num, str, re, punc
        self.text = text
        self.line = line

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"{self.kind}:{self.text}"


class Plan:
    """What the script can do, as far as its text shows."""

    __slots__ = ("bound", "calls", "unbounded", "detail", "agent_types", "computed_agent_type", "models", "error")

    def __init__(self) -> None:
        self.bound: "int | None" = 0
        self.calls = 0  # agent( call sites
        self.unbounded = ""  # why no bound could be given ('' when bounded)
        self.detail: "list[str]" = []  # per call site: 'line 4: × 5 (PERSONAS)'
        self.agent_types: "list[str]" = []
        self.computed_agent_type = False
        self.models: "list[str]" = []
        self.error = ""  # the text could not be read as a script

    def describe(self) -> str:
        if self.error:
            return f"not analysable: {self.error}"
        if self.bound is None:
            return f"no bound: {self.unbounded}"
        calls = "; ".join(self.detail) if self.detail else "no agent() call"
        return f"at most {self.bound} agent(s): {calls}"


class _Unbounded(Exception):
    """The agent count cannot be bounded; the message says why."""


# ---------------------------------------------------------------------------------------------
# tokens


def tokenize(src: str) -> "list[Tok]":
    """JavaScript tokens: comments dropped, strings and regex literals as single tokens; the
    expressions inside a template literal are emitted as `( … )` so brackets stay balanced."""
    toks: list[Tok] = []
    i, n, line = 0, len(src), 1
    template_depths: list[int] = []  # brace depth inside each open `${ … }`

    def regex_allowed() -> bool:
        if not toks:
            return True
        last = toks[-1]
        if last.kind in ("num", "str", "re"):
            return False
        if last.kind == "id":
            return last.text in REGEX_AFTER_WORDS
        return last.text not in (")", "]", "}", "++", "--")

    def template(j: int) -> int:
        """Scan template text from j; stop after the closing backtick or at `${`."""
        nonlocal line
        chunk: list[str] = []
        while j < n:
            ch = src[j]
            if ch == "\\":
                chunk.append(src[j : j + 2])
                j += 2
                continue
            if ch == "`":
                toks.append(Tok("str", "".join(chunk), line))
                return j + 1
            if src.startswith("${", j):
                toks.append(Tok("str", "".join(chunk), line))
                toks.append(Tok("punc", "(", line))
                template_depths.append(0)
                return j + 2
            if ch == "\n":
                line += 1
            chunk.append(ch)
            j += 1
        raise ValueError("unterminated template literal")

    while i < n:
        c = src[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif src.startswith("//", i):
            end = src.find("\n", i)
            i = n if end < 0 else end
        elif src.startswith("/*", i):
            end = src.find("*/", i + 2)
            if end < 0:
                raise ValueError("unterminated comment")
            line += src.count("\n", i, end)
            i = end + 2
        elif c in "\"'":
            j, chunk = i + 1, []
            while j < n and src[j] != c:
                if src[j] == "\\":
                    chunk.append(src[j + 1 : j + 2])
                    j += 2
                    continue
                if src[j] == "\n":
                    raise ValueError(f"line {line}: unterminated string")
                chunk.append(src[j])
                j += 1
            if j >= n:
                raise ValueError(f"line {line}: unterminated string")
            toks.append(Tok("str", "".join(chunk), line))
            i = j + 1
        elif c == "`":
            i = template(i + 1)
        elif c.isdigit() or (c == "." and i + 1 < n and src[i + 1].isdigit()):
            m = re.compile(r"[0-9][0-9_]*(?:\.[0-9_]*)?(?:[eE][+-]?[0-9]+)?n?|\.[0-9]+|0[xXoObB][0-9a-fA-F_]+").match(src, i)
            text = m.group(0) if m else c
            toks.append(Tok("num", text, line))
            i += len(text)
        elif c.isalpha() or c in "_$" or ord(c) > 127:
            j = i + 1
            while j < n and (src[j].isalnum() or src[j] in "_$" or ord(src[j]) > 127):
                j += 1
            toks.append(Tok("id", src[i:j], line))
            i = j
        elif c == "/" and regex_allowed():
            j, in_class = i + 1, False
            while j < n and (in_class or src[j] != "/"):
                if src[j] == "\\":
                    j += 1
                elif src[j] == "[":
                    in_class = True
                elif src[j] == "]":
                    in_class = False
                elif src[j] == "\n":
                    raise ValueError(f"line {line}: unterminated regular expression")
                j += 1
            j += 1
            while j < n and src[j].isalpha():
                j += 1
            toks.append(Tok("re", src[i:j], line))
            i = j
        elif c == "{":
            if template_depths:
                template_depths[-1] += 1
            toks.append(Tok("punc", "{", line))
            i += 1
        elif c == "}":
            if template_depths and template_depths[-1] == 0:
                template_depths.pop()
                toks.append(Tok("punc", ")", line))
                i = template(i + 1)
                continue
            if template_depths:
                template_depths[-1] -= 1
            toks.append(Tok("punc", "}", line))
            i += 1
        else:
            for p in PUNCTUATORS:
                if src.startswith(p, i):
                    toks.append(Tok("punc", p, line))
                    i += len(p)
                    break
            else:
                toks.append(Tok("punc", c, line))
                i += 1
    if template_depths:
        raise ValueError("unterminated template expression")
    return toks


# ---------------------------------------------------------------------------------------------
# the analysis


class _Script:
    def __init__(self, toks: "list[Tok]", args: Any) -> None:
        self.t = toks
        self.args = args
        self.match: dict[int, int] = {}
        self.parent: list["int | None"] = [None] * len(toks)
        stack: list[int] = []
        pairs = {")": "(", "]": "[", "}": "{"}
        for i, tok in enumerate(toks):
            self.parent[i] = stack[-1] if stack else None
            if tok.kind != "punc":
                continue
            if tok.text in "([{":
                stack.append(i)
            elif tok.text in pairs:
                if not stack or toks[stack[-1]].text != pairs[tok.text]:
                    raise ValueError(f"line {tok.line}: unbalanced '{tok.text}'")
                opened = stack.pop()
                self.match[opened], self.match[i] = i, opened
                self.parent[i] = stack[-1] if stack else None
        if stack:
            raise ValueError(f"line {toks[stack[-1]].line}: unclosed '{toks[stack[-1]].text}'")
        self.by_name: dict[str, list[int]] = {}  # identifier → its token indices (one pass, not one per question)
        for i, tok in enumerate(toks):
            if tok.kind == "id":
                self.by_name.setdefault(tok.text, []).append(i)
        self._defs: dict[str, list] = {}

    # -- small helpers ----------------------------------------------------------------------
    def text(self, i: int) -> str:
        return self.t[i].text if 0 <= i < len(self.t) else ""

    def is_punc(self, i: int, text: str) -> bool:
        return 0 <= i < len(self.t) and self.t[i].kind == "punc" and self.t[i].text == text

    def is_id(self, i: int, text: "str | None" = None) -> bool:
        return 0 <= i < len(self.t) and self.t[i].kind == "id" and (text is None or self.t[i].text == text)

    def level_items(self, start: int, end: int) -> "list[int]":
        """Indices of the items directly inside (start, end): a nested group counts as its
        opening bracket."""
        out, i = [], start + 1
        while i < end:
            out.append(i)
            i = self.match[i] + 1 if i in self.match and self.t[i].text in "([{" else i + 1
        return out

    def statement_prefix(self, pos: int) -> "list[int]":
        """Items at pos's level from the start of its statement up to (not including) pos. A
        statement starts after `;` or `,`, at a statement keyword, or at a line break where
        JavaScript inserts a semicolon (a line ending in a value, the next starting one)."""
        level = self.parent[pos]
        lo = level if level is not None else -1
        items, i, after = [], pos - 1, pos
        while i > lo:
            if i in self.match and self.t[i].text in ")]}" and self.t[i].kind == "punc":
                i = self.match[i]
            tok = self.t[i]
            if tok.kind == "punc" and tok.text in (";", ","):
                break
            if after < len(self.t) and self._asi_between(i, after):
                break
            items.append(i)
            if tok.kind == "id" and tok.text in STATEMENT_WORDS and not self.is_punc(i - 1, "."):
                break
            after = i
            i -= 1
        items.reverse()
        return items

    def _asi_between(self, i: int, j: int) -> bool:
        """A line break between item i (or the group it opens) and item j ends a statement."""
        last = self.t[self.end_of(i)]
        nxt = self.t[j]
        if last.line >= nxt.line:
            return False
        ends = (
            last.kind in ("num", "str", "re")
            or (last.kind == "id" and last.text not in REGEX_AFTER_WORDS and last.text not in STATEMENT_WORDS)
            or (last.kind == "punc" and last.text in (")", "]", "}", "++", "--"))
        )
        starts = nxt.kind in ("id", "num", "str") or (nxt.kind == "punc" and nxt.text in ("{", "++", "--", "!"))
        return ends and starts

    def arg_index(self, open_i: int, pos: int) -> int:
        return sum(1 for i in self.level_items(open_i, self.match[open_i]) if i < pos and self.is_punc(i, ","))

    def args_of(self, open_i: int) -> "list[list[int]]":
        """The top-level arguments of a call's '(' group, each as a list of item indices."""
        args: list[list[int]] = [[]]
        for i in self.level_items(open_i, self.match[open_i]):
            if self.is_punc(i, ","):
                args.append([])
            else:
                args[-1].append(i)
        return [a for a in args if a]

    # -- definitions ----------------------------------------------------------------------------
    def definitions(self, name: str) -> "list[tuple[int, str]]":
        """(index of the name token, 'const'/'let'/'var'/'function') of each binding."""
        if name not in self._defs:
            out = []
            for i in self.by_name.get(name, ()):
                if self.is_punc(i - 1, "."):
                    continue
                prev = self.text(i - 1)
                if prev in ("const", "let", "var", "function") and self.t[i - 1].kind == "id":
                    out.append((i, prev))
            self._defs[name] = out
        return self._defs[name]

    def initializer_end(self, name_i: int) -> "int | None":
        """`const NAME = EXPR`: the index of EXPR's last token, or None."""
        if not self.is_punc(name_i + 1, "="):
            return None
        level = self.parent[name_i]
        stop = self.match[level] if level is not None else len(self.t)
        i, last, prev = name_i + 2, None, name_i + 1
        while i < stop:
            tok = self.t[i]
            if tok.kind == "punc" and tok.text in (";", ","):
                break
            if last is not None and (
                self._asi_between(prev, i)
                or (tok.kind == "id" and tok.text in STATEMENT_WORDS and tok.text != "function" and not self.is_punc(i - 1, "."))
            ):
                break
            last = self.end_of(i)
            prev = i
            i = last + 1
        return last

    def mutated(self, name: str) -> bool:
        for i in self.by_name.get(name, ()):
            if self.is_punc(i - 1, "."):
                continue
            if self.is_punc(i + 1, ".") and self.text(i + 2) in MUTATORS:
                return True
            if (
                self.t[i + 1 : i + 2]
                and self.t[i + 1].kind == "punc"
                and self.t[i + 1].text in ("=", "+=", "-=")
                and self.text(i - 1) not in ("const", "let", "var")
            ):
                return True
        return False

    # -- sizes --------------------------------------------------------------------------------
    def size_name(self, name: str, seen: "frozenset[str]" = frozenset()) -> "int | None":
        if name == "args":
            return len(self.args) if isinstance(self.args, list) else None
        if name in seen:
            return None
        defs = self.definitions(name)
        if len(defs) != 1 or defs[0][1] == "function" or self.mutated(name):
            return None
        end = self.initializer_end(defs[0][0])
        if end is None:
            return None
        return self.size_at(end, seen | {name})

    def number(self, items: "list[int]", seen: "frozenset[str]" = frozenset()) -> "int | None":
        if len(items) == 1:
            tok = self.t[items[0]]
            if tok.kind == "num":
                try:
                    return int(float(tok.text.replace("_", "").rstrip("n")))
                except ValueError:
                    return None
            if tok.kind == "id":
                defs = self.definitions(tok.text)
                if len(defs) == 1 and defs[0][1] == "const":
                    end = self.initializer_end(defs[0][0])
                    if end == defs[0][0] + 2:
                        return self.number([end], seen)
        if len(items) == 3 and self.is_punc(items[1], ".") and self.is_id(items[2], "length") and self.t[items[0]].kind == "id":
            return self.size_name(self.t[items[0]].text, seen)
        return None

    def object_keys(self, open_i: int) -> int:
        """Top-level properties of an object literal `{a: 1, b, ...c}` (a spread: unknown)."""
        count, current = 0, False
        for i in self.level_items(open_i, self.match[open_i]):
            if self.is_punc(i, ","):
                count += current
                current = False
            elif self.is_punc(i, "..."):
                raise _Unbounded(words.unbounded(self.t[i].line, "spread"))
            else:
                current = True
        return count + current

    def end_of(self, item: int) -> int:
        """The last token index of an item (a group's closing bracket for an opening one)."""
        return self.match[item] if self.t[item].kind == "punc" and self.t[item].text in "([{" else item

    def size_at(self, end: int, seen: "frozenset[str]" = frozenset()) -> "int | None":
        """The length of the array-like expression ending at token `end` (None when unknown)."""
        tok = self.t[end]
        if tok.kind == "punc" and tok.text == "]":
            open_i = self.match[end]
            before = self.t[open_i - 1] if open_i > 0 else None
            if before is not None and (
                (before.kind == "id" and before.text not in STATEMENT_WORDS | REGEX_AFTER_WORDS)
                or before.kind in ("str", "num")
                or before.text in (")", "]")
            ):
                return None  # indexing, not a literal
            total = 0
            for element in self.args_of(open_i):
                if self.is_punc(element[0], "..."):
                    inner = self.size_at(self.end_of(element[-1]), seen) if len(element) > 1 else None
                    if inner is None:
                        return None
                    total += inner
                else:
                    total += 1
            return total
        if tok.kind == "id":
            if self.is_punc(end - 1, ".") or self.is_punc(end - 1, "?."):
                return None
            return self.size_name(tok.text, seen)
        if tok.kind == "punc" and tok.text == ")":
            return self._call_size(self.match[end], seen)
        return None

    def _call_size(self, open_i: int, seen: "frozenset[str]") -> "int | None":
        """The length of the value a call returns: `X.filter(…)`, `Object.keys(O)`, `Array(5)`…"""
        callee = open_i - 1
        args = self.args_of(open_i)
        if self.is_id(callee, "Array") and not self.is_punc(callee - 1, ".") and len(args) == 1:
            return self.number(args[0], seen)
        if not (self.is_id(callee) and self.is_punc(callee - 1, ".")):
            return None
        method, recv_end = self.text(callee), callee - 2
        if method in ("keys", "values", "entries") and self.is_id(recv_end, "Object") and len(args) == 1:
            arg = args[0]
            if len(arg) == 1 and self.is_punc(arg[0], "{"):
                return self.object_keys(arg[0])
            if len(arg) == 1 and self.t[arg[0]].kind == "id":
                return self._object_size_name(self.t[arg[0]].text)
            return None
        if method == "from" and self.is_id(recv_end, "Array") and args:
            return self.arraylike(args[0], seen)
        if method in SIZE_KEEPING:
            return self.size_at(recv_end, seen)
        if method == "slice":
            base = self.size_at(recv_end, seen)
            nums = [self.number(a, seen) for a in args]
            if len(nums) == 2 and nums[0] is not None and nums[1] is not None:
                width = max(0, nums[1] - nums[0])
                return width if base is None else min(base, width)
            if len(nums) == 1 and nums[0] is not None and base is not None:
                return max(0, base - nums[0])
            return base
        if method == "concat":
            base = self.size_at(recv_end, seen)
            parts = [self.size_at(self.end_of(a[-1]), seen) for a in args]
            known = [p for p in parts if p is not None]
            return None if base is None or len(known) < len(parts) else base + sum(known)
        return None

    def _object_size_name(self, name: str) -> "int | None":
        defs = self.definitions(name)
        if len(defs) != 1 or defs[0][1] != "const" or self.mutated(name):
            return None
        end = self.initializer_end(defs[0][0])
        if end is None or not self.is_punc(end, "}") or self.match[end] != defs[0][0] + 2:
            return None
        return self.object_keys(defs[0][0] + 2)

    def arraylike(self, items: "list[int]", seen: "frozenset[str]") -> "int | None":
        """Array.from's first argument: `{length: N}` or an array-like of known size."""
        if len(items) == 1 and self.is_punc(items[0], "{"):
            inner = self.level_items(items[0], self.match[items[0]])
            if len(inner) >= 3 and self.is_id(inner[0], "length") and self.is_punc(inner[1], ":"):
                return self.number(inner[2:], seen)
            return None
        return self.size_at(self.end_of(items[-1]), seen)

    # -- multiplicity -------------------------------------------------------------------------
    def times(self, pos: int, visiting: "frozenset[str]" = frozenset()) -> "tuple[int, list[str]]":
        """How many times the code at `pos` can run, and the factors behind it."""
        factor, why = 1, []
        while True:
            prefix = self.statement_prefix(pos)
            loop = self._loop_factor(prefix, pos)
            if loop is not None:
                factor *= loop[0]
                why.append(loop[1])
            named = self._function_binding(prefix, pos)
            if named is not None:
                total, parts = self.references(named, visiting)
                return factor * total, why + [f"{named}() used {total}×" if total != 1 else f"{named}()"] + parts
            level = self.parent[pos]
            if level is None:
                return factor, why
            if self.is_punc(level, "("):
                k = self._call_factor(level, pos, visiting)
                if k is not None:
                    factor *= k[0]
                    if k[1]:
                        why.append(k[1])
            pos = level

    def _loop_factor(self, prefix: "list[int]", pos: int) -> "tuple[int, str] | None":
        for j, i in enumerate(prefix):
            word = self.text(i)
            if self.t[i].kind != "id" or word not in ("for", "while", "do"):
                continue
            line = self.t[i].line
            if word in ("while", "do"):
                raise _Unbounded(words.unbounded(line, "loop", word))
            k = j + 2 if j + 1 < len(prefix) and self.is_id(prefix[j + 1], "await") else j + 1
            header = prefix[k] if k < len(prefix) else None
            if header is None or not self.is_punc(header, "(") or self.match[header] > pos:
                return None  # pos is inside the header itself
            count = self._for_count(header)
            if count is None:
                raise _Unbounded(words.unbounded(line, "for"))
            return count, f"for loop × {count} (line {line})"
        return None

    def _for_count(self, header: int) -> "int | None":
        items = self.level_items(header, self.match[header])
        words = [self.text(i) for i in items]
        for kw in ("of", "in"):
            if kw in words:
                k = words.index(kw)
                rest = items[k + 1 :]
                if not rest:
                    return None
                if kw == "in":
                    if len(rest) == 1 and self.t[rest[0]].kind == "id":
                        return self._object_size_name(self.t[rest[0]].text)
                    return None
                return self.size_at(self.end_of(rest[-1]))
        parts: list[list[int]] = [[]]
        for i in items:
            if self.is_punc(i, ";"):
                parts.append([])
            else:
                parts[-1].append(i)
        if len(parts) != 3:
            return None
        init, cond, step = parts
        if len(init) < 3 or not self.is_punc(init[-2], "=") or self.t[init[-3]].kind != "id":
            return None
        var, start = self.text(init[-3]), self.number(init[-1:])
        if len(cond) < 3 or self.text(cond[0]) != var or self.text(cond[1]) not in ("<", "<="):
            return None
        stop = self.number(cond[2:])
        steps = "".join(self.text(i) for i in step)
        if start is None or stop is None or steps not in (f"{var}++", f"++{var}", f"{var}+=1"):
            return None
        return max(0, stop - start + (1 if self.text(cond[1]) == "<=" else 0))

    def _function_binding(self, prefix: "list[int]", pos: int) -> "str | None":
        """The name a function containing `pos` is bound to, when `pos` is in its body at this
        level (`const f = (x) => …`, `function f(x) {…}`, `{ f: x => … }`); None when the code
        at `pos` is not inside a function bound at this level."""
        words = [self.text(i) for i in prefix]
        has_arrow = "=>" in words
        is_body = self.is_punc(pos, "{") and (
            (prefix and self.is_punc(prefix[-1], "(") and self.is_id(prefix[-2] if len(prefix) > 1 else -1))
            or (prefix and self.text(prefix[-1]) == "=>")
        )
        func_kw = [i for i in prefix if self.is_id(i, "function")]
        if not has_arrow and not func_kw:
            return None
        if not has_arrow and func_kw and not is_body:
            return None
        if func_kw:
            after = func_kw[0] + 1
            if self.is_punc(after, "*"):
                after += 1
            if self.is_id(after):
                return self.text(after)
            before = func_kw[0] - 1
            if self.is_id(before, "async"):
                before -= 1
            if self.is_punc(before, "=") and self.is_id(before - 1) and self.text(before - 2) in ("const", "let", "var"):
                return self.text(before - 1)
            if self.is_punc(before, ":") and self.is_id(before - 1):
                return self.text(before - 1)
        if (
            len(prefix) >= 3
            and self.text(prefix[0]) in ("const", "let", "var")
            and self.is_id(prefix[1])
            and self.is_punc(prefix[2], "=")
        ):
            return self.text(prefix[1])
        if (
            len(prefix) >= 2
            and self.is_id(prefix[0])
            and self.is_punc(prefix[1], ":")
            and (up := self.parent[prefix[0]]) is not None
            and self.is_punc(up, "{")
        ):
            return self.text(prefix[0])  # an object property holding a function
        return None

    def references(self, name: str, visiting: "frozenset[str]") -> "tuple[int, list[str]]":
        if name in visiting:
            raise _Unbounded(f"{name}() calls itself (recursion)")
        defs = {i for i, _ in self.definitions(name)}
        total, why = 0, []
        for i in self.by_name.get(name, ()):
            if i in defs:
                continue
            if (
                self.is_punc(i + 1, ":")
                and (up := self.parent[i]) is not None
                and self.is_punc(up, "{")
                and not self.is_punc(i - 1, "?")
            ):
                continue  # the property key of its own definition
            k, parts = self.times(i, visiting | {name})
            total += k
            why += parts
        return total, why

    def _call_factor(self, open_i: int, pos: int, visiting: "frozenset[str]") -> "tuple[int, str] | None":
        callee = open_i - 1
        if not self.is_id(callee):
            return None
        name, line = self.text(callee), self.t[callee].line
        argi = self.arg_index(open_i, pos)
        if self.is_punc(callee - 1, ".") or self.is_punc(callee - 1, "?."):
            if name in ITERATING:
                recv = callee - 2
                size = self.size_at(recv)
                if size is None:
                    raise _Unbounded(words.unbounded(line, "over", name))
                return size, f".{name}() × {size} (line {line})"
            if name == "from" and self.is_id(callee - 2, "Array") and argi >= 1:
                size = self.arraylike(self.args_of(open_i)[0], frozenset())
                if size is None:
                    raise _Unbounded(words.unbounded(line, "array_from"))
                return size, f"Array.from × {size} (line {line})"
            return None
        if name == "pipeline" and argi >= 1:
            first = self.args_of(open_i)[0]
            size = self.size_at(self.end_of(first[-1]))
            if size is None:
                raise _Unbounded(words.unbounded(line, "pipeline"))
            return size, f"pipeline stage × {size} items (line {line})"
        if name == "workflow":
            raise _Unbounded(words.unbounded(line, "workflow"))
        if name == "while":
            raise _Unbounded(words.unbounded(line, "while"))
        if self.definitions(name) and any(
            self.text(i) in ("=>", "function") for i in self.args_of(open_i)[argi] if argi < len(self.args_of(open_i))
        ):
            raise _Unbounded(words.unbounded(line, "callback", name))
        return None


def plan(script: str, args: Any = None) -> Plan:
    """The agent bound of a Workflow script (see the module docstring)."""
    out = Plan()
    if not isinstance(script, str) or not script.strip():
        out.bound, out.error = None, "no script text"
        return out
    if len(script) > MAX_SCRIPT:
        out.bound, out.error = None, f"script of {len(script)} characters"
        return out
    try:
        s = _Script(tokenize(script), args)
    except (ValueError, KeyError, IndexError) as exc:
        out.bound, out.error = None, str(exc)
        return out
    _options(s, out)
    calls = [
        i
        for i, tok in enumerate(s.t)
        if tok.kind == "id"
        and tok.text == "agent"
        and s.is_punc(i + 1, "(")
        and not s.is_punc(i - 1, ".")
        and not s.is_punc(i - 1, "?.")
        and not s.is_id(i - 1, "function")
    ]
    out.calls = len(calls)
    total = 0
    try:
        for i, tok in enumerate(s.t):
            if tok.kind != "id" or s.is_punc(i - 1, ".") or s.is_punc(i - 1, "?."):
                continue
            if tok.text == "workflow" and s.is_punc(i + 1, "("):
                raise _Unbounded(words.unbounded(tok.line, "nested"))
            if tok.text == "agent" and not s.is_punc(i + 1, "(") and not s.is_punc(i + 1, ":") and not s.is_id(i - 1, "function"):
                if s.is_punc(i - 1, "=") or s.text(i - 1) in ("const", "let", "var"):
                    raise _Unbounded(words.unbounded(tok.line, "renamed"))
                calls.append(i)  # passed as a function value, e.g. `.map(agent)`
        out.calls = len(calls)
        for i in calls:
            k, why = s.times(i)
            total += k
            out.detail.append(f"line {s.t[i].line}: × {k}" + (f" ({', '.join(why)})" if why else ""))
    except (_Unbounded, RecursionError) as exc:
        out.bound = None
        out.unbounded = str(exc) if isinstance(exc, _Unbounded) else "nesting too deep to follow"
        return out
    except (ValueError, KeyError, IndexError) as exc:
        out.bound, out.error = None, f"could not follow the script ({exc})"
        return out
    out.bound = min(total, CLIENT_CAP)
    return out


def _options(s: _Script, out: Plan) -> None:
    """agentType / model values of the agent() options."""
    for i, tok in enumerate(s.t):
        if tok.kind != "id" or tok.text not in ("agentType", "model") or not s.is_punc(i + 1, ":"):
            continue
        value = s.t[i + 2] if i + 2 < len(s.t) else None
        text = value.text if value is not None and value.kind == "str" and not s.is_punc(i + 3, "(") else None
        if tok.text == "agentType":
            if text is not None:
                if text not in out.agent_types:
                    out.agent_types.append(text)
            else:
                out.computed_agent_type = True
        elif text is not None and text not in out.models:
            out.models.append(text)
    if out.computed_agent_type:
        # a computed agentType may still be one of the script's string literals
        for tok in s.t:
            if tok.kind == "str" and re.fullmatch(r"[A-Za-z0-9_.:-]{2,80}", tok.text) and tok.text not in out.agent_types:
                out.agent_types.append(tok.text)
