"""State directories for the benchmark: each scenario starts from a project captured on disk.

States are made the way a session makes them: the real hooks run in-process
(`hook_runner.handle`) on payloads shaped like the client's (tests/helpers/payloads.py). The big
deliberation of the heavy path (10 personas × 5 approaches, depth axis done) comes from the
state builders of tests/helpers/factories.py, written through the store. Each builder returns the
project directory; a measured run works on a fresh copy of it (`benchkit.restore`).

Builders (project directory in, the payload of the measured event out):
    routine(project)                → a session with a few routine events, no deliberation
    spawn(project)                  → a deliberation in RESEARCH; the next persona's PreToolUse
    first_spawn(project)            → a triggered question; the first persona's PreToolUse
    report(project)                 → three background research agents; one's SubagentStop
    conclude(project)               → 10 × 5 in RANKING, every report in; the Stop that concludes
    last_ranking(project)           → 10 × 5, the last ranking agent running; its PostToolUse
    concurrent_reports(project, n)  → n background research agents; their n SubagentStops
    pad_events(project, sid, n)     → prepend n logged events to a session's event log
"""

from __future__ import annotations

import json
import os
import time

from benchkit import setup_paths

setup_paths()

QUESTION = (
    "Should we move order events to the message bus through a transactional outbox, given "
    "that the migration is hard to reverse, the production risk is high and the security "
    "and latency trade-offs across services are unclear?"
)
ROUTINE_PROMPT = "Fix the typo in the README's install section."
APPROACHES = [("A", "Postgres outbox with a relay worker"), ("B", "Dual write to database and bus")]
SID = "0b7e6a52-5d1c-4a43-9d7e-1f3c2b9a8e01"


class InProcessHook:
    """hook(event, payload) through hook_runner.handle in this process, against one project."""

    def __init__(self, project: str) -> None:
        self.project = project

    def __call__(self, event: str, payload: dict) -> "Answer":
        from deliberation.runtime import hook_runner

        old = os.environ.get("CLAUDE_PROJECT_DIR")
        os.environ["CLAUDE_PROJECT_DIR"] = self.project
        try:
            out = hook_runner.handle(event, json.dumps(payload).encode(), time.time())
        finally:
            if old is None:
                os.environ.pop("CLAUDE_PROJECT_DIR", None)
            else:
                os.environ["CLAUDE_PROJECT_DIR"] = old
        return Answer(out)


class Answer:
    """The parts of a hook's stdout that the builders check."""

    def __init__(self, stdout: str) -> None:
        self.json = json.loads(stdout) if stdout.strip() else {}

    @property
    def decision(self) -> "str | None":
        j = self.json
        return j.get("decision") or j.get("hookSpecificOutput", {}).get("permissionDecision")

    @property
    def reason(self) -> str:
        j = self.json
        return j.get("reason") or j.get("hookSpecificOutput", {}).get("permissionDecisionReason") or ""


def _expect_allowed(answer: Answer, what: str) -> None:
    if answer.decision in ("deny", "block"):
        raise RuntimeError(f"benchmark state: {what} was refused: {answer.reason[:300]}")


def write_config(project: str, cfg: dict) -> None:
    d = os.path.join(project, ".claude", "deliberation")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "config.json"), "w", encoding="utf-8") as fh:
        json.dump(cfg, fh)
    from deliberation.state import consent
    from deliberation.state.paths import Layout

    consent.approve(Layout(project))  # the benchmark's own config: its user approves what waits (consent.py)


def payload_bytes(payload: dict) -> bytes:
    return json.dumps(payload).encode()


# ---------------------------------------------------------------------------------------------
# fast paths


def routine(project: str) -> "dict[str, bytes]":
    """A session that has seen a routine prompt and an edit; no deliberation, nothing escalated.
    Returns the payloads of the fast-path events keyed by scenario name."""
    from tests.helpers import payloads as P

    hook = InProcessHook(project)
    hook("SessionStart", {**P.base(SID, "SessionStart"), "source": "startup"})
    hook("UserPromptSubmit", P.prompt(SID, ROUTINE_PROMPT))
    hook("PreToolUse", P.pre_tool(SID, "Read", {"file_path": "/home/dev/myproject/README.md"}, "toolu_r1"))
    # the hourly prune has run (the first start found no session folder to prune): no prune is due
    hook("SessionStart", {**P.base(SID, "SessionStart"), "source": "resume"})
    return {
        "prompt": payload_bytes(P.prompt(SID, ROUTINE_PROMPT)),
        "edit": payload_bytes(
            P.pre_tool(
                SID,
                "Edit",
                {
                    "file_path": "/home/dev/myproject/README.md",
                    "old_string": "pip instal",
                    "new_string": "pip install",
                    "replace_all": False,
                },
                "toolu_e1",
            )
        ),
        "bash": payload_bytes(
            P.pre_tool(
                SID, "Bash", {"command": "python -m pytest tests/unit -q", "description": "Run the unit tests"}, "toolu_b1"
            )
        ),
        "read": payload_bytes(P.pre_tool(SID, "Read", {"file_path": os.path.join(project, "src", "app.py")}, "toolu_r1")),
        "grep_agent": payload_bytes(
            {
                **P.pre_tool(SID, "Grep", {"pattern": "password|revoke"}, "toolu_g1"),
                "agent_id": "a-research-1",
                "agent_type": "deliberation:security-analyst",
                "cwd": project,
            }
        ),
        "stop": payload_bytes(P.stop(SID)),
        "start": payload_bytes({**P.base(SID, "SessionStart"), "source": "resume"}),
        # answered while the checks are off: a prompt that would trigger, a persona spawn
        "risky": payload_bytes(P.prompt(SID, "/deliberate " + QUESTION)),
        "agent": payload_bytes(P.pre_agent(SID, "toolu_off1", "security-analyst", "Research it.")),
    }


# ---------------------------------------------------------------------------------------------
# lock-and-write paths


def _research_prompt(persona: str) -> str:
    return f"Research this question from the {persona} perspective, independently: {QUESTION} End with the JSON report block."


def _spawn_background(hook: InProcessHook, sid: str, n: int, persona: str) -> "tuple[str, str]":
    from tests.helpers import payloads as P

    tuid, aid = f"toolu_bg_{n:03d}", f"a{n:04d}{'c0ffee' * 2}"
    prompt = _research_prompt(persona)
    _expect_allowed(hook("PreToolUse", P.pre_agent(sid, tuid, persona, prompt, background=True)), f"spawn of {persona}")
    hook("SubagentStart", P.subagent_start(sid, aid, persona))
    hook("PostToolUse", P.post_agent_async(sid, tuid, aid, persona, prompt))
    return tuid, aid


def _research_message(persona: str, n: int) -> str:
    from tests.helpers import payloads as P

    return P.research_report(
        persona,
        [f"{persona}: the outbox table needs an index on created_at ({n})", f"{persona}: the relay must be idempotent ({n})"],
        APPROACHES,
    )


def spawn(project: str) -> bytes:
    """A triggered question and two research agents running; the third persona's spawn."""
    from tests.helpers import payloads as P

    hook = InProcessHook(project)
    hook("UserPromptSubmit", P.prompt(SID, QUESTION))
    for n, persona in enumerate(("security-analyst", "performance-engineer"), start=1):
        _spawn_background(hook, SID, n, persona)
    return payload_bytes(P.pre_agent(SID, "toolu_bg_003", "cost-analyst", _research_prompt("cost-analyst"), background=True))


def first_spawn(project: str) -> bytes:
    """A triggered question, nothing spawned yet; the first persona's spawn opens the deliberation
    (it reads the question back from the tail of the event log)."""
    from tests.helpers import payloads as P

    hook = InProcessHook(project)
    hook("UserPromptSubmit", P.prompt(SID, QUESTION))
    return payload_bytes(
        P.pre_agent(SID, "toolu_bg_001", "security-analyst", _research_prompt("security-analyst"), background=True)
    )


def report(project: str) -> bytes:
    """Three research agents running in the background; the third one's SubagentStop with its report."""
    from tests.helpers import payloads as P

    hook = InProcessHook(project)
    hook("UserPromptSubmit", P.prompt(SID, QUESTION))
    ids = [
        _spawn_background(hook, SID, n, persona)
        for n, persona in enumerate(("security-analyst", "performance-engineer", "cost-analyst"), start=1)
    ]
    _, aid = ids[-1]
    return payload_bytes(
        P.subagent_stop(
            SID,
            aid,
            "cost-analyst",
            _research_message("cost-analyst", 3),
            background_tasks=[{"id": a, "type": "subagent", "status": "running"} for _, a in ids[:-1]],
        )
    )


def concurrent_reports(project: str, n: int) -> "list[bytes]":
    """`n` background research agents of one deliberation running; their SubagentStops."""
    from deliberation.core.personas import RESEARCH_PERSONAS
    from tests.helpers import payloads as P

    write_config(project, {"spawn_budget": {"max_active_children": min(100, n + 8)}})
    hook = InProcessHook(project)
    hook("UserPromptSubmit", P.prompt(SID, QUESTION))
    personas = list(RESEARCH_PERSONAS)
    agents = []
    for i in range(n):
        persona = personas[i % len(personas)]
        agents.append((persona, _spawn_background(hook, SID, i + 1, persona)[1]))
    return [
        payload_bytes(P.subagent_stop(SID, aid, persona, _research_message(persona, i + 1)))
        for i, (persona, aid) in enumerate(agents)
    ]


def recorded_reports(project: str) -> int:
    """How many agents of the project's deliberations have their report recorded."""
    d = os.path.join(project, ".claude", "deliberation", "deliberations")
    count = 0
    for name in os.listdir(d):
        if name.endswith(".json"):
            with open(os.path.join(d, name), "rb") as fh:
                delib = json.loads(fh.read())
            count += sum(1 for a in delib.get("agents", []) if a.get("report") is not None and a.get("status") == "reported")
    return count


# ---------------------------------------------------------------------------------------------
# heavy paths: 10 personas × 5 approaches


HEAVY_SID = "s-bench-heavy"
HEAVY_DID = "d-bench-heavy-1"


def heavy_scores(n_personas: int = 10, n_approaches: int = 5) -> "dict[str, dict[str, dict[str, float]]]":
    """Every persona prefers A, with varied scores (consensus passes; no dissent left undocumented)."""
    from tests.helpers import factories as F

    personas = list(F.PERSONAS[:n_personas])
    ids = [a for a, _, _ in F.APPROACHES[:n_approaches]]
    dims = list(F.WEIGHTS)
    return {
        p: {
            a: {d: (8.0 + 0.5 * ((i + k) % 3) if a == "A" else 4.0 + 0.5 * ((i * (j + 1) + k) % 6)) for k, d in enumerate(dims)}
            for j, a in enumerate(ids)
        }
        for i, p in enumerate(personas)
    }


def _heavy_deliberation(n_personas: int = 10, n_approaches: int = 5):
    from tests.helpers import factories as F

    d = F.make_deliberation(
        n_personas,
        n_approaches,
        phase="RANKING",
        gates=False,
        conformity=False,
        route=None,
        deliberation_id=HEAVY_DID,
        session_id=HEAVY_SID,
        scores=heavy_scores(n_personas, n_approaches),
        t0=time.time() - 1500,
    )
    for agent in d.agents:  # foreground agents: their reports reached the main agent directly
        agent.background = False
    return d


def conclude(project: str) -> bytes:
    """10 × 5 in RANKING with every report in; the main agent's Stop concludes it: vote,
    conformity, Gate 1, Gate 2, the decision document, the escalation route and the decision
    record."""
    from tests.helpers import factories as F
    from tests.helpers import payloads as P

    d = _heavy_deliberation()
    F.write_project(project, [d], [F.make_lineage(d, nested=0, active=0, denied=0)])
    # the concluding answer carries the decision document, citing two personas' findings
    cites = [f"{a.persona}:F1" for a in d.agents if a.stage == "research"][:2]
    return payload_bytes(P.stop(HEAVY_SID, message=P.prd_message(cites)))


def last_ranking(project: str) -> bytes:
    """10 × 5 with the last ranking agent still running (foreground); its PostToolUse brings the
    report: capture, vote over 10 × 5, conformity, Gate 1."""
    from tests.helpers import factories as F
    from tests.helpers import payloads as P

    d = _heavy_deliberation()
    last = d.agents[-1]
    text = P.fenced({"phase": "ranking", **last.report.model_dump(mode="json", exclude={"phase"})})
    last.report, last.status, last.reported_at, last.background = None, "running", None, False
    lin = F.make_lineage(d, nested=0, active=1, denied=0)
    F.write_project(project, [d], [lin])
    return payload_bytes(
        P.post_agent_completed(
            HEAVY_SID, last.tool_use_id, last.agent_id, f"deliberation:{last.persona}", "Rank approaches A-E.", text
        )
    )


# ---------------------------------------------------------------------------------------------
# a long session


def pad_events(project: str, sid: str, n: int) -> None:
    """Put `n` realistic logged events (edits and commands, ~0.6 KB each) before a session's log."""
    path = os.path.join(project, ".claude", "deliberation", "sessions", sid, "events.jsonl")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    try:
        with open(path, "rb") as fh:
            existing = fh.read()
    except FileNotFoundError:
        existing = b""
    lines = []
    t = time.time() - 3600
    for i in range(n):
        tool = ("Edit", "Bash", "Read")[i % 3]
        payload = {
            "session_id": sid,
            "transcript_path": f"/home/dev/.claude/projects/x/{sid}.jsonl",
            "cwd": "/home/dev/myproject",
            "hook_event_name": "PreToolUse",
            "tool_name": tool,
            "tool_input": {
                "file_path": f"/home/dev/myproject/src/module_{i % 97}.py",
                "old_string": "return x" * 8,
                "new_string": "return y" * 8,
            },
            "tool_use_id": f"toolu_pad_{i:05d}",
        }
        lines.append(
            json.dumps(
                {"schema_version": 1, "at": t + i * 0.5, "event": "PreToolUse", "payload": payload, "answer": {}, "notes": []}
            ).encode()
            + b"\n"
        )
    with open(path, "wb") as fh:
        fh.write(b"".join(lines) + existing)


def event_count(project: str, sid: str) -> int:
    path = os.path.join(project, ".claude", "deliberation", "sessions", sid, "events.jsonl")
    try:
        with open(path, "rb") as fh:
            return sum(1 for _ in fh)
    except FileNotFoundError:  # a session of plain work logs nothing (docs/STORAGE.md)
        return 0
