"""The spawn tree of a session (pure operations over `state.Lineage`).

Who spawned whom: the parent is the calling subagent's `agent_id` from the PreToolUse payload,
or "main" when absent. The child's `agentId` is linked through PostToolUse's `tool_use_id`
(exact) or, earlier, through SubagentStart (which carries the agent type but no tool_use_id:
the oldest unlinked request of that type is taken, and PostToolUse corrects it).
A child is active from its request until it finishes (SubagentStop, or a completed
PostToolUse); a request never seen to start stops counting after `stale_after_s`.
"""

from __future__ import annotations

from deliberation.personas import normalise_agent_type
from deliberation.state import Lineage, Spawn

MAIN = "main"
ACTIVE = ("requested", "running")


def find_by_tool_use(lineage: Lineage, tool_use_id: "str | None") -> "Spawn | None":
    if not tool_use_id:
        return None
    for spawn in lineage.spawns:
        if spawn.tool_use_id == tool_use_id:
            return spawn
    return None


def find_by_agent(lineage: Lineage, agent_id: "str | None") -> "Spawn | None":
    if not agent_id:
        return None
    for spawn in lineage.spawns:
        if spawn.agent_id == agent_id:
            return spawn
    return None


def depth_of(lineage: Lineage, agent_id: "str | None") -> int:
    """Depth of an agent: main is 0; unknown agents count as depth 1."""
    if not agent_id or agent_id == MAIN:
        return 0
    spawn = find_by_agent(lineage, agent_id)
    return spawn.depth if spawn else 1


def is_active(spawn: Spawn, now: float, stale_after_s: float) -> bool:
    if spawn.status not in ACTIVE:
        return False
    if spawn.status == "requested" and now - spawn.requested_at > stale_after_s:
        return False
    return True


def active_children(lineage: Lineage, parent: str, now: float, stale_after_s: float) -> "list[Spawn]":
    return [s for s in lineage.spawns if s.parent == parent and is_active(s, now, stale_after_s)]


def record_request(lineage: Lineage, *, tool_use_id: "str | None", parent: str, subagent_type: str,
                   kind: "str | None", deliberation_id: "str | None", depth: int, background: bool,
                   now: float) -> Spawn:
    spawn = Spawn(tool_use_id=tool_use_id, parent=parent, subagent_type=subagent_type, kind=kind,
                  deliberation_id=deliberation_id, depth=depth, background=background,
                  requested_at=now)
    lineage.spawns.append(spawn)
    return spawn


def link(lineage: Lineage, tool_use_id: "str | None", agent_id: "str | None") -> "Spawn | None":
    """PostToolUse: the exact tool_use_id → agentId link. Moves a guessed link if needed."""
    spawn = find_by_tool_use(lineage, tool_use_id)
    if spawn is None or not agent_id:
        return spawn
    if spawn.agent_id != agent_id:
        other = find_by_agent(lineage, agent_id)
        if other is not None and other is not spawn:
            # SubagentStart guessed the wrong request of the same type: swap the guesses
            other.agent_id, spawn.agent_id = spawn.agent_id, agent_id
            other.status, spawn.status = spawn.status, other.status
            other.started_at, spawn.started_at = spawn.started_at, other.started_at
        else:
            spawn.agent_id = agent_id
    return spawn


def mark_started(lineage: Lineage, agent_id: "str | None", agent_type: "str | None", now: float) -> "Spawn | None":
    """SubagentStart: link to the oldest unlinked request of the same type, mark it running."""
    if not agent_id:
        return None
    spawn = find_by_agent(lineage, agent_id)
    if spawn is None:
        wanted = normalise_agent_type(agent_type)
        for candidate in lineage.spawns:
            if (candidate.agent_id is None and candidate.status == "requested"
                    and normalise_agent_type(candidate.subagent_type) == wanted):
                spawn = candidate
                spawn.agent_id = agent_id
                break
    if spawn is not None and spawn.status == "requested":
        spawn.status = "running"
        spawn.started_at = now
    return spawn


def mark_finished(lineage: Lineage, *, agent_id: "str | None" = None, tool_use_id: "str | None" = None,
                  now: float, failed: bool = False) -> "Spawn | None":
    spawn = find_by_agent(lineage, agent_id) or find_by_tool_use(lineage, tool_use_id)
    if spawn is not None and spawn.status in ACTIVE:
        spawn.status = "failed" if failed else "completed"
        spawn.finished_at = now
    return spawn
