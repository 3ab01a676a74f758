"""A background deliberation agent's task notification that changes nothing asks for no turn (pure).

Every finished background agent's task notification costs the main agent one model request, and
while the rest of its wave still runs that request can only say "waiting". A UserPromptSubmit
answer `{"continue": false, "stopReason": R}` makes the client skip the request and keep the
notification: it reaches the model with the next request, after "Operation stopped by hook: R"
(measured on Claude Code 2.1.328, docs/HOOK_ANSWERS.md). A quiet answer given wrongly would stall
the deliberation — no notification left to start the turn — so it is given only when every one
of these holds; any other notification is a turn with the normal answer:

- the switch is on (`deliberation.quiet_waiting`);
- the prompt is one task notification, status `completed`, of a background agent of the
  session's active deliberation, and the first for that agent (a repeat — a resumed agent, or a
  notification the client held back and sends again — is a turn);
- its report was accepted (recorded `reported`: not sent back, not invalid);
- the main agent is idle: its last turn ended (a Stop the plugin let through) after every agent
  of the deliberation was spawned. Mid-turn a notification costs no request of its own (the
  client adds it to the running turn's next request), and a quiet answer there only defers it;
- nothing is due for the main agent now: no queued news to say (a gate result, a depth step, a
  spawn-budget notice: news.py), no workflow of the session still open;
- more will come: at least one agent of the deliberation is still to arrive, and every one still
  to arrive is a background agent the client confirmed launched (`running`, and listed running by
  the last Stop) or that has finished with its notification pending — the client notifies for
  each of them, so the next notification gives the turn. The next accepted step is then to wait
  (next_step.next_step says "wait" whenever a result is still to arrive).
"""

from __future__ import annotations

from dataclasses import dataclass

from deliberation.core import next_step
from deliberation.state.models import AgentRecord, Deliberation


@dataclass(frozen=True)
class Notification:
    """What the task notification says, as the shell read it."""
    count: int       # <task-notification> blocks in the prompt
    status: str      # its <status>, lower case
    repeat: bool     # the agent's result had reached the main agent before this one


@dataclass(frozen=True)
class Client:
    """What the plugin knows of the client's side (session state)."""
    idle_since: "float | None"          # the main agent's last turn ended then (None: it runs)
    running_at_stop: "list[str] | None"  # the background tasks the last Stop listed running
    news_due: bool                      # a notice would be said now
    open_workflows: bool                # a Workflow run of the session is still open
    now: float
    stale_after_s: float                # a pending notification older than this is not counted on


@dataclass(frozen=True)
class Quiet:
    """No turn now: the notification waits in the conversation for the next one."""
    deliberation: str
    persona: str
    stage: str
    have: int                # reports of that stage the main agent has, this one included
    of: int                  # agents of that stage
    waiting_for: "tuple[str, ...]"  # personas still to arrive


@dataclass(frozen=True)
class Speak:
    """A turn with the normal answer. `why` (for the event log): switch_off, unattributed,
    not_first_single_completed, report_not_accepted, news_due, turn_open, wave_done,
    may_not_notify (`who`: the agents no notification is sure to come from)."""
    why: str
    who: "tuple[str, ...]" = ()


Outcome = Quiet | Speak


def decide(enabled: bool, delib: "Deliberation | None", rec: "AgentRecord | None", note: Notification,
           client: Client) -> Outcome:
    """Quiet when the notification changes nothing the main agent must act on (module docstring)."""
    if not enabled:
        return Speak("switch_off")
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
    return Quiet(deliberation=delib.id, persona=rec.persona, stage=rec.stage, have=len(have), of=of,
                 waiting_for=tuple(dict.fromkeys(a.persona for a in coming)))


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
