"""The route announced when the decision document is asked for, and whether the concluding
answer told the user (pure).

Once the vote passes, what decides the route is known: the decision class, the vote (its
pattern and the judges' confidence — rules T1, T2 and D) and the reversal registry. Only the
probes are still to run; they run when the deliberation closes. So the request for the
decision document says whether the decision will go to a person, why, and the sentence to
give the user (`announce`), and the completing Stop holds only when that did not work out
(`needs_hold`): the final route needs a person and either it was not the one announced (a probe
failed, the registry changed) or the concluding answer does not carry the notice
(`carries_notice`: the deliberation id and the approve command word, outside any fenced block —
lenient about the wording around them).
"""

from __future__ import annotations

import re

from deliberation.core import escalation
from deliberation.state.config import EscalationConfig
from deliberation.state.models import AnnouncedRoute, Deliberation, ReversalRegistry, Route

_FENCED = re.compile(r"```.*?(?:```|\Z)", re.S)


def announce(delib: Deliberation, cfg: EscalationConfig, registry: ReversalRegistry) -> AnnouncedRoute:
    """The route `delib` takes when it closes, as far as it is known before the probes run."""
    cls = escalation.class_of(delib, cfg)
    route = escalation.compute_route(cls, escalation.vote_of(delib), registry, [], cfg)
    fired = [r for r in route.rules if r.rule in escalation.ESCALATING]
    return AnnouncedRoute(
        route=route.route,
        rules=[r.rule for r in fired],
        why="; ".join(f"{r.rule}: {r.detail}" for r in fired)[:400],
        probes=[p.name for p in escalation.matching_probes(cfg.probes, cls)],
    )


def needs_person(route: str) -> bool:
    return route not in escalation.AUTOMATIC


def carries_notice(answer: "str | None", delib_id: str) -> bool:
    """The answer tells the user how to settle the review: it names the deliberation and the
    approve command (`deliberation approve <id>`, or any sentence with both the id and the word
    "approve"), outside fenced blocks (the decision document's JSON does not count)."""
    prose = _FENCED.sub("", answer or "")
    return bool(delib_id) and delib_id.lower() in prose.lower() and re.search(r"\bapprov", prose, re.I) is not None


def needs_hold(route: Route, announced: "AnnouncedRoute | None", answer: "str | None", delib_id: str) -> bool:
    """The completing Stop holds once: the final route needs a person and the user may not have
    been told — it was not announced as this route, or the answer lacks the notice."""
    if not needs_person(route.route):
        return False
    if announced is None or announced.route != route.route:
        return True
    return not carries_notice(answer, delib_id)
