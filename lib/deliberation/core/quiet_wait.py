"""A background deliberation agent's task notification that changes nothing asks for no turn (pure).

While the rest of a wave runs, a notification's model request can only say "waiting". Answered
`{"continue": false, "stopReason": R}`, the client makes no request and keeps the notification
for the next one, after "Operation stopped by hook: R" (measured on 2.1.328, docs/HOOK_ANSWERS.md).
Given wrongly it would stall the deliberation, so `decide` is Quiet only when all of these hold,
else the normal answer gives the turn: the switch is on (`deliberation.quiet_waiting`); the
prompt is one `completed` notification, the first of a background agent of the active
deliberation, whose report was accepted; the main agent is idle — its last turn ended (a Stop
the plugin let through) after every spawn of the deliberation, since mid-turn a notification
costs no request and `continue: false` only defers it; no news is due and no workflow is open;
and more will come — every agent still to arrive is a background agent listed running by that
Stop, or one that finished lately with its notification pending.

A hand-back message (`<agent-message>`, auto mode) always gets its turn: answered `continue: false`,
the first two of a wave of three were held as for task notifications, but the third, answered
with the news, got no model request and the interactive session stalled (measured on 2.1.332 with
the plugin; docs/CLIENT_CHANNELS.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from deliberation.core import next_step
from deliberation.state.models import AgentRecord, Deliberation


@dataclass(frozen=True)
class Notification:
    """What the task notification says, as the shell read it."""

    count: int  # <task-notification> blocks in the prompt
    status: str  # its <status>, lower case
    repeat: bool  # the agent's result had reached the main agent before this one
    handback: bool = False  # an <agent-message> (a hand-back), not a task notification


@dataclass(frozen=True)
class Client:
    """What the plugin knows of the client's side (session state)."""

    idle_since: "float | None"  # the main agent's last turn ended then (None: it runs)
    running_at_stop: "list[str] | None"  # the background tasks the last Stop listed running
    news_due: bool  # a notice would be said now
    open_workflows: bool  # a Workflow run of the session is still open
    now: float
    stale_after_s: float  # a pending notification older than this is not counted on


@dataclass(frozen=True)
class Quiet:
    """No turn now: the notification waits in the conversation for the next one."""

    deliberation: str
    persona: str
    stage: str
    have: int  # reports of that stage the main agent has, this one included
    of: int  # agents of that stage
    waiting_for: "tuple[str, ...]"  # personas still to arrive


@dataclass(frozen=True)
class Speak:
    """A turn with the normal answer. `why` (for the event log): switch_off, handback, unattributed,
    not_first_single_completed, report_not_accepted, news_due, turn_open, wave_done,
    may_not_notify (`who`: the agents no notification is sure to come from)."""

    why: str
    who: "tuple[str, ...]" = ()


Outcome = Quiet | Speak


def decide(enabled: bool, delib: "Deliberation | None", rec: "AgentRecord | None", note: Notification, client: Client) -> Outcome:
    """Quiet when the notification changes nothing the main agent must act on (module docstring)."""
    if not enabled:
        return Speak("switch_off")
    if note.handback:
        return Speak("handback")
    if delib is None or rec is None:
        return Speak("unattributed")
    if note.count != 1 or note.status != "completed" or note.repeat:
        return Speak("not_first_single_completed")
    if not rec.background or rec.status != "reported" or rec.superseded:
        return Speak("report_not_accepted")
    if client.news_due or client.open_workflows:
        return Speak("news_due")
    if client.idle_since is None or any(a.spawned_at > client.idle_since for a in delib.agents):
        return Speak("turn_open")
    coming = next_step.to_arrive(delib)
    if not coming:
        return Speak("wave_done")
    unsure = [a for a in coming if not _will_notify(a, client)]
    if unsure:
        return Speak("may_not_notify", tuple(a.persona for a in unsure))
    have, of = next_step.stage_given(delib, rec.stage)
    return Quiet(
        deliberation=delib.id,
        persona=rec.persona,
        stage=rec.stage,
        have=len(have),
        of=of,
        waiting_for=tuple(dict.fromkeys(a.persona for a in coming)),
    )


def _will_notify(agent: AgentRecord, client: Client) -> bool:
    """The client will send this agent's task notification: a background agent that finished
    lately with its notification pending, or that runs as the client itself listed at the last
    Stop."""
    if not agent.background or agent.notified:
        return False
    if agent.status in ("reported", "invalid"):
        return client.now - (agent.reported_at or agent.spawned_at) <= client.stale_after_s
    listed = client.running_at_stop
    return agent.status == "running" and agent.agent_id is not None and listed is not None and agent.agent_id in listed
