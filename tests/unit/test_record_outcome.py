"""The record leads with the outcome: decision (or "no consensus"), route, what the reader must
do (the commands), then why; a short table of contents; a warning is never a green tick;
approve/reject re-render the saved records with who, when and why; a FAILED deliberation's
record says why."""

from __future__ import annotations

import os

from tests.helpers.factories import T0, make_deliberation, make_lineage, write_project

from deliberation.app.adjudication import adjudicate
from deliberation.report import decision_record as dr
from deliberation.report import html_report as hr
from deliberation.report import outcome as oc
from deliberation.state.models import Check, Deliberation
from deliberation.state.store import Store


def first_section(md: str) -> str:
    return md.split("\n## ", 2)[1]


def test_a_pending_review_leads_the_record_with_the_commands():
    d = make_deliberation(5, 3)
    text = dr.render_markdown(d, make_lineage(d))
    lines = text.splitlines()
    assert lines[0] == f"# Decision record `{d.id}`" and lines[2] == "## Outcome"
    head = first_section(text)
    assert f"**Decision: {d.ranking and dr.approach_catalogue(d)[d.ranking.leading]['title']} (A)**" in head
    assert "- **Route:** human-review — awaiting a person's review" in head
    assert "- **What you must do:** A person must approve or reject this decision" in head
    assert f"  - `deliberation approve {d.id}`" in head and 'either takes --reason "…" (optional)' in head
    assert f"  - `deliberation reject {d.id}`" in head
    assert "- **Why:** Consensus " in head and "Escalated by D: split vote: 1 reject of 5" in head
    # the contents come right after, one line of links to every section below
    contents = next(line for line in lines if line.startswith("**Contents:**"))
    assert lines.index(contents) < lines.index("## Decision")
    assert "[Decision](#decision)" in contents and "[Route](#route)" in contents
    assert contents.count("](#") == sum(1 for line in lines if line.startswith("## ")) - 1


def test_no_consensus_rejected_failed_and_open_say_so():
    low = make_deliberation(5, 3, threshold=0.99)
    assert oc.outcome(dr.build(low)).headline.startswith("No consensus — the leading approach")
    failed = make_deliberation(5, 3, phase="FAILED", route=None)
    o = oc.outcome(dr.build(failed))
    assert o.kind == "failed" and o.headline == "FAILED — no decision" and not o.commands
    assert "consensus 0.62 < 0.80 after 3 stop blocks" in o.why
    assert "failed before a decision" in o.action
    early = make_deliberation(5, 3, phase="RESEARCH", route=None)
    assert oc.outcome(dr.build(early)).headline == "In progress — no decision yet (phase RESEARCH)"
    auto = make_deliberation(5, 3, route="auto-execute")
    o = oc.outcome(dr.build(auto))
    assert o.action == "Nothing: the route needs no review." and not o.must_act


def test_a_passed_check_with_warnings_is_a_warning_not_a_tick():
    d = make_deliberation(5, 3)
    d.gate2.checks.append(Check(name="conformity", passed=True, figure="4 warning(s)", detail="anchoring: …"))
    rec = dr.build(d)
    assert oc.gate_mark(rec.gates.quality) == "passed with warnings"
    text = dr.render_markdown(d)
    assert "### Gate 2 — quality: PASSED WITH WARNINGS" in text
    assert "- WARN `conformity`: 4 warning(s)" in text and "- PASS `conformity`" not in text
    page = hr.render_html(d)
    item = page[page.index("<code>conformity</code>") - 80 : page.index("<code>conformity</code>")]
    assert 'class="warnc"' in item and "✓" not in item
    assert "passed with warnings</span>" in page


def test_the_html_record_opens_with_the_outcome_and_its_contents():
    d = make_deliberation(5, 3)
    page = hr.render_html(d, make_lineage(d))
    start = page.index("<main>")
    assert page.index('id="outcome"') < page.index('<nav class="toc"') < page.index('id="decision"')
    assert page.index("</header>", start) < page.index('id="outcome"')
    outcome = page[page.index('id="outcome"') : page.index("</section>", page.index('id="outcome"'))]
    assert "What you must do" in outcome and f"<pre>deliberation approve {d.id}</pre>" in outcome
    assert 'class="outcome act"' in page
    toc = page[page.index('<nav class="toc"') : page.index("</nav>")]
    for key in ("decision", "prd", "scores", "gates", "route", "participants"):
        assert f'href="#{key}"' in toc and f'id="{key}"' in page
    # every table is in its own scrolling box (focusable, so a keyboard scrolls it too)
    assert page.count("<table>") == page.count('<div class="scroll" tabindex="0"><table>')
    # the decision comes first: the outcome's headline is the page's heading, the question after
    assert page.index('<h1 class="headline">Decision: ') < page.index('<div class="question">')


def test_the_html_contents_and_body_come_from_one_list_and_agree():
    import re

    d = make_deliberation(5, 3)
    page = hr.render_html(d, make_lineage(d))
    toc = page[page.index('<nav class="toc"') : page.index("</nav>")]
    linked = re.findall(r'href="#([\w-]+)"', toc)
    keys = {key for key, _label, _render in hr.SECTIONS}
    body = page[page.index("</nav>") :]
    shown = [k for k in re.findall(r'<(?:section|div class="grid2") id="([\w-]+)"', body) if k in keys]
    assert linked == shown and len(shown) >= 12, (linked, shown)
    # and a record without some sections lists only those it has
    rec = dr.build(d)
    assert "warnings" in [k for k, _l, _h in hr.sections(rec)]
    rec = rec.model_copy(update={"warnings": [], "failure_reasons": []})
    assert "warnings" not in [k for k, _l, _h in hr.sections(rec)]
    # the Markdown's contents are its level-2 headings, in order (made from the body itself)
    text = dr.markdown(dr.build(d), make_lineage(d))
    heads = [line[3:] for line in text.splitlines() if line.startswith("## ")][1:]
    contents = next(line for line in text.splitlines() if line.startswith("**Contents:**"))
    assert re.findall(r"\[([^\]]+)\]", contents) == [h.replace("`", "") for h in heads]


def test_approve_re_renders_the_saved_records_with_who_when_and_why(tmp_path):
    d = make_deliberation(5, 3)
    layout = write_project(tmp_path, [d], [make_lineage(d)])
    store = Store(layout)
    saved = store.load(layout.deliberation(d.id), Deliberation)
    md_path, html_path = layout.record(d.id), layout.record(d.id, "html")
    os.makedirs(os.path.dirname(md_path), exist_ok=True)
    with open(md_path, "w") as fh:
        fh.write(dr.render_markdown(saved))
    with open(html_path, "w") as fh:
        fh.write(hr.render_html(saved))
    saved.record_path = md_path
    store.save(layout.deliberation(d.id), saved)
    assert "awaiting a person's review" in open(md_path).read()

    adjudicate(store, d.id, "approve", "alice", "checked the outbox schema", at=T0 + 5000)
    after = store.load(layout.deliberation(d.id), Deliberation)
    assert (after.route.review, after.route.reviewed_by, after.route.reviewed_at, after.route.review_reason) == (
        "approved",
        "alice",
        T0 + 5000,
        "checked the outbox schema",
    )
    md = open(md_path).read()
    assert "awaiting a person's review" not in md and "What you must do" not in md
    assert (
        "- **Route:** human-review — approved by alice on 2026-01-01 10:23 UTC: “checked the outbox schema”"
    ) in first_section(md)
    assert "- **Action:** Nothing: a person has approved it." in md
    assert "Approved by **alice** at 2026-01-01 10:23:20 UTC. Reason: checked the outbox schema." in md
    page = open(html_path).read()
    assert "approved by alice" in page and "checked the outbox schema" in page and "awaiting" not in page
    assert after.record["route"]["reviewed_by"] == "alice"  # the structured record too
