"""The trigger's structural signals and dampers (confidence.py), the deliberate command through
the Skill tool (trigger.py) and the once-per-session self-rating text (text/self_rating.py)."""

from __future__ import annotations

import pytest

from deliberation.core import confidence as c
from deliberation.core import trigger
from deliberation.core.task_type import DEFAULT_THRESHOLDS
from deliberation.text import self_rating


def matched(prompt: str, dim: str) -> "list[str]":
    return c.score(prompt)["matched"][dim]


def test_a_decision_question_and_its_alternatives():
    m = matched("Block by IP, add a captcha, or force 2FA?", "ambiguity")
    assert "(question)" in m and "(options)" in m and "(decision question)" in m  # "Block…?" proposes a step
    assert "(decision question)" in matched("Should the internal API require auth?", "ambiguity")
    assert "(yes/no question)" in matched("Does COPPA apply to us here?", "ambiguity")
    # a request or a look-up is no decision
    assert not {"(yes/no question)", "(decision question)"} & set(matched("Can you check the tests pass?", "ambiguity"))
    assert "(yes/no question)" not in matched("Is there a helper that formats cents?", "ambiguity")


def test_an_unmarked_first_sentence_can_still_ask():
    assert "(options)" in matched("shuld we auto-refund them or have support approve each one", "ambiguity")


def test_a_verdict_asked_after_a_situation():
    assert "(verdict asked)" in matched("The vendor wants a VPN tunnel into our VPC. Approve it?", "ambiguity")
    assert "(verdict asked)" not in matched("Approve it?", "ambiguity")  # no situation before it


def test_a_weakened_protection_raises_stakes():
    assert "(weakens a protection)" in matched("Disable CSRF protection on the API", "stakes")
    assert "(weakens a protection)" not in matched("Add a CSRF token to the settings form", "stakes")


def test_a_platform_named_in_a_decision_question_raises_stakes():
    assert "(platform choice)" in matched("Postgres or DynamoDB for the bookings service?", "stakes")
    assert "(platform choice)" in matched("Should we write the new chat service in Elixir?", "stakes")
    # a question of fact, or an order that only names the platform, is no choice of it
    assert "(platform choice)" not in matched("Which Postgres version are we on?", "stakes")
    assert "(platform choice)" not in matched("Add an index to the orders table in Postgres", "stakes")


def test_a_change_that_reaches_many_people_or_records_raises_stakes():
    for prompt in (
        "We have 60k free accounts; delete the inactive ones?",
        "email 1.2M users about it",
        "update 400,000 rows",
        "notify 25000 customers",
    ):
        assert "(many affected)" in matched(prompt, "stakes"), prompt
    for prompt in ("There are 3 users in the fixture", "In 2024 users asked for dark mode", "run it 2000 times in a loop"):
        assert "(many affected)" not in matched(prompt, "stakes"), prompt


def test_a_destructive_step_on_a_live_system_raises_context_dependence():
    assert "(irreversible step on a live system)" in matched("flush the production redis", "context_dependence")
    assert "(irreversible step on a live system)" not in matched("flush the redis on my laptop", "context_dependence")


def test_a_change_to_a_live_system_with_enough_at_stake():
    m = matched("Send the customer list with emails and phone numbers to the agency today", "context_dependence")
    assert any(s.startswith("(") and "live system" in s for s in m)


def test_a_choice_in_a_described_situation_needs_something_at_stake():
    risky = "Our Redis holds sessions and the job queue. Upgrade in place or stand up a new one?"
    assert "(decision in a described situation)" in matched(risky, "context_dependence")
    cheap = "We're writing a little CLI for internal use. argparse or click? Only I maintain it."
    assert "(decision in a described situation)" not in matched(cheap, "context_dependence")


def test_dampers():
    assert any(s.startswith("×") for s in matched("Should we do it as agreed in ADR-12?", "ambiguity"))
    local = c.score("My local postgres is in a weird state, drop and recreate the dev database")
    assert any(s.startswith("×") for s in local["matched"]["stakes"])
    live = c.score("drop and recreate the dev database on prod")  # a live target named: no damper
    assert not any(s.startswith("×") for s in live["matched"]["stakes"])


def test_a_short_prompt_naming_a_risky_decision_deliberates():
    for prompt in (
        "ok to drop the users_old table on prod?",
        "force push main to undo the bad merge?",
        "disable 2fa for the ops team? its slowing incident response",
    ):
        assert c.evaluate(prompt)["triggered"], prompt


def test_one_high_dimension_alone_does_not_deliberate():
    for prompt in ("Explain how our JWT middleware validates tokens.", "Should the CLI flag be --out or --output?"):
        e = c.evaluate(prompt)
        assert not e["triggered"] and e["confidence"] >= 0.70, prompt


def test_a_huge_prompt_is_scored_by_its_ends_in_bounded_time():
    question = "Should we force-push main to remove the leaked credentials, or rotate them?"
    e = c.evaluate("log line\n" * 500_000 + question)
    assert e["triggered"]  # the question at the end is scored


@pytest.mark.parametrize(
    "tool_input, question",
    [
        ({"skill": "deliberate", "args": " Should we? "}, "Should we?"),
        ({"skill": "deliberation:deliberate", "args": "Q"}, "Q"),
        ({"skill": "/deliberate"}, ""),
        ({"skill": "pdf", "args": "Q"}, None),
        ({"skill": 3}, None),
    ],
)
def test_skill_question(tool_input, question):
    assert trigger.skill_question("Skill", tool_input) == question
    assert trigger.skill_question("Bash", tool_input) is None


def test_score_skill_is_forced_and_asks_the_question():
    result, protocol = trigger.score_skill("Should the export keep phone numbers?", None)
    assert result["forced"] and result["triggered"]
    assert "Question: Should the export keep phone numbers?" in protocol


def test_the_self_rating_formula_is_the_scorers():
    # a real-model trial computed 0.75 from the hook's dimensions by "each other one at 0.6 or more"
    # where the scorer, whose ramp counts a share from 0.4, said 0.39
    from deliberation.core.confidence import RAMP_WIDTH, combine

    assert "at 0.6 or more (a share of it from 0.4: 0.5 counts half)" in self_rating.text()
    high = 0.6
    assert round(high - RAMP_WIDTH, 2) == 0.4
    dims = {"ambiguity": 0.84, "complexity": 0.0, "stakes": 0.45, "context_dependence": 0.59}
    by_the_text = 1 - 0.3 * 0.84 - 0.3 * ((0.45 - 0.4) / 0.2) - 0.3 * ((0.59 - 0.4) / 0.2)
    assert abs(combine(dims) - by_the_text) < 0.001
    assert abs(combine({"ambiguity": 0.9, "stakes": 0.5}) - (1 - 0.27 - 0.15)) < 0.001  # 0.5 counts half


def test_the_self_rating_bar_is_the_scorers_raised_by_a_strict_type():
    # a real-model trial read "documentation 0.50" here against the scorer's "below 0.70"
    text = self_rating.text()
    assert "Below 0.70 (security 0.85, architecture 0.80) do not decide alone" in text
    assert "0.50" not in text and "0.65" not in text
    assert "Below 0.80 (security 0.85) do not" in self_rating.text(trigger=0.8)
    assert "Below 0.90 do not" in self_rating.text(trigger=0.9)
    assert "(security 0.95, architecture 0.80, refactoring 0.75)" in self_rating.text(
        {"security": 0.95, "refactoring": 0.75}, trigger=0.72
    )


def test_self_rating_text_is_short_and_says_the_next_step():
    text = self_rating.text()
    assert len(text.encode()) <= self_rating.MAX_BYTES
    for t, bar in DEFAULT_THRESHOLDS.items():
        assert (f"{bar:.2f}" in text) == (bar >= 0.70), t
    assert 'call the Skill tool with skill "deliberate"' in text
    assert 'skill "deliberation:deliberate"' in self_rating.text(prefix="deliberation:")
    assert "security 0.90" in self_rating.text({"security": 0.9})
    longest = self_rating.text({t: 0.99 for t in DEFAULT_THRESHOLDS}, prefix="deliberation:", trigger=0.123456)
    assert len(longest.encode()) <= self_rating.MAX_BYTES and "follow the protocol it returns" in longest
