"""Task notifications that change nothing ask for no turn: main-agent requests with the real client.

Four background research agents finish one after another, each after the previous notification
was handled (the main agent is idle each time). Without the quiet wait every notification is a
model request that can only say "waiting"; with it the first three answer `continue: false` and
the last one's request carries all four notifications, the three stop reasons and the plugin's
progress note. A second run lets three agents finish at once (the client hands their
notifications over together): the last of them still gives the turn, nothing stalls. The same
wave in an interactive session (a pseudo-terminal) costs the same requests as with `-p`.
Each child is released by the plugin's event log (synchronised on events, never on sleeps).
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from fake_api import as_reply
from harness import agent_type, assert_clean, install_into_project, read_jsonl, run_claude_interactive
from scenarios import PersonaPanel, report, report_message

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PERSONAS = ("security-analyst", "performance-engineer", "cost-analyst", "ux-advocate")
PROMPT = (
    "DELIBERATE: Should the billing service replace server-side sessions with short-lived JWT access "
    "tokens? Revocation, latency and a hard-to-reverse migration are at stake."
)
STOPPED = "Operation stopped by hook: "
WAIT_S = 120.0


def reports() -> dict:
    return {
        slug: report(
            summary=f"{slug} reviewed the token migration.",
            findings=[
                {
                    "id": "F1",
                    "claim": f"{slug}: revocation needs a deny list.",
                    "evidence": f"docs/{slug}.md:3",
                    "severity": "medium",
                }
            ],
        )
        for slug in PERSONAS
    }


class Staggered(PersonaPanel):
    """Child i reports once the plugin has handled `release[i]` task notifications and the main
    agent is idle: the last UserPromptSubmit/Stop the plugin logged is a Stop or a quiet answer."""

    def __init__(self, project: Path, mode: str, release: "tuple[int, ...]") -> None:
        super().__init__(reports(), agent_types={s: agent_type(s, mode) for s in PERSONAS}, background=True)
        self.state = project / ".claude" / "deliberation" / "sessions"
        self.release = release
        self.late: list[str] = []

    def _idle_after(self, handled: int) -> bool:
        rows = [
            r for p in self.state.glob("*/events.jsonl") for r in read_jsonl(p) if r.get("event") in ("UserPromptSubmit", "Stop")
        ]
        notes = [
            r
            for r in rows
            if r["event"] == "UserPromptSubmit" and "<task-notification>" in str(r.get("payload", {}).get("prompt", ""))
        ]
        if len(notes) < handled or not rows:
            return False
        last = rows[-1]
        return last["event"] == "Stop" or bool(last.get("answer", {}).get("stop_reason"))

    def persona_reply(self, slug, req):
        reply = as_reply(report_message(self.personas[slug], prose=f"{slug} findings."))
        reply.hold = lambda: self._wait(slug)  # waits outside the stand-in's lock
        return reply

    def _wait(self, slug: str) -> None:
        end = time.monotonic() + WAIT_S
        while not self._idle_after(self.release[PERSONAS.index(slug)]):
            if time.monotonic() > end:
                self.late.append(slug)
                return
            time.sleep(0.1)


def waiting_requests(run) -> "tuple[int, object]":
    """Main-agent requests that brought task notifications, up to the first that has all four;
    and that request."""
    count = 0
    for req in run.main_requests:
        if any("<task-notification>" in json.dumps(m) for m in req.new_messages):
            count += 1
        if len(set(re.findall(r"<task-id>([^<]+)</task-id>", req.all_text))) >= len(PERSONAS):
            return count, req
    return count, None


def configure(project: Path, config: "dict | None") -> None:
    state = project / ".claude" / "deliberation"
    state.mkdir(parents=True, exist_ok=True)
    (state / "config.json").write_text(json.dumps({"depth": {"posture": "off"}, **(config or {})}))


def all_notified(log) -> bool:
    """A main-agent request carries all four task notifications."""
    return any(len(set(re.findall(r"<task-id>([^<]+)</task-id>", r.all_text))) >= len(PERSONAS) for r in log.main_requests)


def run_panel(run_claude, e2e_project, release, config=None):
    configure(e2e_project.path, config)
    scenario = Staggered(e2e_project.path, "install", release)
    run = run_claude(e2e_project, PROMPT, scenario, timeout=300)
    assert scenario.late == [], f"children released by timeout: {scenario.late}\n{run.describe()}"
    return run


def quiet_answers(run) -> "list[str]":
    return [
        e["answer"]["stop_reason"]
        for e in run.events()
        if e.get("event") == "UserPromptSubmit" and e.get("answer", {}).get("stop_reason")
    ]


def test_staggered_notifications_cost_one_main_request_instead_of_four(run_claude, e2e_project):
    run = run_panel(run_claude, e2e_project, release=(0, 1, 2, 3))
    info = run.describe()
    assert_clean(run)
    count, last = waiting_requests(run)
    assert last is not None, info
    quiet = quiet_answers(run)
    print(
        f"\nQUIET staggered 4: main requests with notifications {count}, quiet answers {len(quiet)}, "
        f"main requests in all {len(run.main_requests)}"
    )
    assert count == 1, f"{count} main requests brought the four notifications\n{info}"
    assert len(quiet) == 3, quiet
    # that one request has every report, every stop reason and the plugin's progress note
    for slug in PERSONAS:
        assert f"{slug} reviewed the token migration." in last.all_text, info
    for reason in quiet:
        assert STOPPED + reason in last.all_text, info
    assert "Reports you have: research 4 of 4" in last.all_text, info
    assert "still to report" in quiet[0] and "ux-advocate" in quiet[0]


def test_with_the_switch_off_every_notification_is_a_turn(run_claude, e2e_project):
    run = run_panel(run_claude, e2e_project, release=(0, 1, 2, 3), config={"deliberation": {"quiet_waiting": False}})
    assert_clean(run)
    count, last = waiting_requests(run)
    print(f"\nQUIET off staggered 4: main requests with notifications {count}, main requests in all {len(run.main_requests)}")
    assert last is not None and quiet_answers(run) == []
    assert count == 4, run.describe()


def test_notifications_handed_over_together_still_end_in_a_turn(run_claude, e2e_project):
    """Three agents finish at once after the first notification: whatever the client batches,
    the last notification gives the turn and carries all four."""
    run = run_panel(run_claude, e2e_project, release=(0, 1, 1, 1))
    info = run.describe()
    assert_clean(run)
    count, last = waiting_requests(run)
    print(f"\nQUIET together 1+3: main requests with notifications {count}, quiet answers {len(quiet_answers(run))}")
    assert last is not None, info
    assert "Reports you have: research 4 of 4" in last.all_text, info
    assert count <= 2, info


@pytest.mark.parametrize("quiet", [True, False], ids=["quiet", "switch-off"])
def test_an_interactive_session_waits_the_same_way(claude_bin, fake_api, e2e_project, hook_python, quiet):
    install_into_project(e2e_project.path, hook_python)
    configure(e2e_project.path, {"deliberation": {"quiet_waiting": quiet}})
    scenario = Staggered(e2e_project.path, "install", (0, 1, 2, 3))
    run = run_claude_interactive(
        claude_bin,
        fake_api,
        e2e_project.path,
        e2e_project.home,
        e2e_project.tmp,
        PROMPT,
        scenario,
        done=all_notified,
        timeout=300,
    )
    info = run.describe()
    assert run.notes == [] and scenario.late == [], info
    assert run.plugin_errors() == "", run.plugin_errors()[-3000:]
    count, last = waiting_requests(run)
    quiet_said = quiet_answers(run)
    print(
        f"\nQUIET interactive ({'on' if quiet else 'off'}) staggered 4: main requests with notifications "
        f"{count}, quiet answers {len(quiet_said)}"
    )
    assert last is not None and "Reports you have: research 4 of 4" in last.all_text, info
    assert count == (1 if quiet else 4), info
    assert len(quiet_said) == (3 if quiet else 0)
    assert all(STOPPED + reason in last.all_text for reason in quiet_said), info
