"""The waves of the plugin's workflow, decided from the recorded state (docs/WORKFLOW.md).

The workflow script is a sequencer: it runs the wave it is given, then asks a checkpoint agent
whose report the plugin replaces with the next verdict. Every verdict is decided here, by asking
the same rules the per-turn protocol is held to — never restated:

- which wave comes next: `next_step.next_step` (research, then synthesis + debate, the one
  red-team pass, the depth step's workers, red team 2, ranking — and what the 2-agent form and
  the depth-off posture skip), its agent types exactly as it names them;
- whether the rules accept each spawn: `next_step.spawn_refusal` (phase order, the depth axis'
  hold and its tier-2 and red-team rules) and the checks on a prompt's content (research
  isolation, complete findings, blind ranking) — the prompts of `workflow_prompts` are built
  to pass them; a refusal ends the run with its reason;
- whether it fits the spawn budget: the wave (and the checkpoint after it) must fit the slots
  left, else the run ends and says so.

`issue` records the wave's agents as the Agent path records a spawn (`spawn.add_agent`, which
moves the phase); `close_wave` records an agent that never reported. Pure over the Deliberation
and the Config.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from deliberation.core import blind_ranking, drafting, independence, isolation, next_step, personas, phases, spawn
from deliberation.core import workflow_prompts
from deliberation.core.agent_model import assignment
from deliberation.core.depth import axis as depth_axis
from deliberation.state.config import Config
from deliberation.state.models import AgentKind, Deliberation, Stage, Wave as WaveRecord, WorkflowDrive
from deliberation.state.report_schema import stage_schema
from deliberation.text import workflow as words

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from deliberation.state.models import AgentRecord

WAVE_LIMIT = 8  # the script's loop bound: research, deliberation, red team, tier 2, red team 2, ranking + 2
CHECKPOINT_TYPE = personas.CHECKPOINT
PHASE_TITLE = {"research": "Research", "deliberation": "Deliberation", "ranking": "Ranking", "document": "Document"}
DRAFTING = "drafting"  # the wave after the vote: the drafter writes the decision document (core/drafting.py)
LABEL_SEP = " · "  # a wave agent's label: wave · persona (the checkpoint's: checkpoint · after <wave>)
CHECKPOINT_SCHEMA: "dict[str, Any]" = {
    "type": "object",
    "properties": {
        "checkpoint": {"type": "string", "description": "The wave just ended."},
        "launch": {"type": "string", "description": words.LAUNCH_FIELD},
    },
    "required": ["checkpoint"],
}
MIN_PANEL, MAX_PANEL = 2, 5


@dataclass(frozen=True)
class WaveAgent:
    agent_type: str
    kind: AgentKind
    stage: Stage
    prompt: str
    schema: "dict[str, Any]"
    model: "str | None" = None

    @property
    def persona(self) -> str:
        return personas.normalise_agent_type(self.agent_type)

    def label(self, wave: str) -> str:
        """What the person reads in the client's workflow view (/workflows), beside the phase:
        the wave and the persona, e.g. `research · security-analyst` (measured: the view lists each
        agent by its label under its phase; the footer shows only the run's name and counts)."""
        return f"{wave}{LABEL_SEP}{self.persona}"


@dataclass(frozen=True)
class Wave:
    name: str
    stage: str
    agents: "tuple[WaveAgent, ...]"
    last: bool = False

    @property
    def size(self) -> int:
        """Agents it starts, its checkpoint included."""
        return len(self.agents) + (0 if self.last else 1)


@dataclass(frozen=True)
class Verdict:
    """What the script is told: run `wave`, or stop (`status`, `why`)."""

    wave: "Wave | None" = None
    status: str = ""
    why: str = ""
    issues: "list[str]" = field(default_factory=list)

    def payload(self, delib: Deliberation) -> "dict[str, Any]":
        out: dict[str, Any] = {"plugin": "deliberation", "deliberation": delib.id}
        if self.wave is None:
            return {**out, "next": "done", "status": self.status, "why": self.why[:2000]}
        w = self.wave
        # what every agent of the wave shares (a research wave's one prompt, a stage's schema) is said
        # once, on the wave: the client repeats the first wave's args in the main agent's notification
        shared = {
            key: value
            for key, value in (("prompt", w.agents[0].prompt), ("schema", w.agents[0].schema))
            if len(w.agents) > 1 and all((a.prompt if key == "prompt" else a.schema) == value for a in w.agents)
        }
        agents = [
            {
                "agentType": a.agent_type,
                "label": a.label(w.name),
                **({} if "prompt" in shared else {"prompt": a.prompt}),
                **({} if "schema" in shared else {"schema": a.schema}),
                **({"model": a.model} if a.model else {}),
            }
            for a in w.agents
        ]
        wave: dict[str, Any] = {"name": w.name, "phase": PHASE_TITLE[w.stage], "last": w.last, **shared, "agents": agents}
        if not w.last:
            launches = delib.workflow.launches if delib.workflow is not None else []
            wave["checkpoint"] = workflow_prompts.checkpoint(w.name, launches[-1] if launches else "")
        return {**out, "next": "run", "wave": wave}


def done(status: str, why: str) -> Verdict:
    return Verdict(None, status, why)


# --------------------------------------------------------------------------------------------
# the panel


def panel_problem(chosen: "list[str]") -> "str | None":
    """Why a panel the caller asked for cannot research (None: it can)."""
    unknown = [p for p in chosen if p not in personas.RESEARCH_PERSONAS]
    if unknown:
        return words.unknown_personas(unknown, MIN_PANEL, MAX_PANEL, list(personas.RESEARCH_PERSONAS))
    if len(set(chosen)) != len(chosen):
        return words.PERSONA_TWICE
    if not MIN_PANEL <= len(chosen) <= MAX_PANEL:
        return words.panel_size(len(chosen), MIN_PANEL, MAX_PANEL)
    return None


# --------------------------------------------------------------------------------------------
# building a wave


def _schema(stage: str, cfg: Config, delib: Deliberation, tier2: bool = False) -> "dict[str, Any]":
    dims = [d.name for d in cfg.ranking.dimensions]
    ids = blind_ranking.neutral_order(delib) if stage == "ranking" else []
    return stage_schema(stage, dimensions=dims, approaches=ids, tier2=tier2)


def _models(delib: Deliberation, cfg: Config, slugs: "list[str]") -> "dict[str, str]":
    """models.diverse: the model of each persona (agent_model.assignment, as the protocol names it)."""
    if not cfg.models.diverse:
        return {}
    return assignment(slugs, cfg.conformity.conflicting_pairs, cfg.models.pool)


def research_wave(delib: Deliberation, cfg: Config, panel: "list[str]", context: str) -> Wave:
    prompt = workflow_prompts.research(delib, context)
    schema = _schema("research", cfg, delib)
    models = _models(delib, cfg, panel)
    return Wave(
        "research",
        "research",
        tuple(WaveAgent(next_step.agent_type(delib, p), "persona", "research", prompt, schema, models.get(p)) for p in panel),
    )


def _wave_for(delib: Deliberation, cfg: Config, types: "tuple[str, ...]") -> "Wave | None":
    """The wave that spawns `types` (as next_step names them), each with its built prompt."""
    kinds = [personas.kind_of(t) for t in types]
    if not types or None in kinds:
        return None
    kind = kinds[0]
    if kind == "persona":  # next_step names personas only to rank once research is in
        schema, prompt = _schema("ranking", cfg, delib), workflow_prompts.ranking(delib, list(cfg.ranking.dimensions))
        models = _models(delib, cfg, [personas.normalise_agent_type(t) for t in types])
        return Wave(
            "ranking",
            "ranking",
            tuple(
                WaveAgent(t, "persona", "ranking", prompt, schema, models.get(personas.normalise_agent_type(t))) for t in types
            ),
            last=False,  # the drafting wave follows a vote that passes; a checkpoint decides
        )
    schema = _schema("deliberation", cfg, delib)
    if kind in ("synthesis", "debate"):
        return Wave(
            "deliberation",
            "deliberation",
            tuple(
                WaveAgent(t, k, "deliberation", workflow_prompts.deliberation(delib, personas.normalise_agent_type(t)), schema)
                for t, k in zip(types, kinds)
                if k is not None
            ),
        )
    if kind == "red-team":
        second = delib.depth.status == "red_team_2"
        return Wave(
            "red-team-2" if second else "red-team",
            "deliberation",
            (
                WaveAgent(
                    types[0],
                    "red-team",
                    "deliberation",
                    workflow_prompts.red_team_2(delib) if second else workflow_prompts.red_team(delib),
                    schema,
                ),
            ),
        )
    if kind == "lens":
        planned = {a.lens: a.hot_spots for a in depth_axis.missing_workers(delib)}
        tier2 = _schema("deliberation", cfg, delib, tier2=True)
        return Wave(
            "tier-2",
            "deliberation",
            tuple(
                WaveAgent(
                    t,
                    "lens",
                    "deliberation",
                    workflow_prompts.tier2(
                        delib, personas.normalise_agent_type(t), planned.get(personas.normalise_agent_type(t), ())
                    ),
                    tier2,
                )
                for t in types
            ),
        )
    return None


def drafting_wave(delib: Deliberation) -> Wave:
    """The drafter with every report's citable item whole (core/drafting.py); the run's last wave.
    It is recorded as a wave, not as a deliberation agent: it neither researches nor votes."""
    agent = WaveAgent(
        next_step.agent_type(delib, drafting.DRAFTER), "synthesis", "deliberation", drafting.material(delib), drafting.schema()
    )
    return Wave(DRAFTING, "document", (agent,), last=True)


def drafted(delib: Deliberation) -> bool:
    """The drafting wave has run in this deliberation (it runs once; a failed draft is the main agent's)."""
    return delib.workflow is not None and any(w.name == DRAFTING for w in delib.workflow.waves)


def refusal(delib: Deliberation, cfg: Config, wave: Wave) -> "str | None":
    """The rules' refusal of any agent of `wave` (None: every spawn is accepted), in PreToolUse's
    order: the phase and depth rules, then the prompt's content."""
    for a in wave.agents:
        stage, why = next_step.spawn_refusal(delib, cfg, a.agent_type, a.prompt)
        if why is None and stage != a.stage:
            why = f"{a.agent_type} would work in {stage}, not {a.stage}"
        if why is None:
            why = _content_refusal(delib, cfg, a)
        if why:
            return f"{a.agent_type}: {why}"
    return None


def _content_refusal(delib: Deliberation, cfg: Config, a: WaveAgent) -> "str | None":
    iso = cfg.isolation
    if a.stage == "research" and iso.enabled:
        found = isolation.recorded_findings(phases.current(delib, "research"), exclude_persona=a.persona)
        leaked = isolation.check_prompt(a.prompt, found, shared_context=delib.question, threshold=iso.leak_threshold)
        if leaked:
            return isolation.leak_reason(leaked, found)
    if a.kind in ("synthesis", "debate") and iso.complete_findings:
        found = isolation.recorded_findings(phases.current(delib, "research"))
        carried = set(isolation.check_prompt(a.prompt, found, threshold=iso.leak_threshold))
        missing = [ref for ref, _c, _e in found if ref not in carried]
        if missing:
            return isolation.missing_reason(f"`{a.agent_type}`", missing, found)
    if a.stage == "ranking" and iso.blind_ranking:
        leaks = blind_ranking.check_prompt(a.prompt, delib, a.agent_type, [d.name for d in cfg.ranking.dimensions])
        if leaks:
            return blind_ranking.deny_reason(leaks, delib)
    return None


def _fits(wave: Wave, slots_left: int) -> "str | None":
    if wave.size <= slots_left:
        return None
    return words.wave_too_big(wave.name, wave.size, len(wave.agents), not wave.last, slots_left)


def _checked(delib: Deliberation, cfg: Config, wave: Wave, slots_left: int) -> Verdict:
    why = refusal(delib, cfg, wave)
    if why:
        return done("refused", words.wave_refused(wave.name, why))
    why = _fits(wave, slots_left)
    if why:
        return done("budget", why)
    return Verdict(wave)


# --------------------------------------------------------------------------------------------
# the verdicts


def first_verdict(delib: Deliberation, cfg: Config, panel: "list[str]", context: str, slots_left: int) -> Verdict:
    """At the launch: research with `panel` when nothing has run yet, else the next wave of what
    is recorded (a relaunch continues, it never starts over)."""
    started = [a for a in delib.agents if a.status != "refused"]
    if delib.phase in ("IDLE", "RESEARCH") and not started:
        return _checked(delib, cfg, research_wave(delib, cfg, panel, context), slots_left)
    return next_verdict(delib, cfg, slots_left)


def next_verdict(delib: Deliberation, cfg: Config, slots_left: int) -> Verdict:
    """At a checkpoint: the next wave the rules accept, or why the run ends."""
    if delib.phase in phases.CLOSED:
        return done("closed", f"deliberation {delib.id} is {delib.phase}")
    nxt = next_step.next_step(delib, cfg)
    if nxt.action == "spawn" and nxt.agent_types:
        wave = _wave_for(delib, cfg, nxt.agent_types)
        if wave is not None:
            return _checked(delib, cfg, wave, slots_left)
    if nxt.action == "document" and drafting.due(delib) and not drafted(delib):
        wave = drafting_wave(delib)
        why = _fits(wave, slots_left)
        return done("budget", why) if why else Verdict(wave)
    if nxt.action in ("document", "conclude"):
        return done("ranked", nxt.text)
    if nxt.action == "wait":
        return done("waiting", nxt.text)
    return done("stuck", nxt.text or words.stuck(delib.phase))


def issue(delib: Deliberation, verdict: Verdict, launch: str, now: float) -> None:
    """Record the wave a verdict names: its agents (as the Agent path records a spawn, the phase
    moving with them) and the wave itself."""
    wave = verdict.wave
    drive = delib.workflow
    if wave is None or drive is None:
        return
    number = len(drive.waves) + 1
    for a in wave.agents if wave.name != DRAFTING else ():
        key = f"{launch or 'workflow'}:{number}:{a.persona}"
        spawn.enter_stage(delib, a.kind, a.stage, a.persona, now)
        spawn.add_agent(
            delib,
            key=key,
            tool_use_id=None,
            agent_type=a.agent_type,
            kind=a.kind,
            stage=a.stage,
            background=False,
            prompt=a.prompt,
            checked=f"built by the plugin ({wave.name} wave)",
            model=a.model,
            now=now,
            channel="workflow",
            label=a.label(wave.name),
            wave=number,
        )
    drive.waves.append(WaveRecord(name=wave.name, agents=len(wave.agents), last=wave.last, launch=launch, issued_at=now))
    delib.updated_at = now


def open_wave(delib: Deliberation) -> "WaveRecord | None":
    drive = delib.workflow
    if drive is None or not drive.waves or drive.waves[-1].closed_at is not None:
        return None
    return drive.waves[-1]


def wave_records(delib: Deliberation, number: int) -> "list[AgentRecord]":
    """The agent records of wave `number` (1-based)."""
    return [a for a in delib.agents if a.wave == number]


def wave_agent(delib: Deliberation, agent_type: "str | None") -> "AgentRecord | None":
    """The record of the open wave a starting workflow agent of `agent_type` is (its persona is
    its type, never its report): the first of that persona not linked to an agent yet."""
    wave = open_wave(delib)
    if wave is None or delib.workflow is None:
        return None
    persona = personas.normalise_agent_type(agent_type)
    for a in wave_records(delib, len(delib.workflow.waves)):
        if a.persona == persona and a.agent_id is None and a.status == "spawned":
            return a
    return None


def close_wave(delib: Deliberation, now: float) -> "list[str]":
    """The open wave has ended (its checkpoint started, or the run ended): an agent of it that
    never reported is recorded invalid, with why. Returns their personas."""
    wave = open_wave(delib)
    if wave is None or delib.workflow is None:
        return []
    wave.closed_at = now
    missed = []
    for a in wave_records(delib, len(delib.workflow.waves)):
        if a.status in ("spawned", "running"):
            never_started = a.agent_id is None
            a.status = "invalid"
            a.reported_at = now
            a.problem = a.problem or words.no_output(never_started)
            missed.append(a.persona)
            delib.warnings.append(
                words.wave_agent_missed(f"{a.persona} ({a.agent_id or a.key})", wave.name, a.problem.splitlines()[0])
            )
    return missed


def checkpoint_problems(values: object, wave: str, launch: str) -> "list[str]":
    """What is wrong with the values a checkpoint agent reported (its prompt names them exactly:
    the wave just ended and the launch id). The verdict never depends on them — it is computed
    from the recorded state — but a wrong value says the agent read another prompt (a stale or
    resumed run's, or none): it is recorded as a warning."""
    if not isinstance(values, dict):
        return [words.checkpoint_value("report", "an object", type(values).__name__)]
    out = []
    got = values.get("checkpoint")
    if got != wave:
        out.append(words.checkpoint_value("checkpoint", wave, got))
    if launch and values.get("launch") != launch:
        out.append(words.checkpoint_value("launch", launch, values.get("launch")))
    extra = sorted(k for k in values if k not in ("checkpoint", "launch"))
    if extra:
        out.append(words.checkpoint_extra(extra))
    return out


def start_drive(delib: Deliberation, launch: str, context: str) -> WorkflowDrive:
    drive = delib.workflow
    if drive is None:
        drive = delib.workflow = WorkflowDrive(
            context=workflow_prompts.shared_context(context), dropped=independence.split_context((context or "").strip())[1]
        )
    drive.launches.append(launch)
    drive.status, drive.outcome, drive.told = "running", "", False
    return drive
