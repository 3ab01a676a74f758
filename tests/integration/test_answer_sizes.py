"""No hook answer is longer than what the client passes on to the model.

The client replaces an additionalContext of more than 10,000 characters with a 2 KB preview and
a file path (measured: docs/HOOK_ANSWERS.md), so the plugin builds its long answers — the depth
step's worker prompts, red team 2's items, the decision document's request with every citable
id — to fit `hookio.ANSWER_BUDGET`. This drives a whole depth-axis deliberation of a large,
verbose panel through the real hook scripts (5 research personas of 10 long findings each, a
red team that contests 12 of them and names 6 missed angles, the tier-2 workers, red team 2, the
ranking, a refused hand-over of the document, a concluding answer without the document, then
with it) and asserts the largest answer
the model read; the figure is printed.
"""

from __future__ import annotations

import hashlib
import re

from tests.helpers import payloads as P
from tests.helpers.project import only_delib

QUESTION = (
    "Should the billing service replace its server-side sessions with short-lived access tokens and "
    "refresh tokens, given the irreversible logout of every customer and the production risk?"
)
PANEL = ("security-analyst", "performance-engineer", "cost-analyst", "reliability-engineer", "technical-architect")
APPROACHES = [
    ("A", "Short-lived access token with a Redis-backed refresh token and a deny list for revocation"),
    ("B", "Keep server sessions, move the store from Postgres to Redis with replication"),
    ("C", "Dual acceptance: sessions and tokens side by side for a migration window of four weeks"),
]
WORDY = (
    "because the request path reads the session row on every call, the p99 budget of 50 ms leaves "
    "little room, and the refresh rotation adds a write per renewal that the primary must absorb "
    "during the daily peak between 09:00 and 11:00 when the invoice runs are scheduled"
)
WORKER = re.compile(
    r'--- worker (\d+) of (\d+): subagent_type "([a-z-]+)", hot spots ([H0-9, ]+) '
    r"— prompt: these lines, then the shared part:\n(.*?)\n--- end of worker \1 prompt",
    re.S,
)
SHARED = re.compile(
    r"--- the shared part, the same at the end of every worker's prompt:\n(.*?)\n"
    r"--- end of the shared part",
    re.S,
)


TOPICS = [
    "token revocation lag",
    "refresh rotation writes",
    "mobile keychain storage",
    "CSRF on the cookie path",
    "clock skew between pods",
    "Redis failover window",
    "audit trail of logouts",
    "invoice batch contention",
    "TLS termination at the edge",
    "session fixation on login",
    "GDPR erasure of refresh tokens",
    "cold cache after deploys",
    "rate limits on the refresh endpoint",
    "key rotation of the signer",
    "legacy SOAP clients",
    "support staff impersonation",
    "replica lag on reads",
    "cost of Redis memory",
    "on-call runbooks",
    "feature flag rollout",
    "backup restore of the deny list",
    "webhook retries",
    "multi-region latency",
    "pen-test findings from 2023",
]


def words(seed: str, n: int = 36) -> str:
    """n distinct words of realistic length, the same for the same seed (no two texts alike,
    so the hot spots do not merge)."""
    return " ".join(hashlib.sha256(f"{seed}:{k}".encode()).hexdigest()[: 4 + k % 6] for k in range(n))


def topic(n: int) -> str:
    return f"{TOPICS[n % len(TOPICS)]} ({n})"


class Sizes:
    """Wraps the hook fixture: the length of every text of an answer the model reads."""

    def __init__(self, hook) -> None:
        self.hook = hook
        self.seen: "list[tuple[int, str]]" = []

    def __call__(self, event: str, payload, **kw):
        out = self.hook(event, payload, **kw)
        for text in (out.context, out.reason):
            if text:
                self.seen.append((len(text), f"{event}: {text[:80]}"))
        return out

    def largest(self) -> "tuple[int, str]":
        return max(self.seen)


def claim(persona: str, i: int) -> str:
    return f"{persona} finding {i} on {topic(PANEL.index(persona) * 10 + i)}: {words(persona + str(i))}"


def research(persona: str) -> str:
    return P.fenced(
        {
            "phase": "research",
            "summary": f"{persona} view: {WORDY}",
            "findings": [
                {
                    "id": f"F{i}",
                    "claim": claim(persona, i),
                    "evidence": f"billing/session.py:{40 + i} — {WORDY[:120]}",
                    "severity": "high" if i < 3 else "medium",
                }
                for i in range(1, 11)
            ],
            "approaches": [{"id": a, "title": t, "summary": f"{t}; {WORDY}"} for a, t in APPROACHES],
            "verdict": "approve",
            "preferred_approach": "A",
            "rationale": WORDY,
            "confidence": 0.55,
        }
    )


def test_a_whole_depth_flow_of_a_large_panel_fits_what_the_client_passes_on(project, hook):
    from deliberation.wire.hookio import ANSWER_BUDGET, CONTEXT_LIMIT

    sizes = Sizes(hook)
    s = P.Session(sizes)
    s.prompt(QUESTION)
    for persona in PANEL:
        out = s.foreground(persona, f"Phase: research\nQuestion: {QUESTION}", research(persona))
        assert out["pre"].decision is None and out["stop"].decision is None, out["pre"].reason
    synth = P.fenced(
        {
            "phase": "deliberation",
            "summary": WORDY,
            "approaches": [{"id": a, "title": t, "summary": f"{t}; {WORDY}"} for a, t in APPROACHES],
            "preferred_approach": "A",
            "rationale": WORDY,
            "confidence": 0.6,
        }
    )
    s.foreground("synthesis-lead", "Phase: deliberation\nMerge all research findings.\n" + s.findings(), synth)
    refutations = [
        {
            "target": f"{persona}:F{i}",
            "verdict": "refuted" if i % 2 else "weakened",
            "claim": f"{topic(PANEL.index(persona) * 10 + i)} breaks the claim: {words('rt' + persona + str(i))}",
            "evidence": f"billing/load_test_{i}.csv {WORDY[:150]}",
        }
        for persona in PANEL[:3]
        for i in range(1, 5)
    ]
    missed = [f"nobody examined {TOPICS[-i]} and what it does to {TOPICS[i]}: {words('missed' + str(i))}" for i in range(1, 7)]
    gate = s.foreground(
        "red-team", "Phase: deliberation\nRed-team every finding and approach.", P.red_team_report(refutations, missed)
    )["post"]
    assert gate.context.startswith("Depth axis: the red-team pass left"), gate.context[:300]
    (shared,) = SHARED.findall(gate.context)
    workers = WORKER.findall(gate.context)
    assert workers and {w[2] for w in workers} <= {"evidence-chase", "counter-model", "edge-case-hunt"}
    hot = sorted({h.strip() for w in workers for h in w[3].split(",")}, key=lambda h: int(h[1:]))
    assert len(hot) >= 6, hot  # the red team contested 12 findings and named 6 missed angles
    for _i, _k, lens, _ids, own in workers:
        report = P.lens_report(
            hot,
            [
                {"id": f"F{i}", "claim": f"{lens} new fact {i}: {WORDY}", "evidence": f"repro/{lens}-{i}.sh {WORDY[:100]}"}
                for i in range(1, 9)
            ],
            [
                {"target": h, "verdict": "upheld", "claim": f"holds: {WORDY}", "evidence": f"checked {h}: {WORDY[:100]}"}
                for h in hot
            ],
        )
        out = s.foreground(lens, own + "\n" + shared, report)
        assert out["pre"].decision is None, out["pre"].reason
        assert out["stop"].decision is None, out["stop"].reason
    rt2_gate = out["post"].context
    assert rt2_gate.startswith("Depth axis — red team 2"), rt2_gate[:300]
    s.foreground(
        "red-team",
        rt2_gate,
        P.red_team_report(
            [{"target": "evidence-chase:R1", "verdict": "upheld", "claim": "re-checked", "evidence": "re-ran repro"}], round_=2
        ),
    )
    dissent = [{"target": a, "concern": f"{a} {WORDY[:80]}", "reason": WORDY} for a in ("B", "C")]
    for persona in PANEL:
        out = s.foreground(
            persona,
            "Phase: ranking\nRank approaches A, B and C on the five dimensions.",
            P.ranking_report({"A": (9, 9, 9, 9, 9), "B": (5, 6, 6, 5, 6), "C": (6, 5, 5, 6, 5)}, "approve", "A", WORDY, dissent),
        )
        assert out["pre"].decision is None, out["pre"].reason
    did = only_delib(project)["id"]
    refused = s.hook(
        "PreToolUse",
        P.pre_tool(
            s.sid,
            "Write",
            {  # a document citing nothing listed: refused
                "file_path": f"{project}/.claude/deliberation/documents/{did}.json",
                "content": '{"document": "prd", "decision": "A", "problem": "p", "requirements": []}',
            },
        ),
    )
    assert refused.decision == "deny" and "Ids you may cite (" in refused.reason, refused.reason[:500]
    held = s.stop(message="Decision: approach A.")  # no document: the send-back with every id
    assert held.decision == "block" and "Ids you may cite (" in held.reason, held.reason[:500]
    done = s.stop(active=True, message=P.prd_message(["security-analyst:F1", "performance-engineer:F1"]))
    assert done.decision is None, done.reason
    d = only_delib(project)
    assert d["phase"] == "COMPLETE", d["failure_reasons"]

    size, what = sizes.largest()
    print(
        f"\nlargest answer the model read: {size} characters ({what!r}); "
        f"{len(sizes.seen)} texts; budget {ANSWER_BUDGET}, client limit {CONTEXT_LIMIT}"
    )
    assert size <= ANSWER_BUDGET, (size, what)
    assert not any("characters cut" in w for _n, w in sizes.seen)
    # every citable id is listed: none is "named the same way" and left out
    assert "more, named the same way" not in held.reason
    # the ids the plugin numbered (no report shows them) come with their text, however long the list
    assert "(dissent)" not in held.reason and "(refutations)" not in held.reason
    for persona in PANEL:
        assert f"- {persona}:D1 (dissent on B): B because the request path" in held.reason, held.reason[-3000:]
    assert "- red-team:R1 (refutation: refuted security-analyst:F1): refresh rotation writes (1) breaks" in held.reason
