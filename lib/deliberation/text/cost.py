"""The words of what a deliberation cost: the one summary sentence the user and the decision
record read, what the figures count, and a duration as people read it.

core/cost.py computes the figures (tokens per agent, the multiples, the money at the configured
prices) as a plain dict; this module words that dict.
"""

from __future__ import annotations

from typing import Any

NOT_COUNTED_NOTE = "the main agent's own tokens (orchestration, the decision document) are not counted"
MAIN_COUNTED_NOTE = (
    "the main agent's own calls from the prompt that asked for the deliberation to its conclusion "
    "(orchestration, the decision document) are counted from its transcript, apart"
)


def counted(main_counted: bool) -> str:
    """What the token figures count (`main_counted`: the main agent's calls were read too)."""
    return (
        "every API call of each subagent (input, cache writes, cache reads, output), summed from its "
        "transcript when the deliberation concluded; " + (MAIN_COUNTED_NOTE if main_counted else NOT_COUNTED_NOTE)
    )


def duration(seconds: "float | None") -> str:
    if seconds is None:
        return "—"
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s"
    return f"{s // 3600} h {(s % 3600) // 60} min"


def summary_line(u: "dict[str, Any]", wall: bool = True) -> str:
    """One sentence for the user and the record: agents, tokens, × one agent, wall time, money.
    `wall=False` leaves the wall time out (the Stop hook's message: a replay of the same events
    must give the same answers, and a clock reading would differ)."""
    parts = [f"Cost: {u['agents']} subagent(s), {u['total_tokens']:,} tokens"]
    if u["multiple_of_one_agent"] is not None:
        parts[0] += (
            f" ({u['multiple_of_one_agent']:.1f}× one research agent's {u['one_agent_tokens']:,}, the "
            "cost of one agent studying the question alone)"
        )
    main, cps = u.get("main_agent"), u.get("checkpoints")
    if main is not None:
        with_cp = f", the workflow's checkpoints and drafter {cps['tokens']:,}" if cps else ""
        parts.append(
            f"with the main agent's {main['calls']} call(s) ({main['tokens']:,} tokens{with_cp}) "
            f"{u['deliberation_tokens']:,} tokens in all"
            + (
                f", {u['multiple_with_main']:.1f}× one agent answering alone (the main agent's first call "
                f"on the question, {u['single_answer_tokens']:,})"
                if u["multiple_with_main"]
                else ""
            )
            + f"; the main agent's share {u['main_share']:.0%}"
        )
    if wall:
        parts.append(f"wall time {duration(u['wall_time_s'])}")
    m = u["money"]
    if m is not None:
        parts.append(
            f"≈ {m['amount']:.2f} {m['currency']} at the configured prices of {m['as_of']} ({m['source']})"
            + (f", {m['agents_not_priced']} agent(s) not priced" if m["agents_not_priced"] else "")
        )
    else:
        parts.append("no amount: no prices configured")
    gaps = []
    if u["agents_last_response_only"]:
        gaps.append(f"{u['agents_last_response_only']} counted from their last response only")
    if u["agents_not_counted"]:
        gaps.append(f"{u['agents_not_counted']} not counted")
    if gaps:
        parts.append("of the subagents " + " and ".join(gaps) + " (no readable transcript)")
    if main is not None:
        return "; ".join(parts) + "."
    return "; ".join(parts) + f". ({NOT_COUNTED_NOTE[0].upper() + NOT_COUNTED_NOTE[1:]}.)"
