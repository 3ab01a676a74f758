"""What the person reads about the settings of config.json that wait for their approval.

`state/consent.py` decides which committed values wait (every value that loosens, and every
setting no rule classifies) and keeps the approvals; this module says
it: why each setting waits, how a value is shown before it is approved, the line a session start
and a hook's warnings carry, the line `deliberation doctor` and `deliberation config` print, and
the command that approves. Every sentence names the setting, says that its default applies
meanwhile, and gives the next step (`deliberation trust`, run in a terminal). Standard library
only: the session start's fast path says it.
"""

from __future__ import annotations

import json

from deliberation.names import inert

# why a committed value of each setting waits, in the direction state/consent.RULES calls loosening
WHY = {
    "strict": "turns the plugin's own errors into blocks and denials of your session",
    "lock_timeout_s": "changes how long a hook waits for a state lock: shorter gives up (and checks nothing) "
    "sooner, longer holds your session",
    "trigger.enabled": "switches off the trigger, the session-start self-rating and the mid-task net that "
    "notices a force-push or a production delete with no deliberation on record",
    "trigger.threshold": "moves the bar at which a prompt starts a deliberation: lower lets risky prompts "
    "through unremarked, higher starts deliberations the default would not (billed to you)",
    "trigger.high_dimension": "moves the level at which a dimension counts as high, so other prompts trigger",
    "trigger.force_markers": "changes which words force a deliberation (an added word starts one on every "
    "prompt that begins with it; a removed one no longer forces)",
    "trigger.vocabularies": "replaces the words that make a prompt start a deliberation",
    "trigger.extra_terms": "adds words that make a prompt start a deliberation",
    "trigger.self_rating": "leaves out the session-start instruction that has the agent deliberate on a risky "
    "decision it meets mid-task",
    "trigger.tool_net": "lets a force-push, a production delete or a production migration with no deliberation "
    "on record run before anyone confirms it (note: the model is told after it ran; off: unremarked)",
    "task_types.thresholds": "lowers the consensus a decision of that task type needs to pass",
    "task_types.keywords": "replaces the words that classify a question (a security question could be read "
    "as documentation, with its lower bar)",
    "ranking.dimensions": "changes what the blind ranking scores and how much each counts",
    "deliberation.min_agents": "lets a phase pass with fewer completed agents",
    "deliberation.min_distinct_personas": "lets fewer distinct perspectives pass Gate 2",
    "deliberation.min_alternatives": "lets fewer generated approaches pass Gate 2",
    "deliberation.max_report_bytes": "accepts larger agent reports than the default",
    "deliberation.report_retries": "sends an invalid report back more often (more agent turns, billed to you)",
    "gates.stop_block_limit": "lets a deliberation stop after fewer held Stops",
    "gates.strong": "lowers the consensus called strong",
    "gates.moderate": "lowers the consensus called moderate",
    "gates.require_improvement": "drops Gate 2's check that the panel converged from research to ranking",
    "gates.acceptable_level": "lowers the score below which the leading approach is the best of weak options",
    "conformity.clustering_window": "narrows the score clustering that counts as herding",
    "conformity.min_agents_for_clustering": "needs more ranking agents before score clustering is checked",
    "conformity.near_threshold_margin": "narrows the band near the threshold that counts as suspicious",
    "conformity.templated_similarity": "needs more similar concerns before they count as templated",
    "conformity.same_reasoning_similarity": "needs more similar rationales before they count as the same reasoning",
    "conformity.conflicting_pairs": "drops persona pairs whose unanimous approval is suspicious",
    "isolation.enabled": "lets a research prompt carry another agent's findings",
    "isolation.leak_threshold": "lets more of another agent's findings into a research prompt",
    "isolation.blind_ranking": "lets a ranking prompt carry the vote (a leader, scores, other verdicts)",
    "isolation.complete_findings": "lets a synthesis or debate run without every research finding",
    "spawn_budget.max_active_children": "lets more than 12 subagents run at once per parent",
    "spawn_budget.max_session_total": "lets one session start more than 60 subagents",
    "spawn_budget.max_depth": "lets agents nest deeper than 3 levels",
    "spawn_budget.stale_after_s": "stops counting a spawn never seen to start sooner, so more may run",
    "depth.posture": "narrows or switches off the depth axis that investigates contested points",
    "depth.per_task_type": "switches the depth axis off for a task type the default deepens",
    "depth.workers_per_wave": "starts fewer tier-2 workers per hot spot",
    "depth.agent_budget": "changes how many extra agents the depth axis may start per deliberation "
    "(more are billed to you, fewer investigate less)",
    "depth.token_budget": "changes how many subagent tokens the depth axis may spend per deliberation",
    "depth.max_hot_spots": "deepens fewer hot spots per wave",
    "escalation.policy": "changes which rules send a decision to a person",
    "escalation.unanimous_confidence": "needs a more confident unanimous pass before it goes to a person",
    "escalation.risky_tools": "no longer holds some of Edit, Write, MultiEdit, Bash, NotebookEdit for your yes "
    "while a decision awaits you",
    "escalation.probe_failure": "changes what a failing probe does",
    "escalation.known_reversal": "changes what a decision of a class reversed before does",
    "escalation.probes": "runs commands on this machine as you, at the Stop that completes a deliberation",
    "escalation.probe_budget_s": "lets the Stop hook's probes run longer",
    "escalation.class_tags": "replaces the words that classify a decision for the reversal registry",
    "models.diverse": "runs personas on the models of models.pool, billed at their price",
    "models.pool": "changes the models personas may run on, billed at their price",
    "retention.max_age_days": "deletes this project's session folders and their event logs after fewer days "
    "untouched than the default 30",
    "retention.max_total_mb": "deletes the oldest session folders and their event logs beyond a total smaller "
    "than the default 100 MB",
    "env.DELIBERATION": "switches the plugin off for every session in this project (its .claude/settings.json "
    "env sets DELIBERATION)",
}
UNCLASSIFIED = "is not known to make the plugin stricter (no rule classifies this setting)"


def why(name: str) -> str:
    return WHY.get(name, UNCLASSIFIED)


def shown(name: str, value: object, width: int = 300) -> str:
    """The value as a person reads it before approving it (a probe's command in full, one per line)."""
    if name == "escalation.probes" and isinstance(value, list):
        lines = []
        for p in value:
            cmd = p.get("command") if isinstance(p, dict) else p
            label = p.get("name") if isinstance(p, dict) else "?"
            lines.append(
                "      probe %s: %s" % (inert(json.dumps(label), None), inert(json.dumps(cmd, ensure_ascii=False), None))
            )
        return "\n" + "\n".join(lines)
    text = inert(json.dumps(value, ensure_ascii=False), None)  # what a repository wrote: nothing in it acts
    return text if len(text) <= width else text[: width - 1] + "…"


def _one_line(name: str, value: object, width: int) -> str:
    return " ".join(shown(name, value, width).split())


def command(project: str) -> str:
    """The command that approves this project's waiting settings (the path as one shell word)."""
    from deliberation.names import command_word

    return "deliberation trust --project " + command_word(project)


def awaiting(waiting: "list[tuple[str, object]]", project: str) -> str:
    """The session start's line (and a hook's warning once the config changed): which settings
    wait, why, and the command that approves them. '' when none wait."""
    if not waiting:
        return ""
    listed = "; ".join("%s = %s (%s)" % (name, _one_line(name, value, 160), why(name)) for name, value in waiting)
    return (
        "deliberation: this project's committed settings (.claude/deliberation/config.json, its .claude/settings.json "
        "env) ask for %d setting(s) that take "
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
