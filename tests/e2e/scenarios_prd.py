"""Scripted deliberations for PRD_GENERATION: how the main agent answers the
plugin's request for the decision document.

They reuse `scenarios_gates.StagedDeliberation` (research → synthesis → red team → ranking, one
wave per message) and change only the concluding answer:

    DocumentOnRequest   writes the document as soon as the plugin asks (with the vote's news)
    DocumentWhenSentBack  concludes without it, then writes it after the Stop hook's send-back
    UntracedDocument    writes one that cites an id the deliberation never produced, every time
"""

from __future__ import annotations

import json

from fake_api import ApiRequest, ReplyLike
from scenarios import DOCUMENT_SEND_BACK, concluding_answer, decision_document
from scenarios_gates import StagedDeliberation

PROSE = (
    "Decision: A, a per-node price cache with a 30 s TTL and invalidation events. The security "
    "analyst's concern about stale promotion prices stands as dissent; B and C were ranked lower."
)


class DocumentOnRequest(StagedDeliberation):
    final_text = PROSE


class DocumentWhenSentBack(StagedDeliberation):
    """Ends its turn with prose only; writes the document once the Stop hook sent it back."""

    final_text = PROSE

    def final(self, req: ApiRequest) -> ReplyLike:
        if req.saw(DOCUMENT_SEND_BACK):
            return concluding_answer(self.final_text, req)
        return self.final_text


class UntracedDocument(StagedDeliberation):
    """Cites `security-analyst:F9` (no such finding) in a requirement, even after the send-back."""

    final_text = PROSE

    def final(self, req: ApiRequest) -> ReplyLike:
        doc = decision_document([("security-analyst:F1", "finding")])
        doc["requirements"][0]["sources"] = ["security-analyst:F9"]
        return f"{self.final_text}\n\n```json\n{json.dumps(doc, indent=1)}\n```"
