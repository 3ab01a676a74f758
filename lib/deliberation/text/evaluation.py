"""The words of `deliberation eval`: the table of each policy's capture of past misses, the
excluded and skipped rows, and with a hold-out the hold-out and control lines.

core/evaluation.py replays the history and computes the figures (an `Evaluation`); this module
lays them out for the person who runs the command.
"""

from __future__ import annotations

from typing import Any

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from typing import Sequence


def pct(x: "float | None") -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def ratio(n: int, d: int) -> str:
    """`97.9% (92/94)`, or `n/a (0/0)`."""
    return f"{pct(n / d if d else None)} ({n}/{d})"


def render_table(ev: Any) -> str:
    """The readable table, in the reference tables' terms: capture %, still auto-passed %, true passes
    escalated %; with a hold-out, the hold-out line and the control line of each policy."""
    head = ("policy", "n", "MISS capture", "MISS still auto-passed", "true passes escalated")
    body = [
        (
            r.policy,
            str(r.n),
            ratio(r.misses_escalated, r.misses),
            ratio(r.misses_auto_passed, r.misses),
            ratio(r.true_passes_escalated, r.true_passes),
        )
        for r in ev.results
    ]
    widths = [max(len(x) for x in col) for col in zip(head, *body)]

    def fmt(cells: "Sequence[str]") -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()

    lines = [fmt(head), fmt(tuple("-" * w for w in widths))] + [fmt(b) for b in body]
    lines.append(
        f"{ev.rows} rows, {ev.rows - len(ev.excluded)} evaluated, "
        f"{len(ev.excluded)} excluded (no votes and no confidence)"
        + (f", {len(ev.skipped)} malformed line(s) skipped" if ev.skipped else "")
    )
    for s in ev.skipped:
        lines.append(f"  skipped {s}")
    if ev.holdout:
        lines.append(f"hold-out {', '.join(ev.holdout)} (removed from the registry):")
        for r in ev.results:
            lines.append(f"  {r.policy}: caught {r.holdout_misses_escalated} of {r.holdout_misses} hold-out misses")
        lines.append("control (the other classes, registry as given):")
        for r in ev.results:
            lines.append(
                f"  {r.policy}: misses caught {ratio(r.control_misses_escalated, r.control_misses)}, "
                f"true passes escalated {ratio(r.true_passes_escalated, r.true_passes)}"
            )
    return "\n".join(lines)


def bad_row(rule: str, got: Any = None) -> str:
    """Why one line of the history file is refused: the `rule` it breaks (a key's, or `not_json`,
    `not_object`, `missing`, `unknown`) and what it holds instead (`got`)."""
    if rule == "not_json":
        return f"not JSON ({got})"
    if rule == "not_object":
        return f"a JSON {got}, not an object"
    if rule in ("missing", "unknown"):
        return f"{rule} key(s): {', '.join(got)}"
    if rule in ("id", "class"):
        return f"'{rule}' must be a non-empty string"
    if rule == "decision":
        return f'\'decision\' must be "pass" or "fail", got {got!r}'
    if rule == "bad":
        return f"'bad' must be true or false, got {got!r}"
    if rule == "votes":
        return '\'votes\' must be null or a list of "pass"/"fail"'
    if rule == "confidence":
        return f"'confidence' must be null or a number in [0, 1], got {got!r}"
    return f'\'probe\' must be null, "pass" or "fail", got {got!r}'
