"""document_call and prd.submit: which Write call hands over the decision document, and how
its content is read and recorded (never from a file)."""

from __future__ import annotations

import json

from deliberation.core import document_call, prd
from deliberation.core.document_call import target
from tests.helpers import payloads as P
from tests.helpers.payloads import prd_deliberation as deliberation

CITES = ["security-analyst:F1", "performance-engineer:F1"]


def test_the_write_that_hands_over_a_document_names_its_deliberation():
    path = "/home/u/proj/.claude/deliberation/documents/d-5e55a7c1-1.json"
    assert target("Write", {"file_path": path, "content": "{}"}, "/home/u/proj") == "d-5e55a7c1-1"
    assert target("Write", {"file_path": ".claude/deliberation/documents/d-1.json"}, "/home/u/proj") == "d-1"
    assert target("Write", {"file_path": "/private/var/x/.claude/deliberation/documents/d-1.json"}, "/") == "d-1"
    assert target("Write", {"file_path": "/p/.claude/deliberation/sub/../documents/d-1.json"}, "/") == "d-1"
    assert document_call.relative("d-1") == ".claude/deliberation/documents/d-1.json"


def test_any_other_call_is_not_a_hand_over():
    assert target("Edit", {"file_path": "/p/.claude/deliberation/documents/d-1.json"}, "/p") is None
    assert target("Write", {"file_path": "/p/.claude/deliberation/records/d-1.json"}, "/p") is None
    assert target("Write", {"file_path": "/p/.claude/deliberation/documents/d-1.md"}, "/p") is None
    assert target("Write", {"file_path": "/p/.claude/deliberation/documents/sub/d-1.json"}, "/p") is None
    assert target("Write", {"file_path": "/p/my.claude/deliberation/documents/d-1.json"}, "/p") is None
    assert target("Write", {"file_path": "/p/.claude/deliberation/documents/.json"}, "/p") is None
    assert target("Write", {"file_path": 3}, "/p") is None and target("Write", "x", "/p") is None


def test_a_valid_document_is_recorded_from_the_content_of_the_call():
    d = deliberation()
    assert prd.submit(d, json.dumps(P.prd_document(CITES)), max_bytes=20_000, now=12.0) is None
    st = d.prd
    assert (st.status, st.via, st.closed_at, st.problem) == ("accepted", "write", 12.0, None)
    assert st.document is not None and st.document.requirements[0].sources == ["security-analyst:F1"]
    # the concluding answer needs no block now: the Stop finds it recorded
    assert prd.capture(d, "Prose only.", retries=1, max_bytes=20_000, may_block=True, now=13.0).status == "already"


def test_a_fenced_block_as_content_is_forgiven():
    d = deliberation()
    body = "```json\n" + json.dumps(P.prd_document(CITES)) + "\n```\n"
    assert prd.submit(d, body, max_bytes=20_000, now=12.0) is None and d.prd.status == "accepted"


def test_an_invalid_document_is_refused_with_the_problem_and_stays_due():
    d = deliberation()
    assert prd.submit(d, "{not json", max_bytes=20_000, now=12.0).startswith("Your decision document does not parse as JSON.")
    assert prd.submit(d, "[1, 2]", max_bytes=20_000, now=12.0) == (
        "Your decision document must be ONE JSON object (the shape below), not a JSON list."
    )
    bad = P.prd_document(["nobody:F9"])
    problem = prd.submit(d, json.dumps(bad), max_bytes=20_000, now=12.0)
    assert problem.startswith("Every cited id must exist in the deliberation; these do not: 'nobody:F9'")
    assert (d.prd.status, d.prd.problem, d.prd.send_backs) == ("due", problem, 0)  # no Stop was held
    assert prd.submit(d, "x" * 300, max_bytes=200, now=12.0) == (
        "Your decision document is 300 bytes; the limit is 200. Shorten its texts."
    )


def test_a_refused_replacement_keeps_the_recorded_document():
    d = deliberation()
    prd.submit(d, json.dumps(P.prd_document(CITES)), max_bytes=20_000, now=12.0)
    assert prd.submit(d, "{}", max_bytes=20_000, now=13.0) is not None
    assert (d.prd.status, d.prd.problem, d.prd.closed_at) == ("accepted", None, 12.0)


def test_the_answer_s_block_is_still_accepted_and_says_so():
    d = deliberation()
    answer = "Decision: A.\n\n```json\n" + json.dumps(P.prd_document(CITES)) + "\n```"
    assert prd.capture(d, answer, retries=1, max_bytes=20_000, may_block=True, now=13.0).status == "accepted"
    assert d.prd.via == "answer"
