"""The status of a deliberation agent, a lineage spawn, a resume and a workflow run: every
transition the hooks make, named after what decides it (pure).

    AgentRecord  spawned → running (started, launched) → reported | invalid (capture.py,
                 ended_without_report, expired) ; spawned|running → refused (spawn_failed)
    Spawn        requested → running (launched; lineage.start on SubagentStart) → completed | failed
    Resume       requested → resumed | delivered | failed (message_answered, message_failed)
                 resumed → started (resume_started); requested|resumed|delivered → started
                 when the finished agent runs again (restart_started)
    WorkflowRun  requested|running → not_launched (workflow_not_launched)
"""

from __future__ import annotations

from deliberation.core.depth import axis as depth_axis
from deliberation.state.models import AgentRecord, Deliberation, Resume, Spawn, WorkflowRun
from deliberation.text import reports as report_words

RUNNING = ("spawned", "running")


def started(rec: "AgentRecord | None") -> None:
    """SubagentStart: the agent runs."""
    if rec is not None and rec.status == "spawned":
        rec.status = "running"


def launched(spawn: "Spawn | None", rec: "AgentRecord | None", now: float) -> None:
    """A background launch (PostToolUse `async_launched`): the spawn and its agent run."""
    if spawn is not None and spawn.status == "requested":
        spawn.status = "running"
        spawn.started_at = now
    started(rec)


def ended_without_report(rec: AgentRecord, status: "str | None") -> None:
    """A foreground agent's tool call ended other than completed: it will not report."""
    rec.status = "invalid"
    rec.problem = report_words.ended_without_report(status)


def not_handed_back(rec: AgentRecord, now: float) -> None:
    """An auto-mode agent ended without handing its report back (the client's task notification
    says so): it will not report."""
    rec.status = "invalid"
    rec.reported_at = now
    rec.problem = rec.problem or report_words.NOT_HANDED_BACK


def spawn_failed(delib: Deliberation, rec: AgentRecord, error: str, now: float) -> bool:
    """The client refused a spawn PreToolUse allowed (PostToolUseFailure): its record is marked
    refused, so no Stop waits for it and a corrected retry is not counted twice."""
    if rec.status not in RUNNING:
        return False
    rec.status = "refused"
    rec.problem = report_words.spawn_failed(error.strip()[:300])
    delib.updated_at = now
    if rec.tier == 2:
        depth_axis.refresh_counts(delib, check=False)
    return True


def expired(delib: Deliberation, now: float, stale_after_s: float) -> None:
    """A spawn never seen to run for `stale_after_s` will not report: stop waiting for it."""
    for rec in delib.agents:
        if rec.status in RUNNING and now - rec.spawned_at > stale_after_s:
            rec.status = "invalid"
            rec.problem = report_words.no_report_within(stale_after_s)


def resume_started(entry: "Resume | None") -> None:
    """The resumed agent's SubagentStart: the resume PostToolUse announced has begun."""
    if entry is not None and entry.status == "resumed":
        entry.status = "started"


def restart_started(entry: "Resume | None") -> None:
    """A finished agent starts again: the pending SendMessage (asked for, resumed or queued)
    is the one that restarted it."""
    if entry is not None:
        entry.status = "started"


def message_answered(entry: Resume, sent: bool, resumed: bool) -> None:
    """SendMessage's PostToolUse: the client resumed the agent, queued the message for a running
    one (it resumes if it finishes first), or did not send it. A SubagentStart that came first
    has already marked the resume started."""
    if entry.status != "requested":
        return
    entry.status = "failed" if not sent else ("resumed" if resumed else "delivered")


def message_failed(entry: "Resume | None") -> None:
    """SendMessage's PostToolUseFailure: the message was not sent."""
    if entry is not None and entry.status == "requested":
        entry.status = "failed"


def workflow_not_launched(run: "WorkflowRun | None", now: float) -> bool:
    """The client did not run a workflow our hook allowed: its reservation goes."""
    if run is None or run.status not in ("requested", "running"):
        return False
    run.status, run.finished_at = "not_launched", now
    return True
