"""What a deliberation cost (docs/FORMULAS.md, "What the deliberation cost"): `usage(delib)` returns
the figures as a plain dict — per agent the tokens it was billed for (every API response summed
from its transcript, else the depth budget's last-response figure, else not counted), the totals
and stages, the multiple of one research persona's mean, the wall times, the main agent's own
calls when its transcript was read, and money only at the prices the user configured
(`cost.prices`; each agent at the first key matching its model, an unmatched agent left out and
counted). text/cost.py words the dict. Pure over `state.Deliberation`.
"""

from __future__ import annotations

import fnmatch
from typing import Any

from deliberation.text import cost as words

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from deliberation.state.config import PriceTable
    from deliberation.state.models import AgentRecord, Deliberation, TokenUsage

BREAKDOWN = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens")


def _end(delib: "Deliberation") -> float:
    for change in reversed(delib.phase_history):
        if change.to_phase in ("COMPLETE", "FAILED"):
            return change.at
    return delib.updated_at


def agent_usage(a: "AgentRecord") -> "dict[str, Any]":
    """One agent's tokens and where they come from."""
    row: dict[str, Any] = {
        "agent": a.key,
        "persona": a.persona,
        "kind": a.kind,
        "stage": a.stage,
        "tier": a.tier,
        "background": a.background,
        "status": a.status,
        "model": a.model or a.model_requested,
        "calls": None,
        **{k: None for k in BREAKDOWN},
        "total_tokens": 0,
        "source": "not counted",
        "complete": False,
        "wall_s": round(a.reported_at - a.spawned_at, 1) if a.reported_at else None,
    }
    if a.usage is not None:
        u = a.usage
        row.update(
            calls=u.calls,
            **{k: getattr(u, k) for k in BREAKDOWN},
            total_tokens=sum(getattr(u, k) for k in BREAKDOWN),
            source="transcript",
            complete=True,
        )
    elif a.tokens_source:
        row.update(total_tokens=a.tokens, source=f"{a.tokens_source} (last response only)")
    return row


def price_key(model: "str | None", prices: "PriceTable") -> "str | None":
    """The first key of `prices.models` (a name or a glob) matching `model`; a bare `*` also
    covers an agent whose model is not known."""
    for key in prices.models:
        if key == "*" or (model and fnmatch.fnmatchcase(model.lower(), key.lower())):
            return key
    return None


def money(rows: "list[dict]", prices: "PriceTable | None") -> "dict[str, Any] | None":
    """The amount at `prices` (config.PriceTable) over the agents whose calls are all known and
    whose model has prices; each row gets the key it was priced at."""
    if prices is None:
        return None
    amount, priced = 0.0, 0
    by_key: dict[str, float] = {}
    for r in rows:
        key = price_key(r["model"], prices) if r["complete"] else None
        r["priced_at"] = key
        if key is None:
            continue
        p = prices.models[key]
        rate = {
            "input_tokens": p.input_per_mtok,
            "cache_creation_input_tokens": p.cache_write_per_mtok,
            "cache_read_input_tokens": p.cache_read_per_mtok,
            "output_tokens": p.output_per_mtok,
        }
        value = sum(r[k] * rate[k] for k in BREAKDOWN) / 1_000_000
        amount += value
        by_key[key] = by_key.get(key, 0.0) + value
        priced += 1
    return {
        "amount": round(amount, 4),
        "currency": prices.currency,
        "as_of": prices.as_of,
        "source": prices.source,
        "agents_priced": priced,
        "agents_not_priced": len(rows) - priced,
        "by_model": {k: round(v, 4) for k, v in by_key.items()},
        "rates_per_mtok": {
            k: {
                "input": p.input_per_mtok,
                "cache_write": p.cache_write_per_mtok,
                "cache_read": p.cache_read_per_mtok,
                "output": p.output_per_mtok,
            }
            for k, p in prices.models.items()
        },
    }


def usage(delib: "Deliberation", prices: "PriceTable | None" = None) -> "dict[str, Any]":
    """The deliberation's usage for the decision record (deterministic for the same state)."""
    rows = [agent_usage(a) for a in delib.agents if a.status != "refused"]
    for r in rows:
        r["priced_at"] = None
    total = sum(r["total_tokens"] for r in rows)
    by_stage: dict[str, dict[str, int]] = {}
    for r in rows:
        s = by_stage.setdefault(r["stage"], {"agents": 0, "tokens": 0})
        s["agents"] += 1
        s["tokens"] += r["total_tokens"]
    solo = [r["total_tokens"] for r in rows if r["stage"] == "research" and r["kind"] == "persona" and r["total_tokens"] > 0]
    one_agent = round(sum(solo) / len(solo)) if solo else None
    walls = [r["wall_s"] for r in rows if r["wall_s"] is not None]
    main = _calls(getattr(delib, "main_usage", None))
    drive = getattr(delib, "workflow", None)
    checkpoints = _calls(drive.checkpoint_usage if drive is not None else None)
    everything = total + (main["tokens"] if main else 0) + (checkpoints["tokens"] if checkpoints else 0)
    alone = getattr(delib, "main_first_call", None) if main else None
    return {
        "agents": len(rows),
        "agents_from_transcripts": sum(1 for r in rows if r["complete"]),
        "agents_last_response_only": sum(1 for r in rows if not r["complete"] and r["total_tokens"]),
        "agents_not_counted": sum(1 for r in rows if not r["complete"] and not r["total_tokens"]),
        "total_tokens": total,
        "breakdown": {k: sum(r[k] or 0 for r in rows) for k in BREAKDOWN},
        "calls": sum(r["calls"] or 0 for r in rows),
        "by_stage": by_stage,
        "one_agent_tokens": one_agent,
        "multiple_of_one_agent": round(total / one_agent, 2) if one_agent else None,
        "main_agent": main,
        "checkpoints": checkpoints,
        "deliberation_tokens": everything if main else None,
        "main_share": round(main["tokens"] / everything, 3) if main and everything else None,
        "single_answer_tokens": alone,
        "multiple_with_main": round(everything / alone, 2) if alone else None,
        "wall_time_s": round(_end(delib) - delib.created_at, 1) if delib.created_at else None,
        "agent_time_s": round(sum(walls), 1),
        "per_agent": rows,
        "money": money(rows, prices),
        "counted": words.counted(main_counted=bool(main)),
    }


def _calls(u: "TokenUsage | None") -> "dict[str, int] | None":
    """{calls, tokens} of a TokenUsage (None when not read)."""
    if u is None:
        return None
    return {"calls": u.calls, "tokens": sum(getattr(u, k) for k in BREAKDOWN)}
