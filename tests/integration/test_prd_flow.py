"""PRD_GENERATION through the REAL hook scripts: the phase opens at the passed vote,
the main agent is asked for the decision document, the Stop hook reads it from the concluding
answer — accepted, sent back once, or recorded missing — and the record carries it with the
findings and the cost, tokens read from every subagent's transcript (background ones too)."""

from __future__ import annotations

import json

from tests.helpers import payloads as P
from tests.helpers.project import only_delib as load_delib
from tests.helpers.project import write_config

QUESTION = (
    "Should we migrate the orders table from MySQL to Postgres with a dual-write period, "
    "given the irreversible data migration and the production risk?"
)
APPROACHES = [("A", "Dual-write for two weeks, then cut over"), ("B", "Big-bang migration in a maintenance window")]
CLAIMS = {
    "security-analyst": "Dual-write doubles the credentials surface for the orders database",
    "performance-engineer": "Dual-write adds about 8 ms p99 latency to order placement",
}
CITES = ["security-analyst:F1", "performance-engineer:F1"]
GOOD = {
    "security-analyst": {"A": (9, 8, 8, 8, 7), "B": (6, 6, 6, 6, 6)},
    "performance-engineer": {"A": (8, 8, 9, 8, 8), "B": (6, 5, 6, 7, 6)},
}


def research(s: P.Session) -> None:
    for persona, claim in CLAIMS.items():
        out = s.foreground(persona, f"Research independently: {QUESTION}", P.research_report(persona, [claim], APPROACHES))
        assert out["pre"].decision is None, out["pre"].reason


def rank(s: P.Session, confidence: float = 0.8) -> list:
    return [
        s.foreground(
            p,
            "Rank approaches A and B on the five dimensions.",
            P.ranking_report(scores, "approve", "A", f"{p}: own reasons about A", confidence=confidence),
        )
        for p, scores in GOOD.items()
    ]


def start(project, hook, cfg=None) -> P.Session:
    write_config(project, {"depth": {"posture": "off"}, **(cfg or {})})
    s = P.Session(hook)
    s.prompt(QUESTION)
    research(s)
    return s


def test_the_vote_opens_prd_generation_and_asks_for_the_document(project, hook):
    s = start(project, hook)
    outs = rank(s)
    last = outs[-1]["post"]
    assert last.decision is None
    d = load_delib(project)
    assert d["phase"] == "PRD_GENERATION" and d["prd"]["status"] == "due"
    assert [c["to_phase"] for c in d["phase_history"]][-1] == "PRD_GENERATION"
    assert d["phase_history"][-1]["why"] == "consensus gate passed: the decision document is due"
    assert (d["decision"], d["outcome"]) == ("A", "adopted")
    ctx = last.context
    assert ctx.startswith(f"Deliberation {d['id']}: consensus gate passed — leading approach A, consensus ")
    assert "Next: write the decision document (PRD) and hand it to the plugin" in ctx
    assert '"document": "prd"' in ctx and "Ids you may cite (2):" in ctx
    assert f"- security-analyst:F1 (finding, high): {CLAIMS['security-analyst']}" in ctx
    # the phase is real: it spans from the vote to the concluding Stop
    res = s.stop(message=P.prd_message(CITES))
    assert res.decision is None and "COMPLETE" in res.system_message
    d = load_delib(project)
    assert [c["to_phase"] for c in d["phase_history"]][-2:] == ["PRD_GENERATION", "COMPLETE"]
    assert d["phase_history"][-1]["why"].startswith(
        "decision record written (auto-execute); decision document accepted (1 requirement(s), 1 acceptance criteria, 1 risk(s)"
    )
    assert res.system_message.splitlines()[1] == (
        "Decision document: 1 requirement(s), 1 acceptance criteria, 1 risk(s), 1 non-goal(s), 1 open question(s)."
    )
    (check,) = [c for c in d["gate2"]["checks"] if c["name"] == "decision_document"]
    assert check["passed"] and d["gate2"]["passed"]
    record = open(d["record_path"], encoding="utf-8").read()
    assert "## Decision document (PRD)" in record and "## Findings by persona" in record
    assert "- `R1` **must** — Implement the adopted approach as decided. (verified by `AC1`) ← `security-analyst:F1`" in record
    assert d["record"]["findings"][0]["findings"][0]["cited_by"] == ["R1", "AC1", "open question 1"]


def handover(s: P.Session, project, content: str, did: "str | None" = None):
    """The main agent's Write call that hands the decision document over (PreToolUse)."""
    did = did or load_delib(project)["id"]
    path = f"{project}/.claude/deliberation/documents/{did}.json"
    return s.hook("PreToolUse", P.pre_tool(s.sid, "Write", {"file_path": path, "content": content}))


def test_the_document_handed_over_by_a_write_is_recorded_and_the_answer_is_prose(project, hook):
    """The request asks for a Write call whose content is the document: the hook reads it from the
    call (refused with what to fix until it is valid), records it and writes nothing; the
    concluding answer is prose and the Stop completes without a send-back."""
    s = start(project, hook)
    ctx = rank(s)[-1]["post"].context
    d = load_delib(project)
    assert f"Call the Write tool with file_path `<project>/.claude/deliberation/documents/{d['id']}.json`" in ctx, ctx
    refused = handover(s, project, json.dumps(P.prd_document(["security-analyst:F7"])))
    assert refused.decision == "deny"
    assert refused.reason.startswith(
        f"Decision document of deliberation {d['id']} NOT recorded (nothing is "
        "written): Every cited id must exist in the deliberation; these do not: "
        "'security-analyst:F7' in R1"
    )
    assert "Next: call Write again with the same file_path and the corrected document as content." in refused.reason
    assert "Ids you may cite (2):" in refused.reason
    assert load_delib(project)["prd"]["status"] == "due"
    recorded = handover(s, project, json.dumps(P.prd_document(CITES)))
    assert recorded.decision == "deny"
    assert recorded.reason.startswith(
        "RECORDED — this refusal is the expected receipt, not an error: the plugin "
        f"took the decision document of deliberation {d['id']} (1 requirement(s), "
        "1 acceptance criteria, 1 risk(s), 1 non-goal(s), 1 open question(s)) from "
        "this Write call"
    )
    assert "do not call Write again" in recorded.reason
    d = load_delib(project)
    assert d["prd"]["announced"]["route"] == "auto-execute"  # nothing holds it: the change may be made
    assert (
        "Next: if the user asked you to make the change, make it now as decided (nothing holds this "
        "decision); then give the user your concluding answer in prose"
    ) in recorded.reason
    assert (d["prd"]["status"], d["prd"]["via"]) == ("accepted", "write")
    assert not (project / ".claude" / "deliberation" / "documents").exists()  # nothing is written
    done = s.stop(
        message="We adopt A: dual-write for two weeks, then cut over. The security analyst's concern "
        "about the credentials surface is the main risk; B was the alternative."
    )
    assert done.decision is None and "COMPLETE" in done.system_message
    d = load_delib(project)
    assert d["phase"] == "COMPLETE" and d["prd"]["send_backs"] == 0 and d["stop_blocks"] == 0
    assert "## Decision document (PRD)" in open(d["record_path"], encoding="utf-8").read()


def test_a_document_handed_over_when_none_is_due_is_refused_with_the_next_step(project, hook):
    s = start(project, hook)
    d = load_delib(project)
    early = handover(s, project, json.dumps(P.prd_document(CITES)))
    assert early.decision == "deny"
    assert early.reason.startswith(
        f"The decision document of deliberation {d['id']} is not due yet (phase RESEARCH); nothing is written.\nNext:"
    ), early.reason
    rank(s)
    wrong = handover(s, project, json.dumps(P.prd_document(CITES)), did="d-other-1")
    assert wrong.reason == (
        f"The decision document due is deliberation {d['id']}'s, not d-other-1's; nothing is "
        f"written.\nNext: call Write again with file_path `<project>/.claude/deliberation/"
        f"documents/{d['id']}.json`."
    )
    other = P.Session(hook)  # a session with no deliberation: the fast path sends the call on
    alone = other.hook(
        "PreToolUse",
        P.pre_tool(other.sid, "Write", {"file_path": f"{project}/.claude/deliberation/documents/d-x-1.json", "content": "{}"}),
    )
    assert alone.decision == "deny" and alone.reason.startswith("No deliberation is open in this session")


def test_a_missing_document_is_sent_back_once_then_accepted(project, hook):
    s = start(project, hook)
    rank(s)
    first = s.stop(message="Decision: A, with the dissent recorded.")
    assert first.decision == "block"
    d = load_delib(project)
    assert first.reason.startswith(
        f"Deliberation {d['id']}: both gates passed; the decision document is the last "
        "step before it closes. Your concluding answer has no decision document block."
    )
    assert first.reason.endswith(
        "(The document is sent back this once; without a valid one at your next stop the decision is recorded without it.)"
    )
    assert d["phase"] == "PRD_GENERATION" and d["prd"]["send_backs"] == 1 and d["stop_blocks"] == 1
    (check,) = [c for c in d["gate2"]["checks"] if c["name"] == "decision_document"]
    assert not check["passed"] and check["figure"] == "not accepted yet (send-back 1)"
    second = s.stop(active=True, message=P.prd_message(CITES))
    assert second.decision is None and load_delib(project)["prd"]["status"] == "accepted"


def test_an_invalid_document_twice_is_recorded_missing_and_the_decision_stands(project, hook):
    s = start(project, hook)
    rank(s)
    bad = P.prd_message(["security-analyst:F7"])
    first = s.stop(message=bad)
    assert first.decision == "block"
    assert "Every cited id must exist in the deliberation; these do not: 'security-analyst:F7' in R1" in first.reason
    second = s.stop(active=True, message=bad)
    assert second.decision is None  # never a loop
    d = load_delib(project)
    assert d["phase"] == "COMPLETE" and d["decision"] == "A" and d["route"]["route"] == "auto-execute"
    assert d["prd"]["status"] == "missing" and d["prd"]["send_backs"] == 1
    failed = [c for c in d["gate2"]["checks"] if not c["passed"]]
    assert [c["name"] for c in failed] == ["decision_document"]
    assert failed[0]["figure"] == "missing after 1 send-back(s)"
    assert second.system_message.startswith(
        "⚠ Decision document MISSING (after 1 send-back(s): Every cited id must exist in the deliberation"
    )
    assert f"Deliberation {d['id']} COMPLETE: A" in second.system_message
    assert any(w.startswith("decision document recorded as missing") for w in d["warnings"])
    assert (
        "**Missing** — recorded without a decision document after 1 send-back(s)"
        in open(d["record_path"], encoding="utf-8").read()
    )


def test_at_the_stop_block_limit_the_document_is_recorded_missing_without_a_send_back(project, hook):
    """The Stop hook's own bound comes first: with 1 block allowed and spent on Gate 2, the
    document is not sent back — the deliberation completes with it missing."""
    s = start(project, hook, {"gates": {"stop_block_limit": 1}, "deliberation": {"min_distinct_personas": 3}})
    rank(s)
    blocked = s.stop(message="Decision: A.")
    assert blocked.decision == "block" and "quality gate FAILED" in blocked.reason
    assert "method_diversity: FAIL" in blocked.reason
    d = load_delib(project)
    assert d["phase"] == "PRD_GENERATION" and d["prd"]["send_backs"] == 0
    write_config(project, {"depth": {"posture": "off"}, "gates": {"stop_block_limit": 1}})
    done = s.stop(active=True, message="Decision: A.")
    assert done.decision is None
    d = load_delib(project)
    assert (d["phase"], d["prd"]["status"], d["prd"]["send_backs"]) == ("COMPLETE", "missing", 0)


def test_a_re_rank_from_prd_generation_takes_the_vote_again(project, hook):
    s = start(project, hook, {"deliberation": {"min_distinct_personas": 3}})
    rank(s)
    assert load_delib(project)["phase"] == "PRD_GENERATION"
    blocked = s.stop(message=P.prd_message(CITES))
    assert blocked.decision == "block" and "quality gate FAILED" in blocked.reason and "re-rank" in blocked.reason
    write_config(project, {"depth": {"posture": "off"}})  # the bar a third persona would have met
    outs = rank(s)  # the panel ranks again
    d = load_delib(project)
    history = [c["to_phase"] for c in d["phase_history"]]
    assert history[-3:] == ["PRD_GENERATION", "RANKING", "PRD_GENERATION"], history
    assert d["phase_history"][-2]["why"] == "re-rank: the vote is taken again; the decision document waits for it"
    assert "Next: write the decision document (PRD)" in outs[-1]["post"].context
    res = s.stop(active=True, message=P.prd_message(CITES))
    assert res.decision is None and load_delib(project)["phase"] == "COMPLETE"


def transcript(tmp_path, name: str, calls: "list[tuple[int, int, int, int]]") -> str:
    """A subagent transcript as the client writes it: one assistant entry per content block."""
    lines = []
    for i, (inp, cw, cr, out) in enumerate(calls):
        usage = {"input_tokens": inp, "cache_creation_input_tokens": cw, "cache_read_input_tokens": cr, "output_tokens": out}
        entry = {
            "type": "assistant",
            "message": {"id": f"msg_{name}_{i}", "role": "assistant", "usage": usage, "content": [{"type": "text", "text": "x"}]},
        }
        lines += [json.dumps(entry), json.dumps(entry)]
    path = tmp_path / f"agent-{name}.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_background_panel_the_request_travels_with_the_notifications_and_the_cost_is_read_from_transcripts(
    project, hook, tmp_path
):
    """Background agents (the client's default): PostToolUse fires at launch, the reports and the
    transcripts arrive in SubagentStop, the gate news with the task notifications. The record's
    cost sums every call of every transcript, read when the deliberation concludes."""
    write_config(project, {"depth": {"posture": "off"}})
    s = P.Session(hook)
    s.prompt(QUESTION)
    calls = {"security-analyst": [(900, 6000, 0, 300), (120, 400, 6000, 250)], "performance-engineer": [(800, 5000, 0, 280)]}

    def background(persona, prompt_text, message, key):
        tuid, aid = s._ids(persona)
        assert s.hook("PreToolUse", P.pre_agent(s.sid, tuid, persona, prompt_text, background=None)).decision is None
        s.hook("SubagentStart", P.subagent_start(s.sid, aid, persona))
        s.hook("PostToolUse", P.post_agent_async(s.sid, tuid, aid, persona, prompt_text))
        stop = P.subagent_stop(s.sid, aid, persona, message)
        stop["agent_transcript_path"] = transcript(tmp_path, key, calls[persona])
        assert s.hook("SubagentStop", stop).decision is None
        return s.hook("UserPromptSubmit", P.task_notification(s.sid, aid, tuid, message))

    for persona, claim in CLAIMS.items():
        background(persona, f"Research: {QUESTION}", P.research_report(persona, [claim], APPROACHES), persona + "-r")
    notes = [
        background(p, "Rank approaches A and B", P.ranking_report(sc, "approve", "A", f"{p} reasons"), p + "-k")
        for p, sc in GOOD.items()
    ]
    assert "Next: write the decision document (PRD) and hand it to the plugin" in (notes[-1].context or "")
    res = s.stop(message=P.prd_message(CITES))
    assert res.decision is None and "COMPLETE" in res.system_message
    d = load_delib(project)
    assert all(a["background"] for a in d["agents"]) and all(a["usage"] for a in d["agents"])
    usage = d["record"]["usage"]
    sec = sum(sum(c) for c in calls["security-analyst"])
    perf = sum(sum(c) for c in calls["performance-engineer"])
    assert usage["total_tokens"] == 2 * (sec + perf) and usage["agents_from_transcripts"] == 4
    assert usage["one_agent_tokens"] == round((sec + perf) / 2) and usage["multiple_of_one_agent"] == 4.0
    assert usage["calls"] == 6 and all(r["source"] == "transcript" for r in usage["per_agent"])
    record = open(d["record_path"], encoding="utf-8").read()
    assert f"Cost: 4 subagent(s), {2 * (sec + perf):,} tokens (4.0× one research agent's" in record
