"""`python -m deliberation.cli.demo [--keep DIR] [--json]`: replay the bundled recording
(examples/demo/, its README says what it holds) through the REAL hook scripts in a fresh project.

Each recorded payload, its placeholder paths (`recording.json`) replaced by this run's folders,
goes to its event's hook script as a subprocess with `CLAUDE_PROJECT_DIR` set, as the client runs
it; the subagents' recorded usage lines (`transcripts.jsonl`) are written back where the payloads
point. It prints each decision as it happens, checks every answer equals the recorded one,
renders the Markdown and HTML records, and ends with the decision document and the cost. No
network, no API key. Exit status: 0 every answer matched, 1 otherwise, 2 the bundle is missing.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any, Callable, TextIO

from deliberation import plugin_root
from deliberation.wire.hookio import Answer, is_agent_message, is_task_notification
from deliberation.report import decision_record, html_report
from deliberation.state.config import project_config
from deliberation.state import event_log
from deliberation.state.ids import InvalidId
from deliberation.state.paths import Layout
from deliberation.state.models import Deliberation, Lineage
from deliberation.state.store import Store, atomic_write_bytes
from deliberation.runtime.command_path import terminal_command
from deliberation.text import demo as story

PLUGIN_ROOT = plugin_root()
BUNDLE = os.path.join(PLUGIN_ROOT, "examples", "demo")
HOOKS = os.path.join(PLUGIN_ROOT, "hooks")
SCRIPTS = {
    "SessionStart": "session_start.py",
    "UserPromptSubmit": "user_prompt_submit.py",
    "PreToolUse": "pre_tool_use.py",
    "PostToolUse": "post_tool_use.py",
    "PostToolUseFailure": "post_tool_use_failure.py",
    "SubagentStart": "subagent_start.py",
    "SubagentStop": "subagent_stop.py",
    "Stop": "stop.py",
}
COMPARED = ("decision", "reason", "context", "system_message", "stop_reason")
HOOK_TIMEOUT_S = 120

# moments the demo calls out: (label, kind in the story, the outcome kinds of a hook answer that
# make it one — the `kind` of the text layer's outcome classes, logged with each answer in the
# replay's event log; the first moment whose kinds the answer says is its moment)
MOMENTS: "tuple[tuple[str, str, tuple[str, ...]], ...]" = (
    ("DEPTH", "depth_instruction", ("depth_instruction",)),
    ("DEPTH", "spawn_denied", ("tier2_denied",)),
    ("DEPTH", "red_team_2", ("red_team_2",)),
    ("DEPTH", "depth_synthesis", ("depth_synthesis",)),
    ("PRD", "", ("document_sent_back",)),
    ("GATE", "gate_failed", ("gate_failed",)),
    ("GATE", "gate_passed", ("vote_passed",)),
    ("ROUTE", "route", ("completed", "handed_over")),
)
WORKER_LINE = re.compile(r"^--- (worker \d+ of \d+: subagent_type \"[^\"]+\", hot spots [^—]+)")
DETAIL_LINE = re.compile(
    r"^(- (OVERRIDE|score_clustering|dimension_clustering|near_threshold|templated_dissent|"
    r"missing_minority|same_reasoning|two_agent_rule|"
    r"dissent_documented|consensus|agents_completed|phase)\b|⚠ Conformity|- .* restated tier 1|Next:|"
    r"Deliberation \S+ COMPLETE|Decision document)"
)
ROUTE_RULE = re.compile(r"(?:— |; )(T1|T2|D|PROBE): ([^;—]+)")


class DemoError(Exception):
    """The demo cannot run (bundle missing or unreadable); the message says why."""


# --------------------------------------------------------------------------- the bundle


@dataclass
class Bundle:
    events: "list[dict]"
    placeholders: "dict[str, str]"  # role (project/home/tmp) → placeholder path
    meta: dict = field(default_factory=dict)
    folder: str = BUNDLE
    transcripts: "list[dict]" = field(default_factory=list)  # {"path": placeholder path, "lines": [...]}


def load_bundle(folder: str = BUNDLE) -> Bundle:
    events_path = os.path.join(folder, "events.jsonl")
    try:
        with open(os.path.join(folder, "recording.json"), encoding="utf-8") as fh:
            meta = json.load(fh)
        with open(events_path, encoding="utf-8") as fh:
            lines = [line for line in fh.read().splitlines() if line.strip()]
    except (OSError, ValueError) as exc:
        raise DemoError(f"the bundled recording in {folder} is missing or unreadable: {exc}") from None
    events = [json.loads(line) for line in lines]
    placeholders = {k: meta[k] for k in ("project", "home", "tmp") if isinstance(meta.get(k), str)}
    transcripts = []
    try:
        with open(os.path.join(folder, "transcripts.jsonl"), encoding="utf-8") as fh:
            transcripts = [json.loads(line) for line in fh.read().splitlines() if line.strip()]
    except FileNotFoundError:
        pass
    except (OSError, ValueError) as exc:
        raise DemoError(f"the bundled transcripts in {folder} are unreadable: {exc}") from None
    return Bundle(events, placeholders, meta, folder, transcripts)


def munged(path: str) -> str:
    """How the client names a project's transcript folder: every non-alphanumeric → '-'."""
    return re.sub(r"[^A-Za-z0-9]", "-", path)


def substitutions(bundle: Bundle, dirs: "dict[str, str]") -> "list[tuple[str, str]]":
    """(placeholder, real) pairs, the project's first (it is the longest and most specific)."""
    pairs = []
    for role in ("project", "home", "tmp"):
        if role in bundle.placeholders and role in dirs:
            pairs.append((bundle.placeholders[role], dirs[role]))
    if "project" in bundle.placeholders and "project" in dirs:
        pairs.append((munged(bundle.placeholders["project"]), munged(dirs["project"])))
    return pairs


def localise(value: Any, pairs: "list[tuple[str, str]]") -> Any:
    """`value` (any JSON value) with every placeholder path replaced by this run's path."""
    if isinstance(value, str):
        for old, new in pairs:
            value = value.replace(old, new)
        return value
    if isinstance(value, list):
        return [localise(v, pairs) for v in value]
    if isinstance(value, dict):
        return {k: localise(v, pairs) for k, v in value.items()}
    return value


def prepare_project(bundle: Bundle, project: str) -> None:
    """The project's state dir with the registry and config the recording ran against."""
    state = os.path.join(project, ".claude", "deliberation")
    os.makedirs(state, mode=0o700, exist_ok=True)
    for name in ("reversals.json", "config.json"):
        src = os.path.join(bundle.folder, name)
        if os.path.isfile(src):
            shutil.copyfile(src, os.path.join(state, name))


def prepare_transcripts(bundle: Bundle, dirs: "dict[str, str]") -> int:
    """Write the bundled transcript lines where the replayed SubagentStop payloads point (under
    this run's HOME only); returns how many transcripts were written."""
    pairs = substitutions(bundle, dirs)
    home = os.path.realpath(dirs["home"]) + os.sep
    written = 0
    for item in bundle.transcripts:
        path = os.path.realpath(localise(str(item.get("path", "")), pairs))
        if not path.startswith(home) or not path.endswith(".jsonl"):
            raise DemoError(f"a bundled transcript points outside the demo's HOME: {item.get('path')!r}")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(line) + "\n" for line in item.get("lines") or [])
        written += 1
    return written


# --------------------------------------------------------------------------- one hook call


def parse_hook_output(event: str, stdout: str) -> dict:
    """The hook's stdout JSON as the client reads it (hookio.Answer.read), in the event log's
    summary form (decision, reason, context, system_message, stop_reason — only what is set)."""
    text = stdout.strip()
    if not text:
        return {}
    return Answer.read(event, json.loads(text.splitlines()[-1])).summary()


def as_client_reads(event: str, recorded: "dict | None") -> dict:
    """A recorded answer (the plugin's decision, from the event log) as the client reads it
    once rendered: the form the replay's hooks print is compared with."""
    known = {k: v for k, v in (recorded or {}).items() if k in COMPARED}
    return parse_hook_output(event, Answer(**known).to_json(event))


def run_hook(event: str, payload: dict, project: str, python: str = sys.executable) -> dict:
    """Feed one payload to the real hook script of `event`; returns the answer summary."""
    script = os.path.join(HOOKS, SCRIPTS[event])
    env = {**os.environ, "CLAUDE_PROJECT_DIR": project}
    if payload.get("session_id"):
        env["CLAUDE_CODE_SESSION_ID"] = payload["session_id"]
    proc = subprocess.run(
        [python, script], input=json.dumps(payload).encode(), cwd=project, env=env, capture_output=True, timeout=HOOK_TIMEOUT_S
    )
    if proc.returncode != 0:
        raise DemoError(f"hook {SCRIPTS[event]} exited {proc.returncode}: {proc.stderr.decode()[-500:]}")
    return parse_hook_output(event, proc.stdout.decode("utf-8", "replace"))


def logged_kinds(project: str, payload: dict, event: str, got: dict) -> "tuple[str, ...]":
    """The outcome kinds the hook just logged with its answer: those of the last record of the
    session's event log, when it is this event's and its answer is the one the hook printed
    (a hook that logged nothing says no kind)."""
    layout = Layout(project)
    try:
        path = layout.events(str(payload.get("session_id") or ""))
    except (InvalidId, ValueError):
        return ()
    for line in event_log.sealed_lines_backwards(layout, path, 1 << 20):
        try:
            record = json.loads(line)
        except ValueError:
            return ()
        answer = record.get("answer") if isinstance(record, dict) else None
        if not isinstance(answer, dict) or record.get("event") != event:
            return ()
        if compared(as_client_reads(event, answer)) != compared(got):
            return ()
        kinds = answer.get("kinds")
        return tuple(k for k in kinds if isinstance(k, str)) if isinstance(kinds, list) else ()
    return ()


def compared(answer: "dict | None") -> dict:
    return {k: v for k, v in (answer or {}).items() if k in COMPARED and v}


# --------------------------------------------------------------------------- what to print


def who(event: str, payload: dict) -> str:
    if event in ("PreToolUse", "PostToolUse"):
        tool = payload.get("tool_input") or {}
        return str(tool.get("subagent_type") or payload.get("tool_name") or "")
    if event in ("SubagentStart", "SubagentStop"):
        return str(payload.get("agent_type") or "")
    if event == "UserPromptSubmit":
        prompt = str(payload.get("prompt", ""))
        if is_agent_message(prompt):
            return "hand-back message"
        return "task notification" if is_task_notification(prompt) else "user prompt"
    return "main agent" if event == "Stop" else ""


def verdict_of(answer: dict) -> str:
    if answer.get("decision"):
        return answer["decision"]
    if answer.get("context"):
        return "context"
    return "message" if answer.get("system_message") else ""


def main_text(answer: dict) -> str:
    return answer.get("reason") or answer.get("context") or answer.get("system_message") or ""


def moment_of(kinds: "tuple[str, ...] | list[str]") -> "tuple[str, str]":
    """(label, story kind) of an answer that says outcomes of `kinds`; ('', '') for none."""
    return next(((label, kind) for label, kind, said in MOMENTS if any(k in said for k in kinds)), ("", ""))


def label_of(kinds: "tuple[str, ...] | list[str]") -> str:
    return moment_of(kinds)[0]


def kind_of(kinds: "tuple[str, ...] | list[str]") -> str:
    return moment_of(kinds)[1]


def moments_of(steps: "list[Step]") -> "list[story.Moment]":
    """The decisions the story tells, in order (an answer repeated by the next hook told once)."""
    out: list[story.Moment] = []
    seen: set[str] = set()
    for s in steps:
        text = main_text(s.got)
        kind = kind_of(s.kinds) if text else ""
        if kind and text not in seen:
            seen.add(text)
            out.append(story.Moment(kind=kind, verdict=verdict_of(s.got), who=s.who, text=text))
    return out


def details(text: str) -> "list[str]":
    """The lines worth showing under a called-out decision (workers, overrides, failed checks,
    conformity warnings, the route's rules)."""
    out = [f"- {m.group(1)}: {m.group(2).strip()}" for m in ROUTE_RULE.finditer(text.split("\n", 1)[0])]
    for line in text.splitlines()[1:]:
        m = WORKER_LINE.match(line)
        if m:
            out.append(m.group(1).strip())
        elif DETAIL_LINE.match(line):
            out.append(line.strip())
    return out


def clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


# --------------------------------------------------------------------------- the replay


@dataclass
class Step:
    n: int
    event: str
    who: str
    got: dict
    expected: dict
    kinds: "tuple[str, ...]" = ()  # the outcome kinds the hook logged with its answer

    @property
    def same(self) -> bool:
        return self.got == self.expected


def replay(
    bundle: Bundle, project: str, dirs: "dict[str, str]", on_step: "Callable[[Step], object] | None" = None
) -> "list[Step]":
    pairs = substitutions(bundle, dirs)
    steps = []
    for n, rec in enumerate(bundle.events, start=1):
        event = rec.get("event")
        if event not in SCRIPTS:
            continue
        payload = localise(rec.get("payload") or {}, pairs)
        got = run_hook(event, payload, project)
        expected = compared(as_client_reads(event, localise(rec.get("answer"), pairs)))
        step = Step(n, event, who(event, payload), got, expected, logged_kinds(project, payload, event, got))
        steps.append(step)
        if on_step is not None:
            on_step(step)
    return steps


def print_step(step: Step, previous: "list[Step]", out: "TextIO" = sys.stdout) -> None:
    """One line per decision (a repeat of the line before is folded into it)."""
    text = main_text(step.got)
    if not text:
        return
    mark = "= recorded" if step.same else "≠ RECORDED"
    last = next((p for p in reversed(previous) if main_text(p.got)), None)
    if last is not None and last.got == step.got and last.event == step.event:
        print(f"{step.n:>4}  {'':<16} {step.who:<22} {'':<8} (same answer again)  {mark}", file=out)
        return
    label = label_of(step.kinds)
    head = f"{step.n:>4}  {step.event:<16} {clip(step.who, 22):<22} {verdict_of(step.got):<8} "
    print(f"{head}{(label + ': ') if label else ''}{clip(text.splitlines()[0], 110)}  {mark}", file=out)
    if label:
        for line in details(text):
            print(f"{'':<54}{clip(line, 130)}", file=out)
    user = step.got.get("system_message")
    if user and user != text:  # what the user reads beside what the model reads
        lines = user.splitlines()
        print(f"{'':<54}user sees: {clip(lines[0], 120)}", file=out)
        for line in lines[1:]:  # the outcome lines of a concluding message (the decision, its document)
            if line.startswith(("Deliberation ", "Decision document", "⚠ Decision document")):
                print(f"{'':<65}{clip(line, 120)}", file=out)
    if not step.same:
        print(
            f"{'':<54}recorded: {clip(main_text(step.expected).splitlines()[0] if main_text(step.expected) else '(nothing)', 110)}",
            file=out,
        )


# --------------------------------------------------------------------------- the records


def render_records(project: str) -> "dict[str, Any]":
    """Render the Markdown and HTML decision records of the replayed deliberation(s); returns
    {'id', 'markdown', 'html', 'route', 'phase'} of the last one."""
    layout = Layout(project)
    store = Store(layout)
    cfg, _problems = project_config(layout)
    names = sorted(n for n in os.listdir(layout.deliberations_dir) if n.endswith(".json"))
    if not names:
        raise DemoError("the replay produced no deliberation")
    result: dict = {}
    for name in names:
        delib = store.load(os.path.join(layout.deliberations_dir, name), Deliberation)
        if delib is None:
            continue
        lineage = store.load(layout.lineage(delib.session_id), Lineage)
        typed = decision_record.build(delib, cfg.gates.strong, cfg.gates.moderate, cfg.cost.prices)  # built once
        record = typed.model_dump(mode="json", by_alias=True)  # the story reads it as data
        md_path, html_path = layout.record(delib.id), layout.record(delib.id, "html")
        atomic_write_bytes(layout.checked(md_path), decision_record.markdown(typed, lineage).encode())
        atomic_write_bytes(layout.checked(html_path), html_report.html(typed, lineage).encode())
        route = delib.route
        result = {
            "id": delib.id,
            "phase": delib.phase,
            "markdown": md_path,
            "html": html_path,
            "route": route.route if route else None,
            "rules": [r.rule for r in route.rules] if route else [],
            "decision": delib.decision,
            "prd": record["prd"],
            "usage": record["usage"],
            "record": record,
        }
    return result


def document_lines(p: dict) -> "list[str]":
    """The decision document as the demo prints it: each item with the ids it cites."""
    doc = p.get("document")
    if doc is None:
        return [f"Decision document (PRD): {p['status']}" + (f" — {p['problem']}" if p.get("problem") else "")]
    out = [f"\nDecision document (PRD), {p['status']}: {clip(doc['decision'], 300)}"]

    def cites(sources: list) -> str:
        return ("  ← " + ", ".join(s["id"] for s in sources)) if sources else ""

    for r in doc["requirements"]:
        out.append(f"  requirement {r['id']} ({r['priority']}): {clip(r['text'], 110)}{cites(r['sources'])}")
    for n in doc["non_goals"]:
        out.append(f"  non-goal: {clip(n['text'], 110)}{cites(n['sources'])}")
    for a in doc["acceptance_criteria"]:
        out.append(
            f"  acceptance {a['id']} (verifies {', '.join(a['verifies']) or '-'}): {clip(a['text'], 100)}{cites(a['sources'])}"
        )
    for k in doc["risks"]:
        out.append(
            f"  risk {k['id']} ({k['severity']}): {clip(k['risk'], 90)} → {clip(k['mitigation'], 70)}{cites(k['sources'])}"
        )
    for q in doc["open_questions"]:
        out.append(f"  open question: {clip(q['question'], 110)}{cites(q['sources'])}")
    t = p.get("trace") or {}
    if t:
        kinds = ", ".join(f"{n} {k.replace('_', ' ')}(s)" for k, n in t["by_kind"].items() if n)
        out.append(f"  traced: {t['citations']} citation(s) resolve to {kinds}\n")
    return out


# --------------------------------------------------------------------------- the command


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m deliberation.cli.demo", description=__doc__.splitlines()[0])
    p.add_argument("--keep", metavar="DIR", help="replay into DIR (created; must be empty) instead of a new temporary directory")
    p.add_argument("--json", action="store_true", help="print one JSON summary instead of the story")
    p.add_argument(
        "--verbose", "-v", action="store_true", help="also print every answer the hooks gave, one line each (the full log)"
    )
    p.add_argument("--bundle", metavar="DIR", default=BUNDLE, help=argparse.SUPPRESS)
    return p


def make_dirs(keep: "str | None") -> "dict[str, str]":
    if keep:
        root = os.path.abspath(keep)
        if os.path.isdir(root) and os.listdir(root):
            raise DemoError(f"--keep {root}: the directory is not empty")
        os.makedirs(root, exist_ok=True)
    else:
        root = tempfile.mkdtemp(prefix="deliberation-demo-")
    dirs = {
        "root": root,
        "project": os.path.join(root, "project"),
        "home": os.path.join(root, "home"),
        "tmp": os.path.join(root, "tmp"),
    }
    for key in ("project", "home", "tmp"):
        os.makedirs(dirs[key], exist_ok=True)
    return dirs


def print_log(steps: "list[Step]", records: "dict[str, Any]", elapsed: float, out: "TextIO" = sys.stdout) -> None:
    """The full log (`--verbose`): every decision the hooks answered, then the outcome."""
    print(f"{'#':>4}  {'event':<16} {'agent':<22} {'answer':<8} first line of the reason / context", file=out)
    shown: list[Step] = []
    for step in steps:
        print_step(step, shown, out)
        shown.append(step)
    print(file=out)
    rules = ", ".join(records["rules"]) or "-"
    print(
        f"Deliberation {records['id']}: {records['phase']}, decision {records['decision']}, route {records['route']} ({rules})",
        file=out,
    )
    for line in document_lines(records["prd"]):
        print(line, file=out)
    print(clip(records["usage"]["summary"], 400), file=out)
    print(f"Markdown decision record: {records['markdown']}", file=out)
    print(f"HTML decision record:     {records['html']}", file=out)


def main(argv: "list[str] | None" = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        bundle = load_bundle(args.bundle)
        dirs = make_dirs(args.keep)
        prepare_project(bundle, dirs["project"])
        prepare_transcripts(bundle, dirs)
        if not args.json:
            for line in story.header(
                story.Replay(
                    client=bundle.meta.get("client", "the Claude Code client"),
                    events=len(bundle.events),
                    project=dirs["project"],
                    answers=0,
                )
            ):
                print(line)
            sys.stdout.flush()
        started = time.monotonic()
        steps = replay(bundle, dirs["project"], dirs)
        records = render_records(dirs["project"])
    except DemoError as exc:
        print(f"deliberation demo: {exc}", file=sys.stderr)
        return 2
    differ = [s for s in steps if not s.same]
    elapsed = time.monotonic() - started
    record = records.pop("record")
    if args.json:
        json.dump(
            {
                "project": dirs["project"],
                "events": len(steps),
                "matched": len(steps) - len(differ),
                "differ": [{"n": s.n, "event": s.event, "got": s.got, "expected": s.expected} for s in differ],
                "decisions": [
                    {
                        "n": s.n,
                        "event": s.event,
                        "agent": s.who,
                        "answer": verdict_of(s.got),
                        "first_line": main_text(s.got).splitlines()[0],
                        "label": label_of(s.kinds),
                        "same": s.same,
                    }
                    for s in steps
                    if main_text(s.got)
                ],
                "records": records,
                "seconds": round(elapsed, 1),
            },
            sys.stdout,
            indent=1,
            ensure_ascii=False,
        )
        print()
        return 1 if differ else 0
    if args.verbose:
        print()
        print_log(steps, records, elapsed)
        print()
    facts = story.Replay(
        client=bundle.meta.get("client", "the Claude Code client"),
        events=len(bundle.events),
        project=dirs["project"],
        answers=len(steps),
        differ=tuple(s.n for s in differ),
        seconds=elapsed,
        command=terminal_command(PLUGIN_ROOT, dict(os.environ)),
        plugin=PLUGIN_ROOT,
        root=dirs["root"],
        temporary=not args.keep,
    )
    files = {kind: os.path.abspath(records[key]) for kind, key in (("Markdown", "markdown"), ("HTML", "html"))}
    for line in story.story(record, moments_of(steps), facts, files)[len(story.header(facts)) :]:
        print(line)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
