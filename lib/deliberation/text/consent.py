"""What the person reads about the settings of config.json that wait for their approval.

`state/consent.py` decides which committed values wait and keeps the approvals; this module says
it: why each setting waits, how a value is shown before it is approved, the line a session start
and a hook's warnings carry, the line `deliberation doctor` and `deliberation config` print, and
the command that approves. Every sentence names the setting, says that its default applies
meanwhile, and gives the next step (`deliberation trust`, run in a terminal). Standard library
only: the session start's fast path says it.
"""

from __future__ import annotations

import json

# why a committed value of each setting waits (state/consent.GATED names when it does)
WHY = {
    "escalation.probes": "runs commands on this machine as you, at the Stop that completes a deliberation",
    "trigger.force_markers": "every prompt that starts with one of these words starts a deliberation",
    "trigger.threshold": "above 0.70 prompts the default leaves alone start a deliberation",
    "trigger.high_dimension": "below 0.6 more prompts count as high on a dimension and trigger",
    "trigger.vocabularies": "replaces the words that make a prompt start a deliberation",
    "trigger.extra_terms": "adds words that make a prompt start a deliberation",
    "trigger.enabled": "switches off the trigger, the session-start self-rating and the mid-task net that "
    "notices a force-push or a production delete with no deliberation on record",
    "trigger.self_rating": "leaves out the session-start instruction that has the agent deliberate on a risky "
    "decision it meets mid-task",
    "trigger.tool_net": "switches off the mid-task net: a force-push, a production delete or a production "
    "migration with no deliberation on record goes unremarked",
    "strict": "turns the plugin's own errors into blocks and denials of your session",
    "spawn_budget.max_active_children": "lets more than 12 subagents run at once per parent",
    "spawn_budget.max_session_total": "lets one session start more than 60 subagents",
    "spawn_budget.max_depth": "lets agents nest deeper than 3 levels",
    "depth.agent_budget": "lets the depth axis start more than 6 extra agents per deliberation",
    "depth.token_budget": "lets the depth axis spend more than 400000 subagent tokens per deliberation",
    "models.diverse": "runs personas on the models of models.pool, billed at their price",
    "retention.max_age_days": "deletes this project's session folders and their event logs after fewer days "
    "untouched than the default 30",
    "retention.max_total_mb": "deletes the oldest session folders and their event logs beyond a total smaller "
    "than the default 100 MB",
}


def why(name: str) -> str:
    return WHY.get(name, "changes what the plugin runs or deletes")


def shown(name: str, value: object, width: int = 300) -> str:
    """The value as a person reads it before approving it (a probe's command in full, one per line)."""
    if name == "escalation.probes" and isinstance(value, list):
        lines = []
        for p in value:
            cmd = p.get("command") if isinstance(p, dict) else p
            label = p.get("name") if isinstance(p, dict) else "?"
            lines.append("      probe %s: %s" % (json.dumps(label), json.dumps(cmd, ensure_ascii=False)))
        return "\n" + "\n".join(lines)
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 1] + "…"


def _one_line(name: str, value: object, width: int) -> str:
    return " ".join(shown(name, value, width).split())


def command(project: str) -> str:
    """The command that approves this project's waiting settings (the path as one shell word)."""
    import shlex

    return "deliberation trust --project " + shlex.quote(project)


def awaiting(waiting: "list[tuple[str, object]]", project: str) -> str:
    """The session start's line (and a hook's warning once the config changed): which settings
    wait, why, and the command that approves them. '' when none wait."""
    if not waiting:
        return ""
    listed = "; ".join("%s = %s (%s)" % (name, _one_line(name, value, 160), why(name)) for name, value in waiting)
    return (
        "deliberation: this project's .claude/deliberation/config.json asks for %d setting(s) that take "
        "effect only after you approve them — %s. Until then their defaults apply. To approve exactly this "
        "content, run in a terminal: %s" % (len(waiting), listed, command(project))
    )


def doctor_line(name: str, value: object, project: str) -> str:
    """`deliberation doctor`'s finding for one waiting setting."""
    return "awaiting your approval: %s = %s — %s; its default applies until you run, in a terminal: %s" % (
        name,
        _one_line(name, value, 200),
        why(name),
        command(project),
    )


def config_line(name: str, value: object, project: str) -> str:
    """`deliberation config`'s line for one waiting setting."""
    return "awaiting approval: %s = %s (%s) — its default applies until you run, in a terminal: %s" % (
        name,
        _one_line(name, value, 200),
        why(name),
        command(project),
    )


def trust_item(name: str, value: object) -> str:
    """`deliberation trust`'s listing of one setting before it asks."""
    return "  %s = %s\n      why it needs approval: %s" % (name, shown(name, value), why(name))
