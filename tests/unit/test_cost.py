"""cost: what a deliberation cost — tokens per agent from the transcripts, × one agent, wall time,
money only at prices the user configured (docs/EVIDENCE.md, E6: what a panel costs)."""

from __future__ import annotations

import pytest

from deliberation.core import cost
from deliberation.text import cost as cost_words
from deliberation.state.config import Config
from deliberation.state.models import PhaseChange, TokenUsage
from tests.helpers import payloads as P


def usage(calls, inp, cw, cr, out):
    return TokenUsage(
        calls=calls, input_tokens=inp, cache_creation_input_tokens=cw, cache_read_input_tokens=cr, output_tokens=out
    )


def panel():
    """Three research personas (background, from transcripts), a synthesis counted from its last
    response only, one ranker whose transcript could not be read and nothing else counted."""
    agents = []
    for i, (persona, u) in enumerate(
        (
            ("security-analyst", usage(3, 1200, 8000, 21000, 900)),
            ("performance-engineer", usage(2, 800, 7000, 14000, 700)),
            ("cost-analyst", usage(4, 1000, 9000, 30000, 1100)),
        )
    ):
        a = P.agent_record(persona, "research", {"findings": [{"id": "F1", "claim": "c"}]}, background=True, spawned_at=100.0 + i)
        a.usage = u
        a.reported_at = 160.0 + i
        agents.append(a)
    syn = P.agent_record("synthesis-lead", "deliberation", {"approaches": [{"id": "A", "title": "a"}]}, spawned_at=200.0)
    syn.tokens, syn.tokens_source = 12000, "totalTokens"
    rank = P.agent_record("security-analyst", "ranking", P.ranking_json({"A": (8, 8, 8, 8, 8)}), spawned_at=300.0)
    refused = P.agent_record("cost-analyst", "ranking", None, status="refused")
    d = P.make_deliberation(agents + [syn, rank, refused], phase="COMPLETE")
    d.created_at = 90.0
    d.phase_history = [PhaseChange(from_phase="PRD_GENERATION", to_phase="COMPLETE", at=390.5, why="done")]
    return d


def test_tokens_per_agent_come_from_the_transcripts_with_their_breakdown():
    u = cost.usage(panel())
    rows = {(r["persona"], r["stage"]): r for r in u["per_agent"]}
    sec = rows[("security-analyst", "research")]
    assert (
        sec["calls"],
        sec["input_tokens"],
        sec["cache_creation_input_tokens"],
        sec["cache_read_input_tokens"],
        sec["output_tokens"],
        sec["total_tokens"],
    ) == (3, 1200, 8000, 21000, 900, 31100)
    assert sec["source"] == "transcript" and sec["complete"] and sec["background"] and sec["wall_s"] == 60.0
    syn = rows[("synthesis-lead", "deliberation")]
    assert (syn["total_tokens"], syn["source"], syn["complete"], syn["calls"]) == (
        12000,
        "totalTokens (last response only)",
        False,
        None,
    )
    ranker = rows[("security-analyst", "ranking")]
    assert (ranker["total_tokens"], ranker["source"]) == (0, "not counted")
    assert len(u["per_agent"]) == 5  # a refused spawn never ran


def test_totals_the_multiple_of_one_agent_and_the_wall_time():
    u = cost.usage(panel())
    research = 31100 + 22500 + 41100
    assert u["total_tokens"] == research + 12000
    assert u["one_agent_tokens"] == round(research / 3) == 31567
    assert u["multiple_of_one_agent"] == round((research + 12000) / 31567, 2) == 3.38
    assert (u["agents"], u["agents_from_transcripts"], u["agents_last_response_only"], u["agents_not_counted"]) == (5, 3, 1, 1)
    assert u["breakdown"] == {
        "input_tokens": 3000,
        "cache_creation_input_tokens": 24000,
        "cache_read_input_tokens": 65000,
        "output_tokens": 2700,
    }
    assert u["calls"] == 9
    assert u["by_stage"] == {
        "research": {"agents": 3, "tokens": research},
        "deliberation": {"agents": 1, "tokens": 12000},
        "ranking": {"agents": 1, "tokens": 0},
    }
    assert u["wall_time_s"] == 300.5  # first spawn (created) to COMPLETE
    assert u["money"] is None


SONNET = {"input_per_mtok": 3, "output_per_mtok": 15, "cache_write_per_mtok": 3.75, "cache_read_per_mtok": 0.3}
OPUS = {"input_per_mtok": 15, "output_per_mtok": 75, "cache_write_per_mtok": 18.75, "cache_read_per_mtok": 1.5}


def prices(models: dict):
    return Config.model_validate(
        {"cost": {"prices": {"as_of": "2026-11-30", "source": "the team's price sheet", "models": models}}}
    ).cost.prices


def test_money_only_at_configured_prices_with_their_date_and_source():
    m = cost.usage(panel(), prices({"*": SONNET}))["money"]
    expected = (3000 * 3 + 24000 * 3.75 + 65000 * 0.3 + 2700 * 15) / 1e6  # transcripts only
    assert m["amount"] == pytest.approx(round(expected, 4))
    assert (m["currency"], m["as_of"], m["source"], m["agents_priced"], m["agents_not_priced"]) == (
        "USD",
        "2026-11-30",
        "the team's price sheet",
        3,
        2,
    )
    line = cost_words.summary_line(cost.usage(panel(), prices({"*": SONNET})))
    assert f"≈ {expected:.2f} USD at the configured prices of 2026-11-30 (the team's price sheet), 2 agent(s) not priced" in line


def test_each_agent_is_priced_at_its_own_model():
    d = panel()
    research = [a for a in d.agents if a.stage == "research"]
    research[0].model = "claude-opus-4-5"  # ran on opus
    research[1].model_requested = "claude-sonnet-4-5"  # only the model asked for is known
    # research[2]: model unknown — no key matches it without a bare '*'
    u = cost.usage(d, prices({"claude-opus-*": OPUS, "claude-sonnet-*": SONNET}))
    rows = {r["agent"]: r for r in u["per_agent"]}
    assert (rows[research[0].key]["priced_at"], rows[research[1].key]["priced_at"], rows[research[2].key]["priced_at"]) == (
        "claude-opus-*",
        "claude-sonnet-*",
        None,
    )
    m = u["money"]
    opus = (1200 * 15 + 8000 * 18.75 + 21000 * 1.5 + 900 * 75) / 1e6
    sonnet = (800 * 3 + 7000 * 3.75 + 14000 * 0.3 + 700 * 15) / 1e6
    assert m["by_model"] == {"claude-opus-*": round(opus, 4), "claude-sonnet-*": round(sonnet, 4)}
    assert m["amount"] == pytest.approx(round(opus + sonnet, 4)) and m["agents_not_priced"] == 3


TABLE = {"as_of": "2026-11-30", "source": "sheet", "models": {"*": SONNET}}


@pytest.mark.parametrize(
    "bad", [{"as_of": "yesterday"}, {"source": ""}, {"models": {}}, {"models": {"*": {**SONNET, "input_per_mtok": -1}}}]
)
def test_a_price_table_without_a_date_a_source_or_a_valid_price_is_refused(bad):
    from deliberation.state.config import validate_config

    cfg, problems = validate_config({"cost": {"prices": {**TABLE, **bad}}})
    assert cfg.cost.prices is None and problems
    assert Config().cost.prices is None  # the plugin ships no prices


def test_an_invalid_currency_falls_back_to_usd_and_is_reported():
    from deliberation.state.config import validate_config

    cfg, problems = validate_config({"cost": {"prices": {**TABLE, "currency": "dollars"}}})
    assert cfg.cost.prices.currency == "USD"
    assert any("cost.prices.currency" in p for p in problems)


def test_the_summary_says_what_is_and_is_not_counted():
    line = cost_words.summary_line(cost.usage(panel()))
    assert line.startswith(
        "Cost: 5 subagent(s), 106,700 tokens (3.4× one research agent's 31,567, the cost of "
        "one agent studying the question alone); wall time 5 min 0 s; no amount: no prices "
        "configured; of the subagents 1 counted from their last response only and 1 not counted"
    )
    assert line.endswith("(The main agent's own tokens (orchestration, the decision document) are not counted.)")
    assert "wall time" not in cost_words.summary_line(cost.usage(panel()), wall=False)


def test_no_research_agent_no_multiple():
    d = panel()
    for a in d.agents:
        if a.stage == "research":
            a.usage = None
    u = cost.usage(d)
    assert u["one_agent_tokens"] is None and u["multiple_of_one_agent"] is None
    assert "×" not in cost_words.summary_line(u)


@pytest.mark.parametrize(
    "seconds,text", [(None, "—"), (4.4, "4 s"), (59.6, "1 min 0 s"), (754, "12 min 34 s"), (3725, "1 h 2 min")]
)
def test_durations_read_like_durations(seconds, text):
    assert cost_words.duration(seconds) == text


def test_the_main_agent_and_the_checkpoints_make_the_whole_cost_and_the_main_share():
    from deliberation.state.models import WorkflowDrive

    d = panel()
    research = 31100 + 22500 + 41100
    d.main_usage = usage(3, 30000, 0, 120000, 3000)  # 153,000 tokens in 3 calls
    d.workflow = WorkflowDrive(checkpoint_usage=usage(3, 4500, 0, 0, 60))
    d.main_first_call = 45000
    u = cost.usage(d)
    assert u["main_agent"] == {"calls": 3, "tokens": 153000} and u["checkpoints"] == {"calls": 3, "tokens": 4560}
    everything = research + 12000 + 153000 + 4560
    assert u["deliberation_tokens"] == everything
    assert u["main_share"] == round(153000 / everything, 3)
    assert u["multiple_with_main"] == round(everything / 45000, 2) and u["single_answer_tokens"] == 45000
    line = cost_words.summary_line(u, wall=False)
    assert (
        f"; with the main agent's 3 call(s) (153,000 tokens, the workflow's checkpoints and drafter 4,560) {everything:,} "
        f"tokens in all, {everything / 45000:.1f}× one agent answering alone (the main agent's first call on the "
        f"question, 45,000); the main agent's share "
        f"{153000 / everything:.0%}"
    ) in line
    assert "are not counted" not in line and u["counted"].endswith("are counted from its transcript, apart")


def test_the_main_agents_calls_are_those_since_the_prompt():
    from deliberation.core.token_usage import entries_since, sum_usage

    def entry(ts, mid, n):
        return (
            f'{{"type":"assistant","timestamp":"{ts}","message":{{"id":"{mid}","usage":'
            f'{{"input_tokens":{n},"output_tokens":1}}}}}}'
        ).encode()

    lines = [
        entry("2026-12-01T11:48:40.607Z", "m1", 100),
        entry("2026-12-01T11:48:41.494Z", "m2", 200),
        entry("2026-12-01T11:48:49.875Z", "m3", 300),
        b'{"type":"assistant","message":{}}',
    ]
    since = 1796125721.0  # 2026-12-01T11:48:41Z
    assert sum_usage(entries_since(lines, since)) == {
        "calls": 2,
        "input_tokens": 500,
        "output_tokens": 2,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }
