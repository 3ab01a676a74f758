"""The plugin's own workflow (workflows/deliberate.js, docs/WORKFLOW.md): the hook side.

- PreToolUse `Workflow`: the plugin's workflow opens (or continues) the deliberation and gets
  its first wave in `args` (`updatedInput`); any other workflow is refused while a deliberation
  is requested or open, with the plugin's workflow named; a project copy that differs from the
  shipped script is refused.
- PostToolUse `Workflow`: the resolved script is compared with the shipped one (a foreign run's
  reports are refused); the run's folder is kept.
- SubagentStart / SubagentStop: a wave's agent is linked to its record by its agent type; one
  that ends without an accepted report is recorded invalid.
- PreToolUse `StructuredOutput`: a wave agent's report is validated (denied with the exact
  problem); a checkpoint's report is replaced by the next verdict.
- PostToolUse `StructuredOutput`: the accepted report is filed, the engine moves on.
- the task notification: the outcome for the main agent, the run's failure or cache replays
  recorded.

The decisions are `core/workflow_steps.py`'s; the texts `core/workflow_prompts.py`'s.
"""

from __future__ import annotations

import json
import os
import re

from deliberation.core import engine, personas, phases, workflow_prompts, workflow_steps
from deliberation.core.instructions import WORKFLOW_NAME as NAME, workflow_name
from deliberation.core import lineage as lin
from deliberation.wire import hookio
from deliberation.app.handlers.common import PLUGIN_ROOT, Ctx, budget_view, deny, find_record, record_for_agent

SHIPPED = os.path.join(PLUGIN_ROOT, "workflows", "deliberate.js")
MAX_SCRIPT = 512 * 1024
QUESTION_CHARS = 4000
META_NAME = re.compile(r"export\s+const\s+meta\s*=\s*\{[^}]*?\bname\s*:\s*['\"]([^'\"]+)['\"]", re.S)
CACHED = re.compile(r"(\d+) of the journal's (\d+) saved results served from cache")


# --------------------------------------------------------------------------------------------
# which workflow this is


def shipped() -> "bytes | None":
    from deliberation.app.transcripts import read_bounded

    return read_bounded(SHIPPED, MAX_SCRIPT)


def call_text(prefix: str, question: str = "") -> str:
    from deliberation.core.instructions import workflow_call

    return workflow_call(prefix, question)


def _same(text: "str | bytes | None", ref: "bytes | None") -> bool:
    if text is None or ref is None:
        return False
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    return data.strip() == ref.strip()


def _project_copies(ctx: Ctx) -> "list[tuple[str, bytes]]":
    """The project's saved workflows named like the plugin's (the client finds one by its
    meta.name, whatever the file is called)."""
    from deliberation.app.transcripts import read_bounded

    folder = os.path.join(ctx.layout.project, ".claude", "workflows")
    try:
        names = sorted(os.listdir(folder))[:200]
    except OSError:
        return []
    out = []
    for name in names:
        if not name.endswith((".js", ".mjs")):
            continue
        data = read_bounded(os.path.join(folder, name), MAX_SCRIPT)
        m = META_NAME.search(data.decode("utf-8", "replace")) if data else None
        if data and m and m.group(1) == NAME:
            out.append((name, data))
    return out


def identify(ctx: Ctx, event: hookio.ToolEvent, prefix: str) -> "tuple[bool, str | None]":
    """(is it the plugin's workflow, why it is refused although it claims to be)."""
    ref = shipped()
    name = event.workflow_name
    if event.workflow_script is not None:
        return _same(event.workflow_script, ref), None
    if event.workflow_script_path:
        from deliberation.app.transcripts import read_bounded

        return _same(read_bounded(event.workflow_script_path, MAX_SCRIPT), ref), None
    if name and prefix and name == workflow_name(prefix):
        return True, None
    if name == NAME:
        copies = _project_copies(ctx)
        bad = [n for n, data in copies if not _same(data, ref)]
        if bad:
            return False, (f"Workflow refused: the project's .claude/workflows/{bad[0]} is named like the deliberation "
                           "plugin's workflow but is not the plugin's script (a project's files are its author's; this "
                           "one would run deliberation agents unchecked). Next: "
                           + ("run the plugin's own " + call_text(prefix) if prefix else
                              "re-run the plugin's install.sh for this project, which restores the shipped script")
                           + "; or deliberate turn by turn with the Agent tool.")
        return bool(copies), None  # the project's copy, byte-identical to the shipped script
    return False, None


def requested_or_open(ctx: Ctx) -> "str | None":
    """'open' (the session's deliberation is not closed), 'requested' (the last real prompt
    triggered the protocol or was forced, and no deliberation has closed since), or None."""
    from deliberation.app.handlers.common import last_prompt_entry

    delib = ctx.active()
    if delib is not None and delib.phase not in phases.CLOSED:
        return "open"
    entry = last_prompt_entry(ctx.layout, ctx.tx.session_id)
    trig = (entry or {}).get("trigger") or {}
    if not (trig.get("triggered") or trig.get("forced")):
        return None
    sess = ctx.tx.session
    last = ctx.tx.deliberation(sess.deliberations[-1]) if sess.deliberations else None
    if last is not None and last.phase in phases.CLOSED and last.updated_at >= float(entry.get("at") or 0):
        return None
    return "requested"


def other_workflow_reason(state: str, delib, prefix: str) -> str:
    which = (f"deliberation {delib.id} is open ({delib.phase})" if state == "open" and delib is not None
             else "a deliberation was asked for in this prompt")
    question = delib.question if delib is not None else ""
    return (f"Workflow refused: {which}, and inside a deliberation the only workflow that runs is the deliberation "
            f"plugin's own — its agents are started from the plugin's recorded state, each prompt and report "
            f"checked; any other workflow's agents (a modified copy, a fan-out) would pass no check and no hook "
            f"can stop them. Next: {call_text(prefix, question)} — or deliberate turn by turn with the Agent tool.")


# --------------------------------------------------------------------------------------------
# PreToolUse / PostToolUse of the Workflow call


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
    panel = ([personas.normalise_agent_type(p) for p in chosen if isinstance(p, str)]
             if isinstance(chosen, list) else None)
    return (q.strip()[:QUESTION_CHARS] if isinstance(q, str) else "", panel,
            ctx_text if isinstance(ctx_text, str) else "")


def _slots(ctx: Ctx) -> int:
    from deliberation.core import spawn_budget

    sb = ctx.cfg.spawn_budget
    return spawn_budget.usage(ctx.tx.lineage, lin.MAIN, ctx.now, sb.stale_after_s).left(
        sb.max_active_children, sb.max_session_total)


def pre(ctx: Ctx, event: hookio.PreToolUse, prefix: str) -> "hookio.Answer | None":
    """The Workflow call's answer when the plugin decides it; None: not the plugin's business
    (workflow_tool's budget rules apply)."""
    parent = event.agent_id or lin.MAIN
    ours, problem = identify(ctx, event, prefix)
    if problem:
        return deny(ctx, event, parent, "workflow_foreign", problem, "Workflow")
    if not ours:
        state = requested_or_open(ctx)
        if state:
            return deny(ctx, event, parent, "workflow_other", other_workflow_reason(state, ctx.active(), prefix),
                        "Workflow")
        return None
    if parent != lin.MAIN:
        return deny(ctx, event, parent, "workflow_nested", "Workflow refused: the deliberation plugin's workflow is "
                    "run by the main agent, not from inside a subagent.", "Workflow")
    question, panel, context = _args(event)
    delib = ctx.active()
    if delib is not None and delib.phase in phases.CLOSED:
        delib = None
    running = delib is not None and any(w.plugin and w.deliberation_id == delib.id for w in lin.active_workflows(
        ctx.tx.lineage, ctx.now, ctx.cfg.spawn_budget.stale_after_s))
    if running:
        return deny(ctx, event, parent, "workflow_running", f"Workflow refused: the plugin's workflow already runs "
                    f"deliberation {delib.id}. Next: wait for its task notification.", "Workflow")  # type: ignore[union-attr]
    if panel is not None:
        why = workflow_steps.panel_problem(panel)
        if why:
            return deny(ctx, event, parent, "workflow_panel", f"Workflow refused: args.personas — {why}. Next: "
                        f"{call_text(prefix, question)} (the plugin picks the panel), or name 2-5 research personas.",
                        "Workflow")
    if delib is None:
        delib = ctx.open_deliberation(question=question or None)
    if prefix:
        delib.agent_prefix = prefix
    from deliberation.core.instructions import panel as suggested

    chosen = panel or list(suggested(delib.task_type))
    launch = event.tool_use_id or f"workflow-{len(ctx.tx.lineage.workflows) + 1}"
    verdict = workflow_steps.first_verdict(delib, ctx.cfg, chosen, context, _slots(ctx))
    if verdict.wave is None:
        from deliberation.core.next_step import progress_text

        return deny(ctx, event, parent, "workflow_nothing", (f"Workflow refused: it has nothing to run for "
                    f"deliberation {delib.id} — {verdict.why}\n{progress_text(delib, ctx.cfg)}"), "Workflow")
    workflow_steps.start_drive(delib, launch, context)
    workflow_steps.issue(delib, verdict, launch, ctx.now)
    run = lin.record_workflow(ctx.tx.lineage, tool_use_id=event.tool_use_id, parent=parent, deliberation_id=delib.id,
                              bound=verdict.wave.size, bound_detail="the plugin's workflow: its next wave",
                              agent_types=[a.agent_type for a in verdict.wave.agents], now=ctx.now)
    run.plugin, run.name = True, NAME
    resumed = event.tool_input.get("resumeFromRunId")
    run.resumed_from = resumed[:200] if isinstance(resumed, str) else None
    key = run.tool_use_id or launch
    if key not in ctx.tx.session.open_workflows:
        ctx.tx.session.open_workflows.append(key)
    args = {"plugin": "deliberation", "deliberation": delib.id, "launch": launch,
            "first": verdict.payload(delib),
            "checkpoint": {"agentType": f"{prefix}{workflow_steps.CHECKPOINT_TYPE}",
                           "schema": workflow_steps.CHECKPOINT_SCHEMA}}
    updated = {**event.tool_input, "args": args}
    ctx.notes.append(f"plugin workflow: {verdict.wave.name} wave of {len(verdict.wave.agents)} for {delib.id}")
    return hookio.Answer(updated_input=updated, context=(
        f"Deliberation {delib.id}: the plugin's workflow runs it ({verdict.wave.name} first: "
        f"{', '.join(a.persona for a in verdict.wave.agents)}). Wait for its task notification; the plugin then "
        "gives you the outcome."))


def post(ctx: Ctx, event: hookio.PostToolUse, run) -> hookio.Answer:
    """The launch of the plugin's workflow: the script that runs must be the shipped one."""
    ok = _same(event.workflow_script, shipped())
    run.script_check = "shipped" if ok else "foreign"
    if ok:
        return hookio.Answer()
    delib = ctx.tx.deliberation(run.deliberation_id) if run.deliberation_id else None
    text = (f"⚠ The workflow that runs is NOT the deliberation plugin's script (the client resolved "
            f"{run.name or 'it'} to other text than the shipped workflows/deliberate.js): every report of its "
            "agents is refused and nothing of it counts for the deliberation.")
    if delib is not None and delib.workflow is not None:
        delib.workflow.status, delib.workflow.outcome = "foreign", "the resolved script is not the shipped one"
        delib.warnings.append(text[2:])
    return hookio.Answer(context=text + " Next: wait for its task notification, then tell the user (the plugin's "
                         "installation may have been modified).", system_message=text)


def not_launched(ctx: Ctx, run) -> None:
    """The client did not run the plugin's workflow after the hook allowed it (a permission, an
    error): the wave it was given never started."""
    delib = ctx.tx.deliberation(run.deliberation_id) if run.deliberation_id else None
    if delib is None or delib.workflow is None:
        return
    wave = workflow_steps.open_wave(delib)
    if wave is not None and wave.launch == (run.tool_use_id or ""):
        wave.closed_at = ctx.now
        for a in workflow_steps.wave_records(delib, len(delib.workflow.waves)):
            if a.status == "spawned" and a.agent_id is None:
                a.status, a.problem = "refused", "the workflow was not launched"
    delib.workflow.status, delib.workflow.outcome = "stopped", "the workflow was not launched"
    delib.updated_at = ctx.now


def release_unlaunched(ctx: Ctx, delib) -> None:
    """Before an Agent spawn: a plugin run still 'requested' was not launched (its PostToolUse
    comes within milliseconds of the hook's answer), so its wave is released for the per-turn path."""
    for run in ctx.tx.lineage.workflows:
        if run.plugin and run.deliberation_id == delib.id and run.status == "requested":
            run.status, run.finished_at = "not_launched", ctx.now
            not_launched(ctx, run)
            ctx.tx.session.open_workflows = [k for k in ctx.tx.session.open_workflows if k != run.tool_use_id]


# --------------------------------------------------------------------------------------------
# the run's agents


def _run_of(ctx: Ctx, spawn):
    return lin.find_workflow(ctx.tx.lineage, tool_use_id=spawn.workflow) if spawn is not None and spawn.workflow else None


def started(ctx: Ctx, spawn, agent_type: "str | None") -> None:
    """SubagentStart of an agent the plugin's workflow started: link it to its wave record (its
    persona is its type), or mark it a checkpoint."""
    run = _run_of(ctx, spawn)
    if run is None or not run.plugin or not run.deliberation_id:
        return
    spawn.deliberation_id = run.deliberation_id
    if personas.normalise_agent_type(agent_type) == workflow_steps.CHECKPOINT_TYPE:
        spawn.checkpoint = True
        return
    delib = ctx.tx.deliberation(run.deliberation_id)
    rec = workflow_steps.wave_agent(delib, agent_type) if delib is not None else None
    if rec is None:
        ctx.notes.append(f"workflow agent {agent_type} is in no open wave")
        return
    rec.agent_id, rec.key, rec.status = spawn.agent_id, spawn.agent_id or rec.key, "running"
    spawn.kind = rec.kind


def checkpoint_stopped(ctx: Ctx, spawn, transcript: "str | None") -> None:
    """SubagentStop of a checkpoint: its transcript is kept, its calls are part of the cost."""
    delib = ctx.tx.deliberation(spawn.deliberation_id) if spawn.deliberation_id else None
    if delib is not None and delib.workflow is not None and transcript:
        delib.workflow.checkpoint_transcripts.append(transcript[:1000])


def stopped(ctx: Ctx, delib, rec) -> None:
    """SubagentStop of a wave agent: without an accepted report it is recorded invalid (the
    client's 5-failure cap, or no StructuredOutput call); the engine moves on either way."""
    if rec.status in ("spawned", "running"):
        rec.status, rec.reported_at = "invalid", ctx.now
        rec.problem = rec.problem or "it ended without calling StructuredOutput"
        delib.warnings.append(f"{rec.persona} ({rec.agent_id or rec.key}): no accepted report after "
                              f"{rec.send_backs} refused call(s) — {rec.problem.splitlines()[0][:200]}")
        ctx.notes.append(f"workflow agent {rec.persona} ended without a report")
    _move(ctx, delib)


def _move(ctx: Ctx, delib) -> None:
    """What follows a report, as on the per-turn path; the workflow's verdicts carry the next
    step, so the Step meant for the main agent is not said (the outcome is, at the end)."""
    engine.after_report(delib, ctx.cfg, budget_view(ctx, delib), ctx.now)
    delib.updated_at = ctx.now


def _report_owner(ctx: Ctx, event: hookio.ToolEvent):
    spawn = lin.find_by_agent(ctx.tx.lineage, event.agent_id)
    if spawn is None:
        return None, None, None
    delib, rec = record_for_agent(ctx, event.agent_id, event.agent_type)
    return spawn, delib, rec


def report_pre(ctx: Ctx, event: hookio.PreToolUse) -> hookio.Answer:
    """PreToolUse StructuredOutput: a checkpoint gets the verdict; a wave agent's report is checked."""
    spawn, delib, rec = _report_owner(ctx, event)
    if spawn is not None and spawn.checkpoint:
        return _checkpoint(ctx, spawn)
    if delib is None or rec is None or rec.channel != "workflow":
        return hookio.Answer()
    run = _run_of(ctx, spawn)
    if run is not None and run.script_check == "foreign":
        return hookio.Answer.deny("Deliberation plugin: this workflow is not the plugin's (its script differs from the "
                                  "shipped one), so its reports are refused. Stop here.")
    if rec.status not in ("spawned", "running"):
        return hookio.Answer()
    d = ctx.cfg.deliberation
    from deliberation.core.capture import check_data

    _report, _ignored, problem = check_data(rec, event.tool_input, max_bytes=d.max_report_bytes,
                                            dimensions=[x.name for x in ctx.cfg.ranking.dimensions])
    if problem is None:
        return hookio.Answer()
    rec.send_backs += 1
    rec.problem = problem
    delib.updated_at = ctx.now
    ctx.notes.append(f"report of {rec.persona} refused ({rec.send_backs})")
    return hookio.Answer.deny("Deliberation plugin: your report was not accepted. " + problem)


def report_post(ctx: Ctx, event: hookio.PostToolUse) -> hookio.Answer:
    """PostToolUse StructuredOutput: the report the client accepted is filed, once."""
    spawn, delib, rec = _report_owner(ctx, event)
    if spawn is None or spawn.checkpoint or delib is None or rec is None or rec.channel != "workflow":
        return hookio.Answer()
    if rec.status not in ("spawned", "running"):
        return hookio.Answer()
    from deliberation.core.capture import check_data, file_report

    d = ctx.cfg.deliberation
    report, ignored, problem = check_data(rec, event.tool_input, max_bytes=d.max_report_bytes,
                                          dimensions=[x.name for x in ctx.cfg.ranking.dimensions])
    if problem is not None:  # the client took a report the plugin refused: hooks out of step
        rec.problem = problem
        ctx.notes.append(f"report of {rec.persona} accepted by the client but invalid: {problem[:80]}")
        return hookio.Answer()
    file_report(delib, rec, report, ignored, ctx.now)
    ctx.notes.append(f"report of {rec.persona} recorded (workflow)")
    _move(ctx, delib)
    return hookio.Answer()


def _checkpoint(ctx: Ctx, spawn) -> hookio.Answer:
    """The checkpoint's report becomes the plugin's verdict: the wave just run is closed and the
    next one computed from the recorded state (the same verdict again for a repeated call)."""
    delib = ctx.tx.deliberation(spawn.deliberation_id) if spawn.deliberation_id else None
    drive = delib.workflow if delib is not None else None
    if delib is None or drive is None:
        return hookio.Answer(updated_input={"checkpoint": "", "plugin": "deliberation", "next": "done",
                                            "status": "lost", "why": "the deliberation of this workflow is not recorded"})
    if drive.answered.get("agent") == spawn.agent_id:
        return hookio.Answer(updated_input=drive.answered.get("payload") or {})
    wave = workflow_steps.open_wave(delib)
    name = wave.name if wave else ""
    missed = workflow_steps.close_wave(delib, ctx.now)
    if missed:
        ctx.notes.append(f"no report from {', '.join(missed)}")
    _move(ctx, delib)
    run = _run_of(ctx, spawn)
    if drive.status == "foreign":
        verdict = workflow_steps.done("foreign", "the workflow's script is not the plugin's")
    else:
        # the checkpoint itself still runs and frees its slot as this call returns
        verdict = workflow_steps.next_verdict(delib, ctx.cfg, _slots(ctx) + 1)
    drive.checkpoints += 1
    if verdict.wave is not None:
        workflow_steps.issue(delib, verdict, drive.launches[-1] if drive.launches else "", ctx.now)
        if run is not None:
            run.bound = run.agents + verdict.wave.size
        ctx.notes.append(f"checkpoint after {name}: {verdict.wave.name} wave of {len(verdict.wave.agents)}")
    else:
        if drive.status == "running":
            drive.status = "done"
        drive.outcome = f"{verdict.status}: {verdict.why}"[:2000]
        if run is not None:
            run.bound = run.agents
        ctx.notes.append(f"checkpoint after {name}: done ({verdict.status})")
    payload = {"checkpoint": name, **verdict.payload(delib)}
    drive.answered = {"agent": spawn.agent_id, "payload": payload}
    delib.updated_at = ctx.now
    return hookio.Answer(updated_input=payload)


# --------------------------------------------------------------------------------------------
# the end of a run


def _tag(text: str, name: str) -> "str | None":
    m = re.search(rf"<{name}>(.*?)</{name}>", text, re.S)
    return m.group(1).strip() if m else None


def finished(ctx: Ctx, run, notification: str) -> "str | None":
    """The task notification of a plugin run: what happened is recorded, and the main agent is
    told the outcome with the next step (None when the run belongs to no deliberation)."""
    _cached(run, notification)
    delib = ctx.tx.deliberation(run.deliberation_id) if run.deliberation_id else None
    if not run.plugin or delib is None or delib.workflow is None:
        return None
    drive = delib.workflow
    status = (_tag(notification, "status") or "").lower()
    result = _result(notification)
    missed = workflow_steps.close_wave(delib, ctx.now)
    if missed:
        ctx.notes.append(f"no report from {', '.join(missed)}")
    if delib.phase not in phases.CLOSED:
        _move(ctx, delib)
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
        delib.warnings.append("the plugin's workflow ran without the plugin's hooks answering: " + drive.outcome[:200])
    elif drive.status == "running":
        drive.status = "done"
        drive.outcome = drive.outcome or "ran its last wave"
    if run.cached:
        delib.warnings.append(f"{run.cached} agent result(s) of workflow run {run.run_id} were served from the "
                              "client's cache (no hook saw them run again)")
    for a in delib.agents:
        if a.channel == "workflow":
            a.notified = True
    drive.told = True
    delib.updated_at = ctx.now
    prefix = delib.agent_prefix
    return workflow_prompts.outcome(delib, ctx.cfg, call_text(prefix, delib.question))


def _result(notification: str):
    raw = _tag(notification, "result")
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return None


def _cached(run, notification: str) -> None:
    """A resumed run: how many results the client served from its cache, and which agents
    (the first ones its journal started — replay serves a prefix of the calls)."""
    m = CACHED.search(notification)
    if not m:
        return
    run.cached = int(m.group(1))
    if run.cached and run.transcript_dir:
        from deliberation.app.transcripts import journal_starts

        seen: list[str] = []
        for entry in journal_starts(run.transcript_dir):
            if entry.get("key") not in seen:
                seen.append(entry.get("key"))
                if len(seen) <= run.cached:
                    run.cached_agents.append(entry["agentId"][:64])
        run.cached_agents = run.cached_agents[:run.cached]


def refuse_message(ctx: Ctx, spawn) -> "str | None":
    """SendMessage to an agent a workflow started: refused (why, and what to do instead)."""
    if spawn is None or spawn.channel != "workflow":
        return None
    delib = ctx.tx.deliberation(spawn.deliberation_id) if spawn.deliberation_id else None
    rec = find_record(delib, agent_id=spawn.agent_id) if delib is not None else None
    who = f"{spawn.subagent_type} (agent {spawn.agent_id})"
    instead = (f" Next: for a new report from {rec.persona}, spawn it again with the Agent tool "
               f"(subagent_type \"{delib.agent_prefix}{rec.persona}\") with the same kind of prompt, or run the "
               f"plugin's workflow: {call_text(delib.agent_prefix, delib.question)}."
               if rec is not None and delib is not None else " Next: spawn a fresh agent with the Agent tool instead.")
    return (f"SendMessage refused: {who} ran inside a workflow. A message would revive a copy of it outside the "
            "workflow — a background general-purpose agent with the same id — whose work no check covers." + instead)
