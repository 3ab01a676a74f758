"""What `deliberation demo` prints: the replayed deliberation told as a story, 100 columns wide.

The story is built from two things the replay produced, both data: the deliberation's record
(`report.decision_record.record_json`: findings, scores, gates, route, document, cost) and the
moments the hooks answered (`Moment`: which kind of decision, what the plugin answered, to whom,
its text). It has five parts — the question; what the panel found, stage by stage; what each
gate decided and why, with its figures; what happens next (the route, the commands that settle
it, the records); the terms it used, each explained once — and every line fits `WIDTH` columns.
Pure: no I/O.
"""

from __future__ import annotations

import re
import shlex
import textwrap
from dataclasses import dataclass
from typing import Any, Iterable

from deliberation.text import terminal
from deliberation.text import dimensions as dimension_words

WIDTH = 100
INDENT = "  "

# what the plugin did, by the answer's kind (the verdicts the client reads)
DID = {
    "context": "told the model",
    "deny": "refused the spawn",
    "block": "held the main agent's stop",
    "ask": "asked the user",
    "message": "told the user",
}

# every term the story may print, explained once at its end (only the terms it used)
GLOSSARY: "tuple[tuple[str, str, str], ...]" = (
    # (term as printed, a pattern that finds it in the story, what it means)
    (
        "persona",
        r"\bpersonas?\b",
        "a subagent with one point of view (security, performance, cost) that "
        "researches the question alone, then ranks the approaches",
    ),
    (
        "red team",
        r"\bred team\b",
        "a subagent that attacks the panel's findings: it refutes, weakens or "
        "upholds each one, with evidence, and names missed angles",
    ),
    (
        "hot spot",
        r"\bhot spots?\b",
        "a contested point the red team left (an approach it refuted, an angle "
        "nobody examined), H1, H2…: the depth step digs into it",
    ),
    (
        "tier 1 / tier 2",
        r"\btier[ -][12]\b",
        "tier 1 is the first pass (research, red team 1); tier 2 are fresh workers sent onto the hot spots, one per lens",
    ),
    (
        "lens",
        r"\blens(es)?\b",
        "a tier-2 worker's way of attacking a hot spot: evidence-chase (the primary "
        "source), counter-model (another explanation), edge-case-hunt (what breaks)",
    ),
    (
        "depth step",
        r"\bdepth (step|synthesis)\b",
        "after the red team, the plugin sends fresh workers onto each "
        "hot spot, then a second red team onto their results, "
        "before anyone ranks",
    ),
    ("zero signal", r"\bzero signal\b", "a tier-2 report that only restates tier 1: it is not counted"),
    (
        "override",
        r"\boverride\b|\bstruck\b",
        "red team 2 upheld a tier-2 refutation, so the refuted approach is struck from the lead: it cannot be the decision",
    ),
    (
        "blind ranking",
        r"\bblind\b",
        "each ranker gets the question and the approaches in a neutral order, "
        "never the other rankers' scores or which approach leads",
    ),
    (
        "weighted score",
        r"\bweighted\b",
        "a ranker's five dimension scores (0-10) averaged with the weights of the question's type (here security)",
    ),
    (
        "consensus",
        r"\bconsensus\b",
        "how far the rankers agree on the leader, 0-1: each ranker's margin for "
        "or against it, summed, against a fixed doubt of 0.2",
    ),
    (
        "dissent",
        r"\bdissent",
        "a ranker's documented concern about the leader, with its reason; a dissent "
        "without a reason cannot be weighed, so the gate asks for it",
    ),
    (
        "conformity warning",
        r"\bconformity\b",
        "agreement that may not come from independent judgement "
        "(scores bunched together, the same reasoning, one model): "
        "a warning, not a proof",
    ),
    (
        "consensus gate",
        r"\bconsensus gate\b",
        "the check on the vote: enough rankers, consensus at or above the threshold, every dissent documented",
    ),
    (
        "quality gate",
        r"\bquality gate\b",
        "the check at the stop: diverse personas, alternatives weighed, improvement over research, the decision document traced",
    ),
    (
        "decision class",
        r"\bdecision class\b",
        "what the decision is about (security/auth); a class whose decisions were reversed before is watched more closely",
    ),
    ("judges' confidence", r"judges' confidence", "the rankers' own mean confidence in their verdicts, 0-1"),
    (
        "route",
        r"\broute\b",
        "what happens to the decision after the vote: auto-execute, auto-reject, "
        "human-review (a person approves or rejects) or hard-reject",
    ),
    (
        "D+T2+PROBE",
        r"D\+T2\+PROBE",
        "the default escalation policy: the rules D, T2 and PROBE below (the stricter T1+D+T2+PROBE also runs T1)",
    ),
    ("D", r"\brule D\b|\bD\+", "a split vote (a ranker approved but preferred another approach, or rejected) goes to a person"),
    ("T1", r"\bT1\b", "every accepted decision of a class reversed before goes to a person (strict policy)"),
    (
        "T2",
        r"\bT2\b",
        "a unanimous vote whose judges are very sure (confidence ≥ 0.9) on a class reversed "
        "before goes to a person: unanimity is the warning",
    ),
    ("PROBE", r"\bPROBE\b", "a probe of the decision (a check run against it) that failed or timed out sends it to a person"),
    (
        "decision document (PRD)",
        r"\bPRD\b",
        "the requirements, non-goals, acceptance criteria, risks and "
        "open questions the main agent writes, each citing the finding, "
        "dissent or hot spot it rests on",
    ),
)


@dataclass(frozen=True)
class Moment:
    """One decision a hook answered: its kind (KINDS), the answer's verdict (DID), to whom, the text."""

    kind: str
    verdict: str
    who: str
    text: str


KINDS = ("depth_instruction", "spawn_denied", "red_team_2", "depth_synthesis", "gate_failed", "gate_passed", "route")


@dataclass(frozen=True)
class Replay:
    """The replay's figures: the client recorded, its events, where it ran, how it went."""

    client: str
    events: int
    project: str
    answers: int
    differ: "tuple[int, ...]" = ()
    seconds: float = 0.0
    # for the last screen: the command as it runs from the person's terminal (a full path unless
    # their PATH has one), the plugin's folder, the run's folder and whether it is a temporary one
    command: str = "deliberation"
    plugin: str = ""
    root: str = ""
    temporary: bool = True


# --------------------------------------------------------------------------- helpers


def wrap(text: str, indent: str = INDENT, hang: str = "  ") -> "list[str]":
    """`text` wrapped to WIDTH, its first line at `indent`, the others at `indent + hang`."""
    return textwrap.wrap(
        text, WIDTH, initial_indent=indent, subsequent_indent=indent + hang, break_long_words=False, break_on_hyphens=False
    ) or [indent.rstrip()]


def heading(title: str) -> "list[str]":
    return ["", title.upper()]


def plural(n: int, one: str, many: "str | None" = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def listing(items: "list[str]") -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?", "…")) else text + "."


def _lines_after(text: str, prefix: str) -> "list[str]":
    return [line[len(prefix) :].strip() for line in text.splitlines() if line.startswith(prefix)]


def _next_of(text: str) -> str:
    """The moment's next step, to its first colon or sentence end (the rest is for the model)."""
    nxt = _lines_after(text, "Next:")
    if not nxt:
        return ""
    first = re.split(r"(?<=[a-z)`]): |(?<=[a-z)`])\. ", nxt[0], maxsplit=1)[0]
    return first.rstrip(".")


# --------------------------------------------------------------------------- the parts


def header(replay: Replay) -> "list[str]":
    return [
        f"Replaying a deliberation recorded from {replay.client}:",
        f"its {replay.events} hook events go through the real hook scripts in a new project (no network, no API key):",
        f"{INDENT}{replay.project}",
    ]


def question_part(record: "dict[str, Any]") -> "list[str]":
    out = heading("The question")
    out += wrap(record["question"])
    route = record.get("route") or {}
    cls = f", decision class {route['decision_class']}" if route.get("decision_class") else ""
    out += wrap(f"Type {record['task_type']}{cls}: its consensus threshold is {record['threshold']:.2f}.")
    return out


def _by_stage(record: "dict[str, Any]", stage: str, tier: int) -> "list[dict]":
    return [f for f in record["findings"] if f["stage"] == stage and f["tier"] == tier]


def _evidence(item: dict) -> str:
    return f" ({item['evidence']})" if item.get("evidence") else ""


def found_part(record: "dict[str, Any]") -> "list[str]":
    out = heading("What the panel found")
    titles = {a["id"]: a["title"] for a in record["approaches"]}
    research = [p for p in record["participants"] if p["stage"] == "research" and p["kind"] == "persona"]
    prefs = sorted({p["preferred"] for p in research if p["preferred"]})
    said = f"all preferred {prefs[0]} ({titles.get(prefs[0], prefs[0])})" if len(prefs) == 1 else "preferring " + listing(prefs)
    out += wrap(f"Research: {plural(len(research), 'persona')} worked alone, {said}.")
    for f in _by_stage(record, "research", 1):
        for item in f["findings"]:
            out += wrap(f"{f['label']}: {sentence(item['claim'])}", INDENT * 2, INDENT)
    for f in _by_stage(record, "deliberation", 1):
        for r in f["refutations"]:
            out += wrap(f"{f['label']} {r['verdict']} {r['target']}: {sentence(r['claim'])}")
    depth = record.get("depth") or {}
    spots = depth.get("hot_spots") or []
    for h in spots:
        if h["kind"] == "missed_angle":
            out += wrap(f"It named a missed angle: {sentence(h['statement'].removeprefix('missed angle: '))}", INDENT * 2, INDENT)
    workers = [w for w in depth.get("tier2") or [] if w["kind"] == "lens"]
    if workers:
        out += wrap(
            f"Tier 2: {plural(len(workers), 'lens', 'lenses')} worked on the hot spots {listing([h['id'] for h in spots])}:"
        )
        claims = {f["agent"]: f for f in record["findings"]}
        for w in workers:
            if w["zeroed"]:
                out += wrap(f"{w['label']}: only restated tier 1 (zero signal: not counted).", INDENT * 2, INDENT)
                continue
            items = [sentence(i["claim"]) for i in claims.get(w["agent"], {}).get("findings", [])]
            items += [f"It refuted {r['target']}: {sentence(r['claim'])}" for r in w["refutations"]]
            out += wrap(f"{w['label']}: {' '.join(items) or sentence(w['summary'])}", INDENT * 2, INDENT)
    for w in depth.get("tier2") or []:
        if w["kind"] == "red-team":
            for r in w["refutations"]:
                out += wrap(f"{w['label']} {r['verdict']} {r['target']}: {sentence(r['claim'])}")
    for o in depth.get("overrides") or []:
        out += wrap(
            f"So approach {o['target']} is struck from the lead (override of hot spot {o['hot_spot']}).", INDENT * 2, INDENT
        )
    out += ranking_lines(record)
    return out


def _top(scores: "dict[str, Any]") -> "str | None":
    """The approach a ranker that named none prefers, as the consensus reads it: its single top
    weighted score (None on a tie at the top)."""
    got = {a: v for a, v in scores.items() if v is not None}
    best = max(got.values(), default=None)
    top = [a for a, v in got.items() if v == best]
    return top[0] if len(top) == 1 else None


def ranking_lines(record: "dict[str, Any]") -> "list[str]":
    dims = record.get("dimensions") or {}
    rows = record.get("scores") or []
    if not rows:
        return []
    ids = [a["id"] for a in record["approaches"]]
    weights = ", ".join(f"{d} {w:.2f}" for d, w in dims.items())
    out = wrap(
        f"Ranking, blind: {plural(len(rows), 'ranker')} scored each approach on {dimension_words.count(list(dims))} dimensions, weighted {weights}."
    )
    prefs = {p["key"]: p["preferred"] for p in record["participants"] if p["stage"] == "ranking" and not p["superseded"]}
    dissent = {d["agent"]: d for d in record.get("dissent") or []}
    label = {r["agent"]: unid(r["label"]).removesuffix(" (" + r["agent"][:8] + ")") for r in rows}
    width = max(len(v) for v in label.values())
    out.append(f"{INDENT * 2}{'weighted score':<{width}}  " + "  ".join(f"{i:>5}" for i in ids) + "  prefers")
    for r in rows:
        cells = "  ".join(f"{r['scores'][i]:>5.2f}" if r["scores"].get(i) is not None else f"{'-':>5}" for i in ids)
        line = f"{INDENT * 2}{label[r['agent']]:<{width}}  {cells}  {prefs.get(r['agent']) or _top(r['scores']) or '-'}"
        out.append(line)
        d = dissent.get(r["agent"])
        if d:
            out += wrap(f"its dissent on {d['target']}: {sentence(d['concern'])} {sentence(d['reason'])}", INDENT * 3, INDENT)
    lead = record.get("leading_breakdown") or []
    decision = record.get("decision") or {}
    if lead and decision.get("approach"):
        per = ", ".join(f"{b['dimension']} {b['mean']:.2f}" for b in lead)
        out += wrap(f"Approach {decision['approach']} leads; its mean score per dimension: {per}.")
    return out


def words(name: str) -> str:
    """A check's or detector's name in plain words (`dissent_documented` → "dissent documented")."""
    return name.replace("_", " ")


def unid(text: str) -> str:
    """`text` without the agents' ids (they are for the model, which resumes agents by id)."""
    return re.sub(r" [(](agent )?a[0-9a-f]{8,}[)]", "", text)


def _check_figures(checks: "Iterable[dict]") -> str:
    return "; ".join(f"{words(c['name'])} {c['figure']}" for c in checks)


def moment_lines(m: Moment, record: "dict[str, Any]") -> "list[str]":
    """One gate decision: what the plugin did and why, with its figures, then the next step."""
    did = DID.get(m.verdict, m.verdict)
    out: list[str] = []
    first = m.text.splitlines()[0] if m.text else ""
    nxt = _next_of(m.text)
    if m.kind == "depth_instruction":
        workers = re.findall(r'^--- worker \d+ of \d+: subagent_type "([^"]+)", hot spots ([^—]+?) —', m.text, re.M)
        spots = (record.get("depth") or {}).get("hot_spots") or []
        kinds = listing([f"{h['id']} {h['kind'].replace('_', ' ')}" for h in spots])
        body = (
            f"Depth step, after the red team ({did}): {plural(len(spots), 'hot spot')} to dig into before "
            f"ranking ({kinds}); spawn {plural(len(workers), 'fresh tier-2 worker')}, one per lens: "
            + listing([f"{w} ({h.strip()})" for w, h in workers])
            + "."
        )
        return wrap(body)
    if m.kind == "spawn_denied":
        rules = [line.removeprefix("- rule ") for line in m.text.splitlines() if line.startswith("- rule ")]
        after = [line for line in m.text.splitlines()[1:] if line and not line.startswith("- ")]
        why = "; ".join(sentence(r) for r in rules) or sentence(first)
        return wrap(
            f"Spawn check, {m.who} ({did}): its prompt was the model's own. Rule {why} " + (sentence(after[0]) if after else "")
        )
    if m.kind == "red_team_2":
        items = len([line for line in m.text.splitlines() if re.match(r"^- \S+:[FR]\d+ — ", line)])
        return wrap(f"Depth step, after the tier-2 workers ({did}): spawn one red team 2 to check their {plural(items, 'item')}.")
    if m.kind == "depth_synthesis":
        head = first.split(": ", 1)[1] if ": " in first else first
        out = wrap(f"Depth synthesis, after red team 2 ({did}): {sentence(head)}")
        for line in m.text.splitlines():
            if line.startswith("- OVERRIDE ") or "restated tier 1" in line:
                out += wrap(sentence(unid(line.removeprefix("- ").split(" (by ", 1)[0])), INDENT * 2, INDENT)
        if nxt:
            out += wrap(f"Next: {nxt.split(' — ', 1)[0]}, blind.", INDENT * 2, INDENT)
        return out
    if m.kind == "gate_failed":
        failed = [
            words(line.removeprefix("- ").split(": ", 1)[0]) + ": " + line.split(": ", 1)[1]
            for line in m.text.splitlines()[1:]
            if re.match(r"^- [a-z_]+: ", line)
        ]
        out = wrap(f"Consensus gate, after the vote ({did}): FAILED on " + "; ".join(failed) + ".")
        if nxt:
            out += wrap(f"Next: {unid(nxt)}.", INDENT * 2, INDENT)
        return out
    if m.kind == "gate_passed":
        gate = (record.get("gates") or {}).get("consensus") or {}
        dec = record.get("decision") or {}
        band = f", {dec['band']}" if dec.get("band") else ""
        head = first.split("passed — ", 1)[-1]
        out = wrap(
            f"Consensus gate, after the vote again ({did}): passed, {head.rstrip('.')}{band}; "
            + _check_figures(c for c in gate.get("checks", []) if c["name"] not in ("consensus", "phase"))
            + "."
        )
        warns = record.get("conformity") or []
        if warns:
            out += wrap(f"With a conformity warning ({len(warns)}):", INDENT * 2, INDENT)
            for w in warns:
                out += wrap(f"{words(w['detector'])}: {sentence(w['evidence'])}", INDENT * 3, INDENT)
        if nxt:  # said to the model ("your concluding answer"); told here of the main agent
            said = re.sub(r"^write (.*) in your ", r"the main agent writes \1 in its ", nxt.split(" — ", 1)[0])
            out += wrap(f"Next: {said}.", INDENT * 2, INDENT)
        return out
    if m.kind == "route":
        route = record.get("route") or {}
        ruled = "; ".join(f"rule {r['rule']}: {r['detail']}" for r in route.get("rules") or [])
        gate = (record.get("gates") or {}).get("quality") or {}
        if gate:
            verdict = "passed" if gate.get("passed") else "FAILED"
            out += wrap(
                f"Quality gate, at the stop: {verdict} its {plural(len(gate.get('checks', [])), 'check')} "
                f"— " + _check_figures(c for c in gate["checks"] if c["name"] != "conformity") + "."
            )
        out += wrap(
            f"Route, at the stop ({did} once): {route.get('route')} by policy {route.get('policy')} — "
            f"{ruled}. The main agent then tells the user the decision awaits review."
        )
        return out
    return wrap(f"{m.who} ({did}): {sentence(first)}")


def gates_part(moments: "list[Moment]", record: "dict[str, Any]") -> "list[str]":
    out = heading("What each gate decided, and why")
    for m in moments:
        out += moment_lines(m, record)
    return out


def _document_lines(prd: "dict[str, Any]") -> "list[str]":
    doc = prd.get("document")
    if doc is None:
        return wrap(f"Decision document (PRD): {prd['status']}" + (f" — {prd['problem']}" if prd.get("problem") else "") + ".")

    def cites(item: dict) -> str:
        return f" [{', '.join(s['id'] for s in item['sources'])}]" if item.get("sources") else ""

    out = wrap(f"Decision document (PRD), {prd['status']}: {doc['decision']}")
    deep = INDENT * 2
    for r in doc["requirements"]:
        out += wrap(f"{r['id']} ({r['priority']}): {r['text']}{cites(r)}", deep, "    ")
    for n in doc["non_goals"]:
        out += wrap(f"non-goal: {n['text']}{cites(n)}", deep, "    ")
    for a in doc["acceptance_criteria"]:
        out += wrap(f"{a['id']} (verifies {', '.join(a['verifies']) or '-'}): {a['text']}{cites(a)}", deep, "    ")
    for k in doc["risks"]:
        out += wrap(f"{k['id']} ({k['severity']}): {k['risk']} Mitigation: {k['mitigation']}{cites(k)}", deep, "    ")
    for q in doc["open_questions"]:
        out += wrap(f"open question: {q['question']}{cites(q)}", deep, "    ")
    t = prd.get("trace") or {}
    if t:
        kinds = listing([plural(n, k.replace("_", " ")) for k, n in t["by_kind"].items() if n])
        out += wrap(f"The [ids] are what each item cites: {t['citations']} citations resolve to {kinds}.", deep, "    ")
    return out


def next_part(record: "dict[str, Any]", files: "dict[str, str]") -> "list[str]":
    out = heading("What happens next")
    dec = record.get("decision") or {}
    route = record.get("route") or {}
    did = record["deliberation_id"]
    title = f" ({dec['title']})" if dec.get("title") else ""
    if route.get("route") == "human-review":
        out += wrap(
            f"The decision, approach {dec.get('approach')}{title}, is not final: it awaits a person's "
            f"review ({did}). Until then Edit, Write, Bash and the other risky tools ask for a yes. "
            "The commands that settle it are at the end."
        )
    elif route.get("route"):
        out += wrap(f"The decision, approach {dec.get('approach')}{title}: route {route['route']}.")
    out += _document_lines(record.get("prd") or {})
    usage = record.get("usage") or {}
    if usage.get("agents"):
        out += wrap(
            f"Cost: {plural(usage['agents'], 'subagent')}, {usage['total_tokens']:,} tokens, "
            f"{usage['multiple_of_one_agent']}× one research agent's {usage['one_agent_tokens']:,} "
            "(the scripted stand-in's small prompts; no prices configured, so no amount)."
        )
    return out


def last_part(record: "dict[str, Any]", replay: Replay, files: "dict[str, str]") -> "list[str]":
    """The last screen: where the records are (absolute paths), the commands that settle the
    decision as they run from the person's terminal, what becomes of the demo's folder, and how
    to use the plugin for real."""
    out = heading("Your turn")
    out += wrap("The decision records (open the HTML one in a browser):")
    for path in files.values():
        out.append(f"{INDENT * 2}{quote(path)}")
    route = record.get("route") or {}
    did = record["deliberation_id"]
    if route.get("route") in ("human-review", "hard-reject"):
        out += wrap("Settle the demo's decision as you would a real one (in Claude Code: ! deliberation approve ID):")
        out += terminal.settle_lines(replay.command, did, ["--project", quote(replay.project)], INDENT * 2)
    if replay.temporary:
        out += wrap(
            f"The demo's folder stays for you to look at; nothing else uses it. Remove it with: rm -rf {quote(replay.root)}"
        )
    elif replay.root:
        out += wrap(f"The demo ran in {quote(replay.root)} (--keep): it is yours to keep or remove.")
    out += wrap("To use the plugin for real, in Claude Code (this folder is its own marketplace):")
    out += [
        f"{INDENT * 2}/plugin marketplace add {quote(replay.plugin)}",
        f"{INDENT * 2}/plugin install deliberation@deliberation-gates",
    ]
    out += wrap("then ask a risky question, or start one yourself:")
    out.append(f"{INDENT * 2}/deliberation:deliberate Should we hash the API tokens, or encrypt them at rest?")
    out += wrap(
        "A deliberation runs about a dozen subagents (here 13): several times one agent's tokens. "
        'The README\'s "Before you enable it" says what starts one and how to switch it off.'
    )
    return out


def quote(path: str) -> str:
    """A path as one shell word."""
    return shlex.quote(path)


def glossary_part(text: str) -> "list[str]":
    # a word is found whatever its case ("Route, at the stop"); a code (D, T2, PRD) as written
    used = [(term, meaning) for term, pattern, meaning in GLOSSARY if re.search(pattern, text, re.I if term[0].islower() else 0)]
    if not used:
        return []
    out = heading("Terms used above")
    width = max(len(t) for t, _ in used) + 2
    for term, meaning in used:
        lines = textwrap.wrap(meaning, WIDTH - len(INDENT) - width, break_long_words=False, break_on_hyphens=False)
        out.append(f"{INDENT}{term:<{width}}{lines[0]}")
        out += [f"{INDENT}{'':<{width}}{line}" for line in lines[1:]]
    return out


def verdict_line(replay: Replay) -> "list[str]":
    if replay.differ:
        return wrap(
            f"✗ {len(replay.differ)} of {replay.answers} answers differ from the recording: events "
            + ", ".join(str(n) for n in replay.differ)
            + " (--verbose shows them).",
            "",
            "  ",
        )
    return wrap(
        f"✓ all {replay.answers} answers match the recording ({replay.seconds:.1f}s): run again, "
        "the hooks decided exactly as in the recorded session (--verbose prints each answer).",
        "",
        "  ",
    )


def story(record: "dict[str, Any]", moments: "list[Moment]", replay: Replay, files: "dict[str, str]") -> "list[str]":
    """The whole story, line by line (each at most WIDTH columns, save a path longer than that)."""
    body = question_part(record) + found_part(record) + gates_part(moments, record) + next_part(record, files)
    return header(replay) + body + glossary_part("\n".join(body)) + [""] + verdict_line(replay) + last_part(record, replay, files)
