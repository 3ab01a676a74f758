"""The plugin's own workflow (workflows/deliberate.js, docs/WORKFLOW.md): the hook side (pure;
the shell reads the scripts and the run's journal: `Turn.files`).

- PreToolUse `Workflow`: the plugin's workflow opens (or continues) the deliberation and gets
  its first wave in `args` (`updatedInput`); any other workflow is refused while a deliberation
  is requested or open, with the plugin's workflow named; a project copy that differs from the
  shipped script is refused.
- PostToolUse `Workflow`: the resolved script is compared with the shipped one (a foreign run's
  reports are refused).
- SubagentStart / SubagentStop: a wave's agent is linked to its record by its agent type; one
  that ends without an accepted report is recorded invalid.
- PreToolUse `StructuredOutput`: a wave agent's report is validated (denied with the exact
  problem); a checkpoint's report is replaced by the next verdict.
- PostToolUse `StructuredOutput`: the accepted report is filed, the engine moves on.
- the task notification: the outcome for the main agent, the run's failure or cache replays
  recorded.

The waves are `workflow_steps.py`'s decisions, the agents' prompts and the outcome
`workflow_prompts.py`'s; the hooks' words are text/workflow.py's.
"""

from __future__ import annotations

import json
import re
from typing import Any

from deliberation.core import (
    drafting,
    engine,
    next_step,
    personas,
    phases,
    shadows,
    spawn_budget,
    workflow_prompts,
    workflow_steps,
)
from deliberation.core import lineage as lin
from deliberation.core.capture import check_data, file_report, first_look
from deliberation.core.instructions import WORKFLOW_NAME as NAME
from deliberation.core.instructions import default_panel
from deliberation.core.instructions import workflow_call, workflow_name
from deliberation.core.turn import Turn, WorkflowFiles, find_record
from deliberation.state.models import AgentRecord, Deliberation, Spawn, WorkflowRun
from deliberation.text import workflow as words
from deliberation.wire import hookio

QUESTION_CHARS = 4000
CACHED = re.compile(r"(\d+) of the journal's (\d+) saved results served from cache")


# --------------------------------------------------------------------------------------------
# which workflow this is


def same_script(text: "str | bytes | None", ref: "bytes | None") -> bool:
    if text is None or ref is None:
        return False
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    return data.strip() == ref.strip()


def identify(event: hookio.ToolEvent, prefix: str, files: WorkflowFiles) -> "tuple[bool, str | None]":
    """(is it the plugin's workflow, why it is refused although it claims to be). A call by name
    is judged by what the client will resolve that name to — every saved workflow of the project,
    of a folder above it and of the user whose meta.name could be it (core/shadows.py) — before
    it runs: the plugin's name is the plugin's only when nothing but the shipped script answers it."""
    ref = files.shipped()
    name = event.workflow_name
    if event.workflow_script is not None:
        return same_script(event.workflow_script, ref), None
    if event.workflow_script_path:
        return same_script(files.script(event.workflow_script_path), ref), None
    if not name or name not in (NAME, workflow_name(prefix) if prefix else NAME):
        return False, None
    ok, bad = shadows.workflow_sources(name, files.project_workflows(), ref)
    if name != NAME and not bad:
        return True, None  # the plugin form's namespaced name, which no saved workflow takes
    if bad:
        fix = workflow_call(prefix) if prefix and name != workflow_name(prefix) else ""
        return False, words.foreign_copy(bad, name, fix, installed=not prefix)
    return ok, None


def requested_or_open(turn: Turn) -> "str | None":
    """'open' (the session's deliberation is not closed), 'requested' (the last real prompt
    triggered the protocol or was forced, and no deliberation has closed since), or None."""
    delib = turn.active()
    if delib is not None and delib.phase not in phases.CLOSED:
        return "open"
    prompt = turn.last_prompt()
    trig = prompt.trigger or {}
    if not (trig.get("triggered") or trig.get("forced")):
        return None
    sess = turn.tx.session
    last = turn.tx.deliberation(sess.deliberations[-1]) if sess.deliberations else None
    if last is not None and last.phase in phases.CLOSED and last.updated_at >= (prompt.at or 0.0):
        return None
    return "requested"


# --------------------------------------------------------------------------------------------
# PreToolUse / PostToolUse / PostToolUseFailure of the Workflow call


def _args(event: hookio.PreToolUse) -> "tuple[str, list[str] | None, str]":
    """(question, personas asked for, shared context) from the call's args (a string: the question)."""
    raw = event.workflow_args
    if isinstance(raw, str):
        return raw.strip()[:QUESTION_CHARS], None, ""
    if not isinstance(raw, dict):
        return "", None, ""
    q = raw.get("question")
    chosen = raw.get("personas")
    ctx_text = raw.get("context")
    panel = [personas.normalise_agent_type(p) for p in chosen if isinstance(p, str)] if isinstance(chosen, list) else None
    return (q.strip()[:QUESTION_CHARS] if isinstance(q, str) else "", panel, ctx_text if isinstance(ctx_text, str) else "")


def slots(turn: Turn) -> int:
    sb = turn.cfg.spawn_budget
    return spawn_budget.usage(turn.tx.lineage, lin.MAIN, turn.now, sb.stale_after_s).left(
        sb.max_active_children, sb.max_session_total
    )


def _refuse(turn: Turn, event: hookio.PreToolUse, parent: str, rule: str, reason: str) -> hookio.Answer:
    turn.refuse(event.tool_use_id, parent, "Workflow", rule, reason)
    return hookio.Answer.deny(reason)


def requested(turn: Turn, event: hookio.PreToolUse, prefix: str) -> "hookio.Answer | None":
    """The Workflow call's answer when the plugin decides it; None: not the plugin's business
    (the budget rules of workflows.py apply)."""
    parent = event.agent_id or lin.MAIN
    ours, problem = identify(event, prefix, turn.files)
    if problem:
        return _refuse(turn, event, parent, "workflow_foreign", problem)
    if not ours:
        state = requested_or_open(turn)
        if not state:
            return None
        active = turn.active() if state == "open" else None
        return _refuse(
            turn,
            event,
            parent,
            "workflow_other",
            words.other_workflow(
                active.id if active is not None else "",
                active.phase if active is not None else "",
                workflow_call(prefix, active.question if active is not None else ""),
            ),
        )
    if parent != lin.MAIN:
        return _refuse(turn, event, parent, "workflow_nested", words.nested())
    question, panel, context = _args(event)
    delib = turn.active()
    if delib is not None and delib.phase in phases.CLOSED:
        delib = None
    stale = turn.cfg.spawn_budget.stale_after_s
    if delib is not None and any(
        w.plugin and w.deliberation_id == delib.id for w in lin.active_workflows(turn.tx.lineage, turn.now, stale)
    ):
        return _refuse(turn, event, parent, "workflow_running", words.already_running(delib.id))
    if panel is not None:
        why = workflow_steps.panel_problem(panel)
        if why:
            return _refuse(turn, event, parent, "workflow_panel", words.panel_refused(why, workflow_call(prefix, question)))
    if delib is None:
        delib = turn.open_deliberation(question=question or None)
    if prefix:
        delib.agent_prefix = prefix
    chosen = panel or list(default_panel(delib.task_type, turn.cfg.conformity.conflicting_pairs))
    launch = event.tool_use_id or f"workflow-{len(turn.tx.lineage.workflows) + 1}"
    verdict = workflow_steps.first_verdict(delib, turn.cfg, chosen, context, slots(turn))
    if verdict.wave is None:
        return _refuse(
            turn,
            event,
            parent,
            "workflow_nothing",
            words.nothing_to_run(delib.id, verdict.why, next_step.progress_text(delib, turn.cfg)),
        )
    drive = workflow_steps.start_drive(delib, launch, context)
    dropped = words.context_dropped(drive.dropped) if drive.dropped and launch == drive.launches[0] else ""
    if dropped:
        delib.warnings.append(dropped)
    workflow_steps.issue(delib, verdict, launch, turn.now)
    run = lin.record_workflow(
        turn.tx.lineage,
        tool_use_id=event.tool_use_id,
        parent=parent,
        deliberation_id=delib.id,
        bound=verdict.wave.size,
        bound_detail=words.NEXT_WAVE,
        agent_types=[a.agent_type for a in verdict.wave.agents],
        now=turn.now,
    )
    run.plugin, run.name = True, NAME
    resumed = event.tool_input.get("resumeFromRunId")
    run.resumed_from = resumed[:200] if isinstance(resumed, str) else None
    key = run.tool_use_id or launch
    if key not in turn.tx.session.open_workflows:
        turn.tx.session.open_workflows.append(key)
    args = {
        "plugin": "deliberation",
        "deliberation": delib.id,
        "launch": launch,
        "first": verdict.payload(delib),
        "checkpoint": {"agentType": f"{prefix}{workflow_steps.CHECKPOINT_TYPE}", "schema": workflow_steps.CHECKPOINT_SCHEMA},
    }
    turn.notes.append(f"plugin workflow: {verdict.wave.name} wave of {len(verdict.wave.agents)} for {delib.id}")
    return hookio.Answer(
        updated_input={**event.tool_input, "args": args},
        context=words.launched(delib.id, verdict.wave.name, [a.persona for a in verdict.wave.agents])
        + (f"\n{dropped}" if dropped else ""),
    )


def launched(turn: Turn, event: hookio.PostToolUse, run: WorkflowRun) -> hookio.Answer:
    """The launch of the plugin's workflow: the script that runs must be the shipped one."""
    ok = same_script(event.workflow_script, turn.files.shipped())
    run.script_check = "shipped" if ok else "foreign"
    if ok:
        return hookio.Answer()
    delib = turn.tx.deliberation(run.deliberation_id) if run.deliberation_id else None
    said = words.foreign_script(run.name or "")
    if delib is not None and delib.workflow is not None:
        delib.workflow.status, delib.workflow.outcome = "foreign", words.NOT_SHIPPED
        delib.warnings.append((said.person or "").lstrip("⚠ "))
    return hookio.Answer(context=said.model, system_message=said.person)


def not_launched(turn: Turn, run: WorkflowRun) -> None:
    """The client did not run the plugin's workflow after the hook allowed it (a permission, an
    error): the wave it was given never started."""
    delib = turn.tx.deliberation(run.deliberation_id) if run.deliberation_id else None
    if delib is None or delib.workflow is None:
        return
    wave = workflow_steps.open_wave(delib)
    if wave is not None and wave.launch == (run.tool_use_id or ""):
        wave.closed_at = turn.now
        for a in workflow_steps.wave_records(delib, len(delib.workflow.waves)):
            if a.status == "spawned" and a.agent_id is None:
                a.status, a.problem = "refused", "the workflow was not launched"
    delib.workflow.status, delib.workflow.outcome = "stopped", "the workflow was not launched"
    delib.updated_at = turn.now


def before_spawn(turn: Turn, subagent_type: str) -> None:
    """Before a deliberation agent's Agent spawn: a plugin run still 'requested' was not launched
    (its PostToolUse comes within milliseconds of the hook's answer), so its wave is released for
    the per-turn path."""
    if personas.kind_of(subagent_type) is None:
        return
    delib = turn.active()
    if delib is None or delib.phase in phases.CLOSED or delib.workflow is None:
        return
    for run in turn.tx.lineage.workflows:
        if run.plugin and run.deliberation_id == delib.id and run.status == "requested":
            run.status, run.finished_at = "not_launched", turn.now
            not_launched(turn, run)
            turn.tx.session.open_workflows = [k for k in turn.tx.session.open_workflows if k != run.tool_use_id]


# --------------------------------------------------------------------------------------------
# the run's agents


def _run_of(turn: Turn, spawn: "Spawn | None") -> "WorkflowRun | None":
    if spawn is None or not spawn.workflow:
        return None
    return lin.find_workflow(turn.tx.lineage, tool_use_id=spawn.workflow)


def started(turn: Turn, spawn: Spawn, agent_type: "str | None") -> None:
    """SubagentStart of an agent the plugin's workflow started: link it to its wave record (its
    persona is its type), or mark it a checkpoint."""
    run = _run_of(turn, spawn)
    if run is None or not run.plugin or not run.deliberation_id:
        return
    spawn.deliberation_id = run.deliberation_id
    if personas.normalise_agent_type(agent_type) == workflow_steps.CHECKPOINT_TYPE:
        spawn.checkpoint = True
        return
    if drafting.is_drafter(agent_type):  # no deliberation agent: its report is the document
        return
    delib = turn.tx.deliberation(run.deliberation_id)
    rec = workflow_steps.wave_agent(delib, agent_type) if delib is not None else None
    if rec is None:
        turn.notes.append(f"workflow agent {agent_type} is in no open wave")
        return
    rec.agent_id, rec.key, rec.status = spawn.agent_id, spawn.agent_id or rec.key, "running"
    spawn.kind = rec.kind


def checkpoint_stopped(turn: Turn, spawn: Spawn, transcript: "str | None") -> None:
    """SubagentStop of a checkpoint: its transcript is kept, its calls are part of the cost."""
    delib = turn.tx.deliberation(spawn.deliberation_id) if spawn.deliberation_id else None
    if delib is not None and delib.workflow is not None and transcript:
        delib.workflow.checkpoint_transcripts.append(transcript[:1000])


def stopped(turn: Turn, delib: Deliberation, rec: AgentRecord) -> None:
    """SubagentStop of a wave agent: without an accepted report it is recorded invalid (the
    client's 5-failure cap, or no StructuredOutput call); the engine moves on either way."""
    if rec.status in ("spawned", "running"):
        rec.status, rec.reported_at = "invalid", turn.now
        rec.problem = rec.problem or words.NO_OUTPUT_CALL
        delib.warnings.append(
            words.no_accepted_report(
                f"{rec.persona} ({rec.agent_id or rec.key})", rec.send_backs, rec.problem.splitlines()[0][:200]
            )
        )
        turn.notes.append(f"workflow agent {rec.persona} ended without a report")
    _move(turn, delib)


def _move(turn: Turn, delib: Deliberation) -> None:
    """What follows a report, as on the per-turn path; the workflow's verdicts carry the next
    step, so the Step meant for the main agent is not said (the outcome is, at the end)."""
    engine.after_report(delib, turn.cfg, turn.budget_view(delib), turn.now, turn.reversals)
    delib.updated_at = turn.now


def _report_owner(turn: Turn, event: hookio.ToolEvent) -> "tuple[Spawn | None, Deliberation | None, AgentRecord | None]":
    spawn = lin.find_by_agent(turn.tx.lineage, event.agent_id)
    if spawn is None:
        return None, None, None
    delib, rec = turn.record_for_agent(event.agent_id, event.agent_type)
    return spawn, delib, rec


def _check(turn: Turn, rec: AgentRecord, data: object) -> "tuple[Any, list[str], str | None]":
    return check_data(
        rec, data, max_bytes=turn.cfg.deliberation.max_report_bytes, dimensions=[x.name for x in turn.cfg.ranking.dimensions]
    )


def report_checked(turn: Turn, event: hookio.PreToolUse) -> hookio.Answer:
    """PreToolUse StructuredOutput: a checkpoint gets the verdict; a wave agent's report is checked."""
    spawn, delib, rec = _report_owner(turn, event)
    if spawn is not None and spawn.checkpoint:
        return _checkpoint(turn, spawn, event.tool_input)
    if spawn is not None and drafting.is_drafter(event.agent_type):
        return _draft_checked(turn, spawn, event)
    if delib is None or rec is None or rec.channel != "workflow":
        return hookio.Answer()
    run = _run_of(turn, spawn)
    if run is not None and run.script_check == "foreign":
        return hookio.Answer.deny(words.foreign_report())
    if rec.status not in ("spawned", "running"):
        return hookio.Answer()
    report, _ignored, problem = _check(turn, rec, event.tool_input)
    if problem is None:
        ballot = first_look(rec, report, turn.weights())
        problem = f"{ballot}\n{words.CALL_AGAIN}" if ballot else None
    if problem is None:
        return hookio.Answer()
    rec.send_backs += 1
    rec.problem = problem
    delib.updated_at = turn.now
    turn.notes.append(f"report of {rec.persona} refused ({rec.send_backs})")
    return hookio.Answer.deny(words.report_refused(problem))


def report_accepted(turn: Turn, event: hookio.PostToolUse) -> hookio.Answer:
    """PostToolUse StructuredOutput: the report the client accepted is filed, once."""
    spawn, delib, rec = _report_owner(turn, event)
    if spawn is not None and not spawn.checkpoint and drafting.is_drafter(event.agent_type):
        return _draft_accepted(turn, spawn, event)
    if spawn is None or spawn.checkpoint or delib is None or rec is None or rec.channel != "workflow":
        return hookio.Answer()
    if rec.status not in ("spawned", "running"):
        return hookio.Answer()
    report, ignored, problem = _check(turn, rec, event.tool_input)
    if problem is not None:  # the client took a report the plugin refused: hooks out of step
        rec.problem = problem
        turn.notes.append(f"report of {rec.persona} accepted by the client but invalid: {problem[:80]}")
        return hookio.Answer()
    file_report(delib, rec, report, ignored, turn.now)
    turn.notes.append(f"report of {rec.persona} recorded (workflow)")
    _move(turn, delib)
    return hookio.Answer()


def _drafting(turn: Turn, spawn: Spawn) -> "Deliberation | None":
    """The deliberation a workflow drafter writes the document of (None: not the plugin's run's)."""
    run = _run_of(turn, spawn)
    if run is None or not run.plugin or not run.deliberation_id or run.script_check == "foreign":
        return None
    return turn.tx.deliberation(run.deliberation_id)


def _draft_checked(turn: Turn, spawn: Spawn, event: hookio.PreToolUse) -> hookio.Answer:
    """PreToolUse StructuredOutput of the drafter: its document is checked as a handed-over one."""
    delib = _drafting(turn, spawn)
    if delib is None or not drafting.due(delib):
        return hookio.Answer()
    _doc, _ignored, problem = drafting.check(delib, event.tool_input)
    if problem is None:
        return hookio.Answer()
    delib.prd.problem = problem
    turn.notes.append("drafted document refused: " + problem.splitlines()[0][:100])
    return hookio.Answer.deny(words.report_refused(problem))


def _draft_accepted(turn: Turn, spawn: Spawn, event: hookio.PostToolUse) -> hookio.Answer:
    """PostToolUse StructuredOutput of the drafter: the document is recorded."""
    delib = _drafting(turn, spawn)
    if delib is None or not drafting.due(delib):
        return hookio.Answer()
    problem = drafting.record(delib, event.tool_input, turn.now)
    delib.updated_at = turn.now
    turn.notes.append("decision document recorded from the drafter" if problem is None else f"drafted document: {problem[:80]}")
    return hookio.Answer()


def _checkpoint(turn: Turn, spawn: Spawn, values: object = None) -> hookio.Answer:
    """The checkpoint's report becomes the plugin's verdict: the wave just run is closed and the
    next one computed from the recorded state (the same verdict again for a repeated call). The
    values it reported are checked against its prompt's (a mismatch is a warning); a checkpoint
    of a run that a later launch replaced ends that run."""
    delib = turn.tx.deliberation(spawn.deliberation_id) if spawn.deliberation_id else None
    drive = delib.workflow if delib is not None else None
    if delib is None or drive is None:
        return hookio.Answer(
            updated_input={"checkpoint": "", "plugin": "deliberation", "next": "done", "status": "lost", "why": words.LOST}
        )
    if drive.answered.get("agent") == spawn.agent_id:
        return hookio.Answer(updated_input=drive.answered.get("payload") or {})
    run = _run_of(turn, spawn)
    current_launch = drive.launches[-1] if drive.launches else ""
    if run is not None and run.tool_use_id and current_launch and run.tool_use_id != current_launch:
        turn.notes.append(f"checkpoint of a superseded run {run.tool_use_id}")
        return hookio.Answer(
            updated_input={"checkpoint": "", **workflow_steps.done("superseded", words.SUPERSEDED).payload(delib)}
        )
    wave = workflow_steps.open_wave(delib)
    name = wave.name if wave else ""
    problems = workflow_steps.checkpoint_problems(values, name, current_launch) if values is not None else []
    if problems:
        delib.warnings.append(words.checkpoint_warning(name, problems))
        turn.notes.append(f"checkpoint values: {'; '.join(problems)}"[:200])
    missed = workflow_steps.close_wave(delib, turn.now)
    if missed:
        turn.notes.append(f"no report from {', '.join(missed)}")
    _move(turn, delib)
    if drive.status == "foreign":
        verdict = workflow_steps.done("foreign", words.NOT_THE_PLUGINS)
    else:
        # the checkpoint itself still runs and frees its slot as this call returns
        verdict = workflow_steps.next_verdict(delib, turn.cfg, slots(turn) + 1)
    drive.checkpoints += 1
    if verdict.wave is not None:
        workflow_steps.issue(delib, verdict, drive.launches[-1] if drive.launches else "", turn.now)
        if run is not None:
            run.bound = run.agents + verdict.wave.size
        turn.notes.append(f"checkpoint after {name}: {verdict.wave.name} wave of {len(verdict.wave.agents)}")
    else:
        if drive.status == "running":
            drive.status = "done"
        drive.outcome = f"{verdict.status}: {verdict.why}"[:2000]
        if run is not None:
            run.bound = run.agents
        turn.notes.append(f"checkpoint after {name}: done ({verdict.status})")
    payload = {"checkpoint": name, **verdict.payload(delib)}
    drive.answered = {"agent": spawn.agent_id, "payload": payload}
    delib.updated_at = turn.now
    return hookio.Answer(updated_input=payload)


# --------------------------------------------------------------------------------------------
# the end of a run


def _tag(text: str, name: str) -> "str | None":
    m = re.search(rf"<{name}>(.*?)</{name}>", text, re.S)
    return m.group(1).strip() if m else None


def finished(turn: Turn, run: WorkflowRun, notification: str) -> "str | None":
    """The task notification of a plugin run: what happened is recorded, and the main agent is
    told the outcome with the next step (None when the run belongs to no deliberation)."""
    _cached(run, notification, turn.files)
    delib = turn.tx.deliberation(run.deliberation_id) if run.deliberation_id else None
    if not run.plugin or delib is None or delib.workflow is None:
        return None
    drive = delib.workflow
    status = (_tag(notification, "status") or "").lower()
    result = _result(notification)
    missed = workflow_steps.close_wave(delib, turn.now)
    if missed:
        turn.notes.append(f"no report from {', '.join(missed)}")
    if delib.phase not in phases.CLOSED:
        _move(turn, delib)
    if status == "failed":
        error = (_tag(notification, "summary") or "no error text").replace("&lt;", "<").replace("&gt;", ">")
        drive.status, drive.outcome = "failed", error[:2000]
        delib.warnings.append(f"the plugin's workflow failed: {error.splitlines()[0][:300]}")
    elif isinstance(result, dict) and result.get("status") == "checkpoint_failed":
        drive.status = "failed"
        drive.outcome = str(result.get("message") or "a checkpoint did not report")[:2000]
        delib.warnings.append("the plugin's workflow stopped: " + drive.outcome[:200])
    elif isinstance(result, dict) and result.get("status") == "hooks_off":
        drive.status = "hooks_off"
        drive.outcome = str(result.get("message") or "the hooks did not answer")[:2000]
        delib.warnings.append(words.hooks_off(drive.outcome[:200]))
    elif drive.status == "running":
        drive.status = "done"
        drive.outcome = drive.outcome or "ran its last wave"
    if run.cached:
        delib.warnings.append(words.cached(run.cached, run.run_id))
    for a in delib.agents:
        if a.channel == "workflow":
            a.notified = True
    drive.told = True
    delib.updated_at = turn.now
    return workflow_prompts.outcome(delib, turn.cfg, workflow_call(delib.agent_prefix, delib.question))


def _result(notification: str) -> Any:
    raw = _tag(notification, "result")
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return None


def _cached(run: WorkflowRun, notification: str, files: WorkflowFiles) -> None:
    """A resumed run: how many results the client served from its cache, and which agents
    (the first ones its journal started — replay serves a prefix of the calls)."""
    m = CACHED.search(notification)
    if not m:
        return
    run.cached = int(m.group(1))
    if run.cached and run.transcript_dir:
        seen: "list[object]" = []
        for entry in files.journal_starts(run.transcript_dir):
            if entry.get("key") not in seen:
                seen.append(entry.get("key"))
                if len(seen) <= run.cached:
                    run.cached_agents.append(entry["agentId"][:64])
        run.cached_agents = run.cached_agents[: run.cached]


def message_refusal(turn: Turn, spawn: "Spawn | None") -> "str | None":
    """SendMessage to an agent a workflow started: refused (why, and what to do instead)."""
    if spawn is None or spawn.channel != "workflow":
        return None
    delib = turn.tx.deliberation(spawn.deliberation_id) if spawn.deliberation_id else None
    rec = find_record(delib, agent_id=spawn.agent_id) if delib is not None else None
    who = f"{spawn.subagent_type} (agent {spawn.agent_id})"
    if rec is None or delib is None:
        return words.message_refused(who, "", "", "")
    return words.message_refused(
        who, rec.persona, f"{delib.agent_prefix}{rec.persona}", workflow_call(delib.agent_prefix, delib.question)
    )
