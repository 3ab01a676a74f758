"""An obedient main agent's reading of the plugin's answers: it knows only what the plugin said —
the DELIBERATION PROTOCOL (question, panel, namespace) and then the newest note, hold or refusal
— and does what its "Next:" line says. Pure text in, decisions out; used by
tests/integration/test_next_step_flow.py and tests/e2e/test_e2e_obedient.py.

  "Next: spawn `a` and `b` …"  → exactly those agent types, each prompt built from what the line
                                 asks (phase line, question, every research finding received,
                                 the approach list or tier-2 items verbatim, a tier-2 worker's
                                 own prompt as given);
  "Next: wait …"               → wait;
  "Next: write / hand the decision document …" → the decision, then the document in the shape
                                 shown, citing only the ids listed;
  anything else                → finish, telling the user what the plugin says to tell.
"""

from __future__ import annotations

import json
import re
import textwrap
from dataclasses import dataclass, field
from deliberation import catalogue

HEADER = "DELIBERATION PROTOCOL (deliberation plugin)"
QUESTION_LINE = re.compile(r"^Question: (.*)$", re.M)
SUGGESTED = re.compile(r"suggested: ([a-z, -]+)\.")
NAMESPACE = re.compile(r'namespace: "([a-z0-9_.-]+:)<slug>"')
BACKQUOTED = re.compile(r"`([A-Za-z0-9_.:-]+)`")
PHASE = re.compile(r'"Phase: ([a-z-]+)"')
APPROACH_LIST = re.compile(r"Approaches to rank \(neutral order; it ranks nothing\):\n(?:- [^\n]*(?:\n|$))+")
WORKER_BLOCK = re.compile(
    r"--- worker (\d+) of (\d+): subagent_type \"([A-Za-z0-9:_-]+)\", hot spots ([^\n]*?) "
    r"— prompt: these lines, then the shared part:\n(.*?)\n--- end of worker \1 prompt",
    re.S,
)
SHARED_PART = re.compile(
    r"--- the shared part, the same at the end of every worker's prompt:\n(.*?)\n"
    r"--- end of the shared part",
    re.S,
)
TIER2_ITEMS = re.compile(r"Tier-2 items:\n(?:- [^\n]*(?:\n|$))+")
TELL_USER = re.compile(r"tell the user: \"?(.*?)\"?(?:\n|$)", re.S)
JSON_BLOCK = re.compile(r"```json\s*(\{.*?\})\s*```", re.S)
CITABLE = re.compile(r"^- ([A-Za-z0-9_.:-]+) \((finding|dissent|refutation|hot spot)[^)]*\): ", re.M)
GROUPED = re.compile(r"^- ([A-Za-z0-9_.-]+|hot spots): ((?:[A-Za-z0-9_.-]+(?:, |(?: \([a-z]+\))?(?:; |$)))+)$")
GROUP_KINDS = {"findings": "finding", "dissent": "dissent", "refutations": "refutation"}
DOCUMENT_ASKED = ("Next: write the decision document", "Next: hand the decision document")
# how the client labels hook output (docs/HOOK_ANSWERS.md)
HOOK_TEXT = re.compile(
    r"(?:UserPromptSubmit|PostToolUse:Agent|PreToolUse:(?:Agent|Write)|Stop|SessionStart) hook "
    r"(?:additional context|error): "
)


@dataclass(frozen=True)
class Protocol:
    question: str
    panel: "tuple[str, ...]"
    prefix: str


def read_protocol(text: str) -> "Protocol | None":
    """The injected protocol's question, suggested panel and namespace ('' without one)."""
    at = text.find(HEADER)
    if at < 0:
        return None
    body = text[at:]
    q = QUESTION_LINE.search(body)
    panel = SUGGESTED.search(body)
    ns = NAMESPACE.search(body)
    return Protocol(
        question=q.group(1).strip() if q else "",
        panel=tuple(p.strip() for p in panel.group(1).split(",")) if panel else (),
        prefix=ns.group(1) if ns else "",
    )


@dataclass
class Directive:
    action: str  # spawn | wait | document | finish
    text: str  # from "Next:" to the end of the plugin text
    agent_types: "list[str]" = field(default_factory=list)
    phase: str = "deliberation"
    worker_prompts: "dict[str, str]" = field(default_factory=dict)
    approach_list: str = ""
    tier2_items: str = ""
    tell_user: str = ""

    @property
    def wants_findings(self) -> bool:
        return "finding" in self.text.split("\n", 1)[0]


def plugin_texts(texts: "list[str]") -> "list[str]":
    """The plugin's part of each model-visible text (after the client's 'hook … context: ' /
    'hook error: ' label; a headless `ask` reason comes unlabelled), oldest first."""
    out: "list[str]" = []
    for t in texts:
        parts = HOOK_TEXT.split(t)
        if len(parts) > 1:
            out.extend(p for p in parts[1:] if p.strip())
        elif "Next:" in t and ("deliberation" in t.lower()):
            out.append(t)
    return out


def directive(plugin_text: str) -> "Directive | None":
    """The directive of one plugin text: its last "Next:" line and what follows it."""
    at = plugin_text.rfind("Next:")
    if at < 0:
        return None
    rest = plugin_text[at:]
    first = rest.split("\n", 1)[0]
    d = Directive(action="finish", text=rest)
    if first.startswith("Next: spawn") or first.startswith("Next: re-run"):
        d.action = "spawn"
        d.agent_types = [t for t in BACKQUOTED.findall(first) if re.fullmatch(r"[a-z0-9:_-]+", t)]
        if not d.agent_types:
            d.action = "finish"
    elif first.startswith("Next: wait"):
        d.action = "wait"
    elif first.startswith(DOCUMENT_ASKED):
        d.action = "document"
    phase = PHASE.search(rest)
    d.phase = phase.group(1) if phase else ("ranking" if "RANK" in first else "deliberation")
    shared = SHARED_PART.search(rest)
    d.worker_prompts = {m.group(3): m.group(5) + "\n" + (shared.group(1) if shared else "") for m in WORKER_BLOCK.finditer(rest)}
    listed = APPROACH_LIST.findall(rest)
    d.approach_list = listed[-1].strip() if listed else ""
    items = TIER2_ITEMS.findall(rest)
    d.tier2_items = items[-1].strip() if items else ""
    tell = TELL_USER.search(rest)
    d.tell_user = tell.group(1).strip() if tell else ""
    return d


def newest_directive(texts: "list[str]", labelled: bool = True) -> "Directive | None":
    """The directive of the newest plugin text that has one (`labelled`: `texts` are what the
    model read, the client's labels included; else the plugin's own texts)."""
    for t in reversed(plugin_texts(texts) if labelled else texts):
        d = directive(t)
        if d is not None:
            return d
    return None


def citable_ids(plugin_text: str) -> "dict[str, str]":
    """The ids the plugin lists as citable, with their kind (finding, dissent, refutation, hot spot)."""
    at = plugin_text.rfind("Ids you may cite")
    if at < 0:
        return {}
    out = {m.group(1): m.group(2) for m in CITABLE.finditer(plugin_text[at:])}
    for line in plugin_text[at:].splitlines()[1:]:  # a long catalogue: findings by id, one line per agent
        m = GROUPED.match(line)
        if not m:
            continue
        who, groups = m.groups()
        for group in groups.split("; "):
            ids, _, kind = group.partition(" (")
            for local in ids.split(", "):
                out[local if who == "hot spots" else f"{who}:{local}"] = GROUP_KINDS.get(kind.rstrip(")"), "hot spot")
    return out


def decision_document(plugin_text: str, decision: str) -> dict:
    """The document an obedient agent writes from the plugin's request: the shape it shows, every
    requirement, criterion and risk citing ids it lists (findings first, then dissent)."""
    ids = citable_ids(plugin_text)
    findings = [i for i, k in ids.items() if k == "finding"] or list(ids)
    concerns = [i for i, k in ids.items() if k in ("dissent", "refutation")] or findings
    spots = [i for i, k in ids.items() if k == "hot spot"]
    return {
        "document": "prd",
        "decision": f"Adopt approach {decision}: the panel's vote and its findings support it.",
        "problem": "Price reads dominate the checkout latency the users wait for.",
        "requirements": [
            {"id": f"R{n + 1}", "text": f"Address the finding {i}.", "priority": "must", "sources": [i]}
            for n, i in enumerate(findings[:3])
        ],
        "non_goals": [{"text": "Changing how prices are set.", "sources": []}],
        "acceptance_criteria": [
            {"id": "AC1", "text": "The checkout p99 is measured before and after.", "verifies": ["R1"], "sources": findings[:1]}
        ],
        "risks": [
            {
                "id": "RISK1",
                "risk": "A concern the panel raised comes true.",
                "mitigation": "Monitor it and roll back.",
                "severity": "high",
                "sources": concerns[:1],
            }
        ],
        "open_questions": [{"question": "Is the contested point settled?", "sources": spots[:1] or findings[:1]}],
    }


HANDOVER = re.compile(r"file_path `<project>/(\.claude/deliberation/documents/[A-Za-z0-9_-]+\.json)`")


def handover_call(plugin_text: str, decision: str, project: str) -> "dict | None":
    """The Write call's input that hands the document over where the request names (None: the
    request names no such call)."""
    named = HANDOVER.findall(plugin_text)
    if not named:
        return None
    return {"file_path": f"{project}/{named[-1]}", "content": json.dumps(decision_document(plugin_text, decision), indent=1)}


def concluding_answer(plugin_text: str, decision: str) -> str:
    """The concluding answer to a document request: the decision for the user — with what the
    request says to tell the user (a route that needs a person) — then the block."""
    doc = decision_document(plugin_text, decision)
    asked = directive(plugin_text)
    told = f"\n\n{asked.tell_user}" if asked is not None and asked.tell_user else ""
    return f"Decision: approach {decision}.{told}\n\n```json\n{json.dumps(doc, indent=2)}\n```"


def reports_in(texts: "list[str]") -> "list[dict]":
    """Every fenced JSON report in `texts` (tool results indent each line by two spaces)."""
    out = []
    for t in texts:
        for m in JSON_BLOCK.finditer(textwrap.dedent(t)):
            try:
                data = json.loads(textwrap.dedent(m.group(1)))
            except ValueError:
                continue
            if isinstance(data, dict) and "phase" in data:
                out.append(data)
    return out


def findings_text(reports: "list[dict]") -> str:
    lines = ["Findings of every research agent:"]
    for r in reports:
        if r.get("phase") != "research":
            continue
        for f in r.get("findings") or []:
            lines.append(f"- {f.get('claim')} (evidence: {f.get('evidence')})")
    return "\n".join(lines)


def approaches_text(reports: "list[dict]") -> str:
    seen: dict = {}
    for r in reports:
        if r.get("phase") == "deliberation":
            for a in r.get("approaches") or []:
                seen.setdefault(a.get("id"), a.get("title"))
    return "Approaches: " + "; ".join(f"{k} {v}" for k, v in seen.items()) if seen else ""


def slug_of(agent_type: str) -> str:
    return agent_type.rsplit(":", 1)[-1]


def prompt_for(d: Directive, agent_type: str, question: str, reports: "list[dict]") -> str:
    """The prompt an obedient agent sends for one agent type of a spawn directive."""
    if agent_type in d.worker_prompts:
        return d.worker_prompts[agent_type]
    lines = [f"PERSONA: {slug_of(agent_type)}", f"Phase: {d.phase}", f"Question: {question}"]
    if d.approach_list:
        lines.append(d.approach_list)
        lines.append(
            "Score every approach 0-10 on each dimension; give your verdict and a concern with "
            "its reason for each approach you would not adopt."
        )
    elif d.phase != "research":
        if d.wants_findings or "finding" in d.text:
            lines.append(findings_text(reports))
        approaches = approaches_text(reports)
        if approaches and "approaches" in d.text.split("\n", 1)[0]:
            lines.append(approaches)
        if d.tier2_items:
            lines.append(d.tier2_items)
    lines.append("End with one fenced JSON report.")
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# the panel's scripted answers (what the subagents say; nothing here drives the main agent)

APPROACHES = [
    {
        "id": "A",
        "title": "Per-node price cache with a 30 s TTL and invalidation events",
        "summary": "Each node caches prices for 30 s; price changes publish an invalidation event.",
    },
    {
        "id": "B",
        "title": "Keep reading prices from the pricing database",
        "summary": "The status quo, with one more read replica.",
    },
    {
        "id": "C",
        "title": "One shared cache in front of the pricing database",
        "summary": "A shared cache cluster that every node reads.",
    },
]
CLAIMS = {  # a distinct, concrete finding per persona (any persona the protocol may suggest)
    "technical-architect": (
        "The order service reads prices in three modules; one pricing client wraps them all.",
        "orders/pricing_client.py:1-60",
    ),
    "security-analyst": ("A withdrawn promotion price stays valid until the cache entry expires.", "pricing/promotions.py:88"),
    "performance-engineer": ("Price reads are 41 ms of the 108 ms checkout p99.", "bench/checkout_p99.txt"),
    "cost-analyst": (
        "The pricing database needs two more read replicas at current growth: 4.1k a month.",
        "finance/infra-2026.csv:17",
    ),
    "devils-advocate": (
        "Invalidation events are lost when the bus is down, and nothing reconciles them.",
        "ops/bus-outages.md:4",
    ),
    "reliability-engineer": ("The pricing database failed over twice last quarter, 40 s each.", "ops/incidents-q3.md:12"),
}
RANK_A = {
    "technical-architect": 7.8,
    "security-analyst": 8.4,
    "performance-engineer": 8.9,
    "cost-analyst": 8.6,
    "devils-advocate": 7.9,
    "reliability-engineer": 8.2,
}
PERSONA_TAG = re.compile(r"^PERSONA: ([a-z-]+)$", re.M)
PHASE_TAG = re.compile(r"^Phase: ([a-z-]+)$", re.M)
LIST_ENTRY = re.compile(r"^- ([A-Z][A-Za-z0-9:_-]*): ", re.M)
LENS_TITLES = {"Evidence Chase": "evidence-chase", "Counter-Model": "counter-model", "Edge-Case Hunt": "edge-case-hunt"}
DIMENSIONS = tuple(d.name for d in catalogue.DIMENSIONS)  # the catalogue's


def _report(phase: str, **fields) -> dict:
    base: "dict[str, object]" = {
        "phase": phase,
        "summary": "",
        "findings": [],
        "approaches": [],
        "scores": {},
        "verdict": "abstain",
        "preferred_approach": None,
        "rationale": "",
        "dissent": [],
        "confidence": 0.6,
        "refutations": [],
        "conflicts": [],
        "missed_angles": [],
        "hot_spots": [],
    }
    base.update(fields)
    return base


def scripted_answer(prompt: str) -> dict:
    """The report a subagent of the scripted panel returns for `prompt`."""
    head = prompt.split("\n", 1)[0]
    if head.startswith("You are a fresh tier-2 worker"):
        lens = next((slug for title, slug in LENS_TITLES.items() if title in head), "evidence-chase")
        return _report(
            "deliberation",
            summary=f"{lens}: dug into H1.",
            hot_spots=["H1"],
            confidence=0.7,
            findings=[
                {
                    "id": "F1",
                    "claim": f"{lens}: the bus outage runbook replays events only for orders, never for prices",
                    "evidence": f"ops/bus-outages.md:{20 + len(lens)} ({lens} checked the runbook)",
                    "severity": "medium",
                }
            ],
            rationale="New evidence on the missed angle.",
        )
    found = PERSONA_TAG.search(prompt)
    persona: str = found[1] if found else ""
    phase = (PHASE_TAG.search(prompt) or [None, ""])[1]
    if persona == "synthesis-lead":
        return _report(
            "deliberation",
            summary="Three alternatives from non-conflicting findings.",
            approaches=APPROACHES,
            preferred_approach="A",
            rationale="A takes the price read off the hot path; its stale window is bounded.",
        )
    if persona == "debate-moderator":
        return _report("deliberation", summary="The personas weigh different aspects; no real conflict.")
    if persona == "red-team":
        if "Tier-2 items:" in prompt:
            return _report(
                "deliberation",
                summary="The tier-2 findings hold.",
                confidence=0.7,
                rationale="Checked the runbook lines the workers cite.",
            )
        return _report(
            "deliberation",
            summary="The converged points held; one angle was missed.",
            refutations=[
                {
                    "target": "A",
                    "verdict": "upheld",
                    "claim": "the invalidation path exists",
                    "evidence": "pricing/events.py:12 publishes price changes",
                }
            ],
            missed_angles=["Nobody checked what happens to invalidation events during a bus outage."],
        )
    if phase == "ranking":
        ids = LIST_ENTRY.findall(prompt) or ["A", "B", "C"]
        a = RANK_A.get(persona, 8.0)
        values = {"A": a, "B": 6.0, "C": 5.5}
        return _report(
            "ranking",
            summary=f"{persona} scored every approach.",
            scores={i: {d: values.get(i, 5.0) for d in DIMENSIONS} for i in ids},
            verdict="approve",
            preferred_approach="A",
            confidence=0.92,
            rationale=f"{persona}: A fits my priorities once the outage angle is covered.",
        )
    claim, evidence = CLAIMS.get(persona, (f"{persona}: prices change about 40 times a day.", "pricing/README.md:3"))
    return _report(
        "research",
        summary=claim,
        findings=[{"id": "F1", "claim": claim, "evidence": evidence, "severity": "high"}],
        approaches=APPROACHES,
        verdict="approve",
        preferred_approach="A",
        confidence=0.6,
        rationale=f"{persona}: A answers my finding F1.",
    )


def report_message(data: dict) -> str:
    return f"Here is my report.\n\n```json\n{json.dumps(data, indent=2)}\n```"
