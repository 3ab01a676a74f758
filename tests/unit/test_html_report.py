"""html_report: one self-contained, escaped, deterministic file with a real heatmap."""

from __future__ import annotations

import base64
import hashlib
import re
from html.parser import HTMLParser

import pytest

from tests.helpers.factories import make_deliberation, make_lineage

from deliberation.report import html_report as hr
from deliberation.state.models import Deliberation

EVIL = (
    "</script><script>document.body.dataset.pwned=1</script>"
    '<img src=x onerror="document.body.dataset.pwned=2"> " onmouseover="alert(3)'
)


class _Tags(HTMLParser):
    """Collects start tags and attributes as a browser's tokenizer sees them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def _tags(page: str) -> "list[tuple[str, dict]]":
    p = _Tags()
    p.feed(page)
    return p.tags


@pytest.fixture(scope="module")
def full():
    d = make_deliberation(5, 3)
    return d, hr.render_html(d, make_lineage(d))


def test_score_colour_scale_hand_computed():
    assert hr.score_colour(0) == (178, 74, 36)
    assert hr.score_colour(5) == (244, 240, 230)
    assert hr.score_colour(7.5) == (110, 154, 196)
    assert hr.score_colour(10) == (24, 66, 112)
    assert hr.score_colour(2.5) == (211, 157, 133)  # halfway between the first two stops
    assert hr.score_colour(8.75) == (67, 110, 154)  # halfway between the last two
    assert hr.score_colour(-3) == hr.score_colour(0) and hr.score_colour(42) == hr.score_colour(10)
    reds = [hr.score_colour(x / 4)[0] for x in range(20, 41)]  # 5.0 .. 10.0: red falls strictly
    assert all(a > b for a, b in zip(reds, reds[1:]))


def test_heatmap_has_one_coloured_cell_per_score(full):
    d, page = full
    cells = [a for t, a in _tags(page) if t == "rect" and "data-score" in a]
    assert len(cells) == 15
    expected = {(s.agent, s.approach): s.weighted for s in d.ranking.scores}
    got = {(a["data-agent"], a["data-approach"]): float(a["data-score"]) for a in cells}
    assert got == pytest.approx(expected)
    for a in cells:
        assert a["fill"] == "#%02x%02x%02x" % hr.score_colour(float(a["data-score"]))
    assert len({a["fill"] for a in cells}) == len({a["data-score"] for a in cells})  # distinct scores, distinct colours
    heat = [a for t, a in _tags(page) if a.get("id") == "heatmap"]
    assert len(heat) == 1 and heat[0]["data-cells"] == "15"
    for s in d.ranking.scores:  # the number is written on the cell
        assert f">{s.weighted:.2f}</text>" in page


def test_missing_score_is_drawn_as_missing_not_zero():
    d = make_deliberation(3, 3, depth=False)
    d.ranking.scores = [s for s in d.ranking.scores if not (s.persona == "security-analyst" and s.approach == "C")]
    page = hr.render_html(d)
    assert len([1 for t, a in _tags(page) if t == "rect" and "data-score" in a]) == 8
    assert page.count('class="missing"') == 1 and "not scored" in page


def test_self_contained_no_external_resources(full):
    _, page = full
    assert "//" not in page  # no URL of any scheme, not even protocol-relative
    for tag, attrs in _tags(page):
        assert "src" not in attrs, (tag, attrs)
        # only in-page anchors (a decision-document citation → the finding it cites; the contents → a section)
        assert "href" not in attrs or (
            tag == "a" and (attrs["href"].startswith("#src-") or f'id="{attrs["href"][1:]}"' in page)
        ), (tag, attrs)
        assert tag not in ("link", "iframe", "object", "embed", "img", "base")
    assert "@import" not in page and "url(" not in page and "@font-face" not in page


def test_csp_allows_only_the_inline_script_by_hash(full):
    _, page = full
    scripts = re.findall(r"<script>(.*?)</script>", page, re.S)
    assert len(scripts) == 1
    digest = base64.b64encode(hashlib.sha256(scripts[0].encode()).digest()).decode()
    csp = next(a["content"] for t, a in _tags(page) if t == "meta" and a.get("http-equiv") == "Content-Security-Policy")
    assert f"script-src 'sha256-{digest}'" in csp and "default-src 'none'" in csp


def test_model_text_is_escaped_everywhere():
    d = make_deliberation(5, 3, inject=EVIL)
    d.route.probes[0].causal_warning = EVIL
    d.agents[0].persona = 'x"><svg onload=alert(4)>'  # an agent type is client/model supplied too
    page = hr.render_html(d, make_lineage(d))
    assert page.count("<script") == 1  # ours only
    tags = _tags(page)
    assert not [a for _, a in tags if any(k.startswith("on") for k in a)]
    assert [t for t, _ in tags].count("img") == 0 and [t for t, _ in tags].count("svg") == 1
    assert "&lt;/script&gt;&lt;script&gt;document.body.dataset.pwned=1&lt;/script&gt;" in page
    assert "&quot; onmouseover=&quot;alert(3)" in page


def test_all_sections_present_in_reading_order(full):
    _, page = full
    ids = [
        "prd",
        "scores",
        "breakdown",
        "alternatives",
        "findings",
        "gates",
        "dissent",
        "conformity",
        "depth",
        "route",
        "usage",
        "lineage",
        "warnings",
        "phases",
        "participants",
    ]
    positions = [page.index(f'id="{i}"') for i in ids]
    assert positions == sorted(positions)
    assert "consensus <b>0.75</b> vs threshold <b>0.70</b>" in page
    assert page.count('class="pass"') + page.count('class="fail"') == 9  # 4 + 5 gate checks


def test_gate_check_failure_shows_mark_figure_and_next_step():
    d = make_deliberation(3, 2)
    d.gate1.passed = False
    d.gate1.checks[2].passed = False
    d.gate1.checks[2].figure = "0.62 < 0.80"
    d.gate1.next_step = "re-rank"
    page = hr.render_html(d)
    assert (
        '<li class="fail"><span class="mark">✗</span><span><code>consensus_threshold</code> '
        '<span class="figure">0.62 &lt; 0.80</span>'
    ) in page
    assert '<div class="next">Next step: re-rank</div>' in page


def test_lineage_tree_is_well_nested(full):
    d, page = full
    tree = page[page.index('<ul class="tree">') : page.index("</section>", page.index('<ul class="tree">'))]
    tree = tree.split("<h3")[0]
    assert tree.count("<ul") == tree.count("</ul>") and tree.count("<li") == tree.count("</li>")
    assert tree.count("<li") == 1 + 17  # main + every spawn
    assert "1 active / 2 spawned" in tree


def test_deterministic(full):
    d, page = full
    again = hr.render_html(Deliberation.model_validate_json(d.model_dump_json()), make_lineage(d))
    assert again == page


def test_before_ranking_renders_without_heatmap():
    d = make_deliberation(3, 2, phase="RESEARCH")
    page = hr.render_html(d)
    assert 'id="heatmap"' not in page and "No ranking yet." in page and "No approach has been ranked yet" in page


def test_a_unanimous_reject_and_the_two_agent_outcome_render():
    """The HTML says 'Rejected — no approach adopted' and the 2-agent rule's outcome."""
    from deliberation.core import escalation, ranking
    from deliberation.state.config import EscalationConfig
    from deliberation.report.decision_record import record_json, render_markdown
    from deliberation.state.models import ReversalRegistry, TwoAgentCheck

    d = make_deliberation(3, 2, route=None)
    for a in d.agents:
        if a.stage == "ranking" and a.report is not None:
            a.report.verdict = "reject"
    d.ranking = ranking.rank(
        d.agents, {"correctness": 0.3, "risk": 0.25, "maintainability": 0.2, "performance": 0.15, "cost": 0.1}
    )
    d.route = escalation.route_for(d, ReversalRegistry(), [], EscalationConfig())
    d.outcome, d.decision = "rejected", None
    d.two_agent = TwoAgentCheck(
        verdict="suspect_herding", agents=["devils-advocate", "product-strategist"], similarity=0.9, detail="both say the same"
    )
    rec = record_json(d)
    assert rec["decision"]["outcome"] == "rejected" and rec["decision"]["text"] == "rejected — no approach adopted"
    assert d.route.route == "auto-reject"
    page = hr.render_html(d)
    assert "Rejected — no approach adopted" in page and "auto-reject" in page
    assert "Minimum viable deliberation (2 agents):</b> agreement with the same reasoning → suspect herding" in page
    md = render_markdown(d)
    assert "**Rejected — no approach adopted.**" in md and "## Minimum viable deliberation (2 agents)" in md


def test_every_citation_of_the_decision_document_links_to_what_it_cites(full):
    d, page = full
    tags = _tags(page)
    anchors = {a["id"] for _, a in tags if a.get("id", "").startswith("src-")}
    links = [a["href"][1:] for t, a in tags if t == "a" and a["href"].startswith("#src-")]
    assert links and set(links) <= anchors  # no dangling link
    assert "src-technical-architect_F1" in links and "src-reliability-engineer_D1" in links
    section = page[page.index('id="prd"') : page.index('id="scores"')]
    for text in (
        "Requirements",
        "Non-goals",
        "Acceptance criteria",
        "Risks and mitigations",
        "Open questions",
        "Every order event is written in the order&#x27;s own transaction.",
        "Run two relays with leader election.",
    ):
        assert text in section, text


def test_findings_and_cost_sections(full):
    d, page = full
    findings = page[page.index('id="findings"') : page.index('id="gates"')]
    assert "src/orders/publish.py:88" in findings and 'class="sev-high"' in findings
    assert "cited by R1, AC1" in findings
    usage = page[page.index('id="usage"') : page.index('id="lineage"')]
    assert usage.count("<td>transcript</td>") == len(d.agents)
    assert "no amount: no prices configured" in usage and "wall</td>" in usage


def test_a_missing_document_is_shown_loudly():
    d = make_deliberation(3, 2)
    d.prd.status, d.prd.document, d.prd.send_backs, d.prd.problem = "missing", None, 1, "no decision document block"
    page = hr.render_html(d)
    section = page[page.index('id="prd"') : page.index('id="scores"')]
    assert 'class="badge bad">missing</span>' in section
    assert "Recorded without a decision document after 1 send-back(s): no decision document block" in section
