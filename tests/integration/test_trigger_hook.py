"""The trigger through the UserPromptSubmit hook script."""

from __future__ import annotations

from tests.helpers import payloads as P
from tests.helpers.factories import approve_config
from tests.helpers.project import write_config


def test_trigger_off_still_honours_an_explicit_deliberate(project, hook):
    write_config(project, {"trigger": {"enabled": False}})
    approve_config(project)  # switching the trigger off waits for this user's approval (test_committed_settings)
    sid = "f0f0f0f0-0000-4000-8000-000000000003"
    risky = (
        "We are unsure which approach fits: should we redesign the architecture of our auth system and "
        "migrate all customer data irreversibly in production, depending on how legacy clients behave?"
    )
    assert hook("UserPromptSubmit", P.prompt(sid, risky)).context is None  # switched off: not scored into a protocol
    forced = hook("UserPromptSubmit", P.prompt(sid, "/deliberate " + risky))
    assert forced.context and forced.context.startswith("DELIBERATION PROTOCOL")
