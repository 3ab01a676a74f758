"""The depth axis end to end through the REAL hook scripts.

Each test drives a complete foreground deliberation as the client would: research → synthesis →
red team (round 1) → [deepen: tier-2 lenses → red team 2 → depth-aware synthesis] → ranking →
Stop → gates → COMPLETE, and asserts the answers the main agent got and the state on disk.

    contested → deepened → refuted → overridden        test_refute_with_evidence_overrides_tier1
    contested → deepened → paraphrase → tier 1 stands  test_paraphrasing_tier2_is_zeroed_tier1_stands
    no hot spots → no depth step                       test_no_hot_spots_no_depth_step
    depth off → identical to breadth-only (replay)     test_depth_off_replays_identical_to_breadth_only
    budget exhausted → loud skip                       test_budget_exhausted_skips_loudly
    every denied tier-2 spawn rule (PreToolUse)        test_denied_tier2_spawn_rules (+ "step not
                                                       open" for no hot spots / posture off in the
                                                       no-hot-spots and depth-off tests)

The lens prompts are parsed out of the gate's block reason, as the model would copy them.
"""

from __future__ import annotations

import json
import re

from tests.helpers import payloads as P
from tests.helpers.project import only_delib as load_delib
from tests.helpers.project import state_dir, write_config

QUESTION = (
    "Should we migrate the orders table from MySQL to Postgres with a dual-write period, "
    "given the irreversible data migration and the production risk?"
)
APPROACHES = [("A", "Dual-write for two weeks, then cut over"), ("B", "Big-bang migration in a maintenance window")]
RESEARCH = (
    ("security-analyst", ["Dual-write doubles the credentials surface for the orders database"]),
    ("performance-engineer", ["Dual-write adds about 8 ms p99 latency to order placement"]),
)
SYNTHESIS_SUMMARY = (
    "The panel converges on dual-write approach A because rollback stays possible "
    "during the two weeks while the big-bang window risks lost orders"
)
# the red team (round 1) refutes approach A with evidence: the contested point H1
RT1_REFUTE_A = {
    "target": "A",
    "verdict": "refuted",
    "claim": "Dual-write cannot keep order ids consistent: both databases allocate ids",
    "evidence": "schema/orders.sql:12 AUTO_INCREMENT on MySQL and a Postgres sequence",
}
RT1_MISSED = "Nobody measured the replication lag of the existing binlog consumer"
# A is what tier 1 ranks first: weighted means A 8.85 > B 8.35 (default weights); consensus
# A 0.88, B 0.83 once A is struck — both above the default threshold 0.70
RANKS = {
    "security-analyst": {"A": (9, 9, 9, 9, 8), "B": (8, 8, 9, 8, 9)},
    "performance-engineer": {"A": (9, 9, 8, 9, 9), "B": (9, 8, 8, 8, 9)},
}
CITES = ["security-analyst:F1", "performance-engineer:F1"]  # what the concluding answers' documents cite
LENS_PROMPT = re.compile(
    r'--- worker (\d+) of (\d+): subagent_type "([a-z-]+)", hot spots ([H0-9, ]+) '
    r"— prompt: these lines, then the shared part:\n(.*?)\n--- end of worker \1 prompt",
    re.S,
)
SHARED_PART = re.compile(
    r"--- the shared part, the same at the end of every worker's prompt:\n(.*?)\n"
    r"--- end of the shared part",
    re.S,
)


# ---------------------------------------------------------------------------------------------
# helpers


def load_model(project):
    from deliberation.state.models import Deliberation

    return Deliberation.model_validate(load_delib(project))


def ok(out: dict) -> dict:
    """A spawn that must have been allowed and whose report was accepted."""
    assert out["pre"].decision is None, out["pre"].reason
    assert out["stop"].decision is None, out["stop"].reason
    return out


def tier1(s: P.Session, red_team: str, before_red_team=None) -> dict:
    """Research (2 personas, proposals A/B) → synthesis-lead → red team round 1; its answers.
    `before_red_team(s)` runs between the synthesis and the red team."""
    s.prompt(QUESTION)
    for persona, claims in RESEARCH:
        ok(
            s.foreground(
                persona,
                f"Research the question from your perspective: {QUESTION}",
                P.research_report(persona, claims, APPROACHES),
            )
        )
    synth = P.fenced(
        {
            "phase": "deliberation",
            "summary": SYNTHESIS_SUMMARY,
            "approaches": [{"id": a, "title": t, "summary": t} for a, t in APPROACHES],
            "confidence": 0.6,
        }
    )
    ok(s.foreground("synthesis-lead", "Merge all research findings into alternatives.\n" + s.findings(), synth))
    if before_red_team is not None:
        before_red_team(s)
    return ok(
        s.foreground("red-team", "Red-team every finding and approach: refute with evidence, list missed angles.", red_team)
    )


def lens_prompts(reason: str) -> "list[tuple[str, list[str], str]]":
    """(lens, hot spot ids, prompt) for each worker the deepen instruction names."""
    (shared,) = SHARED_PART.findall(reason)  # each prompt: the worker's own lines, then the shared part
    return [
        (lens, [h.strip() for h in ids.split(",")], own + "\n" + shared) for _i, _k, lens, ids, own in LENS_PROMPT.findall(reason)
    ]


def deepen(s: P.Session, reason: str, reports: "dict[str, str]", project) -> "list[dict]":
    """Spawn each lens with exactly the prompt of the instruction; the answers per worker."""
    from deliberation.core.depth import axis as depth_axis

    workers = lens_prompts(reason)
    assert [w[0] for w in workers] == ["evidence-chase", "counter-model", "edge-case-hunt"]
    delib = load_model(project)
    outs = []
    for lens, ids, prompt in workers:
        assert prompt == depth_axis.worker_prompt(lens, ids, delib)
        outs.append(ok(s.foreground(lens, prompt, reports[lens])))
    return outs


def rank(s: P.Session, preferred: str) -> "list[dict]":
    """Both personas rank A and B (scores RANKS), approving `preferred`; the answers."""
    return [
        s.foreground(
            persona,
            "Rank approaches A and B on the five dimensions.",
            P.ranking_report(scores, "approve", preferred, f"{persona}: own reasons for {preferred}"),
        )
        for persona, scores in RANKS.items()
    ]


def record_md(project, did: str) -> str:
    return (state_dir(project) / "records" / f"{did}.md").read_text()


# ---------------------------------------------------------------------------------------------
# contested → deepened → refuted → overridden


def test_refute_with_evidence_overrides_tier1(project, hook):
    from deliberation.core import ranking
    from deliberation.state.config import Config
    from deliberation.core.engine import weights

    s = P.Session(hook)
    rt1 = tier1(s, P.red_team_report([RT1_REFUTE_A], [RT1_MISSED]))
    gate = rt1["post"]
    # the red team's PostToolUse gives the deepen instruction, as context: hot spots, lenses, floor
    assert gate.decision is None
    assert gate.context.startswith("Depth axis: the red-team pass left 2 contested point(s)")
    assert "H1 [challenged] approach A" in gate.context and "H2 [missed_angle]" in gate.context
    # said once, in the shared part that ends each of the 3 workers' prompts
    assert gate.context.count("Tier 1 is material, not the answer; agreeing again scores 0.") == 1
    assert len(lens_prompts(gate.context)) == 3 and all(
        "Tier 1 is material, not the answer; agreeing again scores 0." in p for _l, _i, p in lens_prompts(gate.context)
    )
    assert SYNTHESIS_SUMMARY not in gate.context
    d = load_delib(project)
    assert d["depth"]["status"] == "pending" and d["depth"]["posture"] == "ceiling"
    assert [h["id"] for h in d["depth"]["hot_spots"]] == ["H1", "H2"]
    # ranking is held while the depth step is open
    held = s.foreground("security-analyst", "Rank approaches A and B.", P.ranking_report(RANKS["security-analyst"]))
    assert held["pre"].decision == "deny"
    assert "DELIBERATION → RANKING refused: the depth step is open" in held["pre"].reason

    outs = deepen(s, gate.context, TIER2_REFUTES_A, project)
    for o in outs[:2]:
        assert o["post"].decision is None
        assert "Next: spawn the tier-2 worker(s)" in o["post"].context
    rt2_gate = outs[2]["post"]
    assert rt2_gate.decision is None
    assert rt2_gate.context.startswith("Depth axis — red team 2: the tier-2 workers have reported.")
    assert "- evidence-chase:R1 — refuted A: Dual-write splits order identity" in rt2_gate.context
    held = s.foreground("security-analyst", "Rank approaches A and B.", P.ranking_report(RANKS["security-analyst"]))
    assert held["pre"].decision == "deny" and "Depth axis — red team 2" in held["pre"].reason

    rt2 = ok(s.foreground("red-team", rt2_gate.context, RT2_UPHOLDS_TIER2))
    synth = rt2["post"]
    assert synth.decision is None
    assert synth.context.startswith(
        f"Depth-aware synthesis for {d['id']}: 1 override(s), 0 tier-2 result(s) zeroed, 0 cancelled by red team 2."
    )
    assert "- OVERRIDE H1: approach A struck from the leading position" in synth.context
    assert "Ranking will exclude A from the leading position" in synth.context

    outs = rank(s, "B")
    for o in outs:
        assert o["pre"].decision is None, o["pre"].reason
    assert outs[-1]["post"].decision is None, outs[-1]["post"].reason
    assert "leading approach B" in outs[-1]["post"].context
    done = s.stop(message=P.prd_message(CITES))
    assert done.decision is None, done.reason
    assert "COMPLETE: B" in done.system_message

    d = load_delib(project)
    delib = load_model(project)
    # by mean A would lead; both rankers state B, so B leads by the vote (the leader is the approach
    # the most rankers prefer) with or without the override, which strikes A from the tie set too
    assert ranking.rank(delib.agents, weights(Config())).leading == "B"
    assert d["ranking"]["means"] == {"A": 8.85, "B": 8.35}
    # both state B; their only alternative, A, was struck: 2 / (2 + 0.2)
    assert d["ranking"]["consensus"] == 0.9091
    assert d["ranking"]["leading"] == "B" and d["decision"] == "B" and d["phase"] == "COMPLETE"
    depth = d["depth"]
    assert depth["status"] == "done"
    by_lens = {a["persona"]: a["key"] for a in d["agents"] if a["kind"] == "lens"}
    assert depth["overrides"] == [
        {
            "hot_spot": "H1",
            "target": "A",
            "by_agent": by_lens["evidence-chase"],
            "evidence": TIER2_REFUTE["evidence"],
            "effect": f"approach A struck from the leading position: {TIER2_REFUTE['claim']}",
        }
    ]
    assert depth["zeroed"] == []
    assert depth["tier2_by_lens"] == {"evidence-chase": 1, "counter-model": 1, "edge-case-hunt": 1}
    assert depth["workers_per_wave"] == 3
    assert depth["passes"] == 4 <= depth["workers_per_wave"] + 1
    rounds = [(a["persona"], a["tier"], a["red_team_round"]) for a in d["agents"] if a["kind"] == "red-team"]
    assert rounds == [("red-team", 1, 1), ("red-team", 2, 2)]
    md = record_md(project, d["id"])
    assert "## Depth axis" in md
    assert "**Override** `H1` → `A`: approach A struck from the leading position" in md
    assert TIER2_REFUTE["claim"] in md
    assert "struck by the depth axis" in md


TIER2_REFUTE = {
    "target": "A",
    "verdict": "refuted",
    "claim": "Dual-write splits order identity across two id allocators",
    "evidence": "scripts/dual_write_probe.py: 100 of 100 dual-written orders got two different ids",
}
TIER2_REFUTES_A = {
    "evidence-chase": P.lens_report(
        ["H1"],
        [
            {
                "id": "F1",
                "claim": "Both databases hand out order ids independently, so a dual-written order gets two different ids",
                "evidence": "reproduced with scripts/dual_write_probe.py",
            }
        ],
        [TIER2_REFUTE],
    ),
    "counter-model": P.lens_report(
        ["H2"],
        [
            {
                "id": "F1",
                "claim": "Binlog consumer lag reaches 40 seconds during the nightly batch",
                "evidence": "grafana export 2024-05-02, lag panel",
            }
        ],
    ),
    "edge-case-hunt": P.lens_report(
        ["H2"],
        [
            {
                "id": "F1",
                "claim": "A refund issued during the cutover minute is applied on one side only",
                "evidence": "replayed the refund log of 2024-04-30 against staging",
            }
        ],
    ),
}
RT2_UPHOLDS_TIER2 = P.red_team_report(
    [
        {
            "target": "evidence-chase:R1",
            "verdict": "upheld",
            "claim": "The id split reproduces on a fresh staging copy",
            "evidence": "re-ran scripts/dual_write_probe.py on staging-2: 100 of 100 ids differ",
        }
    ],
    round_=2,
)


# ---------------------------------------------------------------------------------------------
# contested → deepened → paraphrase → tier 1 stands

# each tier-2 text only restates a tier-1 research finding (reworded, reordered, synonyms)
RESTATE_CREDENTIALS = "The orders database credentials surface is doubled by dual-write"
RESTATE_LATENCY = "Order placement gets about 8 ms of extra p99 latency from dual-write"
TIER2_PARAPHRASES = {
    "evidence-chase": P.lens_report(
        ["H1"],
        [{"id": "F1", "claim": RESTATE_CREDENTIALS, "evidence": "docs/security-analyst-1.md"}],
        [{"target": "A", "verdict": "refuted", "claim": RESTATE_LATENCY, "evidence": "docs/performance-engineer-1.md"}],
    ),
    "counter-model": P.lens_report(
        ["H1", "H2"], [{"id": "F1", "claim": RESTATE_LATENCY, "evidence": "docs/performance-engineer-1.md"}]
    ),
    "edge-case-hunt": P.lens_report(
        ["H2"],
        [
            {
                "id": "F1",
                "claim": "For the orders database, dual-write doubles the credential surface",
                "evidence": "docs/security-analyst-1.md",
            }
        ],
    ),
}


def test_paraphrasing_tier2_is_zeroed_tier1_stands(project, hook):
    s = P.Session(hook)
    gate = tier1(s, P.red_team_report([RT1_REFUTE_A], [RT1_MISSED]))["post"]
    assert gate.decision is None and gate.context.startswith("Depth axis:")
    outs = deepen(s, gate.context, TIER2_PARAPHRASES, project)
    rt2_gate = outs[-1]["post"]
    assert rt2_gate.decision is None and "red team 2" in rt2_gate.context
    rt2 = ok(
        s.foreground(
            "red-team",
            rt2_gate.context,
            P.red_team_report(
                [
                    {
                        "target": "evidence-chase:R1",
                        "verdict": "weakened",
                        "claim": "It repeats the performance finding",
                        "evidence": "docs/performance-engineer-1.md says the same 8 ms",
                    }
                ],
                round_=2,
            ),
        )
    )
    d = load_delib(project)
    by_lens = {a["persona"]: a["key"] for a in d["agents"] if a["kind"] == "lens"}
    synth = rt2["post"].context
    assert synth.startswith(f"Depth-aware synthesis for {d['id']}: 0 override(s), 3 tier-2 result(s) zeroed")
    assert (
        f"- evidence-chase ({by_lens['evidence-chase']}) restated tier 1 (2 item(s), no new finding): "
        "zero signal, tier 1 stands" in synth
    )
    assert "Ranking will exclude" not in synth

    outs = rank(s, "A")
    assert outs[-1]["post"].decision is None, outs[-1]["post"].reason
    assert "leading approach A" in outs[-1]["post"].context
    done = s.stop(message=P.prd_message(CITES))
    assert done.decision is None, done.reason
    assert "COMPLETE: A" in done.system_message

    d = load_delib(project)
    depth = d["depth"]
    assert depth["zeroed"] == [by_lens["evidence-chase"], by_lens["counter-model"], by_lens["edge-case-hunt"]]
    assert depth["overrides"] == []
    assert depth["status"] == "done" and depth["passes"] == 4
    assert d["ranking"]["leading"] == "A" and d["decision"] == "A"
    assert "tier-2 worker evidence-chase restated tier 1: zero signal" in d["warnings"]
    md = record_md(project, d["id"])
    assert (
        "Zero-signal tier-2 results (tier 1 stands): Evidence Chase (tier 2), Counter-Model (tier 2), "
        "Edge-Case Hunt (tier 2)." in md
    )
    assert "**Override**" not in md and "struck by the depth axis" not in md


# ---------------------------------------------------------------------------------------------
# no hot spots → no depth step


def test_no_hot_spots_no_depth_step(project, hook):
    s = P.Session(hook)
    rt = tier1(
        s,
        P.red_team_report(
            [
                {
                    "target": "A",
                    "verdict": "upheld",
                    "claim": "ids stay unique",
                    "evidence": "schema/orders.sql:12 uses one sequence",
                }
            ]
        ),
    )
    post = rt["post"]
    assert post.decision is None, post.reason
    assert "Depth axis open" not in post.context and "RANK every approach" in post.context
    d = load_delib(project)
    assert d["depth"]["posture"] == "ceiling" and d["depth"]["enabled"] is True
    assert d["depth"]["status"] == "not_needed" and d["depth"]["hot_spots"] == []
    # no depth step: a lens spawn is refused (nothing to deepen) ...
    lens = s.foreground(
        "evidence-chase",
        "Dig into H1. Tier 1 is material, not the answer; agreeing again "
        "scores 0. The red team's words are material too: check them.",
        "{}",
    )
    assert lens["pre"].decision == "deny"
    assert lens["pre"].reason == (
        'Tier-2 spawn denied — rule "depth step open": no hot spots: the red-team '
        "pass found nothing contested, so there is nothing to deepen."
    )
    # ... and ranking is allowed right after the red team
    outs = rank(s, "A")
    for o in outs:
        assert o["pre"].decision is None, o["pre"].reason
    assert "consensus gate passed — leading approach A" in outs[-1]["post"].context
    done = s.stop(message=P.prd_message(CITES))
    assert done.decision is None, done.reason
    d = load_delib(project)
    assert d["phase"] == "COMPLETE" and d["decision"] == "A"
    assert d["depth"]["passes"] == 0 and d["depth"]["tier2_by_lens"] == {}
    assert not [a for a in d["agents"] if a["tier"] == 2]
    assert "Posture **ceiling**, status **not_needed**, 0 additional pass(es)" in record_md(project, d["id"])


def test_second_red_team_pass_is_refused_and_the_first_stands(project, hook):
    """A second red-team spawn after a clean first pass used to be allowed; its
    report replaced the first and its evidence-backed "weakened" on A was never planned (depth
    not_needed, no hot spots, while the hot-spot finder on the saved state returned H1)."""
    from deliberation.core.depth.hot_spots import find_hot_spots

    s = P.Session(hook)
    tier1(
        s,
        P.red_team_report(
            [
                {
                    "target": "A",
                    "verdict": "upheld",
                    "claim": "ids stay unique",
                    "evidence": "schema/orders.sql:12 uses one sequence",
                }
            ]
        ),
    )
    second = s.foreground(
        "red-team",
        "Red-team again, harder.",
        P.red_team_report(
            [
                {
                    "target": "A",
                    "verdict": "weakened",
                    "claim": "the dual-write window doubles the write load",
                    "evidence": "bench/dual_write.txt: 2.1x write IOPS",
                }
            ],
            round_=2,
        ),
    )
    assert second["pre"].decision == "deny"
    reason = second["pre"].reason
    assert reason.startswith(
        'Red-team spawn denied — rule "one red-team pass, then the depth step": the first red-team pass (red-team ('
    )
    assert "found nothing contested" in reason and reason.endswith("Next: rank every approach (spawn the personas again).")
    d = load_delib(project)
    assert [a["persona"] for a in d["agents"] if a["kind"] == "red-team"] == ["red-team"]
    assert not any(a["superseded"] for a in d["agents"])
    for o in rank(s, "A"):
        assert o["pre"].decision is None, o["pre"].reason
    assert s.stop(message=P.prd_message(CITES)).decision is None
    saved = load_model(project)
    assert saved.phase == "COMPLETE" and saved.depth.status == "not_needed"
    assert find_hot_spots(saved) == [] == saved.depth.hot_spots  # nothing was dropped on the way


# ---------------------------------------------------------------------------------------------
# budget exhausted → loud skip


def test_budget_exhausted_skips_loudly(project, hook):
    write_config(project, {"depth": {"token_budget": 5000}})
    s = P.Session(hook)
    post = tier1(s, P.red_team_report([RT1_REFUTE_A], [RT1_MISSED]))["post"]
    # 4 foreground agents of 1500 tokens each before the deepen step
    loud = (
        "depth skipped: budget — used 6000 of 5000 subagent tokens (depth.token_budget). 2 hot spot(s) "
        "(H1, H2) were NOT deepened; the breadth result stands."
    )
    assert post.decision is None, post.reason
    assert post.context.startswith(
        f"⚠ {loud} The decision record says so.\nNext: spawn the research personas again to RANK every approach"
    ), post.context
    d = load_delib(project)
    assert d["depth"]["status"] == "skipped" and d["depth"]["skipped_reason"] == loud
    assert [h["id"] for h in d["depth"]["hot_spots"]] == ["H1", "H2"]
    # the breadth result: ranking proceeds, A (refuted by the red team but never deepened) leads
    outs = rank(s, "A")
    for o in outs:
        assert o["pre"].decision is None, o["pre"].reason
    done = s.stop(message=P.prd_message(CITES))
    assert done.decision is None, done.reason
    d = load_delib(project)
    assert d["phase"] == "COMPLETE" and d["decision"] == "A"
    assert d["depth"]["status"] == "skipped" and d["depth"]["passes"] == 0 and d["depth"]["overrides"] == []
    assert d["record"]["depth"]["skipped_reason"] == loud
    assert "**Deepening skipped:** depth skipped: budget — used 6000 of 5000 subagent tokens" in record_md(project, d["id"])


def background(s: P.Session, persona: str, prompt: str, message: str, transcript_dir, tokens: int, notify: bool = True):
    """A background agent (the client's default): launch, SubagentStop with its transcript, then
    the task notification; the transcript's last API response totals `tokens`. As the client
    does, the last response is written to the transcript only AFTER SubagentStop."""
    tuid, aid = s._ids(persona)
    pre = s.hook("PreToolUse", P.pre_agent(s.sid, tuid, persona, prompt, background=None))
    assert pre.decision is None, pre.reason
    s.messages.append((persona, message))
    s.hook("SubagentStart", P.subagent_start(s.sid, aid, persona))
    s.hook("PostToolUse", P.post_agent_async(s.sid, tuid, aid, persona, prompt))
    path = transcript_dir / f"agent-{aid}.jsonl"
    calls = [
        {"type": "user", "message": {"role": "user", "content": prompt}},
        {
            "type": "assistant",
            "message": {"id": f"msg_{aid}_1", "usage": {"input_tokens": 900, "cache_read_input_tokens": 0, "output_tokens": 40}},
        },
        {
            "type": "assistant",
            "message": {
                "id": f"msg_{aid}_2",
                "usage": {
                    "input_tokens": tokens - 300,
                    "cache_creation_input_tokens": 100,
                    "cache_read_input_tokens": 0,
                    "output_tokens": 200,
                },
            },
        },
    ]
    path.write_text("\n".join(json.dumps(c) for c in calls[:2]) + "\n")
    payload = P.subagent_stop(s.sid, aid, persona, message)
    payload["agent_transcript_path"] = str(path)
    stop = s.hook("SubagentStop", payload)
    assert stop.decision is None, stop.reason
    with open(path, "a") as fh:
        fh.write(json.dumps(calls[2]) + "\n")
    note = P.task_notification(s.sid, aid, tuid, message)
    note["prompt"] = note["prompt"].replace("<subagent_tokens>15<", f"<subagent_tokens>{tokens}<")
    return s.hook("UserPromptSubmit", note) if notify else note


def test_background_agents_count_against_the_depth_budget(project, hook, tmp_path):
    """Background agents (the client's default) added 0 tokens, so the depth
    budget never saw them. Their transcripts count now, and the record says what was counted."""
    write_config(project, {"depth": {"token_budget": 9000}})
    s = P.Session(hook)
    s.prompt(QUESTION)
    later = []  # task notifications the main agent has not seen yet
    for persona, claims in RESEARCH:
        later.append(
            background(
                s,
                persona,
                f"Research the question from your perspective: {QUESTION}",
                P.research_report(persona, claims, APPROACHES),
                tmp_path,
                3000,
                notify=False,
            )
        )
    synth = P.fenced(
        {
            "phase": "deliberation",
            "summary": SYNTHESIS_SUMMARY,
            "approaches": [{"id": a, "title": t, "summary": t} for a, t in APPROACHES],
        }
    )
    later.append(
        background(
            s,
            "synthesis-lead",
            "Merge all research findings into alternatives.\n" + s.findings(),
            synth,
            tmp_path,
            3000,
            notify=False,
        )
    )
    note = background(
        s, "red-team", "Red-team every finding and approach.", P.red_team_report([RT1_REFUTE_A], [RT1_MISSED]), tmp_path, 3000
    )
    for payload in later:
        last_note = s.hook("UserPromptSubmit", payload)
    d = load_delib(project)
    # at the red team's SubagentStop (where the depth step is planned) the three earlier transcripts
    # were read again, complete by then; the red team's own last response was not written yet
    # (940 = its first response); its task notification then gave the final figure
    loud = (
        "depth skipped: budget — used 9940 of 9000 subagent tokens (depth.token_budget). 2 hot spot(s) "
        "(H1, H2) were NOT deepened; the breadth result stands."
    )
    assert [(a["tokens"], a["tokens_source"]) for a in d["agents"]] == [(3000, "transcript")] * 3 + [(3000, "task-notification")]
    assert d["tokens_used"] == 12000
    assert d["depth"]["status"] == "skipped" and d["depth"]["skipped_reason"] == loud
    # news waits until every result it follows from has reached the main agent: the red team's
    # notification came first, so it said what was still to arrive; the last one says the news
    assert loud not in note.context and "Still to arrive: security-analyst, performance-engineer, synthesis-lead" in note.context
    assert loud in last_note.context and "Still to arrive" not in last_note.context
    for o in rank(s, "A"):
        assert o["pre"].decision is None, o["pre"].reason
    assert s.stop(message=P.prd_message(CITES)).decision is None
    d = load_delib(project)
    assert d["phase"] == "COMPLETE"
    tokens = d["record"]["depth"]["tokens"]
    assert tokens["agents_by_source"] == {"transcript": 3, "totalTokens": 2, "task-notification": 1}
    assert tokens["used"] == 12000 + 2 * 1500 and tokens["agents_not_counted"] == 0
    assert "Tokens counted for the depth budget: 15000 — each subagent's final context plus its last output" in record_md(
        project, d["id"]
    )


# ---------------------------------------------------------------------------------------------
# depth off → identical to breadth-only (the same event log replayed both ways)


def events_log(project, sid: str) -> "list[dict]":
    from deliberation.cli.replay import load_events

    return load_events(str(state_dir(project) / "sessions" / sid / "events.jsonl"))


def replayed(tmp_path, name: str, events: "list[dict]", cfg: dict) -> "tuple[list, dict, str]":
    """Replay `events` in a fresh project under `cfg`: (decisions, deliberation JSON, record md).
    The project path (in record_path) is the only thing that may name the directory."""
    from deliberation.cli.replay import replay

    proj = tmp_path / name
    proj.mkdir()
    cfg_file = tmp_path / f"{name}.config.json"
    cfg_file.write_text(json.dumps(cfg))
    results = replay(events, str(proj), str(cfg_file))
    text = next((state_dir(proj) / "deliberations").glob("*.json")).read_text()
    records = sorted((state_dir(proj) / "records").glob("*.md"))
    md = records[0].read_text() if records else ""
    doc = json.loads(text.replace(str(proj), "<project>"))
    doc.pop("mac", None)  # the seal covers the bytes, the project's path among them
    return ([(r["event"], r["got"]) for r in results], doc, md.replace(str(proj), "<project>"))


def test_depth_off_replays_identical_to_breadth_only(project, hook, tmp_path, monkeypatch):
    from deliberation.core import engine
    from deliberation.core.depth import axis as depth_axis

    off = {"depth": {"posture": "off"}}
    write_config(project, off)
    s = P.Session(hook)
    # a breadth-only deliberation whose red team REFUTES approach A with evidence
    post = tier1(s, P.red_team_report([RT1_REFUTE_A], [RT1_MISSED]))["post"]
    assert post.decision is None and "RANK every approach" in post.context
    lens = s.foreground(
        "evidence-chase",
        "Dig into H1. Tier 1 is material, not the answer; agreeing again "
        "scores 0. The red team's words are material too: check them.",
        "{}",
    )
    assert lens["pre"].decision == "deny"
    assert lens["pre"].reason == (
        'Tier-2 spawn denied — rule "depth step open": the depth axis is off for this deliberation (posture off): breadth only.'
    )
    outs = rank(s, "A")
    assert "consensus gate passed — leading approach A" in outs[-1]["post"].context
    assert s.stop(message=P.prd_message(CITES)).decision is None
    recorded = load_delib(project)
    assert recorded["phase"] == "COMPLETE" and recorded["decision"] == "A"
    assert recorded["depth"]["posture"] == "off" and recorded["depth"]["status"] == "off"
    events = events_log(project, s.sid)
    assert len(events) == 27  # prompt, 4 x 4 tier-1 hooks, a denied lens, 2 x 4 ranking hooks, Stop

    with_off = replayed(tmp_path, "posture-off", events, off)
    with monkeypatch.context() as m:  # the breadth-only engine: no depth machinery at all
        m.setattr(engine, "depth_after_report", lambda *a, **k: None)
        m.setattr(depth_axis, "ranking_spawn_refusal", lambda *a, **k: None)
        breadth = replayed(tmp_path, "breadth-only", events, off)
    assert with_off[0] == breadth[0]  # every decision, event by event
    assert with_off[1] == breadth[1]  # the final deliberation JSON
    assert with_off[2] == breadth[2]  # the decision record
    # ... and both reproduce what the hooks answered while recording
    recorded_answers = [
        (e["event"], {k: v for k, v in (e["answer"] or {}).items() if k in ("decision", "reason", "context")}) for e in events
    ]
    assert with_off[0] == recorded_answers

    # the comparison can fail: under the ceiling the red team's refutation opens the depth step
    ceiling = replayed(tmp_path, "posture-ceiling", events, {})
    differ = [i for i, (a, b) in enumerate(zip(ceiling[0], breadth[0])) if a != b]
    assert differ, "the ceiling replay should differ from breadth-only"
    # first the progress note after the synthesis: under the ceiling it names the red-team pass
    # ranking would otherwise be refused for; breadth-only names the ranking
    note = ceiling[0][differ[0]]
    assert note[0] == "PostToolUse" and "Next: spawn ONE `red-team`" in note[1]["context"], note
    assert "RANK every approach" in breadth[0][differ[0]][1]["context"]
    first = next(ceiling[0][i] for i in differ if "decision" in ceiling[0][i][1])
    assert first[0] == "PostToolUse" and first[1]["decision"] == "block"
    assert first[1]["reason"].startswith("Depth axis: the red-team pass left 2 contested point(s)")
    assert ceiling[1] != breadth[1]
    # the recorded lens spawn (denied while recording) is allowed now and never reports: the
    # recorded ranking spawns are refused, and no decision is reached
    assert ceiling[1]["depth"]["status"] == "deepening" and ceiling[1]["phase"] == "DELIBERATION"
    assert ceiling[1]["decision"] is None and breadth[1]["decision"] == "A"
    held = [got["reason"] for event, got in ceiling[0] if event == "PreToolUse" and got.get("decision") == "deny"]
    assert len(held) == 2 and all(r.startswith("DELIBERATION → RANKING refused") for r in held)


# ---------------------------------------------------------------------------------------------
# every denied tier-2 spawn rule, through PreToolUse


def deny(s: P.Session, agent_type: str, prompt_text: str) -> str:
    """A spawn PreToolUse must deny; its reason."""
    tuid, _aid = s._ids(agent_type)
    res = s.hook("PreToolUse", P.pre_agent(s.sid, tuid, agent_type, prompt_text, False))
    assert res.decision == "deny", (agent_type, res.json)
    return res.reason


def test_denied_tier2_spawn_rules(project, hook):
    floor = "Tier 1 is material, not the answer; agreeing again scores 0. The red team's words are material too: check them."
    not_open = []
    s = P.Session(hook)
    gate = tier1(
        s,
        P.red_team_report([RT1_REFUTE_A], [RT1_MISSED]),
        before_red_team=lambda s: not_open.append(deny(s, "evidence-chase", f"Dig into H1. {floor}")),
    )
    # step not open: before the first red-team pass there are no hot spots yet
    assert not_open == [
        'Tier-2 spawn denied — rule "depth step open": the depth step has not opened: it '
        "opens only after the first red-team pass has reported and found hot spots."
    ]
    assert gate["post"].decision is None
    (lens, ids, prompt), *_rest = lens_prompts(gate["post"].context)
    assert (lens, ids) == ("evidence-chase", ["H1", "H2"])
    head = "Tier-2 spawn denied (depth axis):\n- rule "

    # a fork inherits the conversation: not fresh (even with the exact prompt)
    r = deny(s, "fork", prompt)
    assert r.startswith(head + '"fresh worker": subagent_type "fork" inherits this conversation')
    assert r.count("\n- ") == 1
    # a generic agent aimed at a hot spot is not a lens
    r = deny(s, "general-purpose", prompt)
    assert r.startswith(
        head + '"lens type": a tier-2 worker is one of evidence-chase, counter-model, edge-case-hunt, not "general-purpose"'
    )
    # the anti-anchoring floor is missing (one sentence dropped: that one is named)
    r = deny(s, "evidence-chase", prompt.replace("The red team's words are material too: check them.", ""))
    assert r == (
        head + '"anti-anchoring floor": the prompt must carry, verbatim, "The red team\'s words '
        'are material too: check them."\nRe-spawn with the exact prompt from the depth-axis gate reason.'
    )
    # no hot spot named
    r = deny(s, "evidence-chase", f"Trace the order-id claim to its primary source. {floor}")
    assert r == (
        head + '"hot spots only": the prompt names none of the hot spots H1, H2\n'
        "Re-spawn with the exact prompt from the depth-axis gate reason."
    )
    # the tier-1 synthesis travels with the prompt: a consensus to flatter
    r = deny(s, "evidence-chase", f"{prompt}\nWhat the panel concluded: {SYNTHESIS_SUMMARY}.")
    assert r.startswith(
        head + '"no consensus to flatter": the prompt carries the tier-1 synthesis/consensus (synthesis-lead summary ('
    )
    # several rules at once: each is named
    r = deny(s, "fork", "Take the counter-model angle once more.")
    assert [line.split('"')[1] for line in r.splitlines()[1:-1]] == ["fresh worker", "anti-anchoring floor", "hot spots only"]
    # red team 2 comes after the tier-2 workers
    r = deny(s, "red-team", "Red-team the tier-2 findings.")
    assert r.startswith(
        'Red-team spawn denied — rule "red team 2 after tier 2": red team 2 reviews the '
        "tier-2 findings, so the tier-2 workers come first (not spawned yet: evidence-chase, "
        "counter-model, edge-case-hunt)."
    )

    # one worker per lens
    workers = lens_prompts(gate["post"].context)
    ok(s.foreground(lens, prompt, TIER2_REFUTES_A[lens]))
    r = deny(s, lens, prompt)
    assert r.startswith(head + '"one worker per lens": evidence-chase was already spawned in this wave')
    for other, _ids, other_prompt in workers[1:]:
        last = ok(s.foreground(other, other_prompt, TIER2_REFUTES_A[other]))
    assert last["post"].decision is None and "red team 2" in last["post"].context
    # no second wave
    r = deny(s, "counter-model", workers[1][2])
    assert r == (
        'Tier-2 spawn denied — rule "depth step open": the deepen wave is over (linear: k workers + '
        "red team 2, at most k + 1 passes, never a second wave)."
    )
    ok(s.foreground("red-team", last["post"].context, RT2_UPHOLDS_TIER2))
    # no third red-team round
    r = deny(s, "red-team", "Red-team the synthesis once more.")
    assert r == (
        'Red-team spawn denied — rule "linear, no ping-pong": red team 2 has already run; the depth '
        "axis allows k + 1 extra passes and no further red-team rounds."
    )
    r = deny(s, "edge-case-hunt", workers[2][2])
    assert "never a second wave" in r

    d = load_delib(project)
    assert d["depth"]["passes"] == 4 == d["depth"]["workers_per_wave"] + 1
    assert d["depth"]["tier2_by_lens"] == {"evidence-chase": 1, "counter-model": 1, "edge-case-hunt": 1}
    lineage = json.loads((state_dir(project) / "sessions" / s.sid / "lineage.json").read_text())
    assert len(lineage["denied"]) == 12  # every deny above is in the lineage, with its reason
    assert not [a for a in d["agents"] if a["status"] == "refused"]
