"""What the model and the person read, rendered from the outcomes the rules return.

Each module holds the outcomes of one kind of answer — plain data: which rule, which figures,
which next step — and the words they are said in (docs/ARCHITECTURE.md lists the modules). A rule
builds an outcome or passes its figures; the handler that answers the hook renders it, and the
few sentences kept in state files are rendered by the same functions. tests/data/answers/ holds
one golden file per text and case, so a change of wording is one module here and a reviewed diff
there. `Words` is an answer in its two forms.
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
