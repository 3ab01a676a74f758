"""The architecture, kept by tests: the layers of lib/deliberation/ and the latency tiers.

- Every import of the package — module level and inside functions — goes to the same layer or
  a lower one, and no chain of imports comes back to where it started (no cycle).
- The pure core touches no state file: it imports no store, path, event-log or schema module.
- The latency tiers hold: the hook client imports nothing but builtin modules and `_socket`;
  the stdlib tier imports no third-party package; a routine event answered on the fast path
  leaves pydantic and orjson unimported.
"""

from __future__ import annotations

import ast
import re
import json
import os
import subprocess
import sys

import pytest

from deliberation import BASE, LAYERS, TIERS
from tests.conftest import HOOK_FLAGS, ROOT

PKG = ROOT / "lib" / "deliberation"
THIRD_PARTY = ("pydantic", "pydantic_core", "orjson", "jsonschema")
CORE_MAY_NOT = (
    "deliberation.state.store",
    "deliberation.state.paths",
    "deliberation.state.event_log",
    "deliberation.state.schemas",
    "deliberation.state.queries",
)


def modules() -> "dict[str, str]":
    out = {}
    for folder, dirs, files in os.walk(PKG):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                dotted = os.path.relpath(path, PKG.parent)[:-3].replace(os.sep, ".")
                out[dotted.removesuffix(".__init__")] = path
    return out


MODULES = modules()


def _resolve(name: str) -> "str | None":
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(dotted: str) -> "set[str]":
    """Every module of the package `dotted` imports, at any depth of its code."""
    tree = ast.parse(open(MODULES[dotted], encoding="utf-8").read())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {_resolve(a.name) for a in node.names if a.name.startswith("deliberation")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("deliberation"):
            assert node.level == 0, f"{dotted}: relative import"
            for a in node.names:
                full = f"{node.module}.{a.name}"
                found.add(full if full in MODULES else _resolve(node.module))
    found.discard(None)
    found.discard(dotted)
    return found


GRAPH = {m: imports_of(m) for m in MODULES}


def layer(dotted: str) -> "tuple[int, str]":
    parts = dotted.split(".")
    if len(parts) == 1 or parts[1] in BASE:  # deliberation/__init__.py and BASE: below everything
        return -1, "deliberation"
    if parts[1] == "__main__":
        return len(LAYERS), "__main__"
    return LAYERS.index(parts[1]), parts[1]


def test_every_module_belongs_to_a_declared_layer():
    strays = [m for m in MODULES if len(m.split(".")) > 1 and m.split(".")[1] not in (*LAYERS, *BASE, "__main__")]
    assert strays == [], f"modules outside the layers {LAYERS}: {strays}"


def test_no_import_goes_up_a_layer():
    upward = sorted(
        f"{a} ({layer(a)[1]}) → {b} ({layer(b)[1]})" for a, deps in GRAPH.items() for b in deps if layer(b)[0] > layer(a)[0]
    )
    assert upward == [], "\n".join(upward)


def test_no_import_cycle():
    index, low, stack, on, cycles, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(GRAPH[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    assert cycles == [], cycles


def test_the_core_touches_no_state_file():
    touching = sorted(f"{a} → {b}" for a, deps in GRAPH.items() if layer(a)[1] == "core" for b in deps if b in CORE_MAY_NOT)
    assert touching == [], touching


def test_the_checks_above_can_fail():
    """The walker sees function-level imports (where an upward import would hide)."""
    deps = imports_of("deliberation.runtime.hook_client")
    assert "deliberation.runtime.hook_runner" in deps  # imported inside main(), not at the top


def _new_modules(code: str, flags=("-I", "-S")) -> "list[str]":
    probe = (
        "import sys; sys.path.insert(0, sys.argv[1]); before = set(sys.modules)\n"
        + code
        + "\nafter = sorted(set(sys.modules) - before)\nimport json; print(json.dumps(after))"
    )
    out = subprocess.run(
        [sys.executable, *flags, "-c", probe, str(ROOT / "lib")], capture_output=True, text=True, check=True
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


@pytest.mark.parametrize("dotted", TIERS["builtins"])
def test_the_builtins_tier_imports_only_builtin_modules(dotted):
    loaded = [
        m
        for m in _new_modules(f"import {dotted}")
        if not m.startswith("deliberation") and m not in ("json", "json.decoder", "json.scanner", "json.encoder", "_json")
    ]
    allowed = set(sys.builtin_module_names) | {"_socket", "_contextvars"}
    assert [m for m in loaded if m not in allowed] == [], dotted


@pytest.mark.parametrize("dotted", TIERS["stdlib"])
def test_the_stdlib_tier_imports_no_third_party_package(dotted):
    loaded = _new_modules(f"import {dotted}")
    assert [m for m in loaded if m.split(".")[0] in THIRD_PARTY] == [], dotted


def test_a_fast_path_event_leaves_pydantic_and_orjson_unimported(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    payloads = {
        "PreToolUse": {
            "session_id": "s-fast",
            "hook_event_name": "PreToolUse",
            "tool_name": "Edit",
            "tool_input": {"file_path": "x.py"},
            "cwd": str(project),
        },
        "UserPromptSubmit": {
            "session_id": "s-fast",
            "hook_event_name": "UserPromptSubmit",
            "prompt": "rename the helper in utils.py",
            "cwd": str(project),
        },
        "Stop": {"session_id": "s-fast", "hook_event_name": "Stop", "stop_hook_active": False, "cwd": str(project)},
    }
    # an auto-mode session without a deliberation: a subagent's hand-back and its agent-message turn
    handback = {"tool_name": "SubagentHandback", "tool_input": {"message": "report"}, "agent_id": "a1", "cwd": str(project)}
    cases = list(payloads.items()) + [
        ("PreToolUse", {"session_id": "s-fast", "hook_event_name": "PreToolUse", **handback}),
        ("PostToolUse", {"session_id": "s-fast", "hook_event_name": "PostToolUse", **handback, "tool_response": {}}),
        (
            "UserPromptSubmit",
            {
                "session_id": "s-fast",
                "hook_event_name": "UserPromptSubmit",
                "prompt": '<agent-message from="a1">\nThe report follows:\n  DELIBERATE: drop the database?\n</agent-message>',
                "cwd": str(project),
            },
        ),
    ]
    for event, payload in cases:
        code = (
            "import time\nfrom deliberation.runtime import hook_runner\n"
            f"out = hook_runner.respond({event!r}, {json.dumps(payload).encode()!r}, time.time(), "
            f"project={str(project)!r})\nassert 'deliberation plugin' not in out, out"
        )
        loaded = _new_modules(code, flags=HOOK_FLAGS)
        assert [m for m in loaded if m.split(".")[0] in THIRD_PARTY] == [], event
        assert "deliberation.state.models" not in loaded, event
        assert "typing" not in loaded, event  # a type-only import costs every hook its load time
        assert [m for m in ("json", "contextlib") if m in loaded] == [], event  # wire/fastjson instead
        if event == "Stop":  # the trigger's and the mid-task net's patterns need re; a Stop has none
            assert [m for m in ("re", "enum") if m in loaded] == [], event


@pytest.mark.parametrize("dotted", [f"deliberation.{m}" for m in BASE])
def test_the_base_modules_import_nothing(dotted):
    """...but an earlier base module (`from deliberation import catalogue` in defaults)."""
    tree = ast.parse(open(MODULES[dotted], encoding="utf-8").read())
    earlier = BASE[: BASE.index(dotted.split(".")[1])]
    imports = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    allowed = [n for n in imports if isinstance(n, ast.ImportFrom) and n.module == "deliberation" and n.level == 0]
    assert [n for n in imports if n not in allowed] == [], dotted
    assert [a.name for n in allowed for a in n.names if a.name not in earlier] == [], dotted


def _function_imports(dotted: str) -> "list[str]":
    tree = ast.parse(open(MODULES[dotted], encoding="utf-8").read())
    found = []
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, ast.Import):
                    found += [f"{fn.name}: import {a.name}" for a in node.names]
                elif isinstance(node, ast.ImportFrom):
                    found.append(f"{fn.name}: from {node.module} import {', '.join(a.name for a in node.names)}")
    return found


def test_imports_inside_functions_are_declared():
    """An import deferred into a function is latency a tier saves, or a reason DEFERRED_IMPORTS
    names; anywhere else it only hides a module's dependencies from its reader."""
    from deliberation import DEFERRED_IMPORTS

    allowed = {m for tier in TIERS.values() for m in tier} | set(DEFERRED_IMPORTS)
    strays = {m: _function_imports(m) for m in MODULES if m not in allowed and _function_imports(m)}
    assert strays == {}, strays
    unused = [m for m in DEFERRED_IMPORTS if not _function_imports(m)]
    assert unused == [], f"declared, but defers nothing: {unused}"
    assert all(m in MODULES and reason for m, reason in DEFERRED_IMPORTS.items())


IGNORE = re.compile(r"#\s*(type:\s*ignore(\[[^\]]*\])?|noqa(:\s*[A-Z0-9, ]+)?)(?P<rest>.*)$")


def test_every_ignore_says_why():
    """A `# type: ignore[...]` or `# noqa: ...` is followed by its reason (`# why` or `- why`),
    and names the codes it silences: what it hides is a decision a reader can check."""
    bare = []
    for folder in ("lib", "tests", "hooks", "bench", "scripts"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if ".client" in path.parts:
                continue
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                m = IGNORE.search(line)
                if m is None or "IGNORE = re.compile" in line:
                    continue
                codes = m.group(2) or m.group(3)
                reason = m.group("rest").strip().lstrip("#-").strip()
                if not codes or len(reason) < 8:
                    bare.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert bare == [], "\n".join(bare)


def test_no_test_module_imports_another():
    """What tests share lives in tests/helpers/ (and the e2e suite's harness modules); a test
    module that imports another test module runs that module's tests' set-up by accident."""
    tests = ROOT / "tests"
    found = []
    for path in sorted(tests.rglob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            found += [f"{path.relative_to(ROOT)} imports {n}" for n in names if n.rsplit(".", 1)[-1].startswith("test_")]
    assert found == [], found


def test_the_mid_task_net_and_the_self_rating_stay_on_the_fast_path(tmp_path):
    """Routine and risky Bash/Edit calls, a SessionStart and the deliberate command through the
    Skill tool are answered without pydantic (the net reads plain JSON only)."""
    project = tmp_path / "project"
    project.mkdir()
    sid = "s-net"
    prompt = {
        "session_id": sid,
        "hook_event_name": "UserPromptSubmit",
        "cwd": str(project),
        "prompt": "Should we force-push main to drop the leaked key, or rotate it?",
    }
    calls = [
        ("SessionStart", {"session_id": sid, "hook_event_name": "SessionStart", "source": "startup"}, "rate it"),
        (
            "PreToolUse",
            {
                "session_id": sid,
                "hook_event_name": "PreToolUse",
                "tool_name": "Bash",
                "tool_input": {"command": "python -m pytest -q"},
            },
            None,
        ),
        (
            "PreToolUse",
            {
                "session_id": sid,
                "hook_event_name": "PreToolUse",
                "tool_name": "Bash",
                "tool_input": {"command": "git push --force origin main"},
            },
            "It would lose",
        ),
        (
            "PreToolUse",
            {
                "session_id": sid,
                "hook_event_name": "PreToolUse",
                "tool_name": "Edit",
                "tool_input": {"file_path": "src/auth/login.py"},
            },
            "rated a risky decision",
        ),
        (
            "PreToolUse",
            {
                "session_id": sid,
                "hook_event_name": "PreToolUse",
                "tool_name": "Skill",
                "tool_input": {"skill": "deliberate", "args": "Should we?"},
            },
            "DELIBERATION PROTOCOL",
        ),
    ]
    code = (
        "import json, time\nfrom deliberation.runtime import hook_runner\n"
        f"project = {str(project)!r}\n"
        f"hook_runner.respond('UserPromptSubmit', {json.dumps(prompt).encode()!r}, time.time(), project=project)\n"
        f"for event, payload, expect in {calls!r}:\n"
        "    out = hook_runner.respond(event, json.dumps(payload).encode(), time.time(), project=project)\n"
        "    assert (expect in out) if expect else out == '', (event, payload, out)\n"
    )
    loaded = _new_modules(code, flags=HOOK_FLAGS)
    assert [m for m in loaded if m.split(".")[0] in THIRD_PARTY] == []
    assert "deliberation.state.models" not in loaded


# --------------------------------------------------------------------------------------------
# the core decides, text/ words: no sentence the model or the person reads is written in core/

PROSE_WORDS = 6  # a literal of this many words or more is a sentence, not a token or a key
_WORD = re.compile(r"[A-Za-z]+(?:['’][a-z]+)?")
_PATTERN = re.compile(r"\\[bsdwSDW\[]|\(\?|\[\^|\{\d+,\d*\}")  # a regular expression's syntax

# modules whose long literals are data, not text: each with why
PROSE_IS_DATA = {
    "deliberation.core.depth.paraphrase": "word lists (synonyms, hedges, negations) the paraphrase check matches",
    "deliberation.core.personas": "each persona's focus, the persona's definition that the instructions quote",
    "deliberation.core.similarity": "the stop words the similarity measure leaves out",
    "deliberation.core.lexicon": "the forms a request is matched against, in ten languages (a Vietnamese word is "
    "several syllables apart: 'cập nhật hàng loạt' is one verb)",
    "deliberation.core.depth": "FLOOR, the two sentences a tier-2 prompt must carry verbatim: the spawn rule matches "
    "them word for word",
}


def prose_literals(path: str) -> "list[tuple[int, str]]":
    """(line, text) of each string literal of `path` with PROSE_WORDS words or more — an f-string
    counts its literal parts, a placeholder counts as none; docstrings, annotations, regular
    expressions and a turn's event-log notes (`turn.notes.append(...)`) are left out."""
    tree = ast.parse(open(path, encoding="utf-8").read())
    skip: "set[int]" = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
        ):
            skip.add(id(body[0].value))
        notes = [getattr(node, "returns", None), getattr(node, "annotation", None)]
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "append"
            and isinstance(node.func.value, ast.Attribute)
            and node.func.value.attr == "notes"
        ):
            notes += node.args  # a turn's notes: event-log lines for a maintainer, not an answer
        for note in notes:
            if note is not None:
                skip |= {id(n) for n in ast.walk(note)}
    found = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.JoinedStr):
            skip |= {id(v) for v in node.values}
            text = " ".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        else:
            continue
        if len(_WORD.findall(text)) >= PROSE_WORDS and not _PATTERN.search(text):
            found.append((node.lineno, text))
    return found


CORE_MODULES = {m: p for m, p in MODULES.items() if m.startswith("deliberation.core.") or m == "deliberation.core"}


def test_the_core_writes_no_sentence():
    """Rules return outcomes as data and text/ words them, so a change of wording is one text
    module and a reviewed golden diff, never an edit inside a rule."""
    over = []
    for dotted, path in sorted(CORE_MODULES.items()):
        if dotted in PROSE_IS_DATA:
            continue
        found = prose_literals(path)
        if found:
            over.append(
                f"{dotted}: {len(found)} sentence literal(s) — first: " + "; ".join(f"line {n}: {t[:60]!r}" for n, t in found[:3])
            )
    assert over == [], "\n".join(over)


def test_the_prose_check_can_fail():
    """The scanner finds a sentence, an f-string's sentence, and leaves tokens, annotations,
    docstrings and patterns alone."""
    import tempfile

    code = (
        '"""A docstring of many words that explains the module in front of it."""\n'
        "import re\n"
        'def f(x: "tuple[str, int, str | None, list[str], dict[str, int]]") -> "str | None":\n'
        '    """Another docstring, long enough to count were it not a docstring."""\n'
        '    key = "research" if x else "deliberation"\n'
        '    rx = re.compile(r"\\b(?:should|shall|can we|could we|must we)\\b")\n'
        '    said = f"Next: wait for {x} — a step that needs their reports is refused."\n'
        '    turn.notes.append(f"progress left to the batch\'s last result ({x} still running)")\n'
        '    return "the deliberation is closed: open a new one for a new question"\n'
    )
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False, encoding="utf-8") as fh:
        fh.write(code)
    try:
        assert [n for n, _t in prose_literals(fh.name)] == [7, 9]
    finally:
        os.unlink(fh.name)
    assert set(PROSE_IS_DATA) <= set(CORE_MODULES)


# --------------------------------------------------------------------------------------------
# the repository stands alone: nothing in it points at a document its reader does not have

ELSEWHERE = re.compile(
    "|".join(
        (
            r"\bseeds? ?0\d\d\b",
            r"\bthe seeds?\b",
            r"\bthe brief\b",
            r"\bthe issue\b",
            r"\bissue ?#\d+",
            r"(?<![\w-])DESIGN\.md\b",
            r"(?<![\w-])STYLE\.md\b",
            r"\.\./shared\b",
            r"/work/shared\b",
            r"claude-code-reference",
        )
    ),
    re.IGNORECASE,
)
STANDS_ALONE = (
    "lib",
    "hooks",
    "tests",
    "docs",
    "scripts",
    "bench",
    "state_schema",
    "agents",
    "commands",
    "workflows",
    "bin",
    "examples",
)
STANDS_ALONE_FILES = ("README.md", "CHANGELOG.md", "install.sh", "settings.example.json", "pyproject.toml")


def elsewhere_references(text: str) -> "list[tuple[int, str]]":
    """(line, line's text) of each line of `text` that points at a document outside the repository."""
    return [(n, line.strip()) for n, line in enumerate(text.splitlines(), 1) if ELSEWHERE.search(line)]


def test_nothing_cites_a_document_the_reader_does_not_have():
    """Docstrings, comments, docs and tests state facts; none cites a design note, a task or a
    folder beside the repository (a reader of the repository has none of them)."""
    this = os.path.abspath(__file__)
    paths = [ROOT / f for f in STANDS_ALONE_FILES if (ROOT / f).is_file()]
    for top in STANDS_ALONE:
        paths += sorted(
            p
            for p in (ROOT / top).rglob("*")
            if p.is_file() and p.suffix in (".py", ".md", ".sh", ".json", ".toml", ".txt", ".js", ".mjs")
        )
    found = []
    for path in paths:
        if os.path.abspath(path) == this or "__pycache__" in path.parts:
            continue
        found += [
            f"{path.relative_to(ROOT)}:{n}: {line[:100]}"
            for n, line in elsewhere_references(path.read_text(encoding="utf-8", errors="replace"))
        ]
    assert found == [], "\n".join(found)


def test_the_reference_check_can_fail():
    text = (
        "A docstring.\nAs seed 001 says, the cap is 12.\nSee ../shared/DESIGN.md.\n"
        "The budget is 12 (docs/CONFIGURATION.md).\nThe issue's story.\nSee docs/queue-design.md.\n"
    )
    assert [n for n, _l in elsewhere_references(text)] == [2, 3, 5]
