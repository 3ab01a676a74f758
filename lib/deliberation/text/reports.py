"""What a subagent is told when its report is not accepted, and the warning an invalid report
leaves on its deliberation.

The rules (core/capture.py) check a report against its stage — the schema's problems come
worded from state/agent_report.py — and pass the figures here: the stage spawned for and the
one reported, the approach and dimensions at fault.
"""

from __future__ import annotations


def wrong_phase(stage: str, reported: str) -> str:
    return (
        f"You were spawned for the {stage} stage, but your report says phase "
        f'"{reported}". Set "phase": "{stage}" and give what that stage needs.'
    )


NO_FINDING = "A research report needs at least one finding (id, claim, evidence, severity)."
UNDOCUMENTED_REJECT = "You rejected, so document your dissent: `dissent` entries with concern AND reason."
NO_HOT_SPOTS = (
    'A tier-2 report must list the hot spot ids it addressed in `hot_spots` (e.g. ["H1"]), '
    "with refutations targeting them where you found counter-evidence."
)


def no_scores(dimensions: "list[str]") -> str:
    return f"A ranking report needs `scores`: every approach named in your prompt, each scored 0-10 on {', '.join(dimensions)}."


def dimensions_missing(approach: str, missing: "list[str]", dimensions: "list[str]") -> str:
    return (
        f"Approach {approach!r} lacks the dimension(s) {', '.join(missing)}: score every "
        f"approach on all of {', '.join(dimensions)} (0-10)."
    )


def out_of_range(approach: str, dimensions: "list[str]") -> str:
    return f"Approach {approach!r}: scores must be within 0-10 ({', '.join(dimensions)} is not)."


def ballot_contradicts(stated: str, top: str, top_score: float, stated_score: float, weights: "dict[str, float]") -> str:
    """A ranking ballot whose stated preference its own weighted scores contradict."""
    total = sum(weights.values()) or 1.0
    listed = ", ".join(f"{d} {w / total:.2f}" for d, w in sorted(weights.items(), key=lambda x: (-x[1], x[0])))
    return (
        f"Your preferred_approach is {stated}, but your own scores put {top} first: weighted ({listed}) "
        f"{top} {top_score:.2f}, {stated} {stated_score:.2f}. The vote reads a preference your scores contradict "
        f"as support of no weight. Make them agree: if you prefer {stated}, score each approach on each dimension "
        f"as you judge it (where {stated} is better, its scores must say so); if your scores are right, state "
        f"{top}. Asked once: your next report is recorded as it is."
    )


def with_shape(problem: str, shape: str, example: str, again: str) -> str:
    """A stage problem with the report's fields (`example`) and the whole message again (`again`):
    its prose reaches the main agent."""
    return f"{problem}\nThe {shape} report's fields:\n{example}\n{again}"


def send_back(problem: str) -> str:
    """The SubagentStop block that sends a report back to its agent."""
    return "Deliberation plugin: your report was not accepted. " + problem


def recorded_invalid(who: str, send_backs: int, problem: str) -> str:
    """The deliberation's warning when a report stays invalid (`problem`: its first line)."""
    return f"{who}: report recorded as invalid after {send_backs} send-back(s): {problem}"


# --------------------------------------------------------------------------------------------
# an agent that will not report: what its record says


def ended_without_report(status: "str | None") -> str:
    """A foreground agent's tool call ended other than completed."""
    return f"the agent ended with status {status!r} and no report"


NOT_HANDED_BACK = (
    "it ended without handing a report back with SubagentHandback, so the client delivered nothing "
    "(in auto mode a final message is not delivered)"
)


def spawn_failed(error: str) -> str:
    """The client refused a spawn the plugin allowed (`error`: the client's error text)."""
    return f"the spawn failed: {error or 'no error text'}"


def no_report_within(seconds: float) -> str:
    """A spawn never seen to run within the configured time."""
    return f"no report within {seconds}s of the spawn"
