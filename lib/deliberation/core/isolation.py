"""Context isolation: what a spawn prompt may and must carry of the findings recorded so far — a
research prompt none of another agent's, a synthesis or debate prompt every research agent's
(docs/FORMULAS.md, "Research isolation", states the measure and its limits).

`leak_score` measures one finding against a prompt (claim and evidence shingled, the shared
context subtracted, the larger of verbatim and paraphrase containment); `check_prompt` returns
the refs of the recorded findings a prompt carries (score ≥ the threshold); `leak_reason` and
`missing_reason` word the research and synthesis/debate refusals; `recorded_findings` lists a
deliberation's findings as (ref, claim, evidence). Pure and stdlib only: PreToolUse runs it on
the spawn path.
"""

from __future__ import annotations

from typing import Iterable, Sequence, Tuple

from deliberation.core.similarity import shingles, token_set
from deliberation.text import refusals

MIN_TOKENS = 4  # content tokens a finding needs before the paraphrase measure applies
TOKEN_WEIGHT = 0.75  # weight of the content-token share in the paraphrase measure

Finding = Tuple[str, str, str]  # (ref, claim, evidence), e.g. ("security-analyst:F1", "...", "...")


def _share(part: frozenset, whole: frozenset) -> float:
    return len(part & whole) / len(part) if part else 0.0


def _score(parts: Sequence[str], prompt3: frozenset, prompt1: frozenset, shared3: frozenset, shared1: frozenset) -> float:
    grams = frozenset().union(*(shingles(p, 3) for p in parts)) - shared3
    words = frozenset().union(*(token_set(p) for p in parts)) - shared1
    verbatim = _share(grams, prompt3)
    if len(words) < MIN_TOKENS:
        return verbatim
    paraphrase = TOKEN_WEIGHT * _share(words, prompt1) + (1 - TOKEN_WEIGHT) * verbatim
    return max(verbatim, paraphrase)


def leak_score(prompt: str, claim: str, evidence: str = "", shared_context: str = "") -> float:
    """How much of one finding the prompt carries, in [0, 1] (see the module docstring)."""
    p3, p1 = shingles(prompt or "", 3), token_set(prompt or "")
    s3, s1 = shingles(shared_context or "", 3), token_set(shared_context or "")
    return _finding_score(claim, evidence, p3, p1, s3, s1)


def _finding_score(claim: str, evidence: str, p3: frozenset, p1: frozenset, s3: frozenset, s1: frozenset) -> float:
    candidates: list[tuple[str, ...]] = [(claim,)]
    if evidence and evidence.strip():
        candidates.append((claim, evidence))
    return max(_score(parts, p3, p1, s3, s1) for parts in candidates)


def check_prompt(prompt: str, findings: Iterable[Finding], shared_context: str = "", threshold: float = 0.5) -> "list[str]":
    """Refs of the recorded findings that `prompt` carries, in the order given.

    `findings` are (ref, claim, evidence) of findings already recorded by other agents;
    `shared_context` is L1 text every agent may get (it is subtracted before measuring).
    """
    if not prompt:
        return []
    p3, p1 = shingles(prompt, 3), token_set(prompt)
    s3, s1 = shingles(shared_context or "", 3), token_set(shared_context or "")
    return [ref for ref, claim, evidence in findings if _finding_score(claim, evidence, p3, p1, s3, s1) >= threshold]


def recorded_findings(agents: Iterable, exclude_persona: str = "") -> "list[Finding]":
    """(ref, claim, evidence) of every finding in the valid reports of `agents` (AgentRecords,
    duck-typed so this module stays free of pydantic), ref = "persona:finding id". Findings of
    `exclude_persona` (the agent being spawned: its own earlier work) are left out."""
    out: list = []
    for a in agents:
        report = getattr(a, "report", None)
        if report is None or getattr(a, "superseded", False) or getattr(a, "status", "") in ("invalid", "refused"):
            continue
        if exclude_persona and a.persona == exclude_persona:
            continue
        out.extend((f"{a.persona}:{f.id}", f.claim, f.evidence) for f in report.findings)
    return out


def leak_reason(
    refs: Sequence[str],
    findings: Iterable[Finding] = (),
    subject: str = refusals.LEAK_SUBJECT,
    instead: str = refusals.LEAK_INSTEAD,
) -> str:
    """The deny reason: which findings leaked (with a short quote) and what to do instead.
    `subject` / `instead` name the text (a spawn prompt, a SendMessage to a research agent)."""
    return refusals.research_leak(list(refs), {ref: claim for ref, claim, _ in findings}, subject, instead)


def missing_reason(role: str, missing: Sequence[str], findings: Iterable[Finding], not_arrived: "Iterable[str]" = ()) -> str:
    """The deny reason of a synthesis/debate prompt that lacks findings of reported research
    agents: which (with a short quote), which of them have not reached the main agent yet, and
    what to send instead — the claim and evidence of every research finding."""
    return refusals.findings_missing(role, list(missing), [(r, c, e) for r, c, e in findings], not_arrived)
