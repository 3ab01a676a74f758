"""What the model and the person read, rendered from the outcomes the rules return.

Each module holds the outcomes of one kind of answer — plain data: which rule, which figures,
which next step — and the words they are said in. A rule builds an outcome; the handler that
answers the hook renders it (`render`), and the few sentences kept in state files (a gate's next
step) are rendered by the same functions. The golden files under tests/data/answers/ hold one
rendered answer per case (tests/data/answers/README.md says how to regenerate them), so a change
of wording is one module here and a reviewed diff there.

    gates.py   Gate 1 and Gate 2: the failed checks with their figures, and the next step
    notes.py   what follows a report: the vote passed, the 2-agent form, the depth step's news
    stop.py    the Stop: held, failed, the decision document sent back, the deliberation complete
    document.py  the Write call that hands over the decision document: recorded, refused, not due
    budget.py  the spawn budget and the Workflow tool: refusals, warnings, overruns
    refusals.py  a spawn or message refused: isolation, missing findings, the vote, one model
    depth.py   the depth axis: posture and plan, the tier-2 wave, red team 2, its refusals, synthesis
    self_rating.py  the once-per-session instruction: rate a decision, deliberate below the bar
    net.py     the mid-task net: the note after a risky call, the reason of a held one
    switch.py  the off switch for one session: off, on, already off; a failed prune
    phases.py  the phase machine: the reason a change records, an illegal step, a skipped phase
    progress.py  the progress note and the next accepted step; the blind ranking's instruction
    reports.py  a report sent back to its agent; an agent that will not report
    messages.py  a SendMessage to a deliberation agent refused, with its next step
    conformity.py  what each herding detector saw
    route.py   the route after the vote: each fired rule's detail, its summary
    cost.py    what a deliberation cost, in one sentence
    evaluation.py  `deliberation eval`'s table
    script.py  why a Workflow script's agent count has no bound
    review.py  while a decision awaits a person: a risky tool's hold, the Stop's, the user's notice
    protocol.py  the DELIBERATION PROTOCOL injected when a prompt triggers
    prompts.py  what the plugin's workflow tells each of its agents
    trigger.py  the trigger's cue labels and the reason of its decision
    tokens.py  what the subagent token figure counts
    prune.py   why a prune removes, trims or keeps an item
"""

from __future__ import annotations


class Words:
    """One answer in the two forms the client passes on: what the model reads (a hook's reason
    or additionalContext) and what the person sees (its systemMessage). Either may be absent.
    (A __slots__ class: text/refusals.py is on the fast path, and dataclasses imports inspect.)"""

    __slots__ = ("model", "person")

    def __init__(self, model: "str | None" = None, person: "str | None" = None) -> None:
        self.model = model
        self.person = person

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Words) and (self.model, self.person) == (other.model, other.person)

    def __hash__(self) -> int:
        return hash((self.model, self.person))

    def __repr__(self) -> str:
        return f"Words(model={self.model!r}, person={self.person!r})"
