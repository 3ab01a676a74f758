"""What the plugin's workflow tells each agent: the prompt of every wave (research, synthesis and
debate, red team, red team 2, ranking), its checkpoint, and how each reports.

core/workflow_prompts.py picks what each prompt may carry from the recorded state (the findings,
approaches, conflicts, tier-2 items, the neutral approach list) and passes it as plain values;
this module lays them out. Each prompt ends with how to report: the StructuredOutput tool, whose
schema is the report's.
"""

from __future__ import annotations

from deliberation import catalogue
from deliberation.text import dimensions as dimension_words

REPORT = (
    "Report by calling the StructuredOutput tool once with your whole report as its input (its schema "
    'is the report: phase "{stage}"), as your instructions say for a run that offers that tool. '
    "If the call is refused, read why, fix exactly that and call it again."
)
NO_CONTEXT = "(none beyond the question: read the repository yourself for what you need)"
# Every turn of an agent re-sends all it has read (measured: research agents of 69-134 KB and
# tier-2 workers of 53-82 KB, each turn adding one file), so the agents that read are told to
# read in one turn: the research personas the project, the agents that check evidence the lines
# cited.
READ_PROJECT = (
    "Every turn you take re-sends all you have read, so read in few turns: find what matters (one Glob or "
    "Grep), then read every file you need in ONE turn (several Read calls at once), then report."
)
READ_CITED = (
    "Every turn you take re-sends all you have read: read only what you check (the cited file:line "
    "ranges, with Read's offset and limit), all in ONE turn (several Read calls at once), then report."
)
ROLE_TASK = {
    "synthesis-lead": (
        "Merge the findings that do not conflict into 2-4 alternatives (approaches with ids "
        "A, B, …), each traced to the findings it rests on; keep a defensible status quo. Your ids are the "
        "approaches' one identity from here on: name in each approach's summary the research proposals it "
        f"takes over by their refs (e.g. {catalogue.EXAMPLE_PERSONA}:B) — a research persona's letters are its own."
    ),
    "debate-moderator": (
        "Identify the conflicts between the perspectives (conflicts: between whom or which "
        "approaches, about what) and the findings each side rests on."
    ),
}
OTHER_ROLE = "Work on these findings from your role."
FINDINGS_HEAD = "Findings of every research agent (claim and evidence):"


def report(stage: str) -> str:
    """How an agent of `stage` reports."""
    return REPORT.format(stage=stage)


def findings_block(findings: "list[list[str]]") -> str:
    """Every research finding: [ref, severity, claim, evidence], whitespace folded."""
    lines = []
    for ref, severity, claim, evidence in findings:
        ev = f" (evidence: {' '.join(evidence.split())})" if evidence.strip() else ""
        lines.append(f"- {ref} [{severity}]: {' '.join(claim.split())}{ev}")
    return "\n".join(lines) or "- (no research finding was recorded)"


def approaches_block(approaches: "list[list[str]]") -> str:
    """The approaches proposed: [ref, title, summary]."""
    lines = []
    for ref, title, summary in approaches:
        summary = " ".join(summary.split())
        lines.append(f"- {ref}: {title}" + (f" — {summary}" if summary else ""))
    return "\n".join(lines) or "- (none proposed)"


def conflicts_block(conflicts: "list[list]") -> str:
    """The conflicts the debate found: [between whom, about what]."""
    return "\n".join(f"- between {', '.join(between)}: {' '.join(about.split())}" for between, about in conflicts)


def research(question: str, context: str) -> str:
    """The research prompt, the same for every research persona (`context`: the shared project
    context as bounded, '' for none)."""
    return "\n".join(
        [
            "Phase: research",
            f"Question: {question}",
            "Shared project context (every research agent of this deliberation gets exactly this):",
            context or NO_CONTEXT,
            "",
            "Study the question alone, from your own focus: findings with evidence, 1-3 approaches (the status "
            "quo too when it is defensible) and your position on them — preferred_approach, verdict (approve = "
            "adopt it, reject = adopt none of them) and rationale in your own words.",
            READ_PROJECT,
            report("research"),
        ]
    )


def deliberation(question: str, findings: str, approaches: str, role: str) -> str:
    """The synthesis-lead or debate-moderator prompt (`findings`, `approaches`: the blocks above)."""
    return "\n".join(
        [
            "Phase: deliberation",
            f"Question: {question}",
            FINDINGS_HEAD,
            findings,
            "Approaches proposed in research:",
            approaches,
            "",
            ROLE_TASK.get(role, OTHER_ROLE),
            report("deliberation"),
        ]
    )


def red_team(question: str, approaches: str, findings: str, synthesis: "list[str]", conflicts: str) -> str:
    """The first red-team pass: what the panel converged on, to break (`synthesis`: each synthesis
    report's summary and rationale; `conflicts`: the debate's, '' for none)."""
    parts = ["Phase: deliberation", f"Question: {question}", "Approaches:", approaches, FINDINGS_HEAD, findings]
    for text in synthesis:
        parts += ["The synthesis:", text]
    if conflicts:
        parts += ["Conflicts the debate found:", conflicts]
    parts += [
        "",
        "Break the converged points: for each, a refutation (target: the finding ref such as "
        f'"{catalogue.EXAMPLE_PERSONA}:F1" or the approach id; verdict refuted / weakened / upheld; your claim and its '
        "evidence) and the angles nobody examined in missed_angles.",
        READ_CITED,
        report("deliberation"),
    ]
    return "\n".join(parts)


def red_team_2(question: str, items: str) -> str:
    """Red team 2 over the tier-2 items (`items`: their lines), the last depth pass."""
    return "\n".join(
        [
            "Phase: deliberation",
            "You are red team 2: the last pass of the depth axis, over what the tier-2 workers found.",
            f"Question: {question}",
            "Tier-2 items:",
            items,
            "",
            "For each item, a refutation with verdict refuted / weakened / upheld and your evidence, its target the "
            'ref shown (e.g. "evidence-chase:R1"); missed angles too. A tier-2 refute you break with evidence is '
            "cancelled; one you cannot break stands.",
            READ_CITED,
            report("deliberation"),
        ]
    )


def ranking(question: str, approaches: str, dimensions: "list | None" = None) -> str:
    """The blind ranking prompt: the question and the approaches in the neutral order;
    `dimensions` the configured ranking dimensions (name, description), default the catalogue's."""
    return "\n".join(
        [
            "Phase: ranking",
            f"Question: {question}",
            approaches,
            "",
            f"Score EVERY approach above 0-10 on each of: {dimension_words.names(dimensions)}"
            f"{dimension_words.scales(dimensions)}, from your own focus. Give your verdict — approve (adopt your preferred_approach), reject "
            "(adopt none of them) or abstain — your rationale in your own words, and for each approach you would not "
            "adopt a dissent entry (target = its id) with its concern and reason. Your preferred_approach must be the "
            f"one your scores put first, weighted {dimension_words.weights(dimensions)}: the vote reads a preference "
            "your own scores contradict as support of no weight.",
            report("ranking"),
        ]
    )


def checkpoint(wave: str, launch: str = "") -> str:
    values = f'{{"checkpoint": "{wave}", "launch": "{launch}"}}' if launch else f'{{"checkpoint": "{wave}"}}'
    return (
        f"Checkpoint of the deliberation workflow after its {wave} wave. Call the StructuredOutput tool once "
        f"with exactly {values} and nothing else; do not read files or write prose."
    )
