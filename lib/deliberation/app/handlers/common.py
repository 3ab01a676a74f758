"""What every event handler shares: the context (a core Turn with the files behind it), the
reads the core asks for (the latest prompt, token figures, models), and delivering a Step."""

from __future__ import annotations

import json
import os

from deliberation import SCHEMA_VERSION
from deliberation.app import transcripts, workflow_files
from deliberation.core import agent_model, personas, token_usage
from deliberation.core.depth.axis import BudgetView
from deliberation.core.turn import Prompt, Turn, spawn_slots
from deliberation.state import event_log
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
        super().__init__(tx, cfg, now, last_prompt=lambda: last_user_prompt(layout, tx.session_id),
                         budget=read_budget, files=workflow_files.files(layout.project))
        self.layout = layout
        self.store = store
        self.tx: SessionTx = tx

    def event_record(self, event: hookio.Event, answer: hookio.Answer) -> dict:
        return {"schema_version": SCHEMA_VERSION, "at": self.now, "event": event.hook_event_name
                or type(event).__name__, "eid": event.event_id, "handled_by": handled_by(), "payload": event.raw,
                "answer": answer.summary(), "notes": self.notes, **self.extra}


def last_user_prompt(layout: Layout, session_id: str, max_bytes: int = 1 << 20) -> Prompt:
    """The latest real user prompt (its trigger result, when it was logged) from the tail of the event log,
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
        if isinstance(prompt, str) and not hookio.is_task_notification(prompt):
            trig, at = rec.get("trigger"), rec.get("at")
            return Prompt(prompt, trig if isinstance(trig, dict) else None,
                          float(at) if isinstance(at, (int, float)) else None)
    return Prompt()


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
    found = transcripts.read_model(path)
    if found or not path.endswith(".jsonl"):
        return found
    try:
        with open(path[:-len(".jsonl")] + ".meta.json", "rb") as fh:
            return agent_model.meta_model(fh.read(65536).decode("utf-8", "replace"))
    except OSError:
        return None
