"""Scripted deliberations for the gate scenarios (1-6).

`StagedDeliberation` walks a deliberation wave by wave (research, synthesis-lead, red team,
ranking), spawning each wave in ONE message, foreground or background, and moves on when every
agent of the wave has answered; where it is follows from the request alone (the assistant
messages that spawned so far). Tests override `plan`, `answer` and `final`. Each spawned prompt
starts with `PERSONA:`, `Phase:` and `Round:` lines (`persona_of`, `phase_of`, `round_of`). Also:
ranking report builders (`scores`: one value on all five dimensions), the scenarios' question
(task type default, threshold 0.70, trigger confidence 0.1296), state readers usable while the
client runs, and the scenarios. A scenario never waits inside its call (the API answers one
request at a time): `EarlyStopDeliberation` polls with a Read call instead.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from pathlib import Path

from fake_api import ApiRequest, ReplyLike, agent_call, text, tool_use
from harness import STATE_DIR, agent_type, read_jsonl
from scenarios import (
    CITABLE_LINE,
    Scenario,
    agent_outcomes,
    agent_spawns,
    concluding_answer,
    decision_document,
    persona_of,
    report,
    report_message,
)
from deliberation import catalogue

PHASE_TAG = re.compile(r"^Phase: ([a-z-]+)$", re.M)
APPROACH_LIST = re.compile(r"Approaches to rank \(neutral order; it ranks nothing\):\n(?:- [^\n]*(?:\n|$))+")
ROUND_TAG = re.compile(r"^Round: ([0-9]+)$", re.M)
DIMENSIONS = tuple(d.name for d in catalogue.DIMENSIONS)  # the catalogue's

QUESTION = (
    "should the order service cache product prices in each node or keep reading them from "
    "the pricing database? The latency, cost and staleness trade-offs are unclear, the "
    "choice is hard to reverse and depends on load we have not measured."
)
PROMPT = "Deliberate before deciding: " + QUESTION
# what the plugin computes for PROMPT (confidence module, task_type.classify) — checked in tests
TASK_TYPE = "default"
THRESHOLD = 0.70
TRIGGER_CONFIDENCE = 0.1296

PANEL = ("security-analyst", "performance-engineer", "cost-analyst")
GATE1_FAILED = "consensus gate FAILED"
GATE2_FAILED = "quality gate FAILED"
# how the client shows the plugin's hold of a Stop (main agent) or SubagentStop (a subagent,
# "SubagentStop hook additional context: …"): additionalContext, in a system reminder, once
STOP_FEEDBACK = "Stop hook additional context: "
MAIN_HOLD = "<system-reminder>\nStop hook additional context: "


# --------------------------------------------------------------------------- reports


def uniform_scores(values: "dict[str, float]") -> "dict[str, dict[str, float]]":
    """{approach: value} → {approach: {each of the five dimensions: value}}: the weighted score
    of such an approach is `value` whatever the weights."""
    return {approach: {d: float(v) for d in DIMENSIONS} for approach, v in values.items()}


def concern(target: str, concern_text: str, reason: str) -> dict:
    return {"target": target, "concern": concern_text, "reason": reason}


def ranking_report(
    values: "dict[str, float]",
    preferred: "str | None",
    verdict: str = "approve",
    dissent: "list[dict] | tuple" = (),
    confidence: float = 0.7,
    rationale: str = "",
) -> dict:
    """A valid ranking report scoring each approach `values[approach]` on every dimension."""
    return report(
        phase="ranking",
        summary=f"Scored {', '.join(values)}.",
        findings=[],
        approaches=[],
        scores=uniform_scores(values),
        verdict=verdict,
        preferred_approach=preferred,
        rationale=rationale or f"{preferred} fits my priorities best.",
        dissent=list(dissent),
        confidence=confidence,
    )


def research_report(
    finding: str,
    evidence: str,
    approaches: "list[tuple[str, str]]",
    preferred: str,
    verdict: str = "approve",
    confidence: float = 0.6,
    summary: str = "",
) -> dict:
    return report(
        phase="research",
        summary=summary or finding,
        findings=[{"id": "F1", "claim": finding, "evidence": evidence, "severity": "high"}],
        approaches=[{"id": i, "title": t, "summary": t + "."} for i, t in approaches],
        verdict=verdict,
        preferred_approach=preferred,
        confidence=confidence,
        rationale=f"{preferred} addresses F1.",
    )


CACHE = ("A", "Per-node price cache with a 30 s TTL and invalidation events")
DATABASE = ("B", "Keep reading prices from the pricing database")
SHARED = ("C", "One shared cache in front of the pricing database")

RESEARCH = {
    # conflicting priorities, but nobody rejects or files a concern against another's
    # preference: the red team finds no contested point (no hot spot)
    "security-analyst": research_report(
        "A per-node cache serves a withdrawn promotion price until its TTL expires.",
        "pricing/promotions.py:88",
        [CACHE, DATABASE],
        preferred="B",
        confidence=0.55,
    ),
    "performance-engineer": research_report(
        "Price reads are 38 % of the checkout p99 latency (41 ms of 108 ms).",
        "bench/checkout_p99.txt",
        [CACHE, DATABASE],
        preferred="A",
        confidence=0.65,
    ),
    "cost-analyst": research_report(
        "The pricing database needs two more read replicas at current growth: 4.1k/month.",
        "finance/infra-2024.csv:17",
        [CACHE, SHARED],
        preferred="A",
        confidence=0.6,
    ),
}
SYNTHESIS = report(
    phase="deliberation",
    summary="Three alternatives from three non-conflicting findings.",
    findings=[],
    scores={},
    verdict="abstain",
    preferred_approach="A",
    confidence=0.6,
    approaches=[{"id": i, "title": t, "summary": t + "."} for i, t in (CACHE, DATABASE, SHARED)],
    rationale="A removes the hot read path; its stale window is bounded by the TTL and events.",
)
RED_TEAM_CLEAN = report(
    phase="deliberation",
    summary="Every converged point held.",
    findings=[],
    approaches=[],
    scores={},
    verdict="abstain",
    preferred_approach=None,
    confidence=0.6,
    missed_angles=[],
    refutations=[
        {
            "target": "performance-engineer:F1",
            "verdict": "upheld",
            "claim": "the latency share is real",
            "evidence": "bench/checkout_p99.txt reproduces 41 ms",
        },
        {
            "target": "A",
            "verdict": "upheld",
            "claim": "the invalidation path exists",
            "evidence": "pricing/events.py:12 publishes price changes",
        },
    ],
)

# the passing vote: every ranker prefers A — by 0.6 (security-analyst, firmness 0.6), 2.4 and 1.5
# points (firmness 1) → consensus = 2.6 / (2.6 + 0.2) = 0.9286 (strong); the security analyst's
# concern about A is documented, not a dissent (it prefers A)
RANKING_PASS = {
    "security-analyst": ranking_report(
        {"A": 8.4, "B": 7.8, "C": 6.0},
        preferred="A",
        verdict="approve",
        dissent=[
            concern(
                "A",
                "stale promotion prices for up to 30 s",
                "pricing/promotions.py:88 withdraws promotions without a version check",
            )
        ],
    ),
    "performance-engineer": ranking_report({"A": 9.4, "B": 5.0, "C": 7.0}, preferred="A"),
    "cost-analyst": ranking_report({"A": 9.0, "B": 6.0, "C": 7.5}, preferred="A"),
}
PASS_CONSENSUS = 0.9286


# --------------------------------------------------------------------------- request questions


def phase_of(req: ApiRequest) -> "str | None":
    match = PHASE_TAG.search(req.agent_prompt)
    return match.group(1) if match else None


def round_of(req: ApiRequest) -> int:
    match = ROUND_TAG.search(req.agent_prompt)
    return int(match.group(1)) if match else 1


def spawn_batches(req: ApiRequest) -> "list[list[dict]]":
    """The Agent calls of each assistant message that made some, oldest first: one per wave."""
    batches = []
    for message in req.messages:
        if message.get("role") != "assistant" or not isinstance(message.get("content"), list):
            continue
        calls = [
            b
            for b in message["content"]
            if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") in ("Agent", "Task")
        ]
        if calls:
            batches.append(calls)
    return batches


def unsettled(req: ApiRequest, batch: "list[dict]") -> bool:
    """Some agent of `batch` has not answered yet (background launch not notified, or no result)."""
    outcomes = agent_outcomes(req)
    return any(outcomes.get(call["id"]) in ("background", "pending") for call in batch)


def stop_feedbacks(req: ApiRequest) -> int:
    """How many Stop holds of the main agent the conversation holds (user messages only)."""
    return sum(
        1
        for m in req.messages
        if m.get("role") == "user"
        and any(isinstance(b, dict) and b.get("type") == "text" and b.get("text", "").startswith(MAIN_HOLD) for b in _blocks(m))
    )


def _blocks(message: dict) -> list:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return content if isinstance(content, list) else []


# --------------------------------------------------------------------------- state (during a run)


def write_config(project: Path, config: dict) -> Path:
    """The project's `.claude/deliberation/config.json` (before the first run; install keeps it)."""
    path = Path(project) / STATE_DIR / "config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(config), encoding="utf-8")
    approve_config(project)
    return path


def approve_config(project: Path) -> None:
    """This user approves the config as written (`deliberation trust`): a setting not known to
    tighten waits for that (state/consent.py). The client's hooks share this process's
    DELIBERATION_USER_DATA (harness.client_env)."""
    from deliberation.state import consent
    from deliberation.state.paths import Layout

    consent.approve(Layout(str(project)))


def logged_events(project: Path) -> "list[dict]":
    """Every events.jsonl row of the project's sessions (readable while the client runs)."""
    rows: list[dict] = []
    for path in sorted((Path(project) / STATE_DIR / "sessions").glob("*/events.jsonl")):
        rows.extend(read_jsonl(path))
    return rows


def deliberation_files(project: Path) -> "list[dict]":
    folder = Path(project) / STATE_DIR / "deliberations"
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]


def stop_logged(project: Path) -> bool:
    """The main agent's Stop hook has run at least once (the plugin logged it)."""
    return any(e.get("event") == "Stop" for e in logged_events(project))


# --------------------------------------------------------------------------- the scenario


@dataclass(frozen=True)
class Wave:
    """One message of Agent calls: `slugs` spawned together with `Phase: phase`, `Round: round`."""

    phase: str
    slugs: "tuple[str, ...]"
    round: int = 1
    note: str = ""


def approach_listing(seen: str) -> str:
    """The last approach list the plugin gave the model (blind ranking: copied verbatim)."""
    found = APPROACH_LIST.findall(seen)
    return found[-1].strip() if found else ""


def wave_prompt(wave: Wave, slug: str, listing: str = "") -> str:
    """The prompt of one agent of a wave: the PERSONA/Phase/Round lines, the question, and the
    stage's material (shared context; all findings; the approaches to score — for ranking the
    list the plugin gave, in its neutral order, and nothing of the vote)."""
    head = f"PERSONA: {slug}\nPhase: {wave.phase}\nRound: {wave.round}\nQuestion: {QUESTION}\n"
    if wave.phase == "research":
        body = (
            "Shared context: the order service (orders/), the pricing database and its "
            "replicas, the checkout latency budget of 120 ms. Work independently."
        )
    elif wave.phase == "deliberation":
        body = (
            "All research findings: "
            + "; ".join(f"{persona}:F1 {r['findings'][0]['claim']}" for persona, r in RESEARCH.items())
            + ". Approaches so far: A, B, C."
        )
    else:
        listed = listing or (f"Approaches: {CACHE[0]} {CACHE[1]}; {DATABASE[0]} {DATABASE[1]}; {SHARED[0]} {SHARED[1]}.")
        body = (
            f"{listed}\nScore every approach 0-10 on {', '.join(DIMENSIONS)}; give your verdict and "
            "a concern with its reason for each approach you would not adopt." + (f" {wave.note}" if wave.note else "")
        )
    return head + body + "\nEnd with one fenced JSON report."


BREADTH = (Wave("research", PANEL), Wave("deliberation", ("synthesis-lead",)), Wave("ranking", PANEL))
WITH_RED_TEAM = (
    Wave("research", PANEL),
    Wave("deliberation", ("synthesis-lead",)),
    Wave("deliberation", ("red-team",)),
    Wave("ranking", PANEL),
)


class StagedDeliberation(Scenario):
    """Research → deliberation → ranking, one wave per message (see the module docstring).

    waves       the default plan
    reports     (slug, phase, round) or (slug, phase) → report dict or ready message string
    mode        "install" | "plugin" (agent type prefix)
    background  False → `run_in_background: false`; True → key omitted (client default)
    """

    final_text = "Decision: A (per-node price cache with a 30 s TTL and invalidation events); dissent recorded."
    waiting_text = "The agents are running in the background; I will wait for their reports."

    def __init__(
        self, reports: dict, waves: "tuple[Wave, ...]" = BREADTH, mode: str = "install", background: bool = False
    ) -> None:
        self.reports = reports
        self.waves = tuple(waves)
        self.mode = mode
        self.background = background

    # -- main agent ------------------------------------------------------------------

    def main(self, req: ApiRequest) -> ReplyLike:
        batches = spawn_batches(req)
        if batches and unsettled(req, batches[-1]):
            return self.waiting_text
        plan = self.plan(req)
        if len(batches) < len(plan):
            return self.spawn(plan[len(batches)], approach_listing(req.all_text))
        return self.final(req)

    def plan(self, req: ApiRequest) -> "list[Wave]":
        """The waves to run, given what the main agent has read so far."""
        return list(self.waves)

    def final(self, req: ApiRequest) -> ReplyLike:
        """The concluding answer: the decision, and the decision document the plugin asked for."""
        return concluding_answer(self.final_text, req)

    def spawn(self, wave: Wave, listing: str = "") -> list:
        blocks: list = [
            text(f"Spawning the {wave.phase} wave ({', '.join(wave.slugs)})." + (f" {wave.note}" if wave.note else ""))
        ]
        for slug in wave.slugs:
            blocks.append(
                agent_call(
                    self.prompt(wave, slug, listing),
                    agent_type(slug, self.mode),
                    description=f"{slug} {wave.phase}",
                    run_in_background=None if self.background else False,
                )
            )
        return blocks

    def prompt(self, wave: Wave, slug: str, listing: str = "") -> str:
        return wave_prompt(wave, slug, listing)

    # -- subagents -------------------------------------------------------------------

    def subagent(self, req: ApiRequest) -> ReplyLike:
        slug, phase = persona_of(req), phase_of(req)
        if slug is None or phase is None:
            return f"I am not part of this deliberation (prompt: {req.agent_prompt[:80]!r})."
        return self.answer(slug, phase, round_of(req), req)

    def answer(self, slug: str, phase: str, round_: int, req: ApiRequest) -> ReplyLike:
        found = self.reports.get((slug, phase, round_), self.reports.get((slug, phase)))
        if found is None:
            return f"{slug} has nothing scripted for {phase} round {round_}."
        return found if isinstance(found, str) else report_message(found, prose=f"{slug}: {phase} done.")


DRAFTING = "Phase: decision document of deliberation "
OFFER = "Shortest way: spawn the drafter"


class DrafterDeliberation(StagedDeliberation):
    """The passing per-turn deliberation whose main agent takes the request's shortest way."""

    def final(self, req: ApiRequest) -> ReplyLike:
        spawned = [u for u in req.tool_uses if u.get("name") in ("Agent", "Task") and "drafter" in str(u["input"])]
        if not spawned and OFFER in req.all_text:
            return [
                text("The vote passed; the drafter writes the decision document."),
                agent_call("draft", agent_type("drafter", self.mode), description="decision document", run_in_background=False),
            ]
        return "Decision: A (per-node price cache with a 30 s TTL and invalidation events); the dissent is recorded."

    def subagent(self, req: ApiRequest) -> ReplyLike:
        if DRAFTING in req.agent_prompt:
            lines = (line.strip() for line in req.agent_prompt.splitlines())
            ids = [(m.group(1), m.group(2)) for line in lines if (m := CITABLE_LINE.match(line))]
            return report_message(decision_document(ids), prose="The decision document.")
        return super().subagent(req)


def standard_reports(red_team: dict = RED_TEAM_CLEAN, ranking: "dict | None" = None) -> dict:
    """The reports of the passing deliberation: RESEARCH, SYNTHESIS, a red team, RANKING_PASS."""
    table: dict = {(slug, "research"): r for slug, r in RESEARCH.items()}
    table[("synthesis-lead", "deliberation")] = SYNTHESIS
    table[("red-team", "deliberation")] = red_team
    for slug, r in (ranking or RANKING_PASS).items():
        table[(slug, "ranking")] = r
    return table


class EarlyStopDeliberation(StagedDeliberation):
    """Background mode, with the research personas holding their reports until the main agent's
    first Stop hook has run: each polls with a Read of `context_file` (no hook fires on Read)
    until events.jsonl logs a Stop, so the early Stop is guaranteed to precede every report.
    `early` holds the state right after that Stop: the deliberation files and the Stop rows."""

    max_polls = 400

    def __init__(
        self, reports: dict, project: Path, context_file: Path, waves: "tuple[Wave, ...]" = BREADTH, mode: str = "install"
    ) -> None:
        super().__init__(reports, waves, mode, background=True)
        self.project = Path(project)
        self.context_file = Path(context_file)
        self.early: "dict | None" = None
        self.polls = 0

    def answer(self, slug: str, phase: str, round_: int, req: ApiRequest) -> ReplyLike:
        if phase == "research" and self.early is None:
            if not stop_logged(self.project) and self.polls < self.max_polls:
                self.polls += 1
                time.sleep(0.02)  # paces the polls; short enough not to stall the main agent
                return [text("Reading the shared context."), tool_use("Read", {"file_path": str(self.context_file)})]
            self.early = {
                "deliberations": deliberation_files(self.project),
                "stops": [e for e in logged_events(self.project) if e.get("event") == "Stop"],
            }
        return super().answer(slug, phase, round_, req)


# --------------------------------------------------------------------------- gate scenarios

# a split vote: security-analyst prefers A by 3 points, performance-engineer rejects, cost-analyst
# prefers B by 1 → consensus = 1 / (1 + 2 + 0.2) = 0.3125 < 0.70
RANKING_SPLIT = {
    "security-analyst": ranking_report({"A": 9.0, "B": 5.0, "C": 6.0}, preferred="A"),
    "performance-engineer": ranking_report(
        {"A": 4.0, "B": 6.0, "C": 5.0},
        preferred="B",
        verdict="reject",
        dissent=[
            concern(
                "A", "invalidation storms on every promotion launch", "pricing/events.py:40 fans one change out to every node"
            )
        ],
    ),
    "cost-analyst": ranking_report(
        {"A": 5.0, "B": 6.0, "C": 4.0},
        preferred="B",
        verdict="approve",
        dissent=[
            concern("A", "the event bus needs a paid tier at this fan-out", "finance/infra-2024.csv:31 quotes the next tier")
        ],
    ),
}
SPLIT_CONSENSUS = 0.3125


class ReRankOnGate(StagedDeliberation):
    """Scenario 3: the first ranking splits the panel; Gate 1 blocks (PostToolUse of the
    foreground ranking agents) and its reason reaches the main agent, which acts on it: when
    `try_first` names a role, it first does what the reason's `Next:` suggests (spawns that
    role); then it re-ranks (round 2), naming the contested point in the prompt."""

    def __init__(
        self, reports: dict, waves: "tuple[Wave, ...]" = BREADTH, mode: str = "install", try_first: "str | None" = None
    ) -> None:
        super().__init__(reports, waves, mode)
        self.try_first = try_first

    def plan(self, req: ApiRequest) -> "list[Wave]":
        plan = list(self.waves)
        if req.saw(GATE1_FAILED):
            if self.try_first:
                plan.append(Wave("deliberation", (self.try_first,), note="As the consensus gate advises."))
            plan.append(
                Wave(
                    "ranking",
                    PANEL,
                    round=2,
                    note="Re-rank: the consensus gate failed; the contested point is the "
                    "invalidation fan-out of A (performance-engineer, cost-analyst).",
                )
            )
        return plan


class InvalidReports(StagedDeliberation):
    """Scenario 4: `fixes` answers its first research turn with prose and no report, and after
    the SubagentStop feedback with a valid one; `stays_invalid` sends a JSON block that does not
    parse, every time it is asked."""

    broken_json = '{"phase": "research", "findings": [ {"id": "F1", "claim": "replicas cost" }'

    def __init__(self, reports: dict, waves: "tuple[Wave, ...]", fixes: str, stays_invalid: str, mode: str = "install") -> None:
        super().__init__(reports, waves, mode)
        self.fixes = fixes
        self.stays_invalid = stays_invalid

    def answer(self, slug: str, phase: str, round_: int, req: ApiRequest) -> ReplyLike:
        if phase == "research" and slug == self.fixes and STOP_FEEDBACK not in req.new_text:
            return "Prices should be cached per node with a short TTL. (I forgot the JSON report.)"
        if phase == "research" and slug == self.stays_invalid:
            return report_message(self.broken_json, prose="Cost notes.")
        return super().answer(slug, phase, round_, req)


class QualityGateOnStop(StagedDeliberation):
    """Scenario 6: the panel proposed one approach only, so Gate 2 (complexity handling) blocks
    the Stop. `comply=True`: the main agent reads the Stop feedback and re-ranks with a second
    alternative (round 2); `comply=False`: it ignores every feedback and keeps ending its turn."""

    ignoring_text = "I am confident in A; the deliberation is done."

    def __init__(self, reports: dict, waves: "tuple[Wave, ...]", comply: bool, mode: str = "install") -> None:
        super().__init__(reports, waves, mode)
        self.comply = comply

    def plan(self, req: ApiRequest) -> "list[Wave]":
        plan = list(self.waves)
        if self.comply and req.saw(GATE2_FAILED):
            plan.append(
                Wave(
                    "ranking",
                    tuple(self.waves[0].slugs),
                    round=2,
                    note="Re-rank with a second alternative, B (keep reading from the "
                    "pricing database), as the quality gate asks.",
                )
            )
        return plan

    def final(self, req: ApiRequest) -> ReplyLike:
        return concluding_answer(self.final_text, req) if self.comply else self.ignoring_text


class SpawnFlood(Scenario):
    """Scenario 5: ONE message with an Agent call per persona (research) plus `helpers`
    general-purpose agents, all foreground (or, with `background`, all in the client's default
    background mode); then the main agent reports what it got."""

    final_text = "Twelve agents reported; three spawns were refused by the spawn budget."

    def __init__(
        self,
        personas: "tuple[str, ...]",
        helpers: int,
        mode: str = "install",
        project: "Path | None" = None,
        background: bool = False,
    ) -> None:
        self.personas = personas
        self.helpers = helpers
        self.mode = mode
        self.project = project
        self.run_in_background = None if background else False  # None: the client's default

    def all_spawns_decided(self, timeout: float = 20.0) -> None:
        """Hold a subagent's answer until the plugin has decided every spawn of the flood.

        The budget counts ACTIVE children: an agent that finished before the last PreToolUse
        was decided frees its slot, and the client does start allowed agents while other
        PreToolUse hooks are still running. Holding the replies makes the scenario test the
        burst itself (15 requests against 12 free slots) on a machine of any speed."""
        if self.project is None:
            return
        wanted = len(self.personas) + self.helpers
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            decided = 0
            for log in (self.project / STATE_DIR / "sessions").glob("*/events.jsonl"):
                decided += sum(
                    1
                    for r in read_jsonl(log)
                    if r.get("event") == "PreToolUse" and (r.get("payload") or {}).get("tool_name") in ("Agent", "Task")
                )
            if decided >= wanted:
                return
            time.sleep(0.05)

    def main(self, req: ApiRequest) -> ReplyLike:
        if agent_spawns(req):
            return self.final_text
        blocks: list = [text(f"Spawning {len(self.personas) + self.helpers} agents at once.")]
        wave = Wave("research", self.personas)
        for slug in self.personas:
            blocks.append(
                agent_call(
                    wave_prompt(wave, slug),
                    agent_type(slug, self.mode),
                    description=f"{slug} research",
                    run_in_background=self.run_in_background,
                )
            )
        for n in range(1, self.helpers + 1):
            blocks.append(
                agent_call(
                    f"PERSONA: helper-{n}\nList the pricing call sites in orders/.",
                    "general-purpose",
                    description=f"helper {n}",
                    run_in_background=self.run_in_background,
                )
            )
        return blocks

    def subagent(self, req: ApiRequest) -> ReplyLike:
        self.all_spawns_decided()
        slug = persona_of(req) or ""
        if slug.startswith("helper-"):
            return f"{slug}: orders/pricing_client.py is the only call site."
        finding = f"{slug}: price reads dominate the checkout path from my perspective."
        return report_message(
            research_report(finding, "bench/checkout_p99.txt", [CACHE, DATABASE], preferred="A"), prose=f"{slug}: research done."
        )


PAIR = ("security-analyst", "performance-engineer")
# one approach only: both personas propose the same per-node cache
SINGLE_APPROACH = {
    ("security-analyst", "research"): research_report(
        "A per-node cache serves a withdrawn promotion price until its TTL expires.",
        "pricing/promotions.py:88",
        [CACHE],
        preferred="A",
        confidence=0.55,
    ),
    ("performance-engineer", "research"): research_report(
        "Price reads are 38 % of the checkout p99 latency (41 ms of 108 ms).",
        "bench/checkout_p99.txt",
        [CACHE],
        preferred="A",
        confidence=0.65,
    ),
    # round 1, one approach: both approve it (nothing to weigh it against: the verdict is the
    # position) → 2 / 2.2 = 0.9091 (strong): Gate 1 passes; round 2: A over B by 0.6 and 4.4 →
    # 1.6 / 1.8 = 0.8889
    ("security-analyst", "ranking", 1): ranking_report({"A": 8.4}, preferred="A"),
    ("performance-engineer", "ranking", 1): ranking_report({"A": 9.4}, preferred="A"),
    ("security-analyst", "ranking", 2): ranking_report({"A": 8.4, "B": 7.8}, preferred="A"),
    ("performance-engineer", "ranking", 2): ranking_report({"A": 9.4, "B": 5.0}, preferred="A"),
}
PAIR_CONSENSUS = 0.8889
PAIR_FIRST_CONSENSUS = 0.9091
