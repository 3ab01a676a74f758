"""Against the real client: a scripted main agent that acts ONLY on what
the plugin's answers say completes the deliberation, foreground and background.

The main agent (`Obedient`) knows nothing of the protocol beyond what the plugin tells it
(tests/helpers/obedient.py reads it): its first wave is the first three personas the injected protocol
suggests, under the namespace the protocol names; every later step is the "Next:" directive of
the newest plugin text it received — a PostToolUse or task-notification context, a Stop hold,
a PreToolUse refusal — with each prompt built from what the directive asks for (the findings of
the reports it received, the plugin's approach list, the tier-2 prompts and items verbatim).
Its final answer is what the plugin tells it to tell the user. The panel (tests/helpers/obedient.py)
finds one missed angle, so the whole flow runs: research, synthesis and debate, the red-team
pass, three tier-2 workers, red team 2, blind ranking, the conclusion on a reversal-prone class
(human review). Foreground runs in the install form with `/deliberate`, background (the client's
default) in the plugin form with `DELIBERATE:`.
"""

from __future__ import annotations

import json
import re

import pytest

from fake_api import ApiRequest, ReplyLike, agent_call, text, tool_use
from harness import REPO
from scenarios import Scenario, agent_spawns
from tests.helpers import obedient as O

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

QUESTION = (
    "should the order service cache product prices in each node or keep reading them from "
    "the pricing database? The latency, cost and staleness trade-offs are unclear, the choice "
    "is hard to reverse and depends on load we have not measured."
)
RESEARCH_HAVE = re.compile(r"Reports you have: research (\d+) of (\d+)")
FLOOR = "Tier 1 is material, not the answer; agreeing again scores 0."
LEADING = re.compile(r"consensus gate passed — leading approach ([A-Z][\w:-]*)")


def message_texts(messages: "list[dict]") -> "list[str]":
    """What the model reads in `messages`: every text block and tool result, in order."""
    out = []
    for m in messages:
        if m.get("role") == "assistant":
            continue
        content = m.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        for b in blocks:
            if b.get("type") == "text":
                out.append(b.get("text", ""))
            elif b.get("type") == "tool_result":
                c = b.get("content")
                out.append(c if isinstance(c, str) else "\n".join(x.get("text", "") for x in c or []))
    return out


class Obedient(Scenario):
    def __init__(self, background: bool, project: str = "") -> None:
        self.background = background
        self.project = project

    def main(self, req: ApiRequest) -> ReplyLike:
        if not agent_spawns(req):
            proto = O.read_protocol("\n".join(message_texts(req.messages)))
            if proto is None:
                return "No deliberation protocol reached me: I answer directly."
            first = O.Directive(
                action="spawn", text="research", phase="research", agent_types=[proto.prefix + p for p in proto.panel[:3]]
            )
            return self.spawn(first, proto, req)
        d = O.newest_directive(message_texts(req.new_messages))
        if d is None or d.action == "wait":
            return "Waiting for what the plugin says next."
        if d.action == "spawn":
            proto = O.read_protocol("\n".join(message_texts(req.messages)))
            return self.spawn(d, proto, req)
        said = "\n".join(message_texts(req.messages))
        leading = LEADING.findall(said)
        if d.action == "document":
            decision = leading[-1] if leading else "(none)"
            call = O.handover_call(d.text, decision, self.project)
            if call is None:  # a request that names no Write call: the block ends the answer
                return O.concluding_answer(d.text, decision)
            return [text("Handing the decision document to the plugin, as it asks."), tool_use("Write", call)]
        return f"Decision: approach {leading[-1] if leading else '(none)'}." + (f" {d.tell_user}" if d.tell_user else "")

    def spawn(self, d: O.Directive, proto: O.Protocol, req: ApiRequest) -> list:
        reports = O.reports_in(message_texts(req.messages))
        blocks: list = [text(f"As the plugin says: {d.text.splitlines()[0][:200]}")]
        for agent_type in d.agent_types:
            blocks.append(
                agent_call(
                    O.prompt_for(d, agent_type, proto.question, reports),
                    agent_type,
                    description=f"{O.slug_of(agent_type)} {d.phase}",
                    run_in_background=None if self.background else False,
                )
            )
        return blocks

    def subagent(self, req: ApiRequest) -> ReplyLike:
        return O.report_message(O.scripted_answer(req.agent_prompt))


def reverse_class(project, task_type: str) -> None:
    from deliberation import SCHEMA_VERSION

    path = project.state_dir / "reversals.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(
            {
                "schema_version": SCHEMA_VERSION,
                "classes": {
                    task_type: {
                        "decision_class": task_type,
                        "reversals": 1,
                        "decisions": ["d-00000000-1"],
                        "reasons": ["rolled back after a stale-price incident"],
                    }
                },
            }
        ),
        encoding="utf-8",
    )


def plugin_said(req: ApiRequest) -> "list[str]":
    return O.plugin_texts(message_texts(req.new_messages))


@pytest.mark.parametrize("background", [False, True], ids=["foreground-install", "background-plugin"])
def test_an_obedient_main_agent_completes_the_deliberation(background, run_claude, e2e_project, plugin_copy):
    from deliberation.core import task_type

    mode = "plugin" if background else "install"
    prompt = ("DELIBERATE: " if background else "/deliberate ") + QUESTION
    reverse_class(e2e_project, task_type.classify(QUESTION))

    run = run_claude(e2e_project, prompt, Obedient(background, str(e2e_project.path)), mode=mode, timeout=240)

    info = run.describe()
    assert run.returncode == 0 and run.result.get("is_error") is False, info
    assert run.log.errors == [], info
    assert run.plugin_errors() == "", run.plugin_errors()[-3000:]
    assert run.undelivered_hook_output() == [], info
    (d,) = run.deliberations()
    assert d["phase"] == "COMPLETE", f"{d['phase']}: {d['failure_reasons']}\n{info}"
    assert [c["to_phase"] for c in d["phase_history"]] == ["RESEARCH", "DELIBERATION", "RANKING", "PRD_GENERATION", "COMPLETE"]
    roles = sorted((a["persona"], a["stage"], a["tier"]) for a in d["agents"])
    # the one hot spot is a missed angle: evidence-chase and edge-case-hunt dig into it, and
    # counter-model (no explanation there to rival) is not spawned — 12 agents
    assert (
        len(roles) == 12
        and ("red-team", "deliberation", 2) in roles
        and [r for r in roles if r[0] == "edge-case-hunt"] == [("edge-case-hunt", "deliberation", 2)]
    ), roles
    assert all(a["background"] is background for a in d["agents"])
    assert run.state_json("sessions/{sid}/lineage.json")["denied"] == []  # no step it was told was refused
    assert d["decision"] == "A" and d["route"]["route"] == "human-review", d["route"]
    holds = [
        e["answer"]["reason"]
        for e in run.events()
        if e.get("event") == "Stop" and (e.get("answer") or {}).get("decision") == "block"
    ]
    assert holds == [], holds  # told with the request, the answer carried the review notice: no hold
    # the document went over the Write call the request named (both install forms reach the hook),
    # was recorded from the call and never written; the answer the user read is prose
    assert (d["prd"]["status"], d["prd"]["via"], d["prd"]["send_backs"]) == ("accepted", "write", 0), d["prd"]
    assert [x["tool_name"] for x in run.result["permission_denials"]] == ["Write"]
    assert not (run.state_dir / "documents").exists()
    assert "```" not in run.text and '"document"' not in run.text, run.text
    stats = run.subagent_stats
    assert (stats["spawned"], stats["completed"]) == (12, 12), info

    mains = run.main_requests
    # points 5 and 6: the protocol once, its question line without the trigger word
    first = "\n".join(message_texts(mains[0].messages))
    assert first.count(O.HEADER) == 1 and first.count(FLOOR) == 1, first[-4000:]
    assert f"\nQuestion: {QUESTION}\n" in first and "Question: /deliberate" not in first and "Question: DELIBERATE" not in first
    # point 3: nothing reads as a failure by form, and no command line or path of the plugin
    plugin_root = str(plugin_copy) if background else str(REPO)
    for r in run.requests:
        body = json.dumps(r.body)
        assert "hook blocking error" not in body and "Stop hook feedback" not in body, r
        assert plugin_root not in body and "hooks/run.sh" not in body and "/hooks/" not in body, r
    # point 7: before its final answer the main agent read that the decision awaits review — with
    # the request for the document, and again when the plugin recorded it ...
    told = [r for r in mains if r.saw(f"Route: when deliberation {d['id']} closes, its decision goes to HUMAN REVIEW")]
    assert told and told[-1] is mains[-1], info
    recorded = [
        r
        for r in mains
        if r.saw(
            "PreToolUse:Write hook error: RECORDED — this refusal is the expected "
            f"receipt, not an error: the plugin took the decision document of "
            f"deliberation {d['id']} ("
        )
    ]
    assert len(recorded) == 1 and recorded[0] is mains[-1], info
    # ... and told the user, with the commands that settle it
    assert run.text.startswith(
        "Decision: approach A. The deliberation chose approach A, but the decision is not "
        "final: it awaits your review (unanimity on a reversal-prone class is not "
        "confidence)"
    ), run.text
    assert f"`deliberation approve {d['id']}`" in run.text and f"`deliberation reject {d['id']}`" in run.text
    # point 1: after synthesis and debate the plugin named the red-team pass, and nothing asked
    # for a ranking before it
    notes = [t for r in mains for t in plugin_said(r)]
    red = next(i for i, t in enumerate(notes) if "Next: spawn ONE `" in t and "red-team`" in t and "red team 2" not in t)
    assert not any("RANK" in t.split("Next:")[-1][:80] for t in notes[:red]), notes[: red + 1]
    if background:
        # point 2: a note never counts a research report the main agent has not received
        for r in mains:
            have = sum(1 for x in O.reports_in(message_texts(r.messages)) if x["phase"] == "research")
            for t in plugin_said(r):
                m = RESEARCH_HAVE.search(t)
                if m:
                    assert int(m.group(1)) <= have, (have, t)
        # point 4: one note per parallel launch — six waves (research, synthesis + debate, red
        # team, two workers, red team 2, ranking), twelve launches
        events = run.events()
        posts = [(n, e) for n, e in enumerate(events) if e.get("event") == "PostToolUse"]
        assert len(posts) == 12 and all(e["payload"]["tool_response"].get("status") == "async_launched" for _, e in posts)
        # a wave: the launches whose results first reach the main agent in the same request
        first_seen: "dict[str, int]" = {}
        for i, r in enumerate(mains):
            for m in r.messages:
                for b in m.get("content") if isinstance(m.get("content"), list) else []:
                    if isinstance(b, dict) and b.get("type") == "tool_result":
                        first_seen.setdefault(b.get("tool_use_id"), i)
        waves: "dict[int | None, list]" = {}
        for n, e in posts:
            waves.setdefault(first_seen.get(e["payload"]["tool_use_id"]), []).append((n, e))
        assert len(waves) == 6 and None not in waves, sorted(waves, key=str)
        pre_at = {
            e["payload"].get("tool_use_id"): n
            for n, e in enumerate(events)
            if e.get("event") == "PreToolUse" and e["payload"].get("tool_name") == "Agent"
        }
        for wave in waves.values():
            notes = [e["answer"]["context"] for _, e in wave if (e.get("answer") or {}).get("context")]
            # one note per wave; a second only in the form measured on a loaded machine: a
            # sibling's PreToolUse logged after a PostToolUse of its wave (the hooks interleaved,
            # so that spawn looked like the next batch)
            interleaved = any(pre_at.get(e["payload"]["tool_use_id"], -1) > min(n for n, _ in wave) for _, e in wave)
            assert len(notes) == 1 or (interleaved and 1 <= len(notes) <= len(wave)), notes
