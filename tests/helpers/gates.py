"""Gate 2 with its bars given one by one, as the tests of each check vary them."""

from __future__ import annotations

from deliberation.core import quality_gate
from deliberation.state.config import Config


def gate2(
    delib,
    *,
    min_distinct_personas=2,
    min_alternatives=2,
    strong=0.85,
    moderate=0.70,
    require_improvement=True,
    conformity=(),
    conformity_blocks=False,
    now=9.0,
):
    """quality_gate.evaluate with a Config carrying these bars."""
    cfg = Config.model_validate(
        {
            "deliberation": {"min_distinct_personas": min_distinct_personas, "min_alternatives": min_alternatives},
            "gates": {"strong": strong, "moderate": moderate, "require_improvement": require_improvement},
            "conformity": {"blocking": conformity_blocks},
        }
    )
    return quality_gate.evaluate(delib, cfg, now, conformity=list(conformity))
