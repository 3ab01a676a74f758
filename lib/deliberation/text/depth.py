"""The words of the depth axis: its posture and plan, the tier-2 wave's instruction and worker
prompts, red team 2, the spawns it refuses, and what depth-aware synthesis decided.

The rules (core/depth/axis.py) decide — which posture applies, which budget is short, which
spawn rule is broken, which refutation overrides tier 1 — and pass the figures here: names,
ids, counts and the tier-1 material as plain values. Nothing here reads a deliberation.
"""

from __future__ import annotations

from typing import Literal

from deliberation.text.prompts import READ_CITED


class Tier2Denied:
    """The outcome of a tier-2 spawn refused (said by `tier2_denied` or `tier2_closed`): its kind
    travels with the hook's answer (hookio.Answer.kinds)."""

    kind: Literal["tier2_denied"] = "tier2_denied"


# what each lens does, as its worker's prompt says it
LENS_TASK = {
    "evidence-chase": "trace each contested claim to its PRIMARY source (code, data, document, "
    "recorded measurement) and say what that source actually shows",
    "counter-model": "build the strongest ALTERNATIVE explanation of each contested point and test "
    "which explanation the evidence supports",
    "edge-case-hunt": "find concrete inputs, loads, timings or states that BREAK the conclusion on "
    "each contested point, and show them",
}
LINEAR = "(linear: one red-team pass, then the depth step, then at most red team 2)"


# --------------------------------------------------------------------------------------------
# posture and plan


def posture(case: str, task_type: str = "", dial: "str | None" = None, overrides: bool = False) -> str:
    """Why the depth axis is on or off for a task type. case: off | max_lock | ceiling |
    dialled_down | opt_in_on | opt_in_off; `overrides`: MAX overrides a dial-down (`dial`)."""
    if case == "off":
        return "depth axis off (posture off): breadth only"
    if case == "max_lock":
        note = f" (overrides per_task_type {task_type}={dial})" if overrides else ""
        return f"ceiling locked by MAX{note}"
    if case == "ceiling":
        return "ceiling: deepen whenever hot spots exist"
    if case == "dialled_down":
        return f"ceiling dialled down: task type '{task_type}' is off in depth.per_task_type"
    if case == "opt_in_on":
        return f"opt-in: task type '{task_type}' is on in depth.per_task_type"
    return f"opt-in: task type '{task_type}' is not on in depth.per_task_type"


def clamped(asked: int, k: int, ceiling: int) -> str:
    """depth.workers_per_wave asked above what a wave may run."""
    return f"depth.workers_per_wave {asked} clamped to {k} (hard ceiling {ceiling} tier-2 workers per wave)"


def no_hot_spots(why: str) -> str:
    """The plan's sentence when the red-team pass left nothing contested (`why`: the posture's)."""
    return f"{why}; no hot spots after the red-team pass"


def budget_skipped(ids: "list[str]", problems: "list[list]") -> str:
    """The depth step skipped, loudly: each short budget is [kind, used, limit, need] with kind
    tokens (need unused), agents (need: the workers of the wave) or slots (need: free slots)."""
    said = []
    for kind, used, limit, need in problems:
        if kind == "tokens":
            said.append(f"used {used} of {limit} subagent tokens (depth.token_budget)")
        elif kind == "agents":
            said.append(
                f"used {used} of {limit} tier-2 agents (depth.agent_budget); "
                f"this step needs {need + 1} more ({need} worker(s) + red team 2)"
            )
        else:
            said.append(
                f"used {used} of {limit} spawn slots (spawn_budget.max_active_children); {need} tier-2 worker(s) need {need} free"
            )
    return (
        f"depth skipped: budget — {'; '.join(said)}. {len(ids)} hot spot(s) ({', '.join(ids)}) were "
        "NOT deepened; the breadth result stands."
    )


def deepening(ids: "list[str]", workers: int, clamp: str = "") -> str:
    """What the user and Claude are told of a plan that deepens."""
    text = f"depth: deepening {len(ids)} hot spot(s) ({', '.join(ids)}) with {workers} tier-2 worker(s)"
    return text + (f"; {clamp}" if clamp else "")


# --------------------------------------------------------------------------------------------
# the map, the worker prompt, the instruction


SHARED_HEAD = "--- the shared part, the same at the end of every worker's prompt:"
SHARED_END = "--- end of the shared part"


def clip(text: str, limit: "int | None") -> str:
    """`text` on one line, at most `limit` characters (None: whole)."""
    text = " ".join((text or "").split())
    return text if limit is None or len(text) <= limit else text[: limit - 1].rstrip() + "…"


# how a hot spot's kind reads: the point, not the red team's verdict ("refuted" covers weakened)
KIND_LABEL = {"refuted": "challenged", "missed_angle": "missed_angle", "contradiction": "contradiction"}


def hot_spot_line(kind: str, verdicts: "list[tuple[str, str]]") -> str:
    """A hot spot's kind as the person reads it (`deliberation show`, the record), with what the
    tier-2 workers that took it on concluded — `verdicts`: (worker, verdict) — so the label never
    says more than they found: `challenged — tier 2: evidence-chase weakened, counter-model upheld`."""
    label = KIND_LABEL.get(kind, kind)
    if not verdicts:
        return label
    return f"{label} — tier 2: " + ", ".join(f"{who} {verdict}" for who, verdict in verdicts)


# each hot spot's statement, by what made the point contested (core/depth/hot_spots.py); the
# quoted texts arrive clipped


def spot_challenged(label: str, text: str, claim: str) -> str:
    """A red-team refutation of a finding or approach (`label`, its `text`)."""
    return f'{label} ("{text}") is challenged by the red team: {claim}'


def spot_conflict(refs: "list[str]", about: str) -> str:
    """A conflict the debate named between findings or approaches."""
    return f"conflict between {', '.join(refs)}: {about}"


def spot_contradicts(persona: str, label: str, text: str, claim: str) -> str:
    """A tier-1 agent refutes another agent's finding or approach."""
    return f'{persona} contradicts {label} ("{text}"): {claim}'


def spot_split(approach: str, title: str, backing: "list[str]", opposing: "list[str]") -> str:
    """An approach some agents prefer and others oppose."""
    return f'approach {approach} ("{title}") is preferred by {", ".join(backing)} and opposed by {", ".join(opposing)}'


def spot_missed(angle: str) -> str:
    return f"missed angle: {angle}"


def spot_two_agents(detail: str) -> str:
    """The 2-agent form's disagreement itself."""
    return f"the two agents disagree: {detail}"


STATEMENT_CHARS = 560  # a hot spot's statement: its label and two claims of hot_spots.CLAIM_CHARS (240)


def hot_spot_map(spots: "list[dict]", limit: "int | None" = None) -> str:
    """The map a tier-2 worker gets. Each spot: id, kind, statement and `material`, a list of
    ["finding", ref, claim, evidence] | ["approach", id, title] | ["note", text] — the tier-1
    material and the red team's notes, claims to test, never conclusions. `limit` shortens each
    quote to that many characters (0: the statements alone)."""
    out = []
    for spot in spots:
        kind = KIND_LABEL.get(spot["kind"], spot["kind"])
        # the statement whole (up to STATEMENT_CHARS: the label and the challenger's claim, each
        # already bounded): a cut one left workers guessing the claim from "The stde…"
        out.append(f"{spot['id']} [{kind}] {clip(spot['statement'], None if limit is None else STATEMENT_CHARS)}")
        if limit == 0:
            continue
        for m in spot["material"]:
            if m[0] == "finding":
                ev = f" (evidence given: {clip(m[3], limit)})" if m[3] else ""
                line = f'tier-1 finding {m[1]}: "{clip(m[2], limit)}"{ev}'
            elif m[0] == "approach":
                line = f'tier-1 approach {m[1]}: "{clip(m[2], limit)}"'
            else:
                line = clip(m[1], limit)
            out.append(f"  - {line}")
    return "\n".join(out)


def worker_header(title: str, lens: str, ids: "list[str]") -> str:
    """The lines of one worker's prompt that are its own (the shared part follows them)."""
    return "\n".join(
        [
            f"You are a fresh tier-2 worker of a deliberation: {title}. You have no other context than this prompt.",
            f"Your lens: {LENS_TASK[lens]}.",
            f"Dig ONLY into these hot spots: {', '.join(ids)}. Nothing else is in scope.",
        ]
    )


def shared_part(question: str, floor: "list[str]", spot_map: str) -> str:
    """What every worker's prompt ends with: the question, the floor (verbatim), the map of the
    wave's hot spots, the report."""
    return "\n".join(
        [
            f"Question under deliberation: {question}" if question else "",
            "",
            floor[0],
            floor[1],
            "",
            "Map of the hot spots (tier-1 material and the red team's notes: claims to test, not answers):",
            spot_map,
            "",
            'Report (phase "deliberation"): in "hot_spots" list the ids you addressed. In "findings" '
            "put only what is NEW, each with evidence you checked yourself by reading and searching "
            "(file:line, a document, a recorded figure; you run nothing, so a test you could not run is "
            "named as one, not as a result): restating tier 1 counts as zero. "
            'In "refutations" give, per point, the target (the hot spot id, e.g. "H1"), verdict '
            "refuted / weakened / upheld — on the hot spot's tier-1 finding or approach, not on the red "
            "team's note (upheld: it stands) —, your counter-claim and its evidence; a refutation without "
            "evidence carries no weight.",
            READ_CITED,
        ]
    ).lstrip("\n")


def worker_prompt(title: str, lens: str, ids: "list[str]", question: str, floor: "list[str]", spot_map: str) -> str:
    """The exact prompt of one tier-2 worker: its own lines, then the shared part."""
    return worker_header(title, lens, ids) + "\n" + shared_part(question, floor, spot_map)


def worker_blocks(workers: "list[list]", shared: str, total: "int | None" = None) -> str:
    """One block per tier-2 worker, [subagent_type, hot spot ids, its own lines], then the part
    every worker's prompt ends with, once: what Claude sends."""
    k = total or len(workers)
    blocks = []
    for i, (agent_type, ids, header) in enumerate(workers, start=1):
        blocks.append(
            f'--- worker {i} of {k}: subagent_type "{agent_type}", '
            f"hot spots {', '.join(ids)} "
            f"— prompt: these lines, then the shared part:\n{header}\n--- end of worker {i} prompt"
        )
    blocks.append(f"{SHARED_HEAD}\n{shared}\n{SHARED_END}")
    return "\n\n".join(blocks)


def _listed(types: "list[str]") -> str:
    return " and ".join(", ".join(f"`{t}`" for t in types).rsplit(", ", 1))


def instruction(hot_spots: int, types: "list[str]", blocks: str, clamp: str = "") -> str:
    """The gate's block reason that starts the tier-2 wave: spawn `types` (one per lens) with
    the prompts of `blocks` (worker_blocks)."""
    k = len(types)
    head = [
        f"Depth axis: the red-team pass left {hot_spots} contested point(s) (hot spots), to dig into before ranking.",
        f"Next: spawn {k} FRESH tier-2 worker(s) — {_listed(types)} — one per lens, each with the Agent tool and "
        "exactly the subagent_type below; each prompt is that worker's own lines, then the shared part, "
        "both word for word.",
        'Rules (the PreToolUse hook enforces them): never subagent_type "fork" (a fork inherits '
        "this conversation, so it is not fresh); keep both anti-anchoring sentences; aim only at the "
        "listed hot spot ids; add NO synthesis, ranking or summary of what the panel concluded.",
        f"After all {k} report, spawn ONE red-team agent (red team 2) over their findings. That is "
        "the last depth pass: no second wave.",
    ]
    if clamp:
        head.append(f"Note: {clamp}.")
    return "\n".join(head) + "\n\n" + blocks


def red_team_2_instruction(red_team: str, items: "list[list]", limit: "int | None" = None) -> str:
    """The block reason once the tier-2 workers have reported: ONE red team (`red_team`: its
    subagent_type) over their items, each ["finding", ref, claim, evidence] or
    ["refutation", ref, verdict, target, claim, evidence]; `limit` shortens each quote (0: the
    refs, verdicts and targets alone — the main agent has read the workers' reports)."""
    lines = []
    for item in items:
        if item[0] == "finding":
            _kind, ref, claim, evidence = item
            ev = f" (evidence: {clip(evidence, limit)})" if evidence and limit != 0 else ""
            lines.append(f"- {ref} — {clip(claim, limit) if limit != 0 else 'new finding'}{ev}")
        else:
            _kind, ref, verdict, target, claim, evidence = item
            if limit == 0:
                lines.append(f"- {ref} — {verdict} {target}" + ("" if evidence else " (no evidence)"))
                continue
            ev = f" (evidence: {clip(evidence, limit)})" if evidence else " (no evidence)"
            lines.append(f"- {ref} — {verdict} {target}: {clip(claim, limit)}{ev}")
    lines = lines or ["- (the tier-2 workers reported no findings or refutations)"]
    return "\n".join(
        [
            "Depth axis — red team 2: the tier-2 workers have reported.",
            f"Next: spawn ONE `{red_team}` (red team 2, not a fork), its prompt starting "
            '"Phase: deliberation" with the question and the tier-2 items below; same shape as the '
            "first red-team pass: for each item, a refutation with verdict refuted / weakened / upheld "
            'and evidence, its target the ref shown (e.g. "evidence-chase:R1"); missed angles too.',
            "This is the last depth pass (linear: no further rounds). A tier-2 refute that red team 2 "
            "refutes with evidence is cancelled; one it cannot break overrides tier 1 on that point.",
            "Tier-2 items:",
            *lines,
        ]
    )


def wave_open(
    ids: "list[str]",
    spawned: int,
    workers: int,
    running: "list[str]",
    missing: "list[str]",
    floor: "list[str]",
    todo: "list[str] | tuple[()]" = (),
    blocks: str = "",
) -> str:
    """What the open wave still owes: `running` lenses to wait for, `missing` ones to spawn
    (`todo`: their subagent_types, `blocks`: their worker_blocks)."""
    listed = ", ".join(ids)
    parts = [f"Hot spots {listed}: {spawned} of {workers} tier-2 worker(s) spawned."]
    if running:
        parts.append(f"Waiting for: {', '.join(running)}.")
    if missing:
        parts.append(
            f"Still to spawn (fresh, one per lens, floor verbatim, aimed at {listed}): "
            f'{", ".join(missing)}. Each prompt must carry: "{floor[0]}" and "{floor[1]}".'
        )
        if todo:
            types = ", ".join(f"`{t}`" for t in todo)
            parts.append(f"\nNext: spawn {types} with exactly these prompts:\n" + blocks)
    elif running:
        parts.append(f"Next: wait for {', '.join(running)}; then red team 2.")
    return " ".join(parts)


def red_team_2_running() -> str:
    return "Waiting for red team 2 to report over the tier-2 findings."


# --------------------------------------------------------------------------------------------
# spawns refused


def step_closed(case: str, reason: str = "", spawned: int = 0, workers: int = 0) -> str:
    """Why no tier-2 worker may start now. case: off (`reason`: why) | not_open | not_needed |
    skipped (`reason`: the skip's) | over | exhausted (`spawned` of `workers`)."""
    if case == "off":
        return f"the depth axis is off for this deliberation ({reason}): breadth only"
    if case == "not_open":
        return "the depth step has not opened: it opens only after the first red-team pass has reported and found hot spots"
    if case == "not_needed":
        return "no hot spots: the red-team pass found nothing contested, so there is nothing to deepen"
    if case == "skipped":
        return reason or "depth was skipped"
    if case == "over":
        return "the deepen wave is over (linear: k workers + red team 2, at most k + 1 passes, never a second wave)"
    return f"passes exhausted: {spawned} of {workers} tier-2 workers already spawned (linear: one wave, k + 1 passes at most)"


def tier2_closed(closed: str) -> str:
    """A tier-2 spawn refused because the step is not open (`closed`: step_closed)."""
    return f'Tier-2 spawn denied — rule "depth step open": {closed}.'


def tier2_denied(broken: "list[list]") -> str:
    """A tier-2 spawn refused: each broken rule is [rule, ...figures]: fork [planned] | lens_type
    [lenses, asked] | planned [planned] | one_per_lens [lens] | floor [missing sentences] |
    hot_spots [ids] | synthesis [what it carries]."""
    said = []
    for rule, *fig in broken:
        if rule == "fork":
            said.append(
                'rule "fresh worker": subagent_type "fork" inherits this conversation (tier 1 '
                f"and its consensus), so it is not fresh; spawn one of {', '.join(fig[0])} instead"
            )
        elif rule == "lens_type":
            said.append(f'rule "lens type": a tier-2 worker is one of {", ".join(fig[0])}, not "{fig[1]}"')
        elif rule == "planned":
            said.append(f'rule "planned lenses": this wave has {len(fig[0])} worker(s): {", ".join(fig[0])}')
        elif rule == "one_per_lens":
            said.append(f'rule "one worker per lens": {fig[0]} was already spawned in this wave')
        elif rule == "floor":
            said.append('rule "anti-anchoring floor": the prompt must carry, verbatim, ' + " and ".join(f'"{s}"' for s in fig[0]))
        elif rule == "hot_spots":
            said.append(f'rule "hot spots only": the prompt names none of the hot spots {", ".join(fig[0])}')
        else:
            said.append(
                'rule "no consensus to flatter": the prompt carries the tier-1 synthesis/consensus ('
                + "; ".join(fig[0])
                + "); give only the hot spots and the red team's notes"
            )
    return (
        "Tier-2 spawn denied (depth axis):\n- "
        + "\n- ".join(said)
        + "\nRe-spawn with the exact prompt from the depth-axis gate reason."
    )


def carried(label: str, share: float) -> str:
    """One tier-1 consensus text a tier-2 prompt carries (for tier2_denied's synthesis rule)."""
    return f"{label} ({share:.0%} of its wording)"


def red_team_before_tier2(running: "list[str]", missing: "list[str]") -> str:
    """Red team 2 asked for before the tier-2 workers have all reported."""
    why = f"still running: {', '.join(running)}" if running else f"not spawned yet: {', '.join(missing)}"
    return (
        'Red-team spawn denied — rule "red team 2 after tier 2": red team 2 reviews the '
        f"tier-2 findings, so the tier-2 workers come first ({why})."
    )


def red_team_after_red_team_2() -> str:
    return (
        'Red-team spawn denied — rule "linear, no ping-pong": red team 2 has already run; the '
        "depth axis allows k + 1 extra passes and no further red-team rounds."
    )


def second_pass(case: str, who: str = "", reason: str = "") -> str:
    """A second red-team pass before the depth step. `who`: the first pass' agents. case:
    running | waiting (the first reported; the other agents have not) | skipped (`reason`: the
    skip's) | nothing_contested | ran (`reason`: the step's, if any)."""
    head = 'Red-team spawn denied — rule "one red-team pass, then the depth step": '
    if case == "running":
        return (
            head + f"the first red-team pass ({who}) is still running. Wait for its report: the "
            "depth step plans every point it refutes."
        )
    tail = f" A second pass would replace the first report, and what it refutes would never be planned {LINEAR}."
    if case == "waiting":
        return (
            head + f"the first red-team pass ({who}) has reported; the depth step runs on it once "
            "the other deliberation agents have reported." + tail + " Next: wait for them."
        )
    if case == "skipped":
        why = f"the depth step ran on it and was skipped: {reason}"
    elif case == "nothing_contested":
        why = f"the first red-team pass ({who}) found nothing contested, so the depth step had nothing to deepen"
    else:
        why = reason or "the depth step has run"
    return head + why + "." + tail + " Next: rank every approach (spawn the personas again)."


def ranking_needs_red_team(red_team: str) -> str:
    """DELIBERATION → RANKING before the one red-team pass (`red_team`: its subagent_type)."""
    return (
        "DELIBERATION → RANKING refused: the depth axis is on for this task type, so one "
        "red-team pass comes before ranking; it may be the only pass if nothing is contested. "
        "(The minimum viable deliberation — exactly two research personas, each stating its "
        "position — needs none: its AGAINST agent is that pass.)\n"
        f'Next: spawn ONE `{red_team}` — prompt starting "Phase: deliberation" '
        "with the question, the approaches and every research finding — to break the converged "
        "points (refutations with evidence, missed angles)."
    )


def ranking_waits_for_step(owed: str) -> str:
    """DELIBERATION → RANKING while the depth step is open (`owed`: wave_open or red team 2's)."""
    return "DELIBERATION → RANKING refused: the depth step is open.\n" + owed


# --------------------------------------------------------------------------------------------
# depth-aware synthesis


def zeroed(persona: str, key: str, items: int) -> str:
    """A tier-2 worker whose every item restates tier 1."""
    return f"{persona} ({key}) restated tier 1 ({items} item(s), no new finding): zero signal, tier 1 stands"


def no_weight(case: str, ref: str, target: str = "", why: str = "") -> str:
    """A tier-2 refute that carries no weight. case: no_evidence | restates | target (`why`:
    target_problem)."""
    if case == "no_evidence":
        return f"{ref} refutes {target} without evidence: no weight"
    if case == "restates":
        return f"{ref} restates a tier-1 finding: zero signal"
    return f"{ref}: {why}"


def target_problem(case: str, target: str, kind: str = "", between: "list[str] | tuple[()]" = ()) -> str:
    """Why a refute's target cannot be overturned. case: nothing (hot spot `target` of `kind`
    holds no tier-1 finding or approach) | between (it holds several) | unknown | outside |
    unranked (`target` is one research persona's own approach, not one the rankers rank)."""
    if case == "unranked":
        return f"{target} is one research persona's own approach, not one of the approaches ranked: nothing is struck"
    if case == "nothing":
        return f"{target} ({kind}) has no tier-1 finding or approach to overturn"
    if case == "between":
        return f"{target} is between {', '.join(between)}: name the finding or approach refuted"
    if case == "unknown":
        return f'target "{target}" is no tier-1 finding, approach or hot spot'
    return f"{target} is not part of any hot spot (tier 2 digs only into hot spots)"


def effect(target: str, finding: bool, claim: str) -> str:
    """What an override does to its target (a finding, else an approach)."""
    if finding:
        return f"finding {target} overturned: {claim}"
    return f"approach {target} struck from the leading position: {claim}"


def cancelled_by(key: str, verdict: str, target: str, claim: str, evidence: str) -> str:
    """Why red team 2 cancelled an override."""
    return f"red team 2 ({key}) {verdict} {target}: {claim} — evidence: {evidence}"


def outcome(
    deliberation: str, overrides: "list[list]", zeroed: int, cancelled: "list[list]", notes: "list[str]", struck: "list[str]"
) -> str:
    """The progress note after depth-aware synthesis: overrides [hot spot, effect, by, evidence],
    cancelled [hot spot, target, why], the notes of refutes without weight, the approaches struck
    from the lead. (The caller adds the next step.)"""
    lines = [
        f"Depth-aware synthesis for {deliberation}: {len(overrides)} override(s), "
        f"{zeroed} tier-2 result(s) zeroed, {len(cancelled)} cancelled by red team 2."
    ]
    lines += [f"- OVERRIDE {spot}: {eff} (by {by}; evidence: {ev})" for spot, eff, by, ev in overrides]
    lines += [f"- cancelled {spot} {target}: {why}" for spot, target, why in cancelled]
    lines += [f"- {n}" for n in notes]
    if struck:
        lines.append(f"Ranking will exclude {', '.join(struck)} from the leading position.")
    return "\n".join(lines)


def warning(case: str, **fig: "str | int") -> str:
    """A warning the deliberation records. case: above_ceiling (passes, ceiling) | zeroed
    (persona) | cancelled (target, hot_spot, why)."""
    if case == "above_ceiling":
        return f"depth axis ran {fig['passes']} extra passes, above its ceiling of {fig['ceiling']} (k workers + red team 2)"
    if case == "zeroed":
        return f"tier-2 worker {fig['persona']} restated tier 1: zero signal"
    return f"depth override on {fig['target']} ({fig['hot_spot']}) cancelled: {fig['why']}"


def ceiling_broken(passes: int, ceiling: int, workers: int) -> str:
    """The linear-depth invariant broken (an AssertionError's message)."""
    return f"depth axis ran {passes} passes, ceiling is {ceiling} (k={workers} + red team 2)"


def tier2_lines(items: "list[list]") -> str:
    """The tier-2 items whole, one line each with the ref red team 2 targets (the workflow's red
    team 2 prompt; a placeholder when none)."""
    lines = []
    for item in items:
        if item[0] == "finding":
            _kind, ref, claim, evidence = item
            ev = f" (evidence: {evidence})" if evidence else ""
            lines.append(f"- {ref} — {claim}{ev}")
        else:
            _kind, ref, verdict, target, claim, evidence = item
            ev = f" (evidence: {evidence})" if evidence else " (no evidence)"
            lines.append(f"- {ref} — {verdict} {target}: {claim}{ev}")
    return "\n".join(lines or ["- (the tier-2 workers reported no findings or refutations)"])
