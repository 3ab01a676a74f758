"""What the main agent reads, point by point, through the real hook scripts."""

from __future__ import annotations

import json

from tests.helpers import obedient as O
from tests.helpers import payloads as P
from tests.helpers.factories import approve_config
from tests.helpers.flows import OBEDIENT_QUESTION as QUESTION
from tests.helpers.project import only_delib as load_delib
from tests.helpers.project import reverse_class, state_dir


def research_wave(s: P.Session, personas=("security-analyst", "performance-engineer", "cost-analyst")) -> "list[str]":
    messages = []
    for persona in personas:
        prompt = f"PERSONA: {persona}\nPhase: research\nQuestion: {QUESTION}"
        messages.append(O.report_message(O.scripted_answer(prompt)))
        out = s.foreground(persona, prompt, messages[-1])
        assert out["pre"].decision is None, out["pre"].reason
    return messages


def deliberation_prompt(persona: str, messages: "list[str]") -> str:
    return f"PERSONA: {persona}\nPhase: deliberation\nQuestion: {QUESTION}\n" + O.findings_text(O.reports_in(messages))


def test_after_synthesis_and_debate_the_note_names_the_red_team_pass_still_owed(project, hook):
    """Point 1: the note used to say 'spawn the personas again to RANK' here; an obedient model
    ranked and was denied. It names the red-team pass now, and that spawn is accepted."""
    s = P.Session(hook)
    s.prompt("DELIBERATE " + QUESTION)
    messages = research_wave(s)
    s.foreground(
        "synthesis-lead",
        deliberation_prompt("synthesis-lead", messages),
        O.report_message(O.scripted_answer("PERSONA: synthesis-lead\nPhase: deliberation")),
    )
    debate = s.foreground(
        "debate-moderator",
        deliberation_prompt("debate-moderator", messages),
        O.report_message(O.scripted_answer("PERSONA: debate-moderator\nPhase: deliberation")),
    )
    note = debate["post"].context
    assert "Next: spawn ONE `red-team`" in note and "RANK" not in note, note
    # what the old note asked for is refused; what this one names is accepted
    rank = s.hook(
        "PreToolUse",
        P.pre_agent(s.sid, "toolu_rank", "security-analyst", "Phase: ranking\nScore every approach.", background=False),
    )
    assert rank.decision == "deny" and "Next: spawn ONE `red-team`" in rank.reason, rank.reason
    red = s.hook(
        "PreToolUse", P.pre_agent(s.sid, "toolu_red", "red-team", deliberation_prompt("red-team", messages), background=False)
    )
    assert red.decision is None, red.reason


def test_a_parallel_background_launch_gives_one_progress_note(project, hook):
    """Point 4: three background launches in one message answered the same note three times."""
    s = P.Session(hook)
    s.prompt("DELIBERATE " + QUESTION)
    ids = []
    for persona in ("security-analyst", "performance-engineer", "cost-analyst"):
        tuid, aid = s._ids(persona)
        ids.append((persona, tuid, aid))
        assert (
            s.hook("PreToolUse", P.pre_agent(s.sid, tuid, persona, f"Phase: research\n{QUESTION}", background=None)).decision
            is None
        )
    contexts = []
    for persona, tuid, aid in ids:
        s.hook("SubagentStart", P.subagent_start(s.sid, aid, persona))
        contexts.append(
            s.hook("PostToolUse", P.post_agent_async(s.sid, tuid, aid, persona, f"Phase: research\n{QUESTION}")).context
        )
    said = [c for c in contexts if c]
    assert len(said) == 1, contexts
    assert "Still to arrive: security-analyst, performance-engineer, cost-analyst" in said[0], said[0]
    assert "Next: wait for" in said[0]


def test_notes_speak_of_what_the_main_agent_has_been_given(project, hook):
    """Point 2: with the first of three notifications the note said 'research 3 … running 0'
    (SubagentStop had recorded all three); it says what arrived and what is still to come."""
    s = P.Session(hook)
    s.prompt("DELIBERATE " + QUESTION)
    launched = []
    for persona in ("security-analyst", "performance-engineer", "cost-analyst"):
        tuid, aid = s._ids(persona)
        prompt = f"PERSONA: {persona}\nPhase: research\nQuestion: {QUESTION}"
        s.hook("PreToolUse", P.pre_agent(s.sid, tuid, persona, prompt, background=None))
        s.hook("SubagentStart", P.subagent_start(s.sid, aid, persona))
        s.hook("PostToolUse", P.post_agent_async(s.sid, tuid, aid, persona, prompt))
        launched.append((persona, tuid, aid, O.report_message(O.scripted_answer(prompt))))
    for persona, tuid, aid, message in launched:
        s.hook("SubagentStop", P.subagent_stop(s.sid, aid, persona, message))
    notes = [
        s.hook("UserPromptSubmit", P.task_notification(s.sid, aid, tuid, message)).context for _p, tuid, aid, message in launched
    ]
    assert (
        "research 1 of 3 (security-analyst)" in notes[0] and "Still to arrive: performance-engineer, cost-analyst" in notes[0]
    ), notes[0]
    assert "research 2 of 3 (security-analyst, performance-engineer)" in notes[1], notes[1]
    assert "Still to arrive" not in notes[2] and "research 3 of 3" in notes[2], notes[2]
    assert "Next: spawn `synthesis-lead` and `debate-moderator`" in notes[2], notes[2]
    assert all("Next: wait for" in n for n in notes[:2])


def review_requested(project, hook) -> "tuple[P.Session, O.Directive]":
    """A deliberation whose vote passed on a reversal-prone class (T2): the document is asked for."""
    from deliberation.core import task_type

    (state_dir(project)).mkdir(parents=True, exist_ok=True)
    (state_dir(project) / "config.json").write_text(json.dumps({"depth": {"posture": "off"}}))
    approve_config(project)  # depth off loosens: this user approves their own config (consent.py)
    reverse_class(project, task_type.classify(QUESTION))
    s = P.Session(hook)
    s.prompt("DELIBERATE " + QUESTION)
    messages = research_wave(s)
    s.foreground(
        "synthesis-lead",
        deliberation_prompt("synthesis-lead", messages),
        O.report_message(O.scripted_answer("PERSONA: synthesis-lead\nPhase: deliberation")),
    )
    for persona in ("security-analyst", "performance-engineer", "cost-analyst"):
        d = load_delib(project)
        from deliberation.core.blind_ranking import approach_list
        from deliberation.state.models import Deliberation

        listing = approach_list(Deliberation.model_validate(d))
        prompt = f"PERSONA: {persona}\nPhase: ranking\nQuestion: {QUESTION}\n{listing}"
        out = s.foreground(persona, prompt, O.report_message(O.scripted_answer(prompt)))
        assert out["pre"].decision is None, out["pre"].reason
    asked = O.directive(out["post"].context)
    assert asked is not None and asked.action == "document", out["post"].context
    return s, asked


def test_the_document_request_announces_human_review_and_a_told_answer_completes_without_a_hold(project, hook):
    """A route that needs a person is known when the document is asked for: the request says so,
    with the sentence to tell the user; an answer carrying it completes with NO Stop hold."""
    s, asked = review_requested(project, hook)
    d = load_delib(project)
    assert d["prd"]["announced"]["route"] == "human-review" and d["prd"]["announced"]["rules"] == ["T2"]
    assert (
        f"Route: when deliberation {d['id']} closes, its decision goes to HUMAN REVIEW — unanimity on a "
        "reversal-prone class is not confidence (T2: unanimous pass at judges' confidence 0.92"
    ) in asked.text
    assert asked.tell_user.startswith(
        "The deliberation chose approach A, but the decision is not final: it awaits "
        "your review (unanimity on a reversal-prone class is not confidence)."
    )
    assert f"`deliberation approve {d['id']}`" in asked.tell_user
    done = s.stop(message=O.concluding_answer(asked.text, "A"))
    d = load_delib(project)
    assert d["phase"] == "COMPLETE" and d["route"]["route"] == "human-review", d["route"]
    assert done.decision is None, done.reason  # told in the answer: no hold
    assert done.system_message.startswith("⚠ HUMAN REVIEW NEEDED")  # the user reads it at once
    assert d["prd"]["status"] == "accepted"


def test_the_main_agent_learns_of_human_review_before_its_final_answer(project, hook):
    """Point 7: a human-review route was told to the user only (systemMessage); the main agent
    ended believing its decision final. An answer that does not tell the user (no deliberation
    id with the approve command) is held ONCE with what to tell the user."""
    s, asked = review_requested(project, hook)
    answer = O.concluding_answer(asked.text, "A").replace(asked.tell_user, "The panel chose A.")
    first = s.stop(message=answer)
    d = load_delib(project)
    assert d["phase"] == "COMPLETE" and d["route"]["route"] == "human-review", d["route"]
    assert first.decision == "block", "the main agent must hear it before its final answer"
    told = first.reason
    assert f"Deliberation {d['id']} is COMPLETE but its decision (approach A) is NOT final: it awaits HUMAN REVIEW" in told
    assert (
        'Next: give your final answer now, and tell the user: "The deliberation chose approach A, but the '
        "decision is not final: it awaits your review (T2: unanimous pass at judges' confidence 0.92"
    ) in told, told
    assert (
        f"Approve it with `deliberation approve {d['id']}` or reject it with `deliberation reject {d['id']}` "
        f'(in Claude Code: `! deliberation approve {d["id"]}`); until then I will not apply it."'
    ) in told, told
    assert first.system_message.startswith("⚠ HUMAN REVIEW NEEDED")  # the user reads it too
    assert s.stop(active=True).decision is None  # once: the next Stop goes through
    # a risky tool afterwards: `ask`, whose reason (what a headless run reads as the error) says the same
    ask = s.hook("PreToolUse", P.pre_tool(s.sid, "Edit", {"file_path": "x.py", "old_string": "a", "new_string": "b"}))
    assert ask.decision == "ask"
    assert f"settle it with `deliberation approve {d['id']}` or `deliberation reject {d['id']}`" in ask.reason
    assert f"settles it with `deliberation approve {d['id']}` (adopt the decision)" in ask.reason
    assert "Tell the user that the decision awaits their review" in ask.reason and "headless" in ask.reason
