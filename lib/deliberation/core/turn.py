"""One hook event's view of its session, as the core's use-cases see it (pure).

A `Turn` holds the session's loaded models (through `Session`, which the store's transaction
satisfies), the config, the clock, and what the event leaves behind for the event log (notes)
and the user (warnings). The reads a decision may need halfway — the latest user prompt (for
the question of a deliberation it opens), the budget the depth axis may still spend (it reads
token figures from transcripts when due), and the scripts the plugin's workflow is checked
against (`WorkflowFiles`) — come in as functions, so the decisions stay pure and the shell
decides how they are read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, NamedTuple, Protocol

from deliberation.core import lineage as lin
from deliberation.core import personas, phases, spawn_budget
from deliberation.core import task_type as tt
from deliberation.core.confidence import question_of
from deliberation.core.depth import axis as depth_axis
from deliberation.core.depth.axis import BudgetView
from deliberation.state.config import Config
from deliberation.state.models import (
    AgentRecord,
    DeniedSpawn,
    Deliberation,
    Lineage,
    Notice,
    NoticeKind,
    ReversalRegistry,
    SessionState,
)
from deliberation.text import phases as phase_words


class Session(Protocol):
    """The models of one session's transaction (state.store.SessionTx)."""

    session_id: str

    @property
    def session(self) -> SessionState: ...

    @property
    def lineage(self) -> Lineage: ...

    def deliberation(self, deliberation_id: str) -> "Deliberation | None": ...

    def add_deliberation(self, delib: Deliberation) -> None: ...


@dataclass(frozen=True)
class WorkflowFiles:
    """What the shell reads for the plugin's workflow (core/plugin_workflow.py), each bounded:
    the shipped script, every saved workflow the client may resolve a name from (path, text or
    None when it cannot be read safely), a script file a call names, and the `started` entries
    of a run folder's journal."""

    shipped: "Callable[[], bytes | None]" = lambda: None
    project_workflows: "Callable[[], list[tuple[str, bytes | None]]]" = lambda: []
    script: "Callable[[str], bytes | None]" = lambda _path: None
    journal_starts: "Callable[[str], list[dict]]" = lambda _folder: []


class Prompt(NamedTuple):
    """The latest real user prompt: its text, the trigger's result on it, when it was submitted."""

    text: str = ""
    trigger: "dict | None" = None
    at: "float | None" = None


def _no_prompt() -> Prompt:
    return Prompt()


class Turn:
    """One hook event over its session: the models, the config, the clock, the notes."""

    def __init__(
        self,
        tx: Session,
        cfg: Config,
        now: float,
        *,
        last_prompt: "Callable[[], Prompt]" = _no_prompt,
        budget: "Callable[[Turn, Deliberation], BudgetView] | None" = None,
        files: "WorkflowFiles | None" = None,
        reversals: "Callable[[], ReversalRegistry] | None" = None,
    ) -> None:
        self.tx = tx
        self.cfg = cfg
        self.now = now
        self.warnings: list[str] = []
        self.notes: list[str] = []
        self.extra: dict[str, Any] = {}
        self._last_prompt = last_prompt
        self._budget = budget
        self.files = files or WorkflowFiles()
        self._reversals = reversals
        self._registry: "ReversalRegistry | None" = None

    # -- the session's deliberations -----------------------------------------------------------
    def active(self) -> "Deliberation | None":
        did = self.tx.session.active_deliberation
        if not did:
            return None
        delib = self.tx.deliberation(did)
        if delib is None:
            self.warnings.append(phase_words.lost(did))
            self.tx.session.active_deliberation = None
        return delib

    def open_deliberation(self, question: "str | None" = None, task_type: "str | None" = None) -> Deliberation:
        """Open the session's next deliberation on `question` (default: the latest user prompt,
        without its /deliberate marker) and make it the active one."""
        sess = self.tx.session
        n = len(sess.deliberations) + 1
        did = f"d-{self.tx.session_id[:8]}-{n}"
        prompt, trigger, at = self.last_prompt()
        question = question or question_of(prompt, self.cfg.trigger.force_markers) or "(no user prompt recorded)"
        kind = task_type or tt.classify(question, self.cfg.task_types.keywords)
        delib = Deliberation(
            id=did,
            session_id=self.tx.session_id,
            question=question[:4000],
            task_type=kind,
            task_type_overridden=task_type is not None,
            threshold=self.cfg.threshold_for(kind),
            created_at=self.now,
            updated_at=self.now,
            initial_confidence=(trigger or {}).get("confidence"),
            trigger_forced=bool((trigger or {}).get("forced")),
            prompt_at=at,
        )
        phases.transition(delib, "RESEARCH", phase_words.opened(task_type is not None), self.now)
        depth_axis.apply_posture(delib, self.cfg)
        self.tx.add_deliberation(delib)
        sess.deliberations.append(did)
        sess.active_deliberation = did
        self.notes.append(f"opened {did} ({kind}, threshold {delib.threshold:.2f})")
        return delib

    def last_prompt(self) -> Prompt:
        """The latest real user prompt of the session (read when asked)."""
        return self._last_prompt()

    def reversals(self) -> ReversalRegistry:
        """The project's reversal registry (read once, when a route is announced)."""
        if self._registry is None:
            self._registry = self._reversals() if self._reversals is not None else ReversalRegistry()
        return self._registry

    def weights(self) -> "dict[str, float]":
        """The configured ranking dimensions' weights (dimension → weight)."""
        return {d.name: d.weight for d in self.cfg.ranking.dimensions}

    def budget_view(self, delib: Deliberation) -> BudgetView:
        """What the depth axis may still spend (the spawn slots, tier-2 agents and tokens)."""
        if self._budget is not None:
            return self._budget(self, delib)
        return spawn_slots(self, delib)

    # -- the lineage ---------------------------------------------------------------------------
    def refuse(self, tool_use_id: "str | None", parent: str, subagent_type: str, rule: str, reason: str) -> None:
        """Keep a refused spawn (or resume, or workflow) in the lineage, with its rule and reason."""
        self.tx.lineage.denied.append(
            DeniedSpawn(
                tool_use_id=tool_use_id, parent=parent, subagent_type=subagent_type, rule=rule, reason=reason, at=self.now
            )
        )
        self.notes.append(f"denied ({rule})")

    def record_for_agent(
        self, agent_id: "str | None", agent_type: "str | None"
    ) -> "tuple[Deliberation | None, AgentRecord | None]":
        """The deliberation record of a subagent, via the lineage (agent id → spawn → tool_use_id)."""
        spawn = lin.find_by_agent(self.tx.lineage, agent_id)
        if spawn is None and agent_id and personas.is_deliberation_agent(agent_type):
            spawn = lin.mark_started(self.tx.lineage, agent_id, agent_type, self.now)
        if spawn is None or not spawn.deliberation_id:
            return None, None
        delib = self.tx.deliberation(spawn.deliberation_id)
        if delib is None:
            return None, None
        rec = find_record(delib, agent_id=agent_id, tool_use_id=spawn.tool_use_id)
        if rec is not None:
            link_record(rec, agent_id)
        return delib, rec

    # -- news for the main agent and the user --------------------------------------------------
    def notify(self, delib: Deliberation, kind: NoticeKind, text: str, blocking: bool, then_next: bool = False) -> None:
        """Queue a message for the main agent (a background agent's news has no direct channel);
        `then_next`: say it with the next step as it stands when it is delivered."""
        self.tx.session.notices.append(
            Notice(deliberation_id=delib.id, kind=kind, text=text, blocking=blocking, then_next=then_next, created_at=self.now)
        )

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


def spawn_slots(turn: Turn, delib: Deliberation) -> BudgetView:
    """The depth axis' budget from the lineage and the deliberation (token figures as recorded)."""
    sb = turn.cfg.spawn_budget
    use = spawn_budget.usage(turn.tx.lineage, lin.MAIN, turn.now, sb.stale_after_s)
    return BudgetView(
        spawn_slots_left=use.left(sb.max_active_children, sb.max_session_total),
        agents_used=depth_axis.tier2_agents_used(delib),
        tokens_used=delib.tokens_used,
    )


def find_record(delib: Deliberation, *, agent_id: "str | None" = None, tool_use_id: "str | None" = None) -> "AgentRecord | None":
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
