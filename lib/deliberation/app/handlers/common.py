"""What every event handler shares: the context (a core Turn with the files behind it), the
reads the core asks for (the latest prompt, token figures, models), and delivering a Step."""

from __future__ import annotations

import os

from deliberation.app import transcripts, workflow_files
from deliberation.core import agent_model, personas, shadows, token_usage
from deliberation.core.depth.axis import BudgetView
from deliberation.core.trigger import skill_question  # the deliberate command called via the Skill tool
from deliberation.core.turn import Prompt, Turn, spawn_slots
from deliberation.state import event_log
from deliberation.defaults import LOG_FIELD_CAP_CHARS
from deliberation.state import safe_read
from deliberation.state.config import Config
from deliberation.state.models import Deliberation
from deliberation import plugin_root
from deliberation.state.paths import Layout, handled_by
from deliberation.state.store import SessionTx, Store
from deliberation.wire import hookio


class Ctx(Turn):
    """One hook invocation: the core's Turn over the session transaction, plus where state
    lives and the store (for the shells that read or write beyond the session's models)."""

    def __init__(self, layout: Layout, store: Store, cfg: Config, tx: SessionTx, now: float) -> None:
        self._pending: "dict | None" = None  # the turn's prompt record, once open_deliberation took it
        super().__init__(
            tx,
            cfg,
            now,
            last_prompt=lambda: last_user_prompt(
                layout, tx.session_id, self._pending or event_log.pending_prompt(layout, tx.session_id)
            ),
            budget=read_budget,
            files=workflow_files.files(layout.project),
            reversals=store.reversals,
        )
        self.layout = layout
        self.store = store
        self.tx: SessionTx = tx
        self.vouch: "shadows.Vouch | None" = None  # which agent types are the plugin's (app/vouch.py)

    def open_deliberation(self, question: "str | None" = None, task_type: "str | None" = None) -> Deliberation:
        """The core's open_deliberation, after the turn's prompt — kept aside in prompt.json
        while the session had no deliberation — joins the log the deliberation now owns
        (replay needs the trigger and the question)."""
        pending = event_log.pending_prompt(self.layout, self.tx.session_id)
        if pending is not None:
            self.tx.log(pending)
            self.tx.remove_file(self.layout.pending_prompt(self.tx.session_id))
        self._pending = pending
        return super().open_deliberation(question, task_type)

    def log_event(self, event: hookio.Event, answer: hookio.Answer) -> None:
        """Queue the event's log record (docs/STORAGE.md). A session that has opened a
        deliberation logs the payload (strings cut at the field cap, never below the report
        limit, so replay gets every report whole); one without keeps only ids and flags, and a
        real prompt's whole record waits in prompt.json for a deliberation this turn may open."""
        cap = max(LOG_FIELD_CAP_CHARS, self.cfg.deliberation.max_report_bytes)
        in_deliberation = bool(self.tx.session.deliberations)
        record = event_log.make_record(
            event,
            event.raw,
            answer.summary(),
            self.notes,
            "full" if in_deliberation else "ids",
            cap,
            self.now,
            handled_by(),
            self.extra,
        )
        if not in_deliberation and isinstance(event, hookio.UserPromptSubmit) and not event.is_agent_turn:
            whole = event_log.make_record(
                event, event.raw, answer.summary(), self.notes, "full", cap, self.now, handled_by(), self.extra
            )
            path = self.layout.pending_prompt(self.tx.session_id)
            self.tx.write_file(path, event_log.pending_prompt_file(self.layout, path, whole))
        self.tx.log(record)


def last_user_prompt(layout: Layout, session_id: str, pending: "dict | None" = None, max_bytes: int = 1 << 20) -> Prompt:
    """The latest real user prompt (its trigger result, when it came): the turn's pending prompt, else
    the tail of the event log, read backwards in blocks (the prompt is usually in the last one,
    however long the log). A later call of the deliberate command through the Skill tool
    (logged whole, with its trigger result) counts as a prompt: its args."""
    path = layout.events(session_id)
    since = event_log.record_time(pending) if pending is not None else None
    for rec in event_log.turn_records(layout, path, since, max_bytes):  # only this user's events, back to the prompt
        if rec.get("event") == "PreToolUse" and isinstance(rec.get("trigger"), dict):
            payload = rec.get("payload") or {}
            question = skill_question(payload.get("tool_name") or "", payload.get("tool_input") or {})
            if question is not None:
                return Prompt(question, rec["trigger"], _at(rec))
        if pending is None and rec.get("event") == "UserPromptSubmit":
            found = _prompt_of(rec)
            if found is not None:
                return found
    found = _prompt_of(pending) if pending is not None else None
    return found if found is not None else Prompt()


def _at(rec: dict) -> "float | None":
    at = rec.get("at")
    return float(at) if isinstance(at, (int, float)) else None


def _prompt_of(rec: dict) -> "Prompt | None":
    """A logged UserPromptSubmit's prompt, trigger result and time, unless it is an agent's turn
    (a task notification or a hand-back message)."""
    prompt = (rec.get("payload") or {}).get("prompt")
    if isinstance(prompt, str) and not hookio.is_agent_turn(prompt):
        trig = rec.get("trigger")
        return Prompt(prompt, trig if isinstance(trig, dict) else None, _at(rec))
    return None


def read_budget(turn: Turn, delib: Deliberation) -> BudgetView:
    """What the depth axis may still spend; when the budget is about to be read, the latest
    token figures are taken from the finished agents' transcripts first."""
    if token_usage.plan_due(delib):
        for a in delib.agents:
            if a.transcript and a.status in ("reported", "invalid"):
                token_usage.count(delib, a, transcripts.read_transcript(a.transcript), "transcript")
    return spawn_slots(turn, delib)


# --------------------------------------------------------------------------------------------
# which model an agent ran on (agent_model.py decides; these read the files)


def requested_model(ctx: Ctx, subagent_type: str, spawn_model: "str | None") -> "str | None":
    """The model a spawn asks for: its `model` input, else its agent file's `model:` (the
    project's .claude/agents/<slug>.md, else the plugin's agents/<slug>.md)."""
    if spawn_model:
        return spawn_model[:100]
    slug = personas.normalise_agent_type(subagent_type)
    if not slug or "/" in slug or slug.startswith("."):
        return None
    dirs = [os.path.join(ctx.layout.project, ".claude", "agents"), os.path.join(plugin_root(), "agents")]
    if ":" in subagent_type:
        dirs.reverse()  # a namespaced type is the plugin's own agent
    for folder in dirs:
        try:  # a project file: a FIFO or a link to a device there must not hold the spawn
            fd, _st = safe_read.open_fd(os.path.join(folder, f"{slug}.md"))
        except OSError:
            continue
        try:
            head = os.read(fd, 4096).decode("utf-8", "replace")
        except OSError:
            continue
        finally:
            os.close(fd)
        return agent_model.frontmatter_model(head)
    return None


def transcript_model(path: "str | None") -> "str | None":
    """The model an agent ran on, from its transcript's tail (the last assistant entry), else
    from the `.meta.json` the client keeps beside a subagent's transcript."""
    if not path:
        return None
    found = transcripts.read_model(path)
    if found or not path.endswith(".jsonl"):
        return found
    try:  # no link followed, a regular file only: a FIFO here must not hold the session's lock
        return agent_model.meta_model(
            safe_read.read_bytes(path[: -len(".jsonl")] + ".meta.json", 65536).decode("utf-8", "replace")
        )
    except OSError:
        return None
