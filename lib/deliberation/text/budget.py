"""The spawn budget's words: refusals of a spawn, a resume or a workflow, and the loud notices
when agents no hook could refuse passed it (core/spawn_budget.py holds the figures)."""

from __future__ import annotations

# how a Workflow run is described when the plugin did not see its call, or when it is resumed
UNSEEN_RUN = "seen only through its agents' transcripts"
RESUMED_RUN = " (a resumed run: agents it replays from its cache count too)"

CONFIG_HINT = ".claude/deliberation/config.json"


def who(parent: str) -> str:
    return "the main agent" if parent == "main" else f"agent {parent}"


def active_refusal(parent: str, active: int, max_active: int, types: "list[str]", reserved: int) -> str:
    held = f", {reserved} of them held for a running workflow" if reserved else ""
    return (
        f"Spawn budget: {who(parent)} already has {active} of {max_active} active subagents "
        f"({', '.join(types)}{held}). Wait for some to finish (their reports arrive as "
        "they complete), then spawn again — or raise spawn_budget.max_active_children in "
        f"{CONFIG_HINT}."
    )


def total_refusal(used: int, max_total: int, reserved: int, what: str = "a new subagent") -> str:
    held = f", {reserved} held for running workflows" if reserved else ""
    return (
        f"Spawn budget: this session has started {used} of the {max_total} subagents it "
        f"may start in all{held}, so {what} is refused. Do the remaining work in this agent without "
        "spawning, or ask the user to raise spawn_budget.max_session_total in "
        f"{CONFIG_HINT} (resuming a finished agent with SendMessage is not a new subagent)."
    )


def depth_refusal(subagent_type: str, depth: int, max_depth: int) -> str:
    return (
        f"Nesting limit: a {subagent_type} subagent here would be at depth {depth} > "
        f"{max_depth}. Do this work in the current agent instead of spawning, or raise "
        f"spawn_budget.max_depth in {CONFIG_HINT}."
    )


def resume_refusal(label: str, parent: str, active: int, max_active: int) -> str:
    return (
        f"Spawn budget: resuming {label} would make it active again, but "
        f"{who(parent)} already has {active} of {max_active} "
        "active subagents. Wait for some to finish (their reports arrive as they complete), then "
        "send the message again."
    )


def slots_left(parent: str, left: int, active: int, max_active: int, used: int, max_total: int) -> str:
    return (
        f"{left} spawn slot(s) are left ({who(parent)}: {active} of {max_active} active; "
        f"this session: {used} of {max_total} started or held)"
    )


def workflow_unbounded(bound_why: str, slots: str) -> str:
    return f"its agent count cannot be bounded before it runs ({bound_why}); {slots}"


def workflow_too_big(bound: int, bound_why: str, slots: str) -> str:
    return f"it can start up to {bound} agents ({bound_why}); {slots}"


def passed_running(parent: str, running: int, max_active: int) -> str:
    return f"{who(parent)} has {running} subagents running at once (budget {max_active})"


def passed_total(started: int, max_total: int) -> str:
    return f"this session has started {started} subagents (budget {max_total} in all)"


def workflow_overrun(name: str, passed: str) -> str:
    """The first agent of a running workflow that passed the budget."""
    what = f"workflow {name!r}" if name else "a workflow"
    return (
        f"⚠ SPAWN BUDGET PASSED by {what}: {passed}. Its agents were started by the workflow "
        "script, which no hook can stop once it runs; they are counted in the lineage. New Agent "
        "spawns and workflows are refused while the budget is passed (running agents free their slots as "
        "they finish; the session total does not come back)."
    )


def unannounced_overrun(passed: str, subagent_type: str) -> str:
    """An agent whose start no hook announced (no PreToolUse) passed the budget."""
    return (
        f"⚠ SPAWN BUDGET PASSED: {passed}, by a subagent ({subagent_type}) whose start no hook "
        "announced, so none could refuse it. It is counted in the lineage; new spawns are refused "
        "while the budget is passed."
    )


def workflow_finished(name: str, overrun: int, agents: int, max_active: int, max_total: int) -> str:
    """A workflow that passed the budget has ended: how many of its agents did."""
    return (
        f"⚠ Spawn budget: workflow {name!r} finished; {overrun} of its {agents} "
        f"agents started past the budget ({max_active} active per parent, "
        f"{max_total} per session). They are recorded in the lineage; keep further work "
        "within the budget."
    )


def workflow_size_warning(bound: "int | None", why: str, left: int) -> str:
    """Outside a deliberation: a workflow that can start more agents than the slots left."""
    size = f"up to {bound} agents" if bound is not None else "any number of agents (the client stops at 1000)"
    return (
        f"⚠ Spawn budget: this workflow can start {size} ({why}) and {left} spawn slot(s) are "
        "left. Its agents run even past the budget — no hook can stop a workflow's agents — and "
        "each is counted; if they pass it, new spawns are refused and you will be told."
    )


def workflow_named_agents(named: "list[str]") -> str:
    """Outside a deliberation: a workflow that starts persona or role agents (not recorded)."""
    return (
        f"Note: its agents of type {', '.join(named)} are not part of any deliberation (their "
        "reports are not recorded); to deliberate, spawn the personas with the Agent tool."
    )
