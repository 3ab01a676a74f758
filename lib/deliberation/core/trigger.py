"""The trigger: score a real user prompt (confidence.py) and, when it triggers, the
DELIBERATION PROTOCOL to inject (instructions.py), with a model per persona when
`models.diverse` is on (agent_model.py). Standard library only: it runs on the fast path, and
the protocol's modules load only when a prompt triggers.
"""

from __future__ import annotations

from deliberation import defaults
from deliberation.core import confidence

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from deliberation.core import acts


def score_prompt(prompt: str, cfg: "dict | None", prefix: str = "", by_agent: bool = False) -> "tuple[dict, str | None]":
    """The confidence module's result for a real user prompt, and the protocol to inject when
    it triggers (None otherwise). With the trigger disabled, an explicit /deliberate still wins.
    `prefix` is the agent-type namespace of a plugin install ("" for a project install). The
    protocol says who asked: the user (forced), the trigger's score, or the agent (`by_agent`)."""
    result = confidence.evaluate(prompt, cfg or None)
    if not result["forced"] and not by_agent:
        act = read_act(prompt, cfg)
        if act is None and not result["triggered"]:
            return result, None
        if act is not None and not act.asks:  # the user decided it: one look at what it loses, and their yes
            from deliberation.text import trigger as said

            # whatever the scorer says: a deliberation on a step the user already decided contradicts
            # the session start's rule (a real model met both on "refund everyone in refunds.csv")
            result["act"], result["held"], result["triggered"] = act.kind, True, False
            return result, said.act_hold(act.kind, prefix)
        if act is not None and not result["triggered"]:
            from deliberation.text import trigger as said

            result["act"] = act.kind
            result["triggered"], result["reason"] = True, said.act_asked(act.kind)
    # loaded only for a prompt that triggers: most prompts are routine, and each is a fresh hook
    from deliberation.core.agent_model import assignment
    from deliberation.core.instructions import panel, protocol_text

    models = None
    if confidence.section(cfg, "models").get("diverse"):
        pool = confidence.section(cfg, "models").get("pool") or defaults.section("models")["pool"]
        pairs = confidence.section(cfg, "conformity").get("conflicting_pairs") or []
        models = assignment(panel(result["task_type"]), pairs, pool)
    markers = confidence.section(cfg, "trigger").get("force_markers") or None
    question = confidence.question_of(prompt, markers)
    return result, protocol_text(
        question,
        result["task_type"],
        result["threshold"],
        result["confidence"],
        result["dimensions"],
        consensus_threshold=result.get("consensus_threshold"),
        prefix=prefix,
        models=models,
        asked="agent" if by_agent else "user" if result["forced"] else "trigger",
        dimensions=confidence.section(cfg, "ranking").get("dimensions") or None,
    )


def read_act(prompt: str, cfg: "dict | None") -> "acts.Act | None":
    """The act of core/acts.py a real user prompt asks for, or None (the trigger switched off, an
    agent's turn, a force marker: those are decided elsewhere)."""
    if not confidence.section(cfg, "trigger").get("enabled", True) or confidence.is_agent_turn(prompt):
        return None
    from deliberation.core import acts

    return acts.find(prompt)


def outcome(prompt: str, cfg: "dict | None" = None) -> str:
    """What the trigger does with a prompt, for measuring: "deliberate", "hold" or "" (nothing)."""
    result, _context = score_prompt(prompt, cfg)
    return "deliberate" if result["triggered"] else "hold" if result.get("held") else ""


SKILL_TOOL = "Skill"
COMMAND = "deliberate"


def skill_question(tool_name: str, tool_input: dict) -> "str | None":
    """The question of a call of the plugin's command through the Skill tool — skill
    "deliberate", or "<plugin>:deliberate" in the plugin form; args = the question — or None for
    any other call. This is how the agent starts a deliberation mid-task (text/self_rating.py)."""
    if tool_name != SKILL_TOOL or not isinstance(tool_input, dict):
        return None
    skill = tool_input.get("skill")
    if not isinstance(skill, str) or skill.strip().lstrip("/").rsplit(":", 1)[-1] != COMMAND:
        return None
    args = tool_input.get("args")
    return args.strip() if isinstance(args, str) else ""


def score_skill(question: str, cfg: "dict | None", prefix: str = "") -> "tuple[dict, str | None]":
    """`score_prompt` for a question the agent asked to deliberate through the Skill tool: an
    explicit request, so forced as a force marker would (the first configured one)."""
    markers = confidence.section(cfg, "trigger").get("force_markers") or confidence.DEFAULT_FORCE_MARKERS
    return score_prompt(f"{markers[0]} {question}", cfg, prefix, by_agent=True)
