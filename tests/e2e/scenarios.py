"""Building blocks for scripted deliberations: who-is-asking dispatch, persona reports, and a
ready-made persona panel.

A scenario is any callable `scenario(ApiRequest) -> reply` (see fake_api). `Scenario` dispatches
each request to `main`, `subagent` or `side`; subclass it and override what the test scripts.
`PersonaPanel` is the common case: the main agent spawns one subagent per persona (foreground
or background), each subagent answers with a report, the main agent waits for every report and
ends its turn. Tests customise it by passing reports, or by overriding `main_after_reports` /
`persona_reply`.

Scenario code must be a function of the request (the client may retry a request, and subagents
run concurrently): derive progress from `req.tool_uses`, `req.tool_results` and
`req.task_notifications` rather than from counters.
"""

from __future__ import annotations

import json
import re
from typing import Any

from fake_api import ApiRequest, Reply, ReplyLike, agent_call, as_reply, text, tool_use

PERSONA_TAG = re.compile(r"^PERSONA: ([a-z0-9-]+)$", re.M)
TOOL_USE_ID = re.compile(r"<tool-use-id>([^<]+)</tool-use-id>")
BACKGROUND_LAUNCH = "Async agent launched successfully"
# an auto-mode subagent's report reaches the main agent as a message from its agent id
AGENT_MESSAGE_FROM = re.compile(r'<agent-message from="([^"]+)">')
LAUNCHED_AGENT_ID = re.compile(r"agentId: ([A-Za-z0-9_-]+)")
HANDBACK_TOOL = "SubagentHandback"


# --------------------------------------------------------------------------- reports


def report(phase: str = "research", **fields: Any) -> dict:
    """A valid agent report (lib/deliberation/state/agent_report.py's AgentReport); fields override."""
    base = {
        "phase": phase,
        "summary": "Reviewed the proposal from my perspective.",
        "findings": [
            {
                "id": "F1",
                "claim": "Token revocation needs a server-side deny list.",
                "evidence": "src/auth/session.py:42",
                "severity": "high",
            }
        ],
        "approaches": [
            {
                "id": "A",
                "title": "Short-lived JWT plus deny list",
                "summary": "15-minute tokens, refresh rotation, deny list in Redis.",
            },
            {"id": "B", "title": "Keep server sessions", "summary": "Status quo with a faster session store."},
        ],
        "scores": {},
        "verdict": "approve",
        "preferred_approach": "A",
        "rationale": "A removes the session store from the hot path and keeps revocation.",
        "dissent": [],
        "confidence": 0.7,
        "refutations": [],
        "conflicts": [],
        "missed_angles": [],
        "hot_spots": [],
    }
    base.update(fields)
    return base


def report_message(data: "dict | str", prose: str = "Here is my analysis.") -> str:
    """A subagent's final message: prose, then ONE fenced JSON block (a dict is serialised; a
    string is used verbatim, which lets a test send a malformed block)."""
    body = data if isinstance(data, str) else json.dumps(data, indent=2)
    return f"{prose}\n\n```json\n{body}\n```"


# --------------------------------------------------------------------------- the decision document

CITABLE_HEADER = "Ids you may cite ("
CITABLE_LINE = re.compile(r"^- (\S+) \((finding|dissent|refutation|hot spot)[^)]*\): ")
CITABLE_GROUPED = re.compile(r"^- ([A-Za-z0-9_.-]+|hot spots): (.+)$")
GROUP_KINDS = {"findings": "finding", "dissent": "dissent", "refutations": "refutation"}
DOCUMENT_REQUEST = "write the decision document"  # the request, once the vote passed
DOCUMENT_SEND_BACK = "the decision document is the last step"  # the Stop hook's send-back


def citable_ids(seen: str) -> "list[tuple[str, str]]":
    """(id, kind) of every item the plugin's LAST request for the decision document listed."""
    at = seen.rfind(CITABLE_HEADER)
    if at < 0:
        return []
    out = []
    lines = seen[at:].splitlines()[1:]
    if lines and lines[0].startswith("(findings and hot spots by id"):  # a long catalogue: findings one
        for line in lines[1:]:  # line per agent, dissent and refutations whole
            whole = CITABLE_LINE.match(line.strip())
            if whole:
                out.append((whole.group(1), whole.group(2)))
                continue
            m = CITABLE_GROUPED.match(line.strip())
            if not m:
                break
            for group in m.group(2).split("; "):
                ids, _, kind = group.partition(" (")
                for local in ids.split(", "):
                    sid = local if m.group(1) == "hot spots" else f"{m.group(1)}:{local}"
                    out.append((sid, GROUP_KINDS.get(kind.rstrip(")"), "hot spot")))
        return out
    for line in lines:
        m = CITABLE_LINE.match(line.strip())
        if not m:
            break
        out.append((m.group(1), m.group(2)))
    return out


def decision_document(ids: "list[tuple[str, str]]", rejected: bool = False, decision: str = "") -> dict:
    """What a model that follows the request writes: requirements and criteria from the findings,
    risks from the dissent (else the findings), open questions from the hot spots."""
    findings = [i for i, k in ids if k == "finding"] or [i for i, _k in ids]
    dissent = [i for i, k in ids if k == "dissent"] + [i for i, k in ids if k == "refutation"] or findings
    spots = [i for i, k in ids if k == "hot spot"]
    doc: dict = {
        "document": "prd",
        "decision": decision
        or (
            "Adopt none of the approaches: the panel rejected all of them."
            if rejected
            else "Adopt the leading approach the panel ranked first."
        ),
        "problem": "The question the user asked the panel to decide.",
        "non_goals": [{"text": "Anything outside the decided scope.", "sources": []}],
        "risks": [
            {
                "id": "RISK1",
                "risk": "The dissenting concern materialises.",
                "mitigation": "Track it in review.",
                "severity": "high",
                "sources": dissent[:2],
            }
        ],
        "open_questions": [{"question": "What evidence would make us revisit this?", "sources": (spots or findings)[:1]}],
    }
    if not rejected:
        doc["requirements"] = [
            {"id": f"R{n}", "text": f"Honour finding {f}.", "priority": "must", "sources": [f]}
            for n, f in enumerate(findings[:3], start=1)
        ]
        doc["acceptance_criteria"] = [
            {
                "id": "AC1",
                "text": "Each requirement is checked by a test.",
                "verifies": [r["id"] for r in doc["requirements"]],
                "sources": findings[:1],
            }
        ]
    return doc


def concluding_answer(prose: str, req: ApiRequest) -> str:
    """`prose`, and the decision document block when the plugin asked for one (its request with
    the vote's news, or the Stop hook's send-back): what a model that follows the request ends
    its concluding answer with."""
    seen = req.all_text
    ids = citable_ids(seen)
    if not ids:
        return prose
    rejected = "It needs at least one risk." in seen[max(0, seen.rfind(CITABLE_HEADER) - 1500) :]
    return f"{prose}\n\n```json\n{json.dumps(decision_document(ids, rejected), indent=1)}\n```"


# --------------------------------------------------------------------------- request questions


def persona_of(req: ApiRequest) -> "str | None":
    """The persona slug a `PersonaPanel` wrote into the subagent's prompt (`PERSONA: slug`)."""
    match = PERSONA_TAG.search(req.agent_prompt)
    return match.group(1) if match else None


def agent_spawns(req: ApiRequest) -> "list[dict]":
    """Every `Agent`/`Task` tool_use the agent issued so far."""
    return [u for u in req.tool_uses if u.get("name") in ("Agent", "Task")]


def notified_tool_use_ids(req: ApiRequest) -> "set[str]":
    """tool_use ids of background agents announced finished: by a <task-notification>, or (auto
    mode) by the `<agent-message from="<agent id>">` that brings the agent's hand-back — its
    Agent call's launch result names that agent id."""
    ids = {m for note in req.task_notifications for m in TOOL_USE_ID.findall(note)}
    seen = "\n".join(_message_text(m) for m in req.messages if m.get("role") != "assistant")
    handed = set(AGENT_MESSAGE_FROM.findall(seen))
    if handed:
        for spawn in agent_spawns(req):
            result = req.tool_result_for(spawn["id"])
            launched = LAUNCHED_AGENT_ID.search(result["text"]) if result else None
            if launched and launched.group(1) in handed:
                ids.add(spawn["id"])
    return ids


def _message_text(message: dict) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text")


def agent_outcomes(req: ApiRequest) -> "dict[str, str]":
    """tool_use id of each spawn → 'background' (launched, report still to come), 'done'
    (foreground report in the tool result, or background notification received), 'error'
    (tool result flagged as error, e.g. a PreToolUse denial) or 'pending' (no result yet)."""
    notified = notified_tool_use_ids(req)
    outcomes = {}
    for spawn in agent_spawns(req):
        result = req.tool_result_for(spawn["id"])
        if spawn["id"] in notified:
            outcomes[spawn["id"]] = "done"
        elif result is None:
            outcomes[spawn["id"]] = "pending"
        elif result.get("is_error"):
            outcomes[spawn["id"]] = "error"
        elif BACKGROUND_LAUNCH in result["text"]:
            outcomes[spawn["id"]] = "background"
        else:
            outcomes[spawn["id"]] = "done"
    return outcomes


def waiting_for_background(req: ApiRequest) -> bool:
    return any(v == "background" for v in agent_outcomes(req).values())


# --------------------------------------------------------------------------- scenarios


def handed_back(req: ApiRequest, reply: ReplyLike) -> ReplyLike:
    """A subagent's final answer as an auto-mode subagent gives it: when the client offers the
    SubagentHandback tool (auto mode; its final text is not delivered there), the answer's text
    becomes that call's `message` — what a model that follows the tool's description does.
    Anything else (a tool call, a session in another mode) goes out unchanged."""
    if HANDBACK_TOOL not in req.tool_names:
        return reply
    reply = as_reply(reply)
    if any(b.get("type") == "tool_use" for b in reply.blocks):
        return reply
    message = "\n\n".join(b["text"] for b in reply.blocks if b.get("type") == "text")
    out = Reply([tool_use(HANDBACK_TOOL, {"message": message})])
    out.hold = reply.hold
    return out


class Scenario:
    """Dispatch by who is asking. Override `main` and `subagent`; `side` answers the client's
    small side calls (no tools offered) with plain text."""

    side_text = "Scripted deliberation"

    def __call__(self, req: ApiRequest) -> ReplyLike:
        if req.is_side_request:
            return self.side(req)
        if req.is_subagent:
            return handed_back(req, self.subagent(req))
        return self.main(req)

    def side(self, req: ApiRequest) -> ReplyLike:
        return self.side_text

    def main(self, req: ApiRequest) -> ReplyLike:
        raise NotImplementedError(f"{type(self).__name__} has no main-agent script")

    def subagent(self, req: ApiRequest) -> ReplyLike:
        raise NotImplementedError(f"{type(self).__name__} has no subagent script")


class PersonaPanel(Scenario):
    """The main agent spawns one subagent per persona in ONE message, waits for every report
    (foreground tool results or background task notifications) and ends its turn.

    personas     slug → report dict (or a ready message string) the persona answers with
    agent_types  slug → subagent_type to request (default: the slug; plugin mode needs the
                 prefix, use harness.agent_type)
    background   True → `run_in_background` omitted (the client's default: background);
                 False → `run_in_background: false` (foreground)
    """

    question = "Should we replace server sessions with JWT access tokens?"
    final_text = "Decision: approach A (short-lived JWT plus deny list); dissent recorded."
    waiting_text = "The persona agents are running in the background; I will wait for their reports."

    def __init__(
        self, personas: "dict[str, dict | str]", agent_types: "dict[str, str] | None" = None, background: bool = False
    ) -> None:
        self.personas = personas
        self.agent_types = agent_types or {}
        self.background = background

    # -- main agent ------------------------------------------------------------------

    def main(self, req: ApiRequest) -> ReplyLike:
        if not agent_spawns(req):
            return self.spawn_message(req)
        if waiting_for_background(req):
            return self.waiting_text
        return self.main_after_reports(req)

    def spawn_message(self, req: ApiRequest) -> list:
        blocks: list = [text("I will consult the personas independently.")]
        for slug in self.personas:
            blocks.append(
                agent_call(
                    prompt=self.persona_prompt(slug),
                    subagent_type=self.agent_types.get(slug, slug),
                    description=f"{slug} research",
                    run_in_background=None if self.background else False,
                )
            )
        return blocks

    def persona_prompt(self, slug: str) -> str:
        return f"PERSONA: {slug}\nResearch phase. Question: {self.question}\nWork independently. End with one fenced JSON report."

    def main_after_reports(self, req: ApiRequest) -> ReplyLike:
        return self.final_text

    # -- subagents -------------------------------------------------------------------

    def subagent(self, req: ApiRequest) -> ReplyLike:
        slug = persona_of(req)
        if slug not in self.personas:
            return f"I am not part of this panel (prompt: {req.agent_prompt[:80]!r})."
        return self.persona_reply(slug, req)

    def persona_reply(self, slug: str, req: ApiRequest) -> ReplyLike:
        answer = self.personas[slug]
        return answer if isinstance(answer, str) else report_message(answer, prose=f"{slug} findings.")
