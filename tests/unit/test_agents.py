"""The shipped subagent definitions (agents/*.md): one per persona/role slug, parseable front
matter, no spawning tools, and a report example that the plugin itself accepts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import re

from deliberation import catalogue, defaults
from deliberation.core import personas, instructions as protocol
from deliberation.text import protocol as protocol_words
from deliberation.state import agent_report as report
from deliberation.state.config import DEFAULT_DIMENSIONS, Config

ROOT = Path(__file__).resolve().parent.parent.parent
AGENTS = ROOT / "agents"
COMMANDS = ROOT / "commands"
KEY = re.compile(r"^[a-z][a-z0-9_-]*$")
FLOOR = ("Tier 1 is material, not the answer; agreeing again scores 0.", "The red team's words are material too: check them.")
SPAWNING_TOOLS = {"Agent", "Task"}
ROLE_PHASE = "deliberation"
# Every byte of an agent file is in each of that agent's requests (a deliberation sends ~20): a
# persona file is its part plus at most PERSONA_SHARED_BYTES of the template's (4.1 KB before the
# cut), a role's file at most ROLE_BYTES (3.6-4.2 KB before).
PERSONA_SHARED_BYTES = 2400
ROLE_BYTES = 3200


def parse_front_matter(text: str) -> "tuple[dict, str]":
    """A tiny parser for the `key: value` front matter Claude Code reads (no yaml dependency).

    Raises ValueError on anything that is not a flat block of `key: value` lines, or on a value
    a YAML parser would read differently (": " or " #" inside a plain value, a leading
    indicator). A value in double quotes without inner quotes or escapes is unquoted.
    """
    lines = text.split("\n")
    if lines[0] != "---":
        raise ValueError("no front matter: the file must start with '---'")
    try:
        end = lines.index("---", 1)
    except ValueError:
        raise ValueError("front matter is not closed by '---'") from None
    meta: dict = {}
    for n, line in enumerate(lines[1:end], 2):
        key, sep, value = line.partition(": ")
        if not sep or not KEY.match(key) or key in meta:
            raise ValueError(f"line {n}: not a new `key: value` line: {line!r}")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] == '"' and not re.search(r'["\\]', value[1:-1]):
            meta[key] = value[1:-1]
            continue
        if not value or ": " in value or " #" in value or value[0] in "-?:,[]{}#&*!|>'\"%@`":
            raise ValueError(f"line {n}: value is not a plain YAML scalar: {value!r}")
        meta[key] = value
    return meta, "\n".join(lines[end + 1 :])


def _agent_files():
    return sorted(AGENTS.glob("*.md"))


def _text(slug: str) -> str:
    return (AGENTS / f"{slug}.md").read_text(encoding="utf-8")


def test_every_slug_has_a_file_and_there_are_no_strays():
    slugs = {p.stem for p in _agent_files()}
    assert slugs == set(personas.ALL) | {personas.CHECKPOINT, personas.DRAFTER}
    assert set(personas.RESEARCH_PERSONAS) == {p.slug for p in catalogue.PERSONAS} and len(personas.ROLES) == 6


def test_the_checkpoint_agent_can_only_report():
    """The workflow's step marker: its only tool is StructuredOutput (one small request per
    checkpoint), it is no persona, and it says it is the workflow's."""
    meta, body = parse_front_matter(_text(personas.CHECKPOINT))
    assert meta["name"] == personas.CHECKPOINT and meta["tools"] == "StructuredOutput"
    assert personas.kind_of(personas.CHECKPOINT) is None
    assert "workflows/deliberate.js" in meta["description"] and "StructuredOutput" in body
    assert len(body) < 600


def test_the_drafter_only_reports_and_is_no_persona():
    """The drafter writes the decision document from what the plugin hands it: no vote, and its
    body says how it reports on both paths."""
    meta, body = parse_front_matter(_text(personas.DRAFTER))
    # Read only: the client refuses to spawn an agent whose tools resolve to nothing (measured on
    # 2.1.332: `tools: StructuredOutput` outside a workflow is "spawned with zero tools — refusing")
    assert meta["name"] == personas.DRAFTER and meta["tools"] == "Read"
    assert personas.kind_of(personas.DRAFTER) is None
    assert "StructuredOutput" in body and "fenced json" in body


@pytest.mark.parametrize("slug", sorted(personas.ALL))
def test_front_matter(slug):
    meta, body = parse_front_matter(_text(slug))
    assert set(meta) == {"name", "description", "tools", "model"}
    assert meta["name"] == slug
    assert meta["model"] == "inherit"
    tools = {t.strip() for t in meta["tools"].split(",")}
    assert tools == {"Read", "Grep", "Glob"}
    assert not tools & SPAWNING_TOOLS
    assert personas.title(slug) in meta["description"]
    size = len(_text(slug).encode())
    if slug in personas.RESEARCH_PERSONAS:  # the persona's own part is its content; the rest is the template's
        part = (ROOT / "lib" / "deliberation" / "text" / "agent_parts" / f"{slug}.md").read_bytes()
        assert size - len(part) <= PERSONA_SHARED_BYTES, (slug, size - len(part))
    else:
        assert 1500 <= size <= ROLE_BYTES, (slug, size)


SCHEMA = json.loads((ROOT / "state_schema" / "agent_report.schema.json").read_text(encoding="utf-8"))
JSON_BLOCK = re.compile(r"```json\n(.*?)\n```", re.S)


def _shapes_of(slug: str) -> "list[str]":
    """The report shapes an agent file must show, in order: a persona's research and ranking
    reports, a role's own."""
    if slug in personas.RESEARCH_PERSONAS:
        return ["research", "ranking"]
    kind = personas.kind_of(slug)
    return [report.shape_of(kind, ROLE_PHASE)]


@pytest.mark.parametrize("slug", sorted(personas.ALL))
def test_report_examples_show_exactly_the_fields_of_the_schema_their_phase_needs(slug):
    text = _text(slug)
    assert text.rstrip().endswith("```")
    blocks = [json.loads(b) for b in JSON_BLOCK.findall(text)]
    shapes = _shapes_of(slug)
    assert len(blocks) == len(shapes), slug
    props = SCHEMA["properties"]
    for shape, data in zip(shapes, blocks):
        assert tuple(data) == report.SHAPES[shape], (slug, shape, list(data))  # exactly its fields
        assert set(data) <= set(props)
        rep = report.AgentReport.model_validate(data)
        for key, value in data.items():  # each entry carries every field of its part (no `title` left out)
            ref = (props[key].get("items") or {}).get("$ref")
            if ref and isinstance(value, list):
                part = set(SCHEMA["$defs"][ref.rsplit("/", 1)[-1]]["properties"])
                assert value and all(set(item) == part for item in value), (slug, key)
        for field in report.SHAPES[shape]:
            assert f"`{field}`" in text or f'"{field}"' in text
        if shape == "ranking":
            names = [d["name"] for d in DEFAULT_DIMENSIONS]
            assert rep.scores and all(sorted(s) == sorted(names) for s in rep.scores.values())
            assert rep.preferred_approach in rep.scores
            if rep.verdict == "reject" or rep.dissent:
                assert rep.dissent and all(c.reason for c in rep.dissent)
        else:
            assert rep.phase == ("research" if shape == "research" else ROLE_PHASE)
    if slug in personas.RESEARCH_PERSONAS:
        assert "`title`" in text.split("## Report format")[0]  # the research step names it too


@pytest.mark.parametrize("slug", sorted(personas.ROLES))
def test_a_deliberation_role_is_not_asked_for_a_vote_or_scores(slug):
    """A deliberation-phase role's report has no `verdict` or `scores` (its workflow schema has
    neither): its file never asks for an abstention or empty scores."""
    text = _text(slug)
    assert "abstain" not in text and "leave `scores` empty" not in text.lower()
    for data in (json.loads(b) for b in JSON_BLOCK.findall(text)):
        assert "verdict" not in data and "scores" not in data, slug


@pytest.mark.parametrize("slug", sorted(personas.ALL))
def test_isolation_and_no_spawning_are_stated(slug):
    text = _text(slug)
    assert "may not spawn agents" in text
    if slug in personas.RESEARCH_PERSONAS:
        assert "never ask for, search for, or use another agent's findings" in text
        assert "Score EVERY" in text and "dissent" in text


@pytest.mark.parametrize("slug", personas.LENSES)
def test_lenses_carry_the_floor_verbatim_and_report_hot_spots(slug):
    text = _text(slug)
    for sentence in FLOOR:
        assert sentence in text
    rep, _ = report.extract_report(text, max_bytes=1 << 20)
    assert rep.hot_spots
    assert rep.refutations and all(r.target in rep.hot_spots and r.evidence for r in rep.refutations)
    assert "consensus" in text and "FRESH" in text


def test_role_specific_report_fields():
    def rep(slug):
        return report.extract_report(_text(slug), max_bytes=1 << 20)[0]

    assert rep(personas.DEBATE).conflicts
    synthesis = rep(personas.SYNTHESIS)
    assert len(synthesis.approaches) >= 2 and synthesis.preferred_approach
    red = rep(personas.RED_TEAM)
    assert red.refutations and red.missed_angles and all(r.evidence for r in red.refutations)
    assert "AGAINST" in _text("devils-advocate") and "FOR" in _text("product-strategist")


def test_parser_rejects_what_yaml_would_misread():
    with pytest.raises(ValueError):
        parse_front_matter("---\nname: a\ndescription: Persona: x\n---\n")
    with pytest.raises(ValueError):
        parse_front_matter("---\nname: a\n")
    with pytest.raises(ValueError):
        parse_front_matter("no front matter")
    meta, body = parse_front_matter("---\nname: a\ntools: Read, Grep\n---\nbody")
    assert meta == {"name": "a", "tools": "Read, Grep"} and body == "body"
    with pytest.raises(ValueError):
        parse_front_matter("---\nargument-hint: [x] [y]\n---\n")
    meta, _ = parse_front_matter('---\nargument-hint: "[x] [y]"\n---\n')
    assert meta == {"argument-hint": "[x] [y]"}


# --- the orchestration protocol and the slash commands -----------------------------------------

LONG = "Should we shard the orders database or buy a bigger primary? " * 40
DIMS = {"ambiguity": 0.64, "complexity": 0.7, "stakes": 0.66, "context_dependence": 0.55}


@pytest.mark.parametrize("task_type", [*defaults.TASK_TYPES, "unheard-of"])
def test_protocol_is_short_and_names_exact_subagent_types(task_type):
    text = protocol.protocol_text(LONG, task_type, 0.7, 0.23, DIMS)
    assert len(text) < protocol.MAX_CHARS
    for slug in (
        protocol.panel(task_type) + protocol.MINIMUM + personas.LENSES + (personas.SYNTHESIS, personas.DEBATE, personas.RED_TEAM)
    ):
        assert slug in personas.ALL and slug in text
    assert (
        "Trigger confidence 0.23 to decide alone (below 0.70 the trigger asks for a deliberation; " in text
        and "stakes 0.66" in text
    )
    assert 'never subagent_type "fork"' in text


@pytest.mark.parametrize(
    "task_type, bar",
    [
        ("security", "0.85"),
        ("architecture", "0.80"),
        ("default", "0.70"),
        ("refactoring", "0.65"),
        ("documentation", "0.50"),
        ("unheard-of", "0.70"),
    ],
)
def test_protocol_states_the_task_types_consensus_bar(task_type, bar):
    text = protocol.protocol_text("q", task_type, 0.7, 0.4, DIMS)
    assert f"consensus must reach {bar}." in text
    custom = protocol.protocol_text("q", task_type, 0.7, 0.4, DIMS, consensus_threshold=0.9)
    assert "consensus must reach 0.90." in custom


def test_protocol_phases_floor_and_rules():
    text = protocol.protocol_text("Split the monolith?", "architecture", 0.8, 0.4, DIMS)
    assert text.index("RESEARCH") < text.index("DELIBERATION (") < text.index("RANKING")
    for sentence in FLOOR:
        assert f'"{sentence}"' in text
    assert "never paste one agent's findings into another research prompt" in text
    assert "NOT the consensus or synthesis text" in text
    assert 'Workflow({name: "deliberate", args: "Split the monolith?"})' in text  # the one-call form first
    assert text.index("Workflow({") < text.index("1. RESEARCH")
    assert "(FOR)" in text and "(AGAINST)" in text
    assert "fenced ```json block" in text and "denials and blocks" in text
    assert "Question: Split the monolith?" in text


def test_every_deliberation_names_its_opt_in_and_runs_the_workflow_tool():
    """The client's Workflow tool may be called only when the user opted in to a multi-agent run
    (its description, measured: docs/CLIENT_CHANNELS.md). The protocol names the opt-in — the
    user's request for the deliberation, or the user's install of this plugin when the trigger or
    the agent started it — and gives the one call, with the Agent path only when it is not allowed."""
    from deliberation.core.trigger import score_prompt, score_skill

    q = "Should we shard the orders database?"
    call = f'ONE call: Workflow({{name: "deliberation:deliberate", args: "{q}"}})'
    for prompt in (f"/deliberate {q}", f"DELIBERATE: {q}", f"/deliberation:deliberate {q}"):
        result, text = score_prompt(prompt, None, "deliberation:")
        assert result["forced"], prompt
        assert "The user asked for this deliberation: that is the opt-in the Workflow tool asks for. Run it as " + call in text, (
            text
        )
        assert "Only without the Workflow tool (or if that call is not allowed), run it turn by turn" in text
        assert "installed" not in text and len(text) < protocol.MAX_CHARS
    scored = (
        "We are unsure which approach fits: should we redesign the architecture of our auth system and "
        "migrate all customer data irreversibly in production, depending on how legacy clients behave?"
    )
    result, text = score_prompt(scored, None, "deliberation:")
    assert result["triggered"] and not result["forced"]
    assert (
        "The plugin chose this deliberation from the prompt's words, and the user installed this plugin to "
        "deliberate such decisions: that is the opt-in the Workflow tool asks for. Run it as ONE call"
    ) in text, text
    assert text.index("Run it as ONE call") < text.index("Only without the Workflow tool") < text.index("1. RESEARCH")
    assert len(text) < protocol.MAX_CHARS
    _result, text = score_skill(q, None, "deliberation:")
    assert (
        "You started this deliberation, and the user installed this plugin to deliberate such decisions: "
        "that is the opt-in the Workflow tool asks for. Run it as " + call
    ) in text, text
    with pytest.raises(ValueError):
        protocol.protocol_text(q, "default", 0.7, 0.4, DIMS, asked="someone")


def test_the_workflow_is_launched_first_with_the_users_words_as_context():
    """The main agent's own reading was most of its cost (EVIDENCE E12: 3 requests of ~65-80 KB
    before the launch) and the panel reads the project anyway: the protocol says to make the call
    first, reading nothing, with a context of what the user said (files named, constraints stated)
    and none of the agent's conclusions; 3 personas are the default, more only when needed."""
    for asked in protocol.ASKED:
        text = protocol.protocol_text("Redis or the database?", "default", 0.7, 0.4, DIMS, prefix="deliberation:", asked=asked)
        call = 'Run it as ONE call: Workflow({name: "deliberation:deliberate", args: "Redis or the database?"})'
        assert call + ", FIRST, reading no file (the panel reads the project)." in text
        assert '"context": "<the user\'s words only: files named (paths), constraints stated; nothing you concluded>"' in text
        assert '"personas": [2-5 slugs only if the question needs others; default 3]' in text
        assert text.index("FIRST, reading no file") < text.index("Then end your turn") < text.index("Only without the Workflow")
    # the turn-by-turn path keeps its suggestion and says 3 suffice
    text = protocol.protocol_text("q", "architecture", 0.7, 0.4, DIMS)
    assert (
        "1. RESEARCH: 3 personas with conflicting priorities suffice (2-5), suggested: "
        + ", ".join(protocol.panel("architecture"))
        in text
    )


@pytest.mark.parametrize("task_type", [*defaults.TASK_TYPES, "unheard-of"])
@pytest.mark.parametrize("prefix", ["", "deliberation:"])
def test_the_protocol_does_not_grow(task_type, prefix):
    """Its budget: under MAX_CHARS in every form (the user, the trigger, the agent asked; either
    install form) with the longest question; models.diverse's line, the only optional part, adds
    at most 320 characters to that."""
    for asked in protocol.ASKED:
        text = protocol.protocol_text(LONG, task_type, 0.7, 0.23, DIMS, prefix=prefix, asked=asked)
        assert len(text) < protocol.MAX_CHARS - 200, (asked, len(text))
        models = {p: "sonnet" for p in protocol.panel(task_type)}
        assert len(protocol.protocol_text(LONG, task_type, 0.7, 0.23, DIMS, prefix=prefix, asked=asked, models=models)) <= (
            len(text) + 320
        )


def test_protocol_panels_hold_conflicting_priorities():
    pairs = [set(p) for p in Config().conformity.conflicting_pairs]
    for task_type, people in protocol.PANELS.items():
        assert 3 <= len(people) <= 5 and len(set(people)) == len(people)
        assert all(p in personas.RESEARCH_PERSONAS for p in people)
        assert "devils-advocate" in people
        assert any(pair <= set(people) for pair in pairs), task_type
    assert set(protocol.PANELS) == set(defaults.TASK_TYPES)


def test_the_workflows_default_panel_is_three_that_keep_a_conflicting_pair_and_the_devils_advocate():
    pairs = Config().conformity.conflicting_pairs
    assert protocol.WORKFLOW_PANEL == 3
    for task_type, people in protocol.PANELS.items():
        chosen = protocol.default_panel(task_type, pairs)
        assert len(chosen) == 3 and set(chosen) <= set(people), task_type
        assert [p for p in people if p in chosen] == list(chosen)  # the panel's order
        assert catalogue.DEVILS_ADVOCATE in chosen
        assert any(set(pair) <= set(chosen) for pair in pairs), task_type
    # the first such three in the panel's order: the pair is the earliest that fits beside the devils-advocate
    assert protocol.default_panel("default", pairs) == ("security-analyst", "performance-engineer", "devils-advocate")
    assert protocol.default_panel("architecture", pairs) == ("reliability-engineer", "cost-analyst", "devils-advocate")
    assert protocol.default_panel("unheard-of", pairs) == protocol.default_panel("default", pairs)
    # what the whole panel lacks is not asked of the three: no configured pair in it → its first three
    # holding the devils-advocate; a panel of three or fewer is itself
    assert protocol.default_panel("default", []) == ("technical-architect", "security-analyst", "devils-advocate")
    assert protocol.default_panel("security", pairs, size=5) == protocol.PANELS["security"]
    # a configured pair is honoured over the catalogue's
    own = [["technical-architect", "cost-analyst"]]
    assert protocol.default_panel("default", own) == ("technical-architect", "cost-analyst", "devils-advocate")


def test_the_workflow_doc_lists_the_default_panels_the_code_picks():
    doc = (Path(__file__).resolve().parents[2] / "docs" / "WORKFLOW.md").read_text(encoding="utf-8")
    pairs = catalogue.conflicting_pairs()
    for t in catalogue.TASK_TYPES:
        assert f"| `{t.name}` | {', '.join(protocol.default_panel(t.name, pairs))} |" in doc, t.name


def test_deliberate_command_leaves_the_protocol_to_the_hook():
    """One source of truth, said once: the hook injects protocol.protocol_text for a
    `/deliberate` prompt, so the command's body must not restate any of it."""
    meta, body = parse_front_matter((COMMANDS / "deliberate.md").read_text())
    assert set(meta) == {"description", "argument-hint"}
    assert "$ARGUMENTS" in body and protocol_words.HEADER.split(" (")[0] in body
    for sentence in FLOOR:
        assert sentence not in body
    for people in protocol.PANELS.values():
        assert ", ".join(people) not in body
    for slug in personas.LENSES + (personas.SYNTHESIS, personas.DEBATE, personas.RED_TEAM):
        assert slug not in body
    for phase in ("RESEARCH", "RANKING", "fenced"):
        assert phase not in body
    assert len(body) < 800


def test_protocol_question_line_holds_no_trigger_word():
    from deliberation.core.trigger import score_prompt

    for prompt in (
        "/deliberate Should we shard the orders database?",
        "DELIBERATE Should we shard the orders database?",
        "DELIBERATE: Should we shard the orders database?",
    ):
        result, text = score_prompt(prompt, None)
        assert result["forced"] and "Question: Should we shard the orders database?\n" in text, text
    result, text = score_prompt("/deliberation:deliberate Should we shard the orders database?", None, "deliberation:")
    assert result["forced"] and "Question: Should we shard the orders database?\n" in text, text
    assert "/deliberation:deliberation-status shows progress" in text
    _result, text = score_prompt("/deliberate", None)
    assert "/deliberation:" not in text and "/deliberation-status shows progress" in text
    assert f"Question: {protocol_words.NO_QUESTION}" in text


def test_status_command_runs_the_cli_only():
    meta, body = parse_front_matter((COMMANDS / "deliberation-status.md").read_text())
    assert meta["allowed-tools"] == "Bash(deliberation:*)"
    assert meta["argument-hint"].startswith("[--open]")
    assert "`deliberation status $ARGUMENTS`" in body and "Run nothing else" in body


# --- what each agent is told, for the form it runs in ------------------------------------------


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("slug", sorted(personas.ALL))
def test_each_agent_is_told_one_way_to_deliver_its_report_in_each_form(slug):
    """A workflow agent has StructuredOutput among its tools, a spawned one does not: the file says
    which delivery each case takes, so no prompt needs to overrule it."""
    meta, body = parse_front_matter(_text(slug))
    part = _flat(body.split("## Report format (required)")[1])
    assert (
        "How you deliver it depends only on your tools. When `StructuredOutput` is one of them (a workflow "
        "run), call it once with the report as its input and write no fenced JSON" in part
    )
    assert "Otherwise end your final message with exactly ONE fenced ```json block" in part
    assert "StructuredOutput" not in meta["tools"]  # only the workflow's agent() adds it


def test_the_workflow_prompts_say_what_the_agent_files_say():
    from deliberation.text import prompts as workflow_prompts
    from deliberation.text.depth import shared_part

    report = workflow_prompts.REPORT.format(stage="research")
    assert "StructuredOutput" in report and "fenced" not in report and "replaces" not in report
    part = shared_part("q?", list(FLOOR), "H1 …")  # a tier-2 prompt, in either form
    assert "fenced" not in part and "StructuredOutput" not in part


LENS_FILES = personas.LENSES


@pytest.mark.parametrize("slug", LENS_FILES)
def test_a_tier2_lens_is_asked_only_what_its_tools_can_do(slug):
    from deliberation.text.depth import LENS_TASK, shared_part

    meta, body = parse_front_matter(_text(slug))
    assert {t.strip() for t in meta["tools"].split(",")} == {"Read", "Grep", "Glob"}
    asks = re.compile(r"re-?run|\breproducible\b|\bexecute\b|\brun (?:a|the|it)\b|\bbenchmark it\b", re.I)
    for text in (body, LENS_TASK[slug], shared_part("q?", list(FLOOR), "H1 …")):
        assert not asks.search(text), asks.search(text)
    assert "run nothing" in _flat(body)


def test_the_devils_advocate_is_told_what_to_argue_against_when_there_is_no_single_proposal():
    meta, body = parse_front_matter(_text("devils-advocate"))
    text = _flat(body)
    assert "argues AGAINST the proposal." not in meta["description"] and "AGAINST" in meta["description"]
    assert "two or more options and favours none, there is no single proposal: do not guess one" in text
    assert "find each option's weakest point" in text and "none marked as leading" in text
    assert "when your prompt names a leading or preferred approach, argue against that one" in text
    assert "against the proposal" not in text.replace("argue against it", "")  # no undefined "the proposal"
    assert "do not guess a favourite" in _flat(_text("product-strategist"))


DESCRIPTIONS_BYTES = 2000  # every main-agent request lists every agent's description (18 agents: 3.9 KB before)


def test_the_agent_list_is_short_and_says_what_each_agent_is_for():
    """The client lists each agent's `description` in every request of the main agent: together
    they stay under DESCRIPTIONS_BYTES, and each still says what the agent is — a persona with its
    priority, a role with when it runs, the workflow's checkpoint as not to be spawned."""
    metas = {p.stem: parse_front_matter(p.read_text(encoding="utf-8"))[0] for p in _agent_files()}
    assert sum(len(m["description"].encode()) for m in metas.values()) <= DESCRIPTIONS_BYTES
    for slug, meta in metas.items():
        d = meta["description"]
        if slug in personas.RESEARCH_PERSONAS:
            priority = next(p.priority for p in catalogue.PERSONAS if p.slug == slug)
            assert d.startswith(f"Deliberation persona — {personas.title(slug)} ({priority})"), slug
        elif slug in personas.ALL:
            assert d.startswith(f"Deliberation role — {personas.title(slug)}"), slug
    assert "do not spawn" in metas[personas.CHECKPOINT]["description"]
    assert "decision document" in metas[personas.DRAFTER]["description"]
