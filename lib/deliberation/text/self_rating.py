"""The model's own confidence: how the agent rates a decision it meets, told once per session.

The hook's scorer sees only the user's prompt; a risky decision that comes up in the middle of
a task (a migration the plan turns out to need, a permission model the code forces) reaches no
hook as a prompt. So at session start the agent is told, in a few lines, to rate such a decision
the way the trigger does — four dimensions, one combination — and, below the trigger's bar (a
strict task type's consensus bar where that is higher), to start the deliberation itself
through the plugin's command (the Skill tool), which the PreToolUse hook answers with the
protocol; and, before an irreversible step the user already decided, to say what it will lose
and get the user's yes (no deliberation). A self-rating is a suggestion; the hook's scorer and
the mid-task net (core/tool_net.py) are the enforcement. Imports only the defaults: it is said
on the fast path of every SessionStart.
"""

from __future__ import annotations

from deliberation import catalogue, defaults

MAX_BYTES = 1024  # always-on context: every session pays for it (docs/TRIGGER.md counts it)


def text(thresholds: "dict | None" = None, prefix: str = "", trigger: "float | None" = None) -> str:
    """The instruction for this install: `thresholds` (task type → consensus bar, the configured
    ones), `prefix` the plugin form's namespace ("" for a project install), `trigger` the
    prompt scorer's threshold. The agent's bar is the scorer's, raised to a strict type's
    consensus bar: a lenient type's bar (documentation 0.50) is the consensus a panel needs, never
    a licence to decide alone — a real-model trial read "documentation 0.50" here against the
    scorer's "below 0.70" and asked which one held."""
    bars = {**defaults.CONFIG["task_types"]["thresholds"], **(thresholds or {})}
    floor = float(defaults.CONFIG["trigger"]["threshold"] if trigger is None else trigger)
    raised = [(t, float(bars[t])) for t in defaults.TASK_TYPES if t != catalogue.DEFAULT_TASK_TYPE and float(bars[t]) > floor]
    listed = "".join(f" ({', '.join(f'{t} {b:.2f}' for t, b in raised)})" if raised else "")
    return (
        "Deliberation plugin: when you meet a decision (security, data, money, a migration, anything "
        "irreversible, architecture), in the prompt or mid-task, rate it 0-1 on ambiguity, complexity, "
        "stakes and context dependence (facts you lack). Confidence = 1 - 0.3 x the highest - 0.3 x each "
        f"other one at 0.6 or more (a share of it from 0.4: 0.5 counts half). Below {floor:.2f}{listed} do not decide alone: call the Skill tool "
        f'with skill "{prefix}deliberate" and args = the decision in one sentence, then follow the '
        "protocol it returns (when the plugin's protocol for this decision is already in your context, "
        "follow that one: no Skill call). An irreversible step the user already decided (force-push, deleting "
        "data, a refund, a production change) needs no rating: first tell them what it will lose and get their yes. "
        "Routine edits, questions and docs need no rating."
    )
