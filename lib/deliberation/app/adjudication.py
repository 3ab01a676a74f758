"""Human review (L3) inside Claude Code: opening, answering and closing escalations.

- `apply_route` (shell): at the end of ranking, compute the route of a deliberation — its class,
  the registry, the probes that cover the class — set `delib.route`, and open an escalation
  when the route is not auto-execute, all within the session's transaction.
- `escalations.json` is the PreToolUse fast path's only input: it lists the OPEN escalations.
  When none is left the file is deleted, so "nothing escalated" costs one failed stat.
- `review_answer` (pure): what PreToolUse answers for a tool call while escalations are open —
  `deny` when any is a hard reject, `ask` when any awaits review, on tools matching
  `escalation.risky_tools` (a full-match regex); nothing otherwise. The reason names the rule(s),
  the decision and the two commands that settle it.
- `adjudicate` (shell): `deliberation approve|reject ID` — set `route.review`, close the
  escalation, append (who, when, what) to the append-only `adjudications.jsonl`: one
  transaction under the deliberation's session lock, the lock every writer of it takes.
"""

from __future__ import annotations

import os
import pwd
import time

from deliberation.core import escalation, ways_forward
from deliberation.app import probes
from deliberation.report import decision_record, html_report
from deliberation.state.config import EscalationConfig, project_config
from deliberation.state.models import Adjudication, AdjudicationAction, Deliberation, EscalationIndex, OpenEscalation, Route
from deliberation.state.store import SessionTx, Store, StoreError
from deliberation.text.review import commands_hint as hint
from deliberation.core.human_review import tool_answer


class AdjudicationError(StoreError):
    """A review command that cannot be carried out; the message says why."""


# -- texts ------------------------------------------------------------------------------------


def escalation_reason(delib_id: str, route: Route, decision: "str | None") -> str:
    """Why a decision awaits a person: the rules that fired and the decision."""
    rules = "; ".join(f"{r.rule}: {r.detail}" for r in route.rules if r.rule != "COLD_START")
    cold = " (cold start: no reversal history for this class)" if any(r.rule == "COLD_START" for r in route.rules) else ""
    what = decision.strip() if decision and decision.strip() else "(decision not recorded)"
    policy = f" by policy {route.policy}" if route.policy else ""
    return (
        f"deliberation {delib_id} [{route.decision_class}] routed to {route.route}{policy}{cold} — "
        f"{rules or 'no rule detail'} — decision: {what[:300]}"
    )


def commands_hint(delib_id: str) -> str:
    return hint(delib_id)


def escalation_message(delib: Deliberation) -> str:
    """The loud systemMessage shown to the user when a deliberation is escalated."""
    route = delib.route
    if route is None or route.route in escalation.AUTOMATIC:
        return ""
    head = "HARD REJECT" if route.route == "hard-reject" else "HUMAN REVIEW NEEDED"
    return (
        f"{head}: {escalation_reason(delib.id, route, delib.decision)}. "
        f"Until a person decides, risky tools are gated. {commands_hint(delib.id)}."
    )


# -- the PreToolUse answer (pure) -------------------------------------------------------------


def review_answer(
    index: "EscalationIndex | None", tool_name: str, risky_tools_regex: str, command: "str | None" = None
) -> "tuple[str | None, str]":
    """(decision, reason) for PreToolUse: ('deny'|'ask', why) or (None, '') to let it through —
    the fast path's stdlib implementation over the index's entries."""
    entries = [e.model_dump(mode="json") for e in index.open] if index is not None else []
    return tool_answer(entries, tool_name, risky_tools_regex, command)


# -- escalations.json -------------------------------------------------------------------------


def _set_entry(tx: SessionTx, delib_id: str, entry: "OpenEscalation | None") -> None:
    """Set or remove `delib_id`'s entry of escalations.json within `tx`. The file is deleted
    when nothing is open (the fast path's contract: "nothing escalated" is one failed stat)."""
    tx.upsert(
        tx.store.layout.escalations,
        "open",
        "deliberation_id",
        delib_id,
        None if entry is None else entry.model_dump(mode="json"),
        template=EscalationIndex().model_dump(mode="json"),
        drop_empty=True,
    )


def open_escalation(tx: SessionTx, delib: Deliberation, at: "float | None" = None) -> "OpenEscalation | None":
    """List `delib` in escalations.json when its route awaits review; returns the entry."""
    route = delib.route
    if route is None or route.route not in ("human-review", "hard-reject") or route.review != "pending":
        return None
    # the route is computed before the decision is finalised: the leading approach is the decision
    leading = delib.ranking.leading if delib.ranking else None
    decision = delib.decision or leading
    if delib.outcome == "no-consensus":
        decision = f"none — no consensus; approve adopts the leading approach {leading}" if leading else "none — no consensus"
    entry = OpenEscalation(
        deliberation_id=delib.id,
        session_id=delib.session_id,
        route=route.route,
        reason=escalation_reason(delib.id, route, decision),
        opened_at=time.time() if at is None else at,
    )
    _set_entry(tx, delib.id, entry)
    return entry


def close_escalation(tx: SessionTx, delib_id: str) -> None:
    """Remove `delib_id` from escalations.json within `tx`."""
    _set_entry(tx, delib_id, None)


def open_index(store: Store) -> EscalationIndex:
    return store.load(store.layout.escalations, EscalationIndex, EscalationIndex)


# -- approve / reject -------------------------------------------------------------------------


def who_default() -> str:
    """Who settles a decision when `--who` is not given: $USER, else $USERNAME, else the OS
    account's name (the password database), else its numeric id — never "unknown"."""
    named = os.environ.get("USER") or os.environ.get("USERNAME")
    if named:
        return named
    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except (KeyError, AttributeError, OSError):
        return f"uid {os.getuid()}" if hasattr(os, "getuid") else "this account"


def adjudicate(
    store: Store, delib_id: str, action: AdjudicationAction, who: str, reason: str = "", at: "float | None" = None
) -> Deliberation:
    """Approve or reject an escalated deliberation; returns it as saved.

    The deliberation is changed under its session's lock, like every hook's change to it, so
    an approval and a hook's transaction never undo each other."""
    if action not in ("approve", "reject"):
        raise ValueError(f"unknown action {action!r}")
    at = time.time() if at is None else at
    peek = store.load(store.layout.deliberation(delib_id), Deliberation)
    if peek is None:
        raise AdjudicationError(f"no deliberation {delib_id} in {store.layout.project}")
    problem: "AdjudicationError | None" = None
    with SessionTx(store, peek.session_id) as tx:
        delib = tx.deliberation(delib_id)
        route = delib.route if delib is not None else None
        if delib is None:
            problem = AdjudicationError(f"no deliberation {delib_id} in {store.layout.project}")
        elif route is None or route.route in escalation.AUTOMATIC:
            state = "has no route yet" if route is None else f"was routed to {route.route}"
            problem = AdjudicationError(f"deliberation {delib_id} is not escalated (it {state}); nothing to {action}")
        elif route.review != "pending":
            problem = AdjudicationError(f"deliberation {delib_id} was already {route.review}")
            close_escalation(tx, delib_id)  # an entry left by an interrupted run must go
        else:
            route.review = "approved" if action == "approve" else "rejected"
            route.reviewed_by, route.reviewed_at, route.review_reason = who, at, reason
            if delib.outcome == "no-consensus" and action == "approve" and delib.ranking is not None:
                delib.decision = delib.ranking.leading  # the person adopted what the panel could not agree on
            delib.updated_at = at
            close_escalation(tx, delib_id)
            rewrite_records(tx, delib)
            tx.append(
                store.layout.adjudications,
                Adjudication(deliberation_id=delib_id, action=action, who=who, at=at, reason=reason).model_dump(mode="json"),
            )
    if problem is not None or delib is None:
        raise problem or AdjudicationError(f"no deliberation {delib_id} in {store.layout.project}")
    return delib


def rewrite_records(tx: SessionTx, delib: Deliberation) -> None:
    """Render the saved records again within `tx` — the structured record on the deliberation,
    its Markdown file and (when one was written) its HTML file — so that they say who settled
    the review, when and why, instead of "review pending"."""
    if not delib.record_path:
        return
    layout = tx.store.layout
    cfg, _problems = project_config(layout)
    g, prices = cfg.gates, cfg.cost.prices
    delib.record = decision_record.record_json(delib, g.strong, g.moderate, prices)
    rec = decision_record.build(delib, g.strong, g.moderate, prices)  # typed once, rendered twice
    tx.write_file(layout.record(delib.id), decision_record.markdown(rec, tx.lineage).encode())
    html = layout.record(delib.id, "html")
    if os.path.isfile(html):
        tx.write_file(html, html_report.html(rec, tx.lineage).encode())


def record_label(
    store: Store, delib_id: str, action: AdjudicationAction, who: str, reason: str = "", at: "float | None" = None
) -> None:
    """Append a reverse/confirm line to the adjudication log."""
    store.append(
        store.layout.adjudications,
        Adjudication(
            deliberation_id=delib_id, action=action, who=who, at=time.time() if at is None else at, reason=reason
        ).model_dump(mode="json"),
    )


# -- the end of ranking (shell) ---------------------------------------------------------------


def apply_route(tx: SessionTx, delib: Deliberation, cfg: EscalationConfig) -> Route:
    """Compute and set `delib.route` (running the probes that cover its class) and open an
    escalation when it is not auto-execute, within the session's transaction `tx`. A route a
    person has already settled (approved/rejected) is kept as it is."""
    if delib.route is not None and delib.route.review in ("approved", "rejected"):
        return delib.route
    cls = escalation.class_of(delib, cfg)
    if delib.outcome == "no-consensus":  # the panel did not agree: a person decides, no probe can
        delib.route = ways_forward.route(cls, delib, cfg.policy)
        open_escalation(tx, delib)
        return delib.route
    registry = tx.store.reversals()
    runs = probes.run_probes(cfg, cls, tx.store.layout.project, probes.cited_evidence(delib))
    delib.route = escalation.compute_route(cls, escalation.vote_of(delib), registry, runs, cfg)
    if open_escalation(tx, delib) is None and os.path.exists(tx.store.layout.escalations):
        close_escalation(tx, delib.id)  # a hand-over reopened for its revision round left one open
    return delib.route
