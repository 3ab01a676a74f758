"""The DELIBERATION PROTOCOL: the text injected into the main agent's context when a prompt
triggers (UserPromptSubmit `additionalContext`) or the deliberate command runs — its one source.

core/instructions.py passes the figures (the trigger's confidence and dimensions, the task
type's consensus bar), the panel, the exact Workflow call and the tier-2 floor; this module
words them. It names the subagent types exactly, the phases in order and the report rule.
Standard library only, and it imports only text/dimensions: a triggering prompt loads it.
"""

from deliberation.text import dimensions as dimension_words

HEADER = "DELIBERATION PROTOCOL (deliberation plugin)"
NO_QUESTION = "(none given: state in one sentence the decision under discussion in this conversation, and deliberate on that)"
QUESTION_PLACEHOLDER = "<the question above, in one line>"  # a Workflow call's args for a long question


def namespace(prefix: str) -> str:
    """How a subagent type is written in the plugin form (`prefix`, e.g. "deliberation:")."""
    if not prefix:
        return ""
    return f', each written with the plugin\'s namespace: "{prefix}<slug>"'


def models_line(models: "dict[str, str] | None") -> str:
    """The protocol's line for `models.diverse`: which model each suggested persona runs on."""
    if not models:
        return ""
    listed = ", ".join(f'{p} "{m}"' for p, m in models.items())
    return (
        f"\nModels (models.diverse is on): pass `model` in each persona's Agent call, e.g. {listed}; "
        "personas with conflicting priorities must run on different models, or the spawn is denied."
    )


def how_to_run(asked: str, call: str, prefix: str) -> str:
    """How the protocol says to run the deliberation (`call`: the plugin's Workflow call;
    `prefix`: the agent-type namespace, '' in the project form). The client's Workflow tool may
    be called only when the user opted in to a multi-agent run (its own description says so), so
    the protocol names the opt-in: the user's own request (`asked` "user": a force marker, the
    command), or, when the trigger chose it from the prompt's words ("trigger") or the agent
    started it ("agent"), the user's install of this plugin, whose hooks start a deliberation for
    such a decision. Every form gets the one call, and the Agent path for when it is not allowed."""
    agents = (
        f'with the Agent tool, subagent_type = these slugs exactly{namespace(prefix)} (never "general-purpose" for a persona)'
    )
    installed = "the user installed this plugin to deliberate such decisions: that is the opt-in the Workflow tool asks for"
    who = {
        "user": "The user asked for this deliberation: that is the opt-in the Workflow tool asks for",
        "trigger": f"The plugin chose this deliberation from the prompt's words, and {installed}",
        "agent": f"You started this deliberation, and {installed}",
    }[asked]
    return (
        f"{who}. Run it as ONE call: {call}, FIRST, reading no file (the panel reads the project). "
        "The plugin's workflow runs every phase below with prompts it builds and checks every report. args "
        'may be an object {"question": …, "context": "<the user\'s words only: files named (paths), '
        'constraints stated; nothing you concluded>", "personas": [2-5 slugs only if the question needs '
        "others; default 3]}. Then end your turn: its notification brings the outcome and the plugin's "
        "request for the decision document. No other workflow runs in a deliberation.\n"
        f"Only without the Workflow tool (or if that call is not allowed), run it turn by turn {agents}:"
    )


def protocol(
    confidence: float,
    threshold: float,
    dims: str,
    task_type: str,
    bar: float,
    question: str,
    call: str,
    prefix: str,
    people: str,
    minimum: "list[str]",
    lenses: "list[str]",
    floor: "list[str]",
    models: "dict[str, str] | None" = None,
    asked: str = "trigger",
    dimensions: "list[dict] | None" = None,
) -> str:
    """The protocol for one question: `dims` the trigger's four dimensions as said, `bar` the task
    type's consensus bar, `question` as the protocol quotes it, `call` the exact Workflow call,
    `people` the suggested panel, `minimum` the FOR and AGAINST personas of the 2-agent form,
    `lenses` the tier-2 lenses and `floor` the two sentences a tier-2 prompt carries verbatim;
    `asked` who asked for the deliberation (how_to_run); `dimensions` the configured ranking
    dimensions (text/dimensions.py)."""
    return f"""{HEADER}
Trigger confidence {confidence:.2f} to decide alone (below {threshold:.2f} the trigger asks for a deliberation; {dims}). Task type {task_type}: consensus must reach {bar:.2f}.
Question: {question}

Decide it with a deliberation, not alone: a decision, not a change (no edits before it is complete).
{how_to_run(asked, call, prefix)}
1. RESEARCH: 3 personas with conflicting priorities suffice (2-5), suggested: {people}. Minimum viable deliberation: {minimum[0]} (FOR) and {minimum[1]} (AGAINST), each stating its position; the plugin compares them. Each prompt = "Phase: research", the question and the same shared project context. Isolation: never paste one agent's findings into another research prompt. Spawn a phase's agents in parallel; wait for every report before the next phase.
2. DELIBERATION ("Phase: deliberation"): synthesis-lead and debate-moderator with ALL research findings (claim and evidence); then ONE red-team pass. When the plugin lists hot spots, spawn the FRESH {", ".join(lenses)} workers its note gives (never subagent_type "fork"), each prompt carrying verbatim "{floor[0]}" and "{floor[1]}" and NOT the consensus or synthesis text; then one red team 2. No further rounds.
3. RANKING (blind): the personas again, "Phase: ranking", the question and the approaches exactly as the plugin lists them; never which approach leads nor any agent's scores, verdicts or rationale. Each scores EVERY approach 0-10 on {dimension_words.listed(dimensions, terse=True)}, gives its verdict and a concern with its reason for each approach it would not adopt.
4. PRD: when the vote passes, hand the plugin the decision document it asks for (a Write call it reads), then answer the user in prose.
Resume an agent with SendMessage only when the plugin asks for its new report.{models_line(models)}

Every report must end with one fenced ```json block (the agent definitions show its shape). The plugin enforces this protocol with hook denials and blocks; its notes and reasons each name the next step it accepts: follow them. /{prefix}deliberation-status shows progress."""
