"""Independence from the main agent's framing.

The shared context a research persona receives should be facts about the project (files,
constraints, the question's terms), not the main agent's conclusions: a decisive fact the main
agent already concluded and put in the context is "found" by every persona, and the panel's
agreement then rests on the main agent's reading, not on its own.

- `split_context(text)`: the sentences of a shared context that state a conclusion (a
  recommendation, a verdict, a diagnosis, an opinion — lexical: `CONCLUSION`) are dropped, and
  returned so the main agent and the record can be told which.
- `measure(delib)`: which findings only restate what the agents were given (the shared context
  and the question; on the per-turn path the question alone) — a paraphrase
  (`depth.paraphrase.is_paraphrase`) of one of its sentences, or mostly its words
  (`similarity.containment` ≥ RESTATED_CONTAINMENT) — and how many the panel established beyond it.
- `warning(delib, m)`: a vote that passed on research of which at least RESTATED_SHARE only
  restated the context is a conformity warning (`restated_context`; informational: it never
  blocks the quality gate).

Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from deliberation.core.depth.paraphrase import is_paraphrase
from deliberation.core.phases import current
from deliberation.core.similarity import containment
from deliberation.state.models import AgentRecord, ConformityWarning, Deliberation
from deliberation.text import conformity as words

RESTATED_CONTAINMENT = 0.6  # share of a finding's word trigrams found in the context
RESTATED_SHARE = 0.5  # share of research findings restating the context that makes the warning
MIN_FINDINGS = 2  # fewer research findings than this: no warning

CONCLUSION = re.compile(
    r"\b(?:I|we) (?:think|believe|suspect|recommend|suggest|conclude|concluded|found|would|prefer|propose)\b"
    r"|\b(?:we|you|they|the team) (?:should|ought to|need to)\b"
    r"|\b(?:I'd|we'd) (?:go|pick|choose|use|recommend)\b"
    r"|\b(?:the|my|our) (?:best|right|correct|obvious|recommended|preferred) (?:option|approach|choice|fix|answer|solution|way)\b"
    r"|\b(?:the|my|our) (?:answer|solution|fix|culprit|root cause|real (?:problem|issue)|actual (?:problem|issue)|conclusion|recommendation|verdict)"
    r" (?:is|was|would be)\b"
    r"|\b(?:clearly|obviously|evidently|definitely|undoubtedly)\b"
    r"|\b(?:therefore|hence|thus)\b|\bwhich means\b|\bthis means\b"
    r"|\bthe (?:decisive|key|crucial) (?:fact|point|issue)\b"
    r"|\bis (?:the|a) (?:bug|flaw|real problem|root cause)\b"
    r"|\b(?:go|going) with\b|\bthe way to go\b",
    re.I,
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`\"'(])|\n+")


@dataclass(frozen=True)
class Measure:
    findings: int = 0  # findings of the current reports (research, deliberation, tier 2)
    restated: "tuple[str, ...]" = ()  # refs of the findings that only restate what the agents were given
    research: int = 0  # research findings
    research_restated: int = 0
    dropped: "tuple[str, ...]" = field(default_factory=tuple)  # conclusion sentences dropped from the context

    @property
    def beyond(self) -> int:
        """Findings the panel established beyond what it was given."""
        return self.findings - len(self.restated)


def sentences(text: str) -> "list[str]":
    return [s.strip() for s in _SENTENCE.split(text or "") if s and s.strip()]


def split_context(text: str) -> "tuple[str, list[str]]":
    """(the context without its conclusion sentences, the sentences dropped). Lines are kept as
    lines: a list of files stays a list."""
    kept_lines: list[str] = []
    dropped: list[str] = []
    for line in (text or "").split("\n"):
        parts = [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z0-9`\"'(])", line) if s.strip()]
        keep = [p for p in parts if not CONCLUSION.search(p)]
        dropped += [p.strip() for p in parts if CONCLUSION.search(p)]
        if len(keep) == len(parts):
            kept_lines.append(line)
        elif keep:
            kept_lines.append(" ".join(keep))
    return "\n".join(kept_lines).strip(), dropped


def given(delib: Deliberation, agent: "AgentRecord") -> str:
    """What a research agent was given besides its instructions: the question and, in the
    plugin's workflow, the shared context (on the per-turn path the main agent wrote each prompt,
    and the plugin keeps only its size and hash: the question alone is compared)."""
    drive = getattr(delib, "workflow", None)
    if agent.channel == "workflow" and drive is not None:
        return f"{delib.question}\n{drive.context}"
    return delib.question or ""


def restates(claim: str, context: str) -> bool:
    if not claim.strip() or not context.strip():
        return False
    return containment(claim, context) >= RESTATED_CONTAINMENT or is_paraphrase(claim, sentences(context))


def measure(delib: Deliberation) -> Measure:
    """Which findings restate what the research agents were given (module docstring)."""
    research = current(delib, "research")
    contexts = {a.key: given(delib, a) for a in research}
    shared = "\n".join(dict.fromkeys(contexts.values()))
    findings = 0
    restated: list[str] = []
    research_n = research_restated = 0
    for a in current(delib, "research") + current(delib, "deliberation"):
        context = contexts.get(a.key, shared)
        for f in a.filed.findings:
            findings += 1
            hit = restates(f.claim, context)
            if a.stage == "research":
                research_n += 1
                research_restated += hit
            if hit:
                restated.append(f"{a.persona}:{f.id}")
    drive = getattr(delib, "workflow", None)
    dropped = tuple(getattr(drive, "dropped", []) or []) if drive is not None else ()
    return Measure(findings, tuple(restated), research_n, research_restated, dropped)


def warning(delib: Deliberation, m: "Measure | None" = None) -> "list[ConformityWarning]":
    """A consensus resting on restated context (see the module docstring)."""
    m = m or measure(delib)
    if m.research < MIN_FINDINGS or m.research_restated < RESTATED_SHARE * m.research:
        return []
    keys = [a.key for a in current(delib, "research")]
    return [
        ConformityWarning(
            detector="restated_context",
            agents=keys,
            evidence=words.restated_context(m.research_restated, m.research, list(m.restated[:6])),
            recommendation=words.RESTATED_RECOMMENDATION,
        )
    ]
