"""What every event handler shares: the context, opening a deliberation, finding records."""

from __future__ import annotations

import json
import os
from typing import Any

from deliberation import SCHEMA_VERSION
from deliberation.state import event_log
from deliberation.wire import hookio
from deliberation.core import personas
from deliberation.state.config import Config
from deliberation.state.paths import handled_by
from deliberation.state.models import AgentRecord, DeniedSpawn, Deliberation, Notice


class Ctx:
    """One hook invocation: where state lives, the config, the session transaction, the clock."""

    def __init__(self, layout, store, cfg: Config, tx, now: float) -> None:
        self.layout = layout
        self.store = store
        self.cfg = cfg
        self.tx = tx
        self.now = now
        self.warnings: list[str] = []
        self.notes: list[str] = []
        self.extra: dict[str, Any] = {}

    # -- deliberations -------------------------------------------------------------------------
    def active(self) -> "Deliberation | None":
        did = self.tx.session.active_deliberation
        if not did:
            return None
        delib = self.tx.deliberation(did)
        if delib is None:
            self.warnings.append(f"deliberation: active deliberation {did} has no state file; "
                                 "it is closed and a new one will open with the next persona")
            self.tx.session.active_deliberation = None
        return delib

    def open_deliberation(self, question: "str | None" = None, task_type: "str | None" = None) -> Deliberation:
        from deliberation.core.depth import axis as depth_axis
        from deliberation.core import phases, task_type as tt

        sess = self.tx.session
        n = len(sess.deliberations) + 1
        did = f"d-{self.tx.session_id[:8]}-{n}"
        entry = last_prompt_entry(self.layout, self.tx.session_id) or {}
        prompt, trigger = entry.get("prompt", ""), entry.get("trigger")
        question = question or strip_markers(prompt, self.cfg.trigger.force_markers) or "(no user prompt recorded)"
        kind = task_type or tt.classify(question, self.cfg.task_types.keywords)
        delib = Deliberation(id=did, session_id=self.tx.session_id, question=question[:4000],
                             task_type=kind, task_type_overridden=task_type is not None,
                             threshold=self.cfg.threshold_for(kind), created_at=self.now,
                             updated_at=self.now,
                             initial_confidence=(trigger or {}).get("confidence"),
                             trigger_forced=bool((trigger or {}).get("forced")),
                             prompt_at=entry.get("at") if isinstance(entry.get("at"), (int, float)) else None)
        phases.transition(delib, "RESEARCH", "first deliberation agent spawned" if task_type is None
                          else "opened explicitly", self.now)
        depth_axis.apply_posture(delib, self.cfg)
        self.tx.add_deliberation(delib)
        sess.deliberations.append(did)
        sess.active_deliberation = did
        self.notes.append(f"opened {did} ({kind}, threshold {delib.threshold:.2f})")
        return delib

    def notify(self, delib: Deliberation, kind: str, text: str, blocking: bool, then_next: bool = False) -> None:
        """Queue a message for the main agent (a background agent's news has no direct channel);
        `then_next`: say it with the next step as it stands when it is delivered."""
        self.tx.session.notices.append(Notice(deliberation_id=delib.id, kind=kind, text=text,  # type: ignore[arg-type]
                                              blocking=blocking, then_next=then_next, created_at=self.now))

    def notify_budget(self, text: str) -> None:
        """Queue a session-wide spawn-budget notice: shown to the user by the next hook whose
        systemMessage the client displays (a task notification's or a prompt's UserPromptSubmit,
        a Stop), and given to the main agent with the next UserPromptSubmit."""
        self.tx.session.notices.append(Notice(deliberation_id="", kind="budget", text=text, created_at=self.now))

    def budget_for_user(self) -> "str | None":
        """The budget notices not shown to the user yet (marked shown; still queued for the model)."""
        fresh = [n for n in self.tx.session.notices if n.kind == "budget" and not n.shown]
        for n in fresh:
            n.shown = True
        return "\n".join(dict.fromkeys(n.text for n in fresh)) or None

    # -- the event log -------------------------------------------------------------------------
    def event_record(self, event: hookio.Event, answer: hookio.Answer) -> dict:
        return {"schema_version": SCHEMA_VERSION, "at": self.now, "event": event.hook_event_name
                or type(event).__name__, "eid": event.event_id, "handled_by": handled_by(), "payload": event.raw, "answer": answer.summary(),
                "notes": self.notes, **self.extra}


def strip_markers(prompt: str, markers: "list[str]") -> str:
    """`/deliberate Should we…?` → `Should we…?` (confidence.question_of: one rule for the
    recorded question and the protocol's question line)."""
    from deliberation.core.confidence import question_of

    return question_of(prompt, markers)


def find_record(delib: Deliberation, *, agent_id: "str | None" = None,
                tool_use_id: "str | None" = None) -> "AgentRecord | None":
    for rec in delib.agents:
        if agent_id and rec.agent_id == agent_id:
            return rec
    for rec in delib.agents:
        if tool_use_id and rec.tool_use_id == tool_use_id:
            return rec
    return None


def link_record(rec: AgentRecord, agent_id: "str | None") -> None:
    if agent_id and rec.agent_id != agent_id:
        rec.agent_id = agent_id
        rec.key = agent_id


def record_for_agent(ctx: Ctx, agent_id: "str | None", agent_type: "str | None") -> "tuple[Deliberation | None, AgentRecord | None]":
    """The deliberation record of a subagent, via the lineage (agent id → spawn → tool_use_id)."""
    from deliberation.core import lineage as lin

    spawn = lin.find_by_agent(ctx.tx.lineage, agent_id)
    if spawn is None and agent_id and personas.is_deliberation_agent(agent_type):
        spawn = lin.mark_started(ctx.tx.lineage, agent_id, agent_type, ctx.now)
    if spawn is None or not spawn.deliberation_id:
        return None, None
    delib = ctx.tx.deliberation(spawn.deliberation_id)
    if delib is None:
        return None, None
    rec = find_record(delib, agent_id=agent_id, tool_use_id=spawn.tool_use_id)
    if rec is not None:
        link_record(rec, agent_id)
    return delib, rec


def last_user_prompt(layout, session_id: str, max_bytes: int = 1 << 20) -> "tuple[str, dict | None]":
    """The latest real user prompt and its trigger result ('', None when none is logged)."""
    entry = last_prompt_entry(layout, session_id, max_bytes)
    if entry is None:
        return "", None
    return entry["prompt"], entry["trigger"]


def last_prompt_entry(layout, session_id: str, max_bytes: int = 1 << 20) -> "dict | None":
    """The latest real user prompt (and its trigger result) from the tail of the event log,
    read backwards in blocks: the prompt is usually in the last one, however long the log."""
    path = layout.events(session_id)
    for line in event_log.lines_backwards(path, max_bytes):
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if not isinstance(rec, dict) or rec.get("event") != "UserPromptSubmit":
            continue
        prompt = (rec.get("payload") or {}).get("prompt")
        if isinstance(prompt, str) and not prompt.lstrip().startswith("<task-notification>"):
            trig = rec.get("trigger")
            return {"prompt": prompt, "trigger": trig if isinstance(trig, dict) else None, "at": rec.get("at")}
    return None


def deny(ctx: Ctx, event: hookio.PreToolUse, parent: str, rule: str, reason: str,
         subagent_type: "str | None" = None) -> hookio.Answer:
    """Refuse a tool call that would start or resume a subagent; the lineage keeps the refusal."""
    ctx.tx.lineage.denied.append(DeniedSpawn(tool_use_id=event.tool_use_id, parent=parent,
                                             subagent_type=subagent_type or event.subagent_type, rule=rule,
                                             reason=reason, at=ctx.now))
    ctx.notes.append(f"denied ({rule})")
    return hookio.Answer.deny(reason)


def budget_view(ctx: Ctx, delib: Deliberation) -> Any:
    """What the depth axis may still spend, read from the lineage and the deliberation."""
    from deliberation.app import transcripts
    from deliberation.core import token_usage
    from deliberation.core import lineage as lin
    from deliberation.core import spawn_budget
    from deliberation.core.depth import axis as depth_axis

    if token_usage.plan_due(delib):  # the budget is about to be read: take the latest readings
        for a in delib.agents:
            if a.transcript and a.status in ("reported", "invalid"):
                token_usage.count(delib, a, transcripts.read_transcript(a.transcript), "transcript")
    sb = ctx.cfg.spawn_budget
    use = spawn_budget.usage(ctx.tx.lineage, lin.MAIN, ctx.now, sb.stale_after_s)
    return depth_axis.BudgetView(spawn_slots_left=use.left(sb.max_active_children, sb.max_session_total),
                                 agents_used=depth_axis.tier2_agents_used(delib), tokens_used=delib.tokens_used)


# --------------------------------------------------------------------------------------------
# which model an agent ran on (agent_model.py decides; these read the files)

# the plugin folder: <plugin>/lib/deliberation/app/handlers/common.py
PLUGIN_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))


def requested_model(ctx: Ctx, subagent_type: str, spawn_model: "str | None") -> "str | None":
    """The model a spawn asks for: its `model` input, else its agent file's `model:` (the
    project's .claude/agents/<slug>.md, else the plugin's agents/<slug>.md)."""
    if spawn_model:
        return spawn_model[:100]
    from deliberation.core import agent_model

    slug = personas.normalise_agent_type(subagent_type)
    if not slug or "/" in slug or slug.startswith("."):
        return None
    dirs = [os.path.join(ctx.layout.project, ".claude", "agents"), os.path.join(PLUGIN_ROOT, "agents")]
    if ":" in subagent_type:
        dirs.reverse()  # a namespaced type is the plugin's own agent
    for folder in dirs:
        try:
            with open(os.path.join(folder, f"{slug}.md"), "rb") as fh:
                head = fh.read(4096).decode("utf-8", "replace")
        except OSError:
            continue
        return agent_model.frontmatter_model(head)
    return None


def transcript_model(path: "str | None") -> "str | None":
    """The model an agent ran on, from its transcript's tail (the last assistant entry), else
    from the `.meta.json` the client keeps beside a subagent's transcript."""
    if not path:
        return None
    from deliberation.app import transcripts
    from deliberation.core import agent_model

    found = transcripts.read_model(path)
    if found or not path.endswith(".jsonl"):
        return found
    try:
        with open(path[:-len(".jsonl")] + ".meta.json", "rb") as fh:
            return agent_model.meta_model(fh.read(65536).decode("utf-8", "replace"))
    except OSError:
        return None


def deliver(ctx: Ctx, step, delib: Deliberation, background: bool) -> hookio.Answer:
    """A foreground agent's step goes straight to the main agent; a background one is queued
    until its task notification (a progress note is not queued: it is said fresh then)."""
    if background:
        queue(ctx, step, delib)
        return hookio.Answer()
    context = step.context
    if context and step.then_next:
        from deliberation.core.next_step import with_next

        context = with_next(delib, ctx.cfg, context)
    if step.block:
        return say_once(ctx, delib, hookio.Answer.block(step.block, context=context))
    return say_once(ctx, delib, hookio.Answer(context=context))


def queue(ctx: Ctx, step, delib: Deliberation) -> None:
    """Queue a background agent's news (never a bare progress note: that is said fresh)."""
    if step.block:
        ctx.notify(delib, "gate1", step.block, True)
    elif step.context and not step.progress:
        ctx.notify(delib, "info", step.context, False, then_next=step.then_next)


def say_once(ctx: Ctx, delib: Deliberation, answer: hookio.Answer) -> hookio.Answer:
    """Say a batch's news once. A batch's PreToolUse hooks all fire before its first PostToolUse;
    parallel foreground agents all report (SubagentStop) before it too, and a parallel
    background launch fires one PostToolUse per agent — so every PostToolUse of the batch would
    put a note into the same model request, the later ones repeating the first (or re-saying
    what it asked for as progress). The first answer since the last spawn speaks for the batch;
    the rest stay silent (a new spawn clears the memory, so the same verdict after a re-rank is
    said again)."""
    digest = message_digest(answer.reason if answer.decision else None, answer.context)
    if digest and delib.last_delivered:
        ctx.notes.append("this batch's news was given by an earlier answer: not repeated")
        return hookio.Answer()
    if digest:
        delib.last_delivered = digest
    return answer


def message_digest(*texts: "str | None") -> str:
    import zlib

    joined = "\x00".join(t or "" for t in texts)
    return f"{zlib.crc32(joined.encode('utf-8', 'surrogatepass')):08x}" if joined.strip("\x00") else ""
