"""The depth axis: deepen on contested points, linearly, without anchoring (docs/DEPTH_AXIS.md).

After the propose pass and one red-team pass: `plan_depth` says not_needed, off (the posture),
skipped (the budget, loudly) or deepen; `instruction` is the block that asks for k fresh tier-2
workers aimed at named hot spots; `check_tier2_spawn` and `check_red_team_spawn` are the
PreToolUse rules of those spawns; `red_team_2_instruction` asks for the one red team over the
tier-2 findings; `synthesize` applies a tier-2 refute with evidence over the tier-1 point, zeroes
a worker that only restates tier 1, and lets red team 2 cancel an override. Linear: k ≤
DEPTH_HARD_CEILING workers plus one red team 2, never a second wave (`assert_within_ceiling`).
Pure over `state.Deliberation` and `config.Config`, except the `apply_*` helpers that write a
result into the Deliberation the caller holds; text/depth.py words what it says.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from deliberation.state.config import DEPTH_HARD_CEILING, Config, DepthConfig
from deliberation.core.depth import hot_spots as spots_of
from deliberation.core.depth.hot_spots import (
    WEIGHTY,
    approach_index,
    current,
    find_hot_spots,
    finding_index,
    hot_spot_target,
    red_team_agents,
    resolve_target,
    tier1_agents,
)
from deliberation.core.depth import FLOOR
from deliberation.core.depth.paraphrase import is_paraphrase
from deliberation.core import minimum_deliberation, phases
from deliberation.core.personas import LENSES, ROLES, normalise_agent_type
from deliberation.core.similarity import containment, tokens
from deliberation.state.models import AgentRecord, Deliberation, DepthOverride, DepthState, HotSpot
from deliberation.text import depth as words
from deliberation.wire.hookio import ANSWER_BUDGET

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from deliberation.state.agent_report import Finding, Refutation

OPEN = ("pending", "deepening")  # lens workers may still be spawned
STARTED = ("pending", "deepening", "red_team_2", "done")
HOLDS_RANKING = ("pending", "deepening", "red_team_2")  # DELIBERATION → RANKING waits for the step
SYNTHESIS_CONTAINMENT = 0.5  # share of a synthesis text's trigrams in a prompt
SYNTHESIS_MIN_TOKENS = 6  # shorter synthesis texts (titles) are not compared
HOT_SPOT_REF = re.compile(r"\bH([0-9]{1,3})\b")

LENS_TASK = words.LENS_TASK


# --------------------------------------------------------------------------------------------
# posture


def posture_for(task_type: str, cfg: DepthConfig) -> "tuple[bool, str]":
    """(enabled, why) for a task type under the configured posture.

    off → never (the width-only escape, whatever else is set); ceiling → on unless
    per_task_type dials the task type "off", and `max_lock` overrides that dial-down; opt-in →
    only task types set "on" (or everything under `max_lock`).
    """
    dial = cfg.per_task_type.get(task_type)
    if cfg.posture == "off":
        return False, words.posture("off")
    if cfg.max_lock:
        overrides = dial == "off" or (cfg.posture == "opt-in" and dial != "on")
        return True, words.posture("max_lock", task_type, dial, overrides)
    if cfg.posture == "ceiling":
        if dial == "off":
            return False, words.posture("dialled_down", task_type)
        return True, words.posture("ceiling")
    if dial == "on":
        return True, words.posture("opt_in_on", task_type)
    return False, words.posture("opt_in_off", task_type)


def workers(cfg: Config) -> "tuple[int, str]":
    """(k, clamp note): Config.depth_workers (≤ DEPTH_HARD_CEILING), and why when clamped."""
    asked = cfg.depth.workers_per_wave
    k = min(cfg.depth_workers, DEPTH_HARD_CEILING, len(LENSES))
    note = words.clamped(asked, k, DEPTH_HARD_CEILING) if asked > k else ""
    return k, note


# --------------------------------------------------------------------------------------------
# budget and plan


@dataclass(frozen=True)
class BudgetView:
    """What the depth axis may still spend; the limits come from the config.

    spawn_slots_left: free spawn slots (spawn_budget: active children and the session total);
    agents_used: tier-2 agents already run in this deliberation (vs depth.agent_budget);
    tokens_used: subagent tokens spent by this deliberation (vs depth.token_budget).
    """

    spawn_slots_left: int
    agents_used: int
    tokens_used: int


def tier2_agents_used(delib: Deliberation) -> int:
    """Tier-2 agents (lens workers, red team 2) this deliberation has run: a spawn the client
    refused ran nothing and does not count."""
    return sum(1 for a in delib.agents if _is_tier2_record(a) and a.status != "refused")


@dataclass(frozen=True)
class LensAssignment:
    lens: str
    hot_spots: "tuple[str, ...]"


@dataclass(frozen=True)
class DepthPlan:
    action: str  # not_needed | off | skipped | deepen
    posture: str  # the configured posture
    enabled: bool
    why: str  # posture sentence, or the loud skip reason
    hot_spots: "tuple[HotSpot, ...]" = ()
    assignments: "tuple[LensAssignment, ...]" = ()
    workers: int = 0
    clamped: str = ""

    @property
    def message(self) -> str:
        """What to tell the user / Claude about this plan ('' when nothing happens)."""
        if self.action == "skipped":
            return self.why
        if self.action == "deepen":
            return words.deepening([h.id for h in self.hot_spots], self.workers, self.clamped)
        return ""


def _budget_problems(budget: "BudgetView", cfg: Config, k: int) -> "list[list]":
    """Each short budget as [kind, used, limit, need] (text.depth.budget_skipped words them)."""
    d = cfg.depth
    total_slots = cfg.spawn_budget.max_active_children
    problems: "list[list]" = []
    if budget.tokens_used >= d.token_budget:
        problems.append(["tokens", budget.tokens_used, d.token_budget, 0])
    if budget.agents_used + k + 1 > d.agent_budget:
        problems.append(["agents", budget.agents_used, d.agent_budget, k])
    if budget.spawn_slots_left < k:
        problems.append(["slots", total_slots - budget.spawn_slots_left, total_slots, k])
    return problems


def capabilities(delib: Deliberation, spots: "list[HotSpot] | tuple[HotSpot, ...]") -> "dict[str, tuple[str, ...]]":
    """Hot spot id → the lenses that can work on it (hot_spots.LENS_CAN)."""
    tier1 = tier1_agents(delib)
    findings, approaches = finding_index(tier1), approach_index(delib)
    return {h.id: spots_of.lenses_for(h, findings, approaches) for h in spots}


def choose_lenses(delib: Deliberation, hot_spots: "list[HotSpot] | tuple[HotSpot, ...]", k: int) -> "list[str]":
    """The (at most k) lenses of the wave: those that can work on the hot spots, covering as
    many as k workers can (hot_spots.choose); a lens no hot spot needs is not spawned."""
    return spots_of.choose(hot_spots, k, capabilities(delib, hot_spots), tuple(LENSES))


def _assign(
    delib: Deliberation,
    hot_spots: "list[HotSpot] | tuple[HotSpot, ...]",
    lenses: "list[str]",
    per_lens: int = spots_of.HOT_SPOTS_PER_LENS,
) -> "tuple[LensAssignment, ...]":
    """Each lens aims at the hot spots it can work on, at most `per_lens`, in priority (id)
    order (hot_spots.assign)."""
    got = spots_of.assign(hot_spots, lenses, capabilities(delib, hot_spots), per_lens)
    return tuple(LensAssignment(lens, got[lens]) for lens in lenses if lens in got)


def plan_depth(delib: Deliberation, cfg: Config, budget: "BudgetView", spots: "list[HotSpot] | None" = None) -> DepthPlan:
    """Decide the depth step after the first red-team pass (or on `spots` given by the caller:
    the minimum viable deliberation's conflict). Never raises on a budget problem."""
    enabled, why = posture_for(delib.task_type, cfg.depth)
    posture = cfg.depth.posture
    if not enabled:
        return DepthPlan("off", posture, False, why)
    limit = cfg.depth.max_hot_spots
    found = tuple(find_hot_spots(delib, limit=limit) if spots is None else spots[:limit])
    if not found:
        return DepthPlan("not_needed", posture, True, words.no_hot_spots(why))
    k, clamped = workers(cfg)
    lenses = choose_lenses(delib, found, k)
    k = len(lenses) or k
    problems = _budget_problems(budget, cfg, k)
    if problems:
        loud = words.budget_skipped([h.id for h in found], problems)
        return DepthPlan("skipped", posture, True, loud, found, (), k, clamped)
    return DepthPlan("deepen", posture, True, why, found, _assign(delib, found, lenses), k, clamped)


# --------------------------------------------------------------------------------------------
# the instruction (gate block reason) and the worker prompt


def _material(spot: HotSpot, findings: dict, approaches: dict) -> "list[list[str]]":
    """A hot spot's material as text.depth.hot_spot_map takes it: the tier-1 finding or approach
    each entry names, else the entry itself (the red team's note)."""
    lines = []
    for m in spot.material:
        ref = resolve_target(m, findings, approaches) if len(m) <= 128 and "\n" not in m else None
        if ref is not None and ref in findings:
            _agent, f = findings[ref]
            lines.append(["finding", ref, f.claim, f.evidence])
        elif ref is not None:
            lines.append(["approach", ref, approaches.get(ref, "")])
        else:
            lines.append(["note", m])
    return lines


# What the depth step's answers may take: the map of the hot spots is said once (the shared
# part of every worker's prompt) and its quotes are shortened until it fits MAP_BUDGET, so the
# whole instruction stays within what the client passes on (hookio.ANSWER_BUDGET).
MAP_BUDGET = 5_000
CLIPS: "tuple[int | None, ...]" = (None, 400, 240, 140, 80, 0)  # 0: the statements alone
SHARED_HEAD, SHARED_END = words.SHARED_HEAD, words.SHARED_END


def hot_spot_map(
    delib: Deliberation,
    ids: "list[str] | tuple[str, ...]",
    spots: "list[HotSpot] | tuple[HotSpot, ...] | None" = None,
    clip: "int | None" = None,
) -> str:
    """The map a tier-2 worker gets: each named hot spot with its tier-1 material and the red
    team's notes — claims to test, never conclusions (`clip`: see text.depth.hot_spot_map)."""
    spots = list(spots if spots is not None else delib.depth.hot_spots)
    by_id = {h.id: h for h in spots}
    tier1 = tier1_agents(delib)
    findings, approaches = finding_index(tier1), approach_index(delib)
    return words.hot_spot_map(
        [
            {"id": s.id, "kind": s.kind, "statement": s.statement, "material": _material(s, findings, approaches)}
            for hid in ids
            if (s := by_id.get(hid)) is not None
        ],
        clip,
    )


def fitted_map(delib: Deliberation, spots: "list[HotSpot] | tuple[HotSpot, ...] | None" = None) -> str:
    """The map of every hot spot of the wave, its quotes as long as MAP_BUDGET allows."""
    spots = list(spots if spots is not None else delib.depth.hot_spots)
    ids = [h.id for h in sorted(spots, key=lambda h: int(h.id[1:]))]
    text = ""
    for clip in CLIPS:
        text = hot_spot_map(delib, ids, spots, clip)
        if len(text) <= MAP_BUDGET:
            break
    return text


def worker_header(lens: str, hot_spot_ids: "list[str] | tuple[str, ...]") -> str:
    """The lines of one worker's prompt that are its own."""
    return words.worker_header(ROLES[lens][0], lens, list(hot_spot_ids))


def shared_part(delib: Deliberation, spots: "list[HotSpot] | tuple[HotSpot, ...] | None" = None) -> str:
    """What every worker's prompt ends with (the question, the floor, the map, the report)."""
    return words.shared_part(delib.question, list(FLOOR), fitted_map(delib, spots))


def worker_prompt(
    lens: str,
    hot_spot_ids: "list[str] | tuple[str, ...]",
    delib: Deliberation,
    spots: "list[HotSpot] | tuple[HotSpot, ...] | None" = None,
) -> str:
    """The exact prompt for one tier-2 worker (what `instruction` tells Claude to send): its own
    lines, then the shared part."""
    return worker_header(lens, hot_spot_ids) + "\n" + shared_part(delib, spots)


def instruction(plan: DepthPlan, delib: Deliberation) -> str:
    """The gate's block reason telling Claude to spawn the tier-2 wave (plan.action == 'deepen')."""
    if plan.action != "deepen":
        return ""
    return words.instruction(
        len(plan.hot_spots),
        [f"{delib.agent_prefix}{a.lens}" for a in plan.assignments],
        worker_blocks(delib, plan.assignments, plan.hot_spots),
        plan.clamped,
    )


def worker_blocks(
    delib: Deliberation,
    assignments: "tuple[LensAssignment, ...] | list[LensAssignment]",
    spots: "list[HotSpot] | tuple[HotSpot, ...] | None" = None,
    total: "int | None" = None,
) -> str:
    """One block per tier-2 worker (its exact subagent_type and its own lines), then the shared
    part once: worker_prompt = its lines + the shared part (check_tier2_spawn accepts these)."""
    return words.worker_blocks(
        [[f"{delib.agent_prefix}{a.lens}", list(a.hot_spots), worker_header(a.lens, a.hot_spots)] for a in assignments],
        shared_part(delib, spots),
        total,
    )


def missing_workers(delib: Deliberation) -> "list[LensAssignment]":
    """The planned tier-2 workers of the open wave not spawned yet, as the plan assigned them."""
    st = delib.depth
    if st.status not in OPEN:
        return []
    spawned = {a.persona for a in _lens_records(delib)}
    planned = _planned_lenses(delib)
    return [a for a in _assign(delib, st.hot_spots, planned) if a.lens not in spawned]


def tier2_items(delib: Deliberation) -> "list[list[str]]":
    """The tier-2 workers' findings and refutations, as text.depth.red_team_2_instruction takes them."""
    items: "list[list[str]]" = []
    for agent in current(delib.agents):
        if agent.kind != "lens":
            continue
        rep = agent.filed
        items += [["finding", f"{agent.persona}:{f.id}", f.claim, f.evidence] for f in rep.findings]
        items += [
            ["refutation", f"{agent.persona}:R{i}", r.verdict, r.target, r.claim, r.evidence]
            for i, r in enumerate(rep.refutations, start=1)
        ]
    return items


def red_team_2_instruction(delib: Deliberation) -> str:
    """Block reason once the tier-2 workers have reported: ONE red team over their findings."""
    items, text = tier2_items(delib), ""
    for clip in CLIPS:  # each item's quotes as long as the answer's budget allows
        text = words.red_team_2_instruction(f"{delib.agent_prefix}red-team", items, clip)
        if len(text) <= ANSWER_BUDGET - 1_000:
            break
    return text


def open_step_text(delib: Deliberation) -> str:
    """What is still owed while the depth step is open (for a refusal or a progress note)."""
    st = delib.depth
    if st.status in OPEN:
        lens_recs = _lens_records(delib)
        spawned = {a.persona for a in lens_recs}
        running = [a.persona for a in lens_recs if a.status in ("spawned", "running")]
        missing = [lens for lens in _planned_lenses(delib) if lens not in spawned]
        todo = missing_workers(delib) if missing else []
        return words.wave_open(
            [h.id for h in st.hot_spots],
            len(spawned),
            st.workers_per_wave,
            running,
            missing,
            list(FLOOR),
            [f"{delib.agent_prefix}{a.lens}" for a in todo],
            worker_blocks(delib, todo, st.hot_spots) if todo else "",
        )
    if st.status == "red_team_2":
        if any(a.status in ("spawned", "running") for a in _red_team_2_records(delib)):
            return words.red_team_2_running()
        return red_team_2_instruction(delib)
    return ""


# --------------------------------------------------------------------------------------------
# PreToolUse rules


def _norm_words(text: str) -> str:
    text = (text or "").lower().replace("\u2019", "'").replace("\u2018", "'")
    return " " + " ".join(re.sub(r"[^a-z0-9']+", " ", text).split()) + " "


def has_floor(prompt: str) -> "list[str]":
    """The FLOOR sentences missing from `prompt` (case, whitespace and punctuation tolerant)."""
    words = _norm_words(prompt)
    return [s for s in FLOOR if _norm_words(s) not in words]


def _is_tier2_record(a: AgentRecord) -> bool:
    return a.kind == "lens" or a.tier == 2 or (a.kind == "red-team" and (a.red_team_round or 1) >= 2)


def _lens_records(delib: Deliberation) -> "list[AgentRecord]":
    return [a for a in delib.agents if a.kind == "lens" and a.status != "refused"]


def _red_team_2_records(delib: Deliberation) -> "list[AgentRecord]":
    return [
        a
        for a in delib.agents
        if a.kind == "red-team" and a.status != "refused" and ((a.red_team_round or 1) >= 2 or a.tier == 2)
    ]


def _planned_lenses(delib: Deliberation) -> "list[str]":
    """The wave's lenses: those the plan recorded, less any that no hot spot gives work to."""
    st = delib.depth
    planned = [lens for lens in LENSES if lens in st.tier2_by_lens]
    planned = planned or choose_lenses(delib, st.hot_spots, st.workers_per_wave or len(LENSES))
    got = spots_of.assign(st.hot_spots, planned, capabilities(delib, st.hot_spots))
    return [lens for lens in planned if lens in got] or planned


def wave_done(delib: Deliberation) -> bool:
    """Every planned lens of the wave was spawned and none still runs: red team 2 is next.
    (Foreground workers report one by one; the first report must not close the wave.)"""
    recs = _lens_records(delib)
    spawned = {a.persona for a in recs}
    return (
        bool(recs)
        and all(lens in spawned for lens in _planned_lenses(delib))
        and not any(a.status in ("spawned", "running") for a in recs)
    )


def is_tier2_spawn(subagent_type: str, prompt: str, delib: "Deliberation | None") -> bool:
    """Should PreToolUse treat this spawn as a tier-2 worker? A lens type always; a fork or any
    other agent only while the depth step is open and its prompt names a hot spot or a lens."""
    name = normalise_agent_type(subagent_type)
    if name in LENSES:
        return True
    if delib is None or delib.depth.status not in OPEN:
        return False
    ids = {h.id for h in delib.depth.hot_spots}
    named = {f"H{m}" for m in HOT_SPOT_REF.findall(prompt or "")} & ids
    return bool(named) or any(lens in (prompt or "").lower() for lens in LENSES)


def _step_closed(delib: Deliberation) -> "str | None":
    st = delib.depth
    if st.status == "off" or (st.posture and not st.enabled):
        return words.step_closed("off", st.skipped_reason or "posture " + st.posture)
    if not st.posture:
        return words.step_closed("not_open")
    if st.status == "not_needed" or not st.hot_spots:
        return words.step_closed("not_needed")
    if st.status == "skipped":
        return words.step_closed("skipped", st.skipped_reason)
    if st.status in ("red_team_2", "done"):
        return words.step_closed("over")
    spawned = len(_lens_records(delib))
    if spawned >= st.workers_per_wave:
        return words.step_closed("exhausted", spawned=spawned, workers=st.workers_per_wave)
    return None


def _synthesis_texts(delib: Deliberation) -> "list[tuple[str, str]]":
    """(label, text) of the tier-1 consensus: synthesis-lead summary/rationale/approach summaries,
    ranking rationales and the decision, when long enough to compare."""
    out = []
    for a in tier1_agents(delib):
        rep = a.filed
        if a.kind == "synthesis":
            out.append((f"{a.persona} summary", rep.summary))
            out.append((f"{a.persona} rationale", rep.rationale))
            out += [(f"{a.persona} approach {ap.id}", ap.summary) for ap in rep.approaches]
        elif a.stage == "ranking":
            out.append((f"{a.persona} ranking rationale", rep.rationale))
    if delib.decision:
        out.append(("decision", delib.decision))
    return [(label, text) for label, text in out if len(tokens(text)) >= SYNTHESIS_MIN_TOKENS]


def carried_synthesis(prompt: str, delib: Deliberation) -> "list[str]":
    """Labels of tier-1 consensus texts found in `prompt` (containment of their word trigrams),
    ignoring those that the permitted hot-spot map itself carries."""
    allowed = hot_spot_map(delib, [h.id for h in delib.depth.hot_spots]) + " " + (delib.question or "")
    hits = []
    for label, text in _synthesis_texts(delib):
        if containment(text, prompt) >= SYNTHESIS_CONTAINMENT and containment(text, allowed) < SYNTHESIS_CONTAINMENT:
            hits.append(words.carried(label, containment(text, prompt)))
    return hits


def check_tier2_spawn(subagent_type: str, prompt: str, delib: Deliberation) -> "str | None":
    """PreToolUse for a tier-2 spawn: None to allow, else the denial reason naming each rule broken."""
    closed = _step_closed(delib)
    if closed:
        return words.tier2_closed(closed)
    st = delib.depth
    name = normalise_agent_type(subagent_type)
    planned = _planned_lenses(delib)
    spawned = {a.persona for a in _lens_records(delib)}
    broken: list[list] = []  # [rule, figures...] (text.depth.tier2_denied)
    if name == "fork":
        broken.append(["fork", list(planned)])
    elif name not in LENSES:
        broken.append(["lens_type", list(LENSES), subagent_type])
    elif name not in planned:
        broken.append(["planned", list(planned)])
    elif name in spawned:
        broken.append(["one_per_lens", name])
    missing = has_floor(prompt)
    if missing:
        broken.append(["floor", missing])
    ids = [h.id for h in st.hot_spots]
    named = sorted({f"H{m}" for m in HOT_SPOT_REF.findall(prompt or "")} & set(ids), key=lambda h: int(h[1:]))
    if not named:
        broken.append(["hot_spots", ids])
    carried = carried_synthesis(prompt, delib)
    if carried:
        broken.append(["synthesis", carried])
    if not broken:
        return None
    return words.tier2_denied(broken)


def check_red_team_spawn(delib: Deliberation, cfg: "Config | None" = None) -> "str | None":
    """PreToolUse for a red-team spawn. Before the depth step: ONE red-team pass — a second
    one, while the first runs or once it has reported, is refused (its report would replace the
    first, and what it refutes would never be planned). In the depth step: red team 2 comes
    after the tier-2 workers, exactly once; never a third round. With the depth axis off
    (breadth only) red-team spawns are untouched."""
    st = delib.depth
    if st.status not in STARTED:
        return _second_pass_refusal(delib, cfg)
    if st.status in OPEN:
        lens_recs = _lens_records(delib)
        running = [a.persona for a in lens_recs if a.status in ("spawned", "running")]
        missing = [lens for lens in _planned_lenses(delib) if lens not in {a.persona for a in lens_recs}]
        if running or missing:
            return words.red_team_before_tier2(running, missing)
        return None
    if st.status == "red_team_2" and not _red_team_2_records(delib):
        return None
    return words.red_team_after_red_team_2()


def _first_pass(delib: Deliberation) -> "list[AgentRecord]":
    return [
        a
        for a in delib.agents
        if a.kind == "red-team"
        and a.tier == 1
        and (a.red_team_round or 1) == 1
        and a.status in ("spawned", "running", "reported")
        and not a.superseded
    ]


def _second_pass_refusal(delib: Deliberation, cfg: "Config | None") -> "str | None":
    st = delib.depth
    if st.status == "off" or (st.posture and not st.enabled):
        return None
    if not st.posture and cfg is not None and not posture_for(delib.task_type, cfg.depth)[0]:
        return None
    first = _first_pass(delib)
    planned = bool(st.posture) and st.status in ("not_needed", "skipped")
    if not first and not planned:
        return None
    who = ", ".join(f"{a.persona} ({a.agent_id or a.key})" for a in first) or "none"
    if any(a.status in ("spawned", "running") for a in first):
        return words.second_pass("running", who)
    if not planned:
        return words.second_pass("waiting", who)
    if st.status == "skipped":
        return words.second_pass("skipped", who, st.skipped_reason)
    if first:
        return words.second_pass("nothing_contested", who)
    return words.second_pass("ran", who, st.skipped_reason)


def spawn_tier(subagent_type: str, delib: Deliberation) -> "tuple[Literal[1, 2], int | None]":
    """(tier, red_team_round) to record for an allowed spawn."""
    name = normalise_agent_type(subagent_type)
    if name in LENSES:
        return 2, None
    if name == "red-team":
        if delib.depth.status == "red_team_2" or (
            delib.depth.status in OPEN
            and _lens_records(delib)
            and all(a.status not in ("spawned", "running") for a in _lens_records(delib))
        ):
            return 2, 2
        return 1, 1
    return 1, None


# --------------------------------------------------------------------------------------------
# depth-aware synthesis


@dataclass(frozen=True)
class DepthOutcome:
    overrides: "tuple[DepthOverride, ...]" = ()
    zeroed: "tuple[str, ...]" = ()  # agent keys
    cancelled: "tuple[tuple[DepthOverride, str], ...]" = ()  # (override, why)
    notes: "tuple[str, ...]" = ()  # refutes that carried no weight, and why


@dataclass
class _Candidate:
    override: DepthOverride
    refs: "set[str]" = field(default_factory=set)  # what red team 2 may target to cancel it
    claim: str = ""


def _spot_for(
    target: str,
    agent: AgentRecord,
    spots: "list[HotSpot]",
    findings: "dict[str, tuple[AgentRecord, Finding]]",
    approaches: "dict[str, str]",
) -> "HotSpot | None":
    for spot in spots:
        if any(resolve_target(m, findings, approaches) == target for m in spot.material):
            return spot
    named = list(agent.filed.hot_spots) + list(agent.given.hot_spots)
    return next((s for s in spots if s.id in named), None)


def _override_target(
    raw: str,
    agent: AgentRecord,
    spots: "list[HotSpot]",
    findings: "dict[str, tuple[AgentRecord, Finding]]",
    approaches: "dict[str, str]",
) -> "tuple[str | None, HotSpot | None, str]":
    """(target, hot spot, why-not) for a tier-2 refutation's target."""
    by_id = {s.id: s for s in spots}
    t = (raw or "").strip()
    if t in by_id:
        spot = by_id[t]
        targets = {hit for m in spot.material if (hit := resolve_target(m, findings, approaches)) is not None}
        if len(targets) == 1:
            return hot_spot_target(spot, findings, approaches), spot, ""
        if not targets:
            return None, spot, words.target_problem("nothing", t, spot.kind)
        return None, spot, words.target_problem("between", t, between=sorted(targets))
    target = resolve_target(t, findings, approaches)
    if target is None:
        return None, None, words.target_problem("unknown", t)
    found = _spot_for(target, agent, spots, findings, approaches)
    if found is None:
        return None, None, words.target_problem("outside", target)
    return target, found, ""


def _effect(target: str, findings: dict, claim: str) -> str:
    return words.effect(target, target in findings, claim)


def _cancels(r: "Refutation", cand: _Candidate) -> bool:
    if not r.evidence.strip():
        return False
    t = (r.target or "").strip()
    if r.verdict in WEIGHTY and t in cand.refs:
        return True
    return r.verdict == "upheld" and t == cand.override.target


def synthesize(delib: Deliberation) -> DepthOutcome:
    """Depth-aware synthesis after red team 2 (see module docstring)."""
    tier1 = tier1_agents(delib)
    findings, approaches = finding_index(tier1), approach_index(delib)
    originals = [f.claim for _a, f in findings.values()]
    spots = list(delib.depth.hot_spots) or find_hot_spots(delib)
    cands: list[_Candidate] = []
    zeroed: list[str] = []
    notes: list[str] = []
    for agent in current(delib.agents):
        if agent.kind != "lens":
            continue
        rep = agent.filed
        texts = [f.claim for f in rep.findings] + [r.claim or r.evidence for r in rep.refutations]
        texts = [t for t in texts if t.strip()]
        if not any(not is_paraphrase(t, originals) for t in texts):
            zeroed.append(agent.key)
            notes.append(words.zeroed(agent.persona, agent.key, len(texts)))
            continue
        for i, r in enumerate(rep.refutations, start=1):
            ref = f"{agent.persona}:R{i}"
            if r.verdict != "refuted":
                continue
            if not r.evidence.strip():
                notes.append(words.no_weight("no_evidence", ref, r.target))
                continue
            if is_paraphrase(r.claim or r.evidence, originals):
                notes.append(words.no_weight("restates", ref))
                continue
            target, spot, why = _override_target(r.target, agent, spots, findings, approaches)
            if target is None or spot is None:
                notes.append(words.no_weight("target", ref, why=why))
                continue
            if target in approaches and target not in approaches.ranked:
                # a research persona's own approach: the rankers rank the synthesis' list
                notes.append(words.no_weight("target", ref, why=words.target_problem("unranked", target)))
                continue
            ov = DepthOverride(
                hot_spot=spot.id,
                target=target,
                by_agent=agent.key,
                evidence=r.evidence,
                effect=_effect(target, findings, r.claim or r.evidence),
            )
            own = {
                f"{agent.persona}:{f.id}"
                for f in rep.findings
                if is_paraphrase(f.claim, [r.claim or r.evidence]) or is_paraphrase(r.claim or r.evidence, [f.claim])
            }
            cands.append(_Candidate(ov, {ref, agent.persona, agent.key} | own, r.claim))
    kept, cancelled = [], []
    rt2 = red_team_agents(delib, 2)
    for cand in cands:
        hit = next(((rt, r) for rt in rt2 for r in rt.filed.refutations if _cancels(r, cand)), None)
        if hit is None:
            kept.append(cand.override)
        else:
            rt, r = hit
            cancelled.append((cand.override, words.cancelled_by(rt.key, r.verdict, r.target, r.claim, r.evidence)))
    return DepthOutcome(tuple(kept), tuple(zeroed), tuple(cancelled), tuple(notes))


def struck_approaches(delib: Deliberation) -> "frozenset[str]":
    """Approach ids a recorded override strikes from the leading position — pass to
    `ranking.rank(agents, weights, struck=...)`, which then leads with the best of the rest."""
    ranked = approach_index(delib).ranked
    return frozenset(o.target for o in delib.depth.overrides if o.target in ranked)


def overturned_findings(delib: Deliberation) -> "dict[str, DepthOverride]":
    """Finding ref → the override that flipped it (for the decision record)."""
    return {o.target: o for o in delib.depth.overrides if ":" in o.target}


def outcome_text(delib: Deliberation, outcome: DepthOutcome) -> str:
    """Progress note after depth-aware synthesis (what flipped, what was zeroed, what was cancelled)."""
    struck = sorted(o.target for o in outcome.overrides if o.target in approach_index(delib).ranked)
    return words.outcome(
        delib.id,
        [[o.hot_spot, o.effect, o.by_agent, o.evidence] for o in outcome.overrides],
        len(outcome.zeroed),
        [[o.hot_spot, o.target, why] for o, why in outcome.cancelled],
        list(outcome.notes),
        struck,
    )  # the caller adds the next step (next_step.py)


# --------------------------------------------------------------------------------------------
# telemetry (DepthState)


def depth_state_for(plan: DepthPlan) -> DepthState:
    """The DepthState a plan records. Posture off/dial-down records only posture and status."""
    if plan.action == "off":
        return DepthState(
            posture=plan.posture, enabled=False, status="off", skipped_reason="" if plan.posture == "off" else plan.why
        )
    if plan.action == "not_needed":
        return DepthState(posture=plan.posture, enabled=True, status="not_needed")
    if plan.action == "skipped":
        return DepthState(
            posture=plan.posture,
            enabled=True,
            hot_spots=list(plan.hot_spots),
            workers_per_wave=plan.workers,
            clamped=plan.clamped,
            status="skipped",
            skipped_reason=plan.why,
        )
    return DepthState(
        posture=plan.posture,
        enabled=True,
        hot_spots=list(plan.hot_spots),
        workers_per_wave=plan.workers,
        clamped=plan.clamped,
        status="pending",
        tier2_by_lens={a.lens: 0 for a in plan.assignments},
    )


def apply_posture(delib: Deliberation, cfg: Config) -> None:
    """At open: a deliberation whose posture is off (or dialled down for its task type) records
    that at once, so a tier-2 spawn is refused as "depth off" from the start and the state is
    the same whether or not the rest of the depth machinery runs (the width-only escape)."""
    enabled, why = posture_for(delib.task_type, cfg.depth)
    if not enabled:
        apply_plan(delib, DepthPlan("off", cfg.depth.posture, False, why))


def _copy_into(target: DepthState, source: DepthState) -> None:
    for name in DepthState.model_fields:
        setattr(target, name, getattr(source, name))


def apply_plan(delib: Deliberation, plan: DepthPlan) -> None:
    """Record the plan in `delib.depth` (in place: callers may hold a reference to it)."""
    _copy_into(delib.depth, depth_state_for(plan))


def apply_outcome(delib: Deliberation, outcome: DepthOutcome) -> None:
    """Record the synthesis outcome in `delib.depth` and a warning per zeroed/cancelled result.

    Never raises: a pass count above the ceiling (a red-team round the spawn rules should have
    refused) becomes a warning here; `assert_within_ceiling` is the hard check."""
    st = delib.depth
    st.overrides = list(outcome.overrides)
    st.zeroed = list(outcome.zeroed)
    refresh_counts(delib, check=False)
    if st.passes > pass_ceiling(st):
        msg = words.warning("above_ceiling", passes=st.passes, ceiling=pass_ceiling(st))
        if msg not in delib.warnings:
            delib.warnings.append(msg)
    by_key = {a.key: a.persona for a in delib.agents}
    for key in outcome.zeroed:
        msg = words.warning("zeroed", persona=by_key.get(key, key))
        if msg not in delib.warnings:
            delib.warnings.append(msg)
    for o, why in outcome.cancelled:
        msg = words.warning("cancelled", target=o.target, hot_spot=o.hot_spot, why=why)
        if msg not in delib.warnings:
            delib.warnings.append(msg)


def count_passes(delib: Deliberation) -> int:
    """Extra passes the depth axis ran: each tier-2 worker and red team 2 (refused ones excluded)."""
    return len(_lens_records(delib)) + len(_red_team_2_records(delib))


def refresh_counts(delib: Deliberation, check: bool = True) -> None:
    """Recompute tier2_by_lens and passes from the agent records, then (check) assert the ceiling."""
    st = delib.depth
    counts = {lens: 0 for lens in st.tier2_by_lens}
    for a in _lens_records(delib):
        counts[a.persona] = counts.get(a.persona, 0) + 1
    st.tier2_by_lens = counts
    st.passes = count_passes(delib)
    if check:
        assert_within_ceiling(st)


def pass_ceiling(st: DepthState) -> int:
    """k + 1: the wave's workers (≤ DEPTH_HARD_CEILING) and red team 2."""
    return min(st.workers_per_wave, DEPTH_HARD_CEILING) + 1


def assert_within_ceiling(st: DepthState) -> None:
    """The linear-depth invariant: total extra passes ≤ k + 1 (raises AssertionError)."""
    if st.passes > pass_ceiling(st):
        raise AssertionError(words.ceiling_broken(st.passes, pass_ceiling(st), st.workers_per_wave))


# ---------------------------------------------------------------------------------------------
# the hold on DELIBERATION → RANKING


def depth_enabled(delib: Deliberation, cfg: Config) -> "tuple[bool, str]":
    return posture_for(delib.task_type, cfg.depth)


def red_team_done(delib: Deliberation, round_: int) -> bool:
    return any(a.kind == "red-team" and (a.red_team_round or 1) == round_ for a in phases.current(delib, "deliberation"))


def ranking_spawn_refusal(delib: Deliberation, cfg: Config) -> "str | None":
    """The depth axis' hold on DELIBERATION → RANKING."""
    if delib.phase not in ("RESEARCH", "DELIBERATION"):
        return None
    enabled, _why = depth_enabled(delib, cfg)
    if not enabled:
        return None
    if not red_team_done(delib, 1) and not minimum_deliberation.applies(delib):
        return words.ranking_needs_red_team(f"{delib.agent_prefix}red-team")
    if delib.depth.status in HOLDS_RANKING:
        return words.ranking_waits_for_step(open_step_text(delib))
    return None
