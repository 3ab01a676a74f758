"""Complete deliberations through the real hook scripts (subprocesses), foreground mode."""

from __future__ import annotations


from tests.helpers import payloads as P
from tests.helpers.flows import APPROACHES, GOOD, QUESTION, rank, research
from tests.helpers.project import load_delib, write_config


def test_foreground_deliberation_passes_both_gates(project, hook):
    write_config(project, {"depth": {"posture": "off"}})
    s = P.Session(hook)
    s.prompt(QUESTION)
    research(s)
    d = load_delib(project)
    assert d["phase"] == "RESEARCH"
    assert d["question"] == QUESTION
    out = s.foreground("synthesis-lead", "Merge all findings into alternatives\n" + s.findings(), P.synthesis_report(APPROACHES))
    assert out["post"].decision is None
    outs = rank(s, GOOD)
    last = outs[-1]["post"]
    assert last.decision is None, last.reason
    assert "consensus gate passed" in last.context
    res = s.stop(message=P.prd_message(["security-analyst:F1", "cost-analyst:F1"]))
    assert res.decision is None, res.reason
    assert "COMPLETE" in res.system_message
    d = load_delib(project)
    assert d["phase"] == "COMPLETE"
    assert d["decision"] == "A"
    assert d["gate1"]["passed"] and d["gate2"]["passed"]
    assert (project / ".claude" / "deliberation" / "records" / f"{d['id']}.md").exists()
    phases = [c["to_phase"] for c in d["phase_history"]]
    # the rankers are spawned one by one: with two votes in the vote passes (PRD_GENERATION),
    # the third ranker joins and the vote is taken again
    assert phases == ["RESEARCH", "DELIBERATION", "RANKING", "PRD_GENERATION", "RANKING", "PRD_GENERATION", "COMPLETE"]
    assert d["phase_history"][4]["why"] == (
        "cost-analyst joins the vote: the vote is taken again; the decision document waits for it"
    )


def background_spawn(s: P.Session, agent_type: str, prompt_text: str):
    tuid, aid = s._ids(agent_type)
    pre = s.hook("PreToolUse", P.pre_agent(s.sid, tuid, agent_type, prompt_text, background=None))
    assert pre.decision is None, pre.reason
    s.hook("SubagentStart", P.subagent_start(s.sid, aid, agent_type))
    post = s.hook("PostToolUse", P.post_agent_async(s.sid, tuid, aid, agent_type, prompt_text))
    assert post.decision is None
    return tuid, aid


def background_finish(s: P.Session, agent_type: str, tuid: str, aid: str, message: str, running=()):
    stop = s.hook(
        "SubagentStop",
        P.subagent_stop(
            s.sid,
            aid,
            agent_type,
            message,
            background_tasks=[{"id": r, "type": "subagent", "status": "running"} for r in running],
        ),
    )
    note = s.hook("UserPromptSubmit", P.task_notification(s.sid, aid, tuid, message))
    return stop, note


def test_background_deliberation_main_stop_before_subagents_finish(project, hook):
    write_config(project, {"depth": {"posture": "off"}})
    s = P.Session(hook)
    s.prompt(QUESTION)
    launched = []
    for persona, claim in (
        ("security-analyst", "Dual-write doubles the credentials surface"),
        ("performance-engineer", "Dual-write adds 8 ms p99 latency"),
    ):
        launched.append((persona, *background_spawn(s, persona, f"Research: {QUESTION}"), claim))
    # the main agent stops while both research agents still run: no verdict, no block
    early = s.hook(
        "Stop",
        P.stop(s.sid, background_tasks=[{"id": aid, "type": "subagent", "status": "running"} for _, _, aid, _ in launched]),
    )
    assert early.decision is None
    assert load_delib(project)["phase"] == "RESEARCH"
    for persona, tuid, aid, claim in launched:
        stop, note = background_finish(s, persona, tuid, aid, P.research_report(persona, [claim], APPROACHES[:2]))
        assert stop.decision is None, stop.reason
    d = load_delib(project)
    assert [a["status"] for a in d["agents"]] == ["reported", "reported"]
    # ranking in background, a split vote below the architecture threshold reaches the main agent
    ranks = {
        "security-analyst": ({"A": (9, 8, 8, 7, 6), "B": (4, 3, 5, 6, 6)}, "approve", "A", []),
        "performance-engineer": (
            {"A": (3, 3, 4, 2, 5), "B": (8, 7, 7, 9, 8)},
            "reject",
            "B",
            [{"target": "A", "concern": "dual-write latency", "reason": "8 ms p99 on the hot path"}],
        ),
    }
    launched = [(p, *background_spawn(s, p, "Rank approaches A and B")) for p in ranks]
    notes = []
    for persona, tuid, aid in launched:
        scores, verdict, preferred, dissent = ranks[persona]
        msg = P.ranking_report(scores, verdict, preferred, f"{persona} reasons", dissent)
        stop, note = background_finish(s, persona, tuid, aid, msg)
        assert stop.decision is None  # never blocks the subagent for a gate result
        notes.append(note)
    assert "consensus gate FAILED" in (notes[-1].context or "")
    # the gate's answer offered the two ways forward; a Stop with the vote still split is the
    # decision handed to the user: accepted, COMPLETE with no consensus, route human-review
    final = s.stop()
    assert final.decision is None, final.reason
    assert "NO CONSENSUS" in final.system_message and "deliberation approve" in final.system_message
    d = load_delib(project)
    assert d["gate1"]["passed"] is False
    assert (d["phase"], d["outcome"]) == ("COMPLETE", "no-consensus")
    # A leads: security-analyst approves and states A; performance-engineer rejects, a vote for none
    # (by mean B would lead, 6.08 vs 5.60); its dissent against A is documented
    assert d["ranking"]["leading"] == "A"
    assert d["ranking"]["means"] == {"A": 5.6, "B": 6.075}
    failed = {c["name"]: c["figure"] for c in d["gate1"]["checks"] if not c["passed"]}
    assert set(failed) == {"consensus"}


def test_a_ranker_whose_scores_contradict_its_preference_is_sent_back_once(project, hook):
    """The turn-by-turn path (SubagentStop): a ballot that approves A and scores B higher is sent
    back once with its own figures; the ranker that fixes its scores counts for A."""
    write_config(project, {"depth": {"posture": "off"}})
    s = P.Session(hook)
    s.prompt(QUESTION)
    research(s)
    s.foreground("synthesis-lead", "Merge all findings into alternatives\n" + s.findings(), P.synthesis_report(APPROACHES))
    scores = {"A": (7, 6, 8, 9, 7), "B": (7, 7, 9, 7, 9), "C": (5, 5, 5, 5, 5)}  # weighted A 7.25, B 7.60
    fixed = {**scores, "A": (8, 7, 8, 9, 7)}  # A 7.80
    out = s.foreground(
        "security-analyst",
        "Rank approaches A, B, C on the five dimensions.",
        P.ranking_report(scores, "approve", "A", "A is the one"),
        retry_message=P.ranking_report(fixed, "approve", "A", "A is the one"),
    )
    assert out["stop"].decision == "block"
    assert "Your preferred_approach is A, but your own scores put B first" in out["stop"].reason
    assert "B 7.60, A 7.25" in out["stop"].reason
    (rec,) = [a for a in load_delib(project)["agents"] if a["stage"] == "ranking"]
    assert rec["status"] == "reported" and rec["send_backs"] == 1
    assert rec["report"]["scores"]["A"]["correctness"] == 8.0
