"""The persona and role catalogue, and how an agent type names one.

The persona of a report is taken from the subagent's type (`agent_type` in SubagentStop /
SubagentStart, `subagent_type` in the Agent tool's input), with a plugin prefix such as
`deliberation:` stripped — never from what the report's text claims.

Stdlib only: PreToolUse on the spawn path imports it.
"""

from __future__ import annotations

from deliberation import catalogue

TYPE_CHECKING = False  # mypy reads the block below; the fast path loads neither `typing` nor the models
if TYPE_CHECKING:
    from deliberation.state.models import AgentKind

# slug -> (title, evaluation priority), from the one catalogue
RESEARCH_PERSONAS: "dict[str, tuple[str, str]]" = {p.slug: (p.title, p.priority) for p in catalogue.PERSONAS}

# working roles of the DELIBERATION phase
DEBATE = "debate-moderator"
SYNTHESIS = "synthesis-lead"
RED_TEAM = "red-team"
LENSES = ("evidence-chase", "counter-model", "edge-case-hunt")  # the depth axis' tier-2 lenses

ROLES: "dict[str, tuple[str, str]]" = {
    DEBATE: ("Debate Moderator", "identify conflicts between perspectives"),
    SYNTHESIS: ("Synthesis Lead", "merge non-conflicting findings into alternatives"),
    RED_TEAM: ("Red Team", "break the converged points; list missed angles"),
    "evidence-chase": ("Evidence Chase (tier 2)", "trace a contested claim to its primary source"),
    "counter-model": ("Counter-Model (tier 2)", "build an alternative explanation of a contested point"),
    "edge-case-hunt": ("Edge-Case Hunt (tier 2)", "find inputs that break the conclusion"),
}

ALL = {**RESEARCH_PERSONAS, **ROLES}

# not a deliberation agent: the step marker of the plugin's workflow between two waves, whose
# report the plugin's hook replaces with its verdict (docs/WORKFLOW.md)
CHECKPOINT = "checkpoint"
# not a deliberation agent either: writes the decision document from every report once the vote
# has passed (core/drafting.py); it neither researches nor votes
DRAFTER = "drafter"


def normalise_agent_type(agent_type: "str | None") -> str:
    """`deliberation:security-analyst` → `security-analyst`; lower-cased, stripped."""
    if not agent_type:
        return ""
    name = agent_type.strip()
    if ":" in name:
        name = name.rsplit(":", 1)[1]
    return name.lower()


def kind_of(agent_type: "str | None") -> "AgentKind | None":
    """'persona', 'debate', 'synthesis', 'red-team', 'lens' — or None for a non-deliberation agent."""
    name = normalise_agent_type(agent_type)
    if name in RESEARCH_PERSONAS:
        return "persona"
    if name == DEBATE:
        return "debate"
    if name == SYNTHESIS:
        return "synthesis"
    if name == RED_TEAM:
        return "red-team"
    if name in LENSES:
        return "lens"
    return None


def is_deliberation_agent(agent_type: "str | None") -> bool:
    return kind_of(agent_type) is not None


def title(agent_type: "str | None") -> str:
    name = normalise_agent_type(agent_type)
    return ALL.get(name, (name or "unknown", ""))[0]
