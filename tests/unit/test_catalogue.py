"""The catalogues have one home (lib/deliberation/catalogue.py): no other module of lib/ spells a
member out, docs/CATALOGUES.md is generated from it, and a configured set of dimensions and
task-type bars reaches every prompt and check that names them."""

from __future__ import annotations

import ast
from pathlib import Path

from deliberation import catalogue, defaults
from deliberation.core import escalation, instructions, resume, reversals, task_type
from deliberation.core.trigger import score_prompt
from deliberation.state import agent_report
from deliberation.state.config import Config
from deliberation.state.models import ReversalRegistry
from deliberation.text import catalogue_doc, prompts, route, self_rating
from deliberation.text import dimensions as dimension_words
from tests.helpers import payloads as P

LIB = Path(__file__).resolve().parents[2] / "lib" / "deliberation"
DIMS = {d.name for d in catalogue.DIMENSIONS}
TYPES = {t.name for t in catalogue.TASK_TYPES}
SLUGS = {p.slug for p in catalogue.PERSONAS}
# configured: as many dimensions as the built-in set (state/config.py), two of them the project's own
# (in place of the catalogue's second and fourth)
OWN = {
    1: {"name": "safety", "description": "10 = safest: what can be lost"},
    3: {"name": "auditability", "description": "10 = fully compliant: audits"},
}
CONFIGURED = [
    {"weight": d.weight, **(OWN.get(i) or {"name": d.name, "description": d.description})}
    for i, d in enumerate(catalogue.DIMENSIONS)
]
CONFIGURED_NAMES = [d["name"] for d in CONFIGURED]


def _docstrings(tree: ast.AST) -> "set[int]":
    out = set()
    for n in ast.walk(tree):
        body = getattr(n, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            out.add(id(body[0].value))
    return out


def spelled_out(source: str) -> "list[str]":
    """Where a module lists members of a catalogue: a tuple, list, set or dict literal of which
    two entries or more, and at least half, are members of one catalogue (a trigger vocabulary
    that holds "risk" and "cost" among its many words lists no dimensions), or a string (not a
    docstring) naming a persona by its slug."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    found = []
    for n in ast.walk(tree):
        if isinstance(n, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
            elts = n.keys if isinstance(n, ast.Dict) else n.elts
            names = {e.value for e in elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
            for what, members in (("dimensions", DIMS), ("task types", TYPES), ("personas", SLUGS)):
                if len(names & members) >= 2 and 2 * len(names & members) >= len(names):
                    found.append(f"line {n.lineno}: {what} {sorted(names & members)}")
        elif isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs:
            found += [f"line {n.lineno}: persona {s}" for s in sorted(SLUGS) if s in n.value]
            if "five dimensions" in n.value:
                found.append(f"line {n.lineno}: 'five dimensions'")
    return found


def test_no_module_but_the_catalogue_spells_out_a_member():
    problems = {}
    for path in sorted(LIB.rglob("*.py")):
        if path.name == "catalogue.py" and path.parent == LIB:
            continue
        found = spelled_out(path.read_text(encoding="utf-8"))
        if found:
            problems[str(path.relative_to(LIB))] = found
    assert problems == {}, "derive these from deliberation.catalogue:\n" + "\n".join(f"{k}: {v}" for k, v in problems.items())


def test_the_scan_finds_a_hand_written_list():
    assert spelled_out('PANEL = ("security-analyst", "cost-analyst")\n')
    assert spelled_out('X = {"security": 0.85, "architecture": 0.8}\n')
    assert spelled_out('DIMS = ["correctness", "risk"]\n')
    assert not spelled_out('"""security-analyst in a docstring"""\nX = ("security", "auth")\n')


def test_the_catalogues_doc_is_generated():
    assert not catalogue_doc.drift(), "regenerate: python -m deliberation.text.catalogue_doc"


def test_the_defaults_are_the_catalogue():
    assert defaults.TASK_TYPES == tuple(t.name for t in catalogue.TASK_TYPES)
    assert defaults.CONFIG["task_types"]["thresholds"] == {t.name: t.threshold for t in catalogue.TASK_TYPES}
    assert [d["name"] for d in defaults.CONFIG["ranking"]["dimensions"]] == [d.name for d in catalogue.DIMENSIONS]
    assert abs(sum(d.weight for d in catalogue.DIMENSIONS) - 1) < 1e-9
    assert defaults.CONFIG["conformity"]["conflicting_pairs"] == catalogue.conflicting_pairs()
    for t in catalogue.TASK_TYPES:  # each panel: 3-5 known personas, a conflicting pair, the devil's advocate
        assert 3 <= len(t.panel) <= 5 and set(t.panel) <= SLUGS
        assert any({a, b} <= set(t.panel) for a, b in catalogue.conflicting_pairs()), t.name
    assert all(other in SLUGS for p in catalogue.PERSONAS for other in p.conflicts)
    assert set(catalogue.MINIMUM_PANEL) <= SLUGS and set(catalogue.EXAMPLE_PERSONAS) <= SLUGS


def test_precedence_and_leniency_follow_the_bars():
    bars = [t.threshold for t in catalogue.TASK_TYPES]
    assert bars == sorted(bars, reverse=True)
    assert task_type.PRECEDENCE == tuple(t for t in defaults.TASK_TYPES if t != catalogue.DEFAULT_TASK_TYPE)
    default_bar = catalogue.task_type(catalogue.DEFAULT_TASK_TYPE).threshold
    assert all(catalogue.task_type(t).threshold < default_bar for t in task_type.LENIENT)


def test_configured_dimensions_reach_the_protocol():
    cfg = Config.model_validate({"ranking": {"dimensions": CONFIGURED}}).model_dump()
    result, text = score_prompt("/deliberate pick a database", cfg)
    assert result["forced"] and text
    assert f"on {dimension_words.listed(CONFIGURED, terse=True)}, gives" in text
    assert "safety (10 = safest)" in text and "auditability (10 = fully compliant)" in text
    assert "risk" not in text.split("3. RANKING")[1].split("4. PRD")[0]
    default = instructions.protocol_text("q", "default", 0.7, 0.4, {})
    assert dimension_words.listed(terse=True) in default and "risk (10 = lowest)," in default


def test_configured_dimensions_reach_the_ranking_prompt():
    text = prompts.ranking("q", "Approaches: A, B", CONFIGURED)
    assert f"each of: {', '.join(CONFIGURED_NAMES)} (" in text
    assert "safety: 10 = safest; auditability: 10 = fully compliant;" in text
    assert "risk" not in text


def test_configured_dimensions_reach_the_report_example():
    shown = agent_report.example("ranking", CONFIGURED_NAMES)
    assert '"safety"' in shown and '"auditability"' in shown and '"risk"' not in shown
    assert agent_report.example("ranking") == agent_report.example("ranking", list(agent_report.DIMENSION_NAMES))


def ranking_delib():
    """Two rankers, one (cost-analyst) dissenting without its concern: the gate asks for it."""
    from deliberation.core import consensus_gate, ranking

    a = P.agent_record("security-analyst", "ranking", P.ranking_json({"A": (9,) * 5, "B": (5,) * 5}), key="ag-sec")
    b = P.agent_record(
        "cost-analyst", "ranking", P.ranking_json({"A": (6,) * 5, "B": (8,) * 5}, verdict="reject", preferred="B"), key="ag-cost"
    )
    d = P.make_deliberation([a, b], phase="RANKING")
    d.ranking = ranking.rank(d.agents, {x.name: x.weight for x in catalogue.DIMENSIONS})
    d.gate1 = consensus_gate.evaluate(d, 2, 0)
    return d, a, b


def test_configured_dimensions_are_checked_in_a_message_to_a_ranker():
    """core/resume.py checked a message for leaked scores on the built-in five only."""
    d, _sec, cost = ranking_delib()
    leaked = "Document your dissent: concern and reason. For A: auditability 9, safety 3."
    assert resume.decide(d, cost, leaked).allowed  # the built-in names: nothing seen
    decision = resume.decide(d, cost, leaked, dimensions=CONFIGURED_NAMES)
    assert not decision.allowed and decision.rule == "blind_ranking"


def test_configured_task_type_bars_reach_the_self_rating():
    text = self_rating.text({"security": 0.95, "documentation": 0.4, "refactoring": 0.75})
    assert "Below 0.70 (security 0.95, architecture 0.80, refactoring 0.75) do not" in text
    # a bar under the scorer's is the consensus a panel needs, not a licence to decide alone
    assert "documentation" not in text and "0.40" not in text
    assert all(f"{t} " in self_rating.text({t: 0.99 for t in task_type.PRECEDENCE}) for t in task_type.PRECEDENCE)


def test_a_reclassification_says_so():
    registry = ReversalRegistry()
    reversals.mark_reversed(registry, "d1", "architecture/schema-migration", "rolled back", 1.0)
    reversals.mark_confirmed(registry, "d2", "security")
    classes_now = {"d1": "data-migration/schema-migration", "d2": "security/auth"}
    moved = reversals.reclassified(registry, classes_now.get)
    assert moved == [("architecture/schema-migration", "d1", "data-migration/schema-migration")]  # d2: covered
    said = route.reclassified(moved)
    assert "d1: filed under architecture/schema-migration, classed data-migration/schema-migration today" in said
    assert route.reclassified([]) == ""


def test_the_class_now_follows_the_configured_keywords():
    d, _sec, _cost = ranking_delib()
    d.question, d.task_type = "Should we rewrite the login flow?", "security"
    cfg = escalation.EscalationConfig()
    assert escalation.class_now(d, cfg).startswith("security")
    assert escalation.class_now(d, cfg, {"security": ["nothing-like-it"]}).startswith("default")
