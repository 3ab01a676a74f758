"""quiet_wait.py: a task notification asks for no turn only when it changes nothing and another
one is sure to come; every other notification is a turn."""

from __future__ import annotations

import pytest

from deliberation.core import quiet_wait
from deliberation.core.quiet_wait import Client, Notification, Quiet, Speak
from tests.helpers import payloads as P

REPORT = {
    "findings": [{"id": "F1", "claim": "a claim", "evidence": "a.md:1"}],
    "approaches": [{"id": "A", "title": "Cache"}, {"id": "B", "title": "Read through"}],
    "verdict": "approve",
}
PERSONAS = ("security-analyst", "performance-engineer", "cost-analyst", "ux-advocate")
FIRST = Notification(count=1, status="completed", repeat=False)


def wave(notified: int = 1, running: "tuple[str, ...]" = PERSONAS[1:], background: bool = True):
    """Four background research agents spawned at 10: the first `notified` reported and announced
    (the first is the one the notification is about), the rest running or reported."""
    agents = []
    for i, persona in enumerate(PERSONAS):
        rec = P.agent_record(
            persona,
            "research",
            None if persona in running and i >= notified else REPORT,
            background=background,
            key=f"a{i}",
            spawned_at=10.0,
        )
        rec.notified = i < notified
        agents.append(rec)
    return P.make_deliberation(agents, phase="RESEARCH"), agents[0]


def client(**kw) -> Client:
    base = dict(
        idle_since=20.0,
        running_at_stop=["a0", "a1", "a2", "a3"],
        news_due=False,
        open_workflows=False,
        now=30.0,
        stale_after_s=900.0,
    )
    return Client(**{**base, **kw})


def test_a_report_accepted_while_the_rest_of_its_wave_runs_asks_for_no_turn():
    d, rec = wave()
    out = quiet_wait.decide(True, d, rec, FIRST, client())
    assert out == Quiet(
        deliberation=d.id,
        persona="security-analyst",
        stage="research",
        have=1,
        of=4,
        waiting_for=("performance-engineer", "cost-analyst", "ux-advocate"),
    )


def test_agents_that_finished_with_their_notification_pending_count_as_coming():
    d, rec = wave(running=())  # all four reported; three notifications still on their way
    out = quiet_wait.decide(True, d, rec, FIRST, client(running_at_stop=[]))
    assert isinstance(out, Quiet) and out.waiting_for == PERSONAS[1:]


def test_the_last_notification_of_the_wave_is_a_turn():
    d, rec = wave(notified=4, running=())
    assert quiet_wait.decide(True, d, rec, FIRST, client()) == Speak("wave_done")


def test_the_switch_turns_it_off():
    d, rec = wave()
    assert quiet_wait.decide(False, d, rec, FIRST, client()) == Speak("switch_off")


def test_a_notification_the_plugin_cannot_attribute_is_a_turn():
    d, rec = wave()
    assert isinstance(quiet_wait.decide(True, None, None, FIRST, client()), Speak)
    assert isinstance(quiet_wait.decide(True, d, None, FIRST, client()), Speak)


@pytest.mark.parametrize(
    "note",
    [
        Notification(count=2, status="completed", repeat=False),  # two notifications in one prompt
        Notification(count=1, status="failed", repeat=False),  # the agent failed: the main agent may re-spawn
        Notification(count=1, status="killed", repeat=False),
        Notification(count=1, status="completed", repeat=True),  # a resumed agent, or one the client re-sends
    ],
)
def test_only_a_first_single_completed_notification_may_be_quiet(note):
    d, rec = wave()
    assert isinstance(quiet_wait.decide(True, d, rec, note, client()), Speak)


@pytest.mark.parametrize("status", ["invalid", "running", "refused"])
def test_a_report_sent_back_or_not_recorded_is_a_turn(status):
    d, rec = wave()
    rec.status = status
    assert quiet_wait.decide(True, d, rec, FIRST, client()) == Speak("report_not_accepted")


def test_a_superseded_or_foreground_report_is_a_turn():
    d, rec = wave()
    rec.superseded = True
    assert isinstance(quiet_wait.decide(True, d, rec, FIRST, client()), Speak)
    d, rec = wave()
    rec.background = False
    assert isinstance(quiet_wait.decide(True, d, rec, FIRST, client()), Speak)


def test_news_for_the_main_agent_or_an_open_workflow_is_a_turn():
    d, rec = wave()
    assert quiet_wait.decide(True, d, rec, FIRST, client(news_due=True)) == Speak("news_due")
    assert quiet_wait.decide(True, d, rec, FIRST, client(open_workflows=True)) == Speak("news_due")


def test_while_the_main_agents_turn_is_open_it_is_a_turn():
    """Mid-turn a notification costs no request of its own, and a quiet answer only defers it."""
    d, rec = wave()
    assert quiet_wait.decide(True, d, rec, FIRST, client(idle_since=None)) == Speak("turn_open")
    # an agent spawned after the last Stop: that turn has not ended yet
    d.agents[3].spawned_at = 25.0
    assert quiet_wait.decide(True, d, rec, FIRST, client()) == Speak("turn_open")


def test_an_agent_the_client_did_not_list_running_may_never_notify():
    d, rec = wave()
    out = quiet_wait.decide(True, d, rec, FIRST, client(running_at_stop=["a0", "a1", "a2"]))
    assert out == Speak("may_not_notify", ("ux-advocate",))
    assert isinstance(quiet_wait.decide(True, d, rec, FIRST, client(running_at_stop=None)), Speak)


def test_a_spawn_never_seen_to_launch_or_a_foreground_one_is_not_counted_on():
    d, rec = wave()
    d.agents[2].status = "spawned"  # PreToolUse allowed it; no launch was seen (a permission may refuse it)
    assert isinstance(quiet_wait.decide(True, d, rec, FIRST, client()), Speak)
    d, rec = wave()
    d.agents[2].background = False
    assert isinstance(quiet_wait.decide(True, d, rec, FIRST, client()), Speak)


def test_a_pending_notification_older_than_the_stale_bound_is_not_counted_on():
    d, rec = wave(running=())
    out = quiet_wait.decide(True, d, rec, FIRST, client(now=5000.0))
    assert out == Speak("may_not_notify", PERSONAS[1:])


def test_refused_spawns_are_not_waited_for():
    d, rec = wave(running=("ux-advocate",))
    for a in d.agents[1:3]:
        a.notified = True
    d.agents[3].status = "refused"  # the client refused it after PreToolUse: nothing to wait for
    assert quiet_wait.decide(True, d, rec, FIRST, client()) == Speak("wave_done")


def test_a_hand_back_message_always_gets_its_turn():
    """Held with `continue: false`, a wave's last hand-back got no model request (measured)."""
    delib, rec = wave()
    note = Notification(count=0, status="completed", repeat=False, handback=True)
    assert quiet_wait.decide(True, delib, rec, note, client()) == Speak("handback")
