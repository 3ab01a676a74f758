"""The drafter on the turn-by-turn path (core/drafting.py says what it drafts from).

Once the vote has passed, the main agent may spawn the drafter with the Agent tool and any
prompt: PreToolUse replaces the prompt with the drafter's material (`updatedInput` — every
report's citable item whole, the decision, the shape), so the main agent never carries the list
of ids. The drafter ends its answer with the document as one fenced json block; SubagentStop
checks and records it (one send-back to the drafter with the exact problem), and the Agent
call's PostToolUse tells the main agent the short outcome — or, when no document was recorded,
the request to write it itself. Pure over the Turn.
"""

from __future__ import annotations

from deliberation.core import drafting, engine, independence
from deliberation.text import conformity as conformity_words
from deliberation.core.turn import Turn
from deliberation.text import drafting as words
from deliberation.text.render import render
from deliberation.wire import hookio


def spawned(turn: Turn, event: hookio.PreToolUse) -> hookio.Answer:
    """PreToolUse of an Agent call that spawns the drafter: its prompt becomes the material."""
    delib = turn.active()
    if event.agent_id or delib is None or not drafting.due(delib):
        phase = delib.phase if delib is not None else ""
        turn.notes.append("drafter spawn refused: no document due")
        return hookio.Answer.deny(words.not_due(delib.id if delib is not None else "", phase))
    material = drafting.material(delib)
    turn.notes.append(f"drafter handed its material ({len(material.encode())} bytes)")
    return hookio.Answer(updated_input={**event.tool_input, "prompt": material, "run_in_background": False})


def stopped(turn: Turn, event: hookio.SubagentStop) -> hookio.Answer:
    """SubagentStop of the drafter: its document is recorded, or sent back once with the problem."""
    delib = turn.active()
    if delib is None or not drafting.due(delib):
        return hookio.Answer()
    problem = drafting.record(delib, event.last_assistant_message or "", turn.now)
    delib.updated_at = turn.now
    if problem is None:
        turn.notes.append("decision document recorded from the drafter")
        return hookio.Answer()
    turn.notes.append("drafted document refused: " + problem.splitlines()[0][:100])
    if event.stop_hook_active:
        return hookio.Answer()
    return hookio.Answer.block(words.send_back(problem))


def returned(turn: Turn, event: hookio.PostToolUse) -> hookio.Answer:
    """PostToolUse of the drafter's Agent call: what the main agent is told."""
    delib = turn.active()
    if delib is None or delib.phase != "PRD_GENERATION":
        return hookio.Answer()
    if delib.prd.status == "accepted" and delib.prd.via == "drafter":
        m = independence.measure(delib)
        beyond = conformity_words.beyond_context(m.findings, len(m.restated), len(m.dropped)) + "\n" if m.findings else ""
        return hookio.Answer(context=beyond + drafting.outcome_text(delib, drafting.record_path(delib.id)))
    return hookio.Answer(context=words.NOT_RECORDED + "\n" + render(engine.document_due(delib)))
