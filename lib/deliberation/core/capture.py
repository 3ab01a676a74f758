"""Capturing a subagent's report into its deliberation (pure over `state.AgentRecord`).

Foreground agents fire SubagentStop and then PostToolUse with the same text, a background
agent's report may also arrive in a `<task-notification>`, and a report handed back with the
SubagentHandback tool (auto mode) reaches the hooks at that call and again in the main agent's
`<agent-message>` turn: each report is recorded exactly once.
A missing, unparsable or invalid report is sent back to the subagent (a SubagentStop block)
with a reason that says precisely what is wrong; when it is still invalid on the retry
(`stop_hook_active`, or the retry budget spent) it is recorded as invalid — never a loop.
Only the documented fields count: the persona comes from the agent type recorded at spawn,
the stage from the phase at spawn; a report cannot promote itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from deliberation.core.ranking import weighted_score
from deliberation.state.agent_report import (
    AgentReport,
    ReportProblem,
    again,
    example,
    extract_report,
    report_from_data,
    shape_of,
)
from deliberation.state.models import AgentRecord, Deliberation
from deliberation.text import reports as words

FIXED = ("recorded", "duplicate", "send_back", "invalid")


@dataclass
class Outcome:
    status: str  # one of FIXED
    send_back: "str | None" = None


def semantic_problem(agent: AgentRecord, report: AgentReport, dimensions: "list[str]") -> "str | None":
    """Stage-specific requirements a schema cannot express."""
    if report.phase != agent.stage:
        return words.wrong_phase(agent.stage, report.phase)
    if agent.stage == "research" and not report.findings:
        return words.NO_FINDING
    if agent.stage == "ranking":
        if not report.scores:
            return words.no_scores(dimensions)
        for approach, dims in sorted(report.scores.items()):
            missing = [d for d in dimensions if d not in dims]
            if missing:
                return words.dimensions_missing(approach, missing, dimensions)
            out = [d for d, v in dims.items() if not 0 <= v <= 10]
            if out:
                return words.out_of_range(approach, out)
        if report.verdict == "reject" and not report.dissent:
            return words.UNDOCUMENTED_REJECT
    if agent.kind == "lens" and not report.hot_spots:
        return words.NO_HOT_SPOTS
    return None


BALLOT_MARGIN = 0.05  # weighted points: a stated preference this far below the ballot's own top contradicts it


def ballot_problem(report: AgentReport, weights: "dict[str, float]") -> "str | None":
    """A ranking ballot that contradicts itself: it approves and states an approach that its own
    weighted scores put below another by BALLOT_MARGIN or more. The consensus reads such a
    preference as support of no firmness (its margin is negative): a real-model trial's three
    rankers all approved A and scored B 0.3 higher each, and a unanimous panel became
    "NO CONSENSUS 0.00". Asked once (`first_look`), never a loop."""
    if report.phase != "ranking" or report.verdict != "approve" or not weights:
        return None
    stated = report.preferred_approach
    if stated not in report.scores:
        return None
    weighted: "dict[str, float]" = {}
    for a, d in report.scores.items():
        w = weighted_score(d, weights)
        if w is not None:
            weighted[a] = w
    mine = weighted.get(stated)
    if mine is None:
        return None
    top, best = max(weighted.items(), key=lambda x: (x[1], x[0] == stated))
    if top == stated or best - mine < BALLOT_MARGIN:
        return None
    return words.ballot_contradicts(stated, top, best, mine, weights)


def first_look(agent: AgentRecord, report: object, weights: "dict[str, float]", may_ask: bool = True) -> "str | None":
    """`ballot_problem`, on an agent's first report only (no send-back yet): the second report is
    recorded as it is."""
    if not may_ask or agent.send_backs or not isinstance(report, AgentReport):
        return None
    return ballot_problem(report, weights)


def check_text(
    agent: AgentRecord,
    text: str,
    *,
    max_bytes: int,
    dimensions: "list[str]",
    handback: bool = False,
    can_hand_back: bool = False,
) -> "tuple[object, list[str], str | None]":
    """A report given as text — a final message, or a SubagentHandback call's message
    (`handback`) — checked without filing it: (report, ignored keys, problem); problem None =
    valid, else what to fix, worded for the channel it came through (`can_hand_back`: the agent
    has the SubagentHandback tool, so a report sent again goes there)."""
    shape = shape_of(agent.kind, agent.stage)
    try:
        report, ignored = extract_report(
            text, max_bytes, shape, handback=handback, can_hand_back=can_hand_back, dimensions=dimensions
        )
    except ReportProblem as exc:
        return None, [], str(exc)
    problem = semantic_problem(agent, report, dimensions)
    if problem is not None:  # the fix, and the whole message again (its prose reaches the main agent)
        problem = words.with_shape(problem, shape, example(shape, dimensions), again(handback, can_hand_back))
    return report, ignored, problem


def capture(
    delib: Deliberation,
    agent: AgentRecord,
    text: str,
    *,
    stop_hook_active: bool,
    max_bytes: int,
    retries: int,
    dimensions: "list[str]",
    now: float,
    handback: bool = False,
    can_hand_back: bool = False,
    weights: "dict[str, float] | None" = None,
) -> Outcome:
    if agent.status in ("reported", "invalid"):
        return Outcome("duplicate")
    report, ignored, problem = check_text(
        agent, text, max_bytes=max_bytes, dimensions=dimensions, handback=handback, can_hand_back=can_hand_back
    )
    if problem is None and weights:
        ballot = first_look(agent, report, weights, may_ask=retries > 0 and not stop_hook_active)
        if ballot is not None:
            problem = f"{ballot}\n{again(handback, can_hand_back)}"
    if problem is not None:
        agent.problem = problem
        if agent.send_backs < retries and not stop_hook_active:
            agent.send_backs += 1
            return Outcome("send_back", words.send_back(problem))
        agent.status = "invalid"
        agent.reported_at = now
        delib.warnings.append(
            words.recorded_invalid(f"{agent.persona} ({agent.agent_id or agent.key})", agent.send_backs, problem.splitlines()[0])
        )
        return Outcome("invalid")
    assert isinstance(report, AgentReport)
    file_report(delib, agent, report, ignored, now)
    return Outcome("recorded")


def check_data(
    agent: AgentRecord, data: object, *, max_bytes: int, dimensions: "list[str]"
) -> "tuple[object, list[str], str | None]":
    """A report given as data (a workflow agent's StructuredOutput): (report, ignored keys,
    problem) — the same model and the same stage rules as a fenced report; problem None = valid."""
    try:
        report, ignored = report_from_data(data, max_bytes)
    except ReportProblem as exc:
        return None, [], str(exc)
    return report, ignored, semantic_problem(agent, report, dimensions)


def file_report(delib: Deliberation, agent: AgentRecord, report: AgentReport, ignored: "list[str]", now: float) -> None:
    """Record a valid report on its agent; an earlier report of the same persona and stage (and
    tier, and red-team round) is superseded."""
    agent.report = report
    agent.ignored_keys = ignored
    agent.status = "reported"
    agent.problem = None
    agent.reported_at = now
    for other in delib.agents:
        if (
            other is not agent
            and other.persona == agent.persona
            and other.stage == agent.stage
            and other.tier == agent.tier
            and other.red_team_round == agent.red_team_round
            and other.status == "reported"
            and not other.superseded
        ):
            other.superseded = True
