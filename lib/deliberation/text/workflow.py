"""The plugin's own workflow (docs/WORKFLOW.md): what the hooks say when a Workflow call is
refused or allowed, when the script that runs is not the shipped one, when a workflow agent's
report or a message to it is refused (core/plugin_workflow.py decides), and the main agent's
note when the run ends (core/workflow_prompts.outcome picks its lines)."""

from __future__ import annotations

from deliberation.names import quoted
from deliberation.text import Words


def foreign_copy(files: "list[str]", name: str, call: str, installed: bool = False) -> str:
    """A Workflow call whose name the client would resolve to a saved script that is not the
    plugin's (`files`: those scripts, relative to the project when inside it; `call`: the
    plugin's own Workflow call when another name still reaches it, else ''; `installed`: the
    install.sh form, where re-running install.sh restores the shipped copy)."""
    shown = ", ".join(quoted(f) for f in files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
    if call:
        fix = f"run the plugin's own {call}"
    elif installed:
        fix = "re-run the plugin's install.sh for this project, which restores the shipped script"
    else:
        fix = "deliberate turn by turn with the Agent tool"
    return (
        f"Workflow refused before it ran: the client would run {shown} under the name {quoted(name)}, "
        "and that is not the deliberation plugin's script (a file of the project or a folder above it "
        "is its author's; this one would run agents unchecked). Next: "
        f"{fix}, and tell the user that this file takes the plugin's workflow name (removing or "
        "renaming it gives the name back)."
    )


def other_workflow(deliberation: str, phase: str, call: str) -> str:
    """Any other workflow while a deliberation is open (`deliberation` its id) or was asked for
    in this prompt (`deliberation` '')."""
    which = f"deliberation {deliberation} is open ({phase})" if deliberation else "a deliberation was asked for in this prompt"
    return (
        f"Workflow refused: {which}, and inside a deliberation the only workflow that runs is the deliberation "
        f"plugin's own — its agents are started from the plugin's recorded state, each prompt and report "
        f"checked; any other workflow's agents (a modified copy, a fan-out) would pass no check and no hook "
        f"can stop them. Next: {call} — or deliberate turn by turn with the Agent tool."
    )


def nested() -> str:
    return "Workflow refused: the deliberation plugin's workflow is run by the main agent, not from inside a subagent."


def already_running(deliberation: str) -> str:
    return (
        f"Workflow refused: the plugin's workflow already runs deliberation {deliberation}. Next: wait for its task notification."
    )


def panel_refused(why: str, call: str) -> str:
    return f"Workflow refused: args.personas — {why}. Next: {call} (the plugin picks the panel), or name 2-5 research personas."


def nothing_to_run(deliberation: str, why: str, progress: str) -> str:
    return f"Workflow refused: it has nothing to run for deliberation {deliberation} — {why}\n{progress}"


def launched(deliberation: str, wave: str, personas: "list[str]") -> str:
    """The allowed call's context: the main agent waits for the run's task notification. The hook
    answers before the client's own permission check, and a call that check refuses fires no
    later hook, so the context says what to do then too."""
    return (
        f"Deliberation {deliberation}: the plugin's workflow runs it ({wave} first: {', '.join(personas)}). "
        "Wait for its task notification; the plugin then gives you the outcome. If the client refused "
        "the call instead (the tool not allowed), run the deliberation turn by turn with the Agent tool, "
        "as the protocol's steps say."
    )


def foreign_script(name: str) -> Words:
    """The client resolved the plugin's workflow to other text than the shipped script."""
    text = (
        f"⚠ The workflow that runs is NOT the deliberation plugin's script (the client resolved "
        f"{name or 'it'} to other text than the shipped workflows/deliberate.js): every report of its "
        "agents is refused and nothing of it counts for the deliberation."
    )
    return Words(
        model=text + " Next: wait for its task notification, then tell the user (the plugin's "
        "installation may have been modified).",
        person=text,
    )


CALL_AGAIN = "Call the StructuredOutput tool again with your whole report."


def report_refused(problem: str) -> str:
    """A wave agent's StructuredOutput call denied: the agent fixes the report and calls again."""
    return "Deliberation plugin: your report was not accepted. " + problem


def foreign_report() -> str:
    return (
        "Deliberation plugin: this workflow is not the plugin's (its script differs from the shipped one), so "
        "its reports are refused. Stop here."
    )


def message_refused(who: str, persona: str, agent_type: str, call: str) -> str:
    """SendMessage to an agent a workflow started (`persona` '' when it is no deliberation agent)."""
    instead = (
        f" Next: for a new report from {persona}, spawn it again with the Agent tool "
        f'(subagent_type "{agent_type}") with the same kind of prompt, or run the plugin\'s workflow: '
        f"{call}."
        if persona
        else " Next: spawn a fresh agent with the Agent tool instead."
    )
    return (
        f"SendMessage refused: {who} ran inside a workflow. A message would revive a copy of it outside the "
        "workflow — a background general-purpose agent with the same id — whose work no check covers." + instead
    )


def outcome_news(outcome: str, news: "str | None") -> str:
    """A task notification of the plugin's workflow: its outcome, then any other news."""
    return f"Deliberation plugin:\n{outcome}" + (f"\n\n{news}" if news else "")


# --------------------------------------------------------------------------------------------
# the plugin workflow's waves (core/workflow_steps.py): why one is not run, an agent that missed


def unknown_personas(unknown: "list[str]", least: int, most: int, known: "list[str]") -> str:
    """A panel asked for names personas that do not research."""
    return f"{', '.join(unknown)} is no research persona; choose {least}-{most} of {', '.join(known)}"


PERSONA_TWICE = "a persona is named twice"


def panel_size(n: int, least: int, most: int) -> str:
    return f"{n} personas: a workflow panel has {least}-{most}"


def wave_too_big(wave: str, size: int, agents: int, checkpoint: bool, slots_left: int) -> str:
    """The next wave needs more spawn slots than are left (`checkpoint`: it has one besides its agents)."""
    return (
        f"spawn budget: the {wave} wave needs {size} agent(s) ({agents}"
        + (" and its checkpoint" if checkpoint else "")
        + f") and {slots_left} spawn slot(s) are left"
    )


def wave_refused(wave: str, why: str) -> str:
    return f"the plugin's rules refuse the {wave} wave — {why}"


def stuck(phase: str) -> str:
    return f"nothing the rules accept in phase {phase}"


def no_output(never_started: bool) -> str:
    """Why a workflow agent has no report: it never started, or its output was not accepted."""
    return "it never started" if never_started else "it ended without an accepted StructuredOutput report"


def wave_agent_missed(who: str, wave: str, problem: str) -> str:
    """The deliberation's warning for an agent of a wave that left no report (`problem`: its first line)."""
    return f"{who} of the workflow's {wave} wave: no report — {problem}"


# --------------------------------------------------------------------------------------------
# what the plugin's workflow records (core/plugin_workflow.py): its run, its end, its agents

NEXT_WAVE = "the plugin's workflow: its next wave"  # the bound a wave's run is recorded with
NOT_SHIPPED = "the resolved script is not the shipped one"
NOT_THE_PLUGINS = "the workflow's script is not the plugin's"
LOST = "the deliberation of this workflow is not recorded"
NO_OUTPUT_CALL = "it ended without calling StructuredOutput"


def checkpoint_value(field: str, expected: str, got: object) -> str:
    """One wrong value of a checkpoint agent's report (workflow_steps.checkpoint_problems)."""
    shown = "nothing" if got is None else repr(got)[:80]
    return f"{field}: {shown}, expected {expected!r}"


def checkpoint_extra(keys: "list[str]") -> str:
    return "values the prompt did not ask for: " + ", ".join(k[:40] for k in keys[:5])


def checkpoint_warning(wave: str, problems: "list[str]") -> str:
    """The deliberation's warning when a checkpoint agent reported other values than its prompt named."""
    return (
        f"the checkpoint after the {wave or '?'} wave reported other values than its prompt named "
        f"({'; '.join(problems)}); its words are never read, the next wave came from the recorded state"
    )


def context_dropped(sentences: "list[str]") -> str:
    """The shared context lost the sentences that stated a conclusion (core/independence.py)."""
    shown = " | ".join(s[:160] for s in sentences[:4]) + (f" | (+{len(sentences) - 4} more)" if len(sentences) > 4 else "")
    return (
        f"Shared context: {len(sentences)} sentence(s) stating a conclusion were dropped — the personas get facts "
        f"about the project (files, constraints, the question's terms), not your reading of them: {shown}"
    )


LAUNCH_FIELD = "The launch id the prompt names."
DRAFT_NOT_RECORDED = "The drafter's decision document was not recorded (no accepted report): write it yourself as follows."
SUPERSEDED = "a later launch of the plugin's workflow drives this deliberation; this run's checkpoint ends it"


def no_accepted_report(who: str, refused: int, problem: str) -> str:
    """A workflow agent's report was refused every time (`problem`: the last reason's first line)."""
    return f"{who}: no accepted report after {refused} refused call(s) — {problem}"


def hooks_off(outcome: str) -> str:
    """The workflow ran and no hook of the plugin answered it (`outcome`: the workflow's own message)."""
    return "the plugin's workflow ran without the plugin's hooks answering: " + outcome


def cached(count: int, run: "str | None") -> str:
    """Agent results the client served from its cache: no hook saw them run again."""
    return f"{count} agent result(s) of workflow run {run} were served from the client's cache (no hook saw them run again)"


# -- the main agent's note when the plugin's workflow has ended (core/workflow_prompts.outcome)

RUN_HEADS = {
    "failed": "⚠ the plugin's workflow FAILED",
    "hooks_off": "⚠ the plugin's workflow ran without the plugin's hooks answering",
    "foreign": "⚠ the workflow that ran is NOT the plugin's",
}
DEPTH_OFF = "Depth axis off for this deliberation: breadth only."


def run_ended(deliberation: str, status: str, waves: "list[list]") -> str:
    """The note's first line: how the run ended (`status`) and each wave's [name, reported, agents]."""
    head = RUN_HEADS.get(status, "the plugin's workflow has finished")
    line = ", ".join(f"{name} {ok}/{n}" for name, ok, n in waves) or "no wave"
    return f"Deliberation {deliberation} — {head} (waves, reports/agents: {line})."


def what_happened(outcome: str) -> str:
    return f"What happened: {' '.join(outcome.split())[:600]}"


def no_report_from(persona: str, stage: str, problem: str) -> str:
    """A workflow agent whose report was refused (`problem`: the first line of why)."""
    return f"- no report from {persona} ({stage}): {problem[:200]}"


def two_agent_rule(agents: "list[str]", said: str) -> str:
    """The 2-agent form's outcome (`said`: its verdict as notes.TWO_AGENT_OUTCOME words it)."""
    return f"2-agent rule ({', '.join(agents)}): {said}."


def depth_skipped(reason: str) -> str:
    return f"⚠ {reason}"


def depth_done(hot_spots: int, overrides: int, zeroed: int) -> str:
    return f"Depth step: {hot_spots} hot spot(s) deepened, {overrides} override(s), {zeroed} tier-2 result(s) zeroed."


def not_finished(phase: str, why: str) -> str:
    return f"The deliberation is not finished ({phase}): {' '.join(why.split())[:600]}"


def run_again(relaunch: str, next_text: str) -> str:
    """The next step of a run that ended before the vote: the relaunch call, else turn by turn."""
    return (
        f"Next: run the plugin's workflow again — {relaunch} — it continues from what is recorded; "
        "or continue turn by turn. " + next_text
    )
