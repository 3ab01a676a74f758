"""The words of a Workflow script's analysis: why the most agents a script can start has no
bound, each reason at the script line it was found on.

core/workflow_plan.py reads the script's tokens and decides which construct makes the count
unknown; it passes the case, the line and the construct's name here.
"""

from __future__ import annotations

UNBOUNDED = {
    "spread": "an object spread of unknown size",
    "for": "a for loop whose iteration count is not known",
    "array_from": "Array.from() of unknown length",
    "pipeline": "pipeline() over items whose number is not known before the script runs",
    "workflow": "a nested workflow() call",
    "while": "an agent() call in a while condition",
    "nested": "a nested workflow() call (its agents share this run)",
    "renamed": "agent is given another name",
}


def unbounded(line: int, case: str, name: str = "") -> str:
    """Why the script's agent count has no bound, at `line`. `case`: a key of UNBOUNDED, or loop
    (an agent() call in a `name` loop), over (.`name`() over a list of unknown size), callback
    (a function handed to `name`(), which may call it more than once)."""
    if case == "loop":
        why = f"an agent() call inside a {name} loop"
    elif case == "over":
        why = f".{name}() over a list whose size is not known before the script runs"
    elif case == "callback":
        why = f"a function handed to {name}(), which may call it more than once"
    else:
        why = UNBOUNDED[case]
    return f"line {line}: {why}"
