"""Claude Code's hook protocol: typed events in, answer dialects out (docs/HOOK_ANSWERS.md states,
as measured on 2.1.328, what the client does with each answer).

Events tolerate unknown and missing optional fields; a payload that is not a JSON object or
lacks a usable `session_id` raises `PayloadError`; both names of the subagent tool (`Agent`,
`Task`) are accepted. Answers are rendered here and only here (`Answer.render`), each in the form
the client shows the model as what it is: PreToolUse a permission decision with its reason, and
context; PostToolUse context only (a block there holds nothing); a Stop or SubagentStop block as
additionalContext (the turn stays open, the model reads it once); UserPromptSubmit context, and
on a task notification `stop_reason` as `{"continue": false, "stopReason": …}` — no model turn,
the notification kept for the next request with "Operation stopped by hook: <reason>"
(core/quiet_wait.py); `systemMessage` for the user only. Stdlib only: every hook's fast path
imports it.
"""

from __future__ import annotations

from deliberation.wire import fastjson

from deliberation import defaults
from deliberation.wire.worker_protocol import MAX_PAYLOAD_BYTES  # the one limit, applied where stdin is read

SUBAGENT_TOOLS = frozenset({"Agent", "Task"})
# the client's other tools that start or resume subagents (docs/CLIENT_CHANNELS.md)
WORKFLOW_TOOL = "Workflow"
SEND_MESSAGE_TOOL = "SendMessage"
CHANNEL_TOOLS = SUBAGENT_TOOLS | {WORKFLOW_TOOL, SEND_MESSAGE_TOOL}
# the tool a workflow agent given a schema reports with (its input is the report)
REPORT_TOOL = "StructuredOutput"
# the tool every subagent of an auto-mode session hands its report back with (`{"message": …}`;
# its final text is then not delivered): docs/CLIENT_CHANNELS.md
HANDBACK_TOOL = "SubagentHandback"
# the permission mode in which the client offers it (measured on 2.1.328 and 2.1.332)
AUTO_MODE = "auto"
# the tools that act on the project: while a decision awaits review they need a person's yes
# (config `escalation.risky_tools` overrides it; hooks.json's PreToolUse matcher is the same)
RISKY_TOOLS = defaults.RISKY_TOOLS
TOOL_PATTERN_MAX = 2000  # characters of a tool-name pattern


def tool_names(pattern: object) -> "list[str] | None":
    """The tool names of a tool-name pattern as the config takes it — names joined by `|`, each of
    letters, digits, `_`, `-`, `:`, optionally ending in `.*` (any tool whose name starts so):
    `Edit|Write|mcp__github__.*` — or None when it is not one. Bounded syntax, never a regular
    expression: matching it costs a few string comparisons whatever the config says."""
    if not isinstance(pattern, str) or not pattern or len(pattern) > TOOL_PATTERN_MAX:
        return None
    names = pattern.split("|")
    for n in names:
        body = n[:-2] if n.endswith(".*") else n
        if not body or not all(c.isalnum() or c in "_-:" for c in body):
            return None
    return names


def tool_matches(names: "list[str]", tool: str) -> bool:
    """Whether `tool` is one of the names (a `.*` name: any tool starting with it)."""
    return any(tool.startswith(n[:-2]) if n.endswith(".*") else tool == n for n in names)


EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "SubagentStart",
    "SubagentStop",
    "Stop",
    "SessionEnd",
)


TASK_NOTIFICATION = "<task-notification>"
AGENT_MESSAGE = "<agent-message from="
AGENT_MESSAGE_END = "\n</agent-message>"
# the line of the client's frame after which an agent message holds the hand-back, each line indented
HANDBACK_REPORT_FOLLOWS = "The report follows:\n"
# what a task notification's <result> says instead of a report in an auto-mode session
HANDBACK_RESULTS = (
    "This agent's report was delivered to you as a message from",  # it handed its report back
    "The subagent ended without delivering a report through SubagentHandback",  # it did not
)


def is_task_notification(prompt: str) -> bool:
    """A UserPromptSubmit whose prompt announces a finished background subagent to the main
    agent (the client writes `<task-notification>…`): it is not the user's prompt."""
    return prompt.lstrip().startswith(TASK_NOTIFICATION)


def is_agent_message(prompt: str) -> bool:
    """A UserPromptSubmit whose prompt is a subagent's hand-back reaching the main agent (the
    client writes `<agent-message from="<agent id>">…`): it is not the user's prompt."""
    return prompt.lstrip().startswith(AGENT_MESSAGE)


def is_agent_turn(prompt: str) -> bool:
    """A turn the client gives the main agent for an agent's result — a task notification or a
    hand-back message — never the user's prompt: no trigger, no protocol, no new deliberation."""
    head = prompt.lstrip()
    return head.startswith(TASK_NOTIFICATION) or head.startswith(AGENT_MESSAGE)


def agent_messages(prompt: str) -> "list[tuple[str, str]]":
    """(agent id, report) of each `<agent-message from="…">` block of `prompt`: the report is the
    text after the frame's "The report follows:" line, each line's two-space indent removed
    (the client indents every line of it); '' when the frame holds none."""
    out = []
    at = prompt.find(AGENT_MESSAGE)
    while at >= 0:
        start = at + len(AGENT_MESSAGE)
        quote = prompt[start : start + 1]
        end_id = prompt.find(quote, start + 1) if quote in ('"', "'") else -1
        close = prompt.find(AGENT_MESSAGE_END, start)  # at column zero: the report's own lines are indented
        if end_id < 0 or close < 0:
            break
        agent_id = prompt[start + 1 : end_id]
        body = prompt[end_id + 1 : close]
        follows = body.find(HANDBACK_REPORT_FOLLOWS)
        report = ""
        if follows >= 0:
            lines = body[follows + len(HANDBACK_REPORT_FOLLOWS) :].split("\n")
            report = "\n".join(line[2:] if line.startswith("  ") else line for line in lines).strip("\n")
        out.append((agent_id, report))
        at = prompt.find(AGENT_MESSAGE, close + len(AGENT_MESSAGE_END))
    return out


def is_handback_result(result: str) -> bool:
    """A task notification's result that is the client's sentence about a hand-back, not a report."""
    return result.lstrip().startswith(HANDBACK_RESULTS)


def handed_back_result(result: str) -> bool:
    """That sentence says the report WAS handed back (it reached the main agent as a message)."""
    return result.lstrip().startswith(HANDBACK_RESULTS[0])


class PayloadError(ValueError):
    """The hook's stdin is not a payload we can act on."""


def _str(d: dict, key: str) -> "str | None":
    v = d.get(key)
    return v if isinstance(v, str) else None


def _dict(d: dict, key: str) -> dict:
    v = d.get(key)
    return v if isinstance(v, dict) else {}


def _bool(d: dict, key: str, default: bool = False) -> bool:
    v = d.get(key)
    return v if isinstance(v, bool) else default


class Event:
    """Fields common to every hook payload."""

    __slots__ = (
        "raw",
        "hook_event_name",
        "session_id",
        "transcript_path",
        "cwd",
        "prompt_id",
        "permission_mode",
        "agent_id",
        "agent_type",
        "event_id",
        "rerun",
    )

    def __init__(self, raw: dict) -> None:
        self.raw = raw
        self.hook_event_name = _str(raw, "hook_event_name") or ""
        sid = raw.get("session_id")
        if not isinstance(sid, str) or not sid:
            raise PayloadError("payload has no session_id")
        self.session_id = sid
        self.transcript_path = _str(raw, "transcript_path")
        self.cwd = _str(raw, "cwd")
        self.prompt_id = _str(raw, "prompt_id")
        self.permission_mode = _str(raw, "permission_mode")
        # present when the event fires inside a subagent (PreToolUse from a child, SubagentStop…)
        self.agent_id = _str(raw, "agent_id")
        self.agent_type = _str(raw, "agent_type")
        # set by the runner: this hook invocation's id, and whether a worker took it and died
        self.event_id: "str | None" = None
        self.rerun = False


class UserPromptSubmit(Event):
    __slots__ = ("prompt",)

    def __init__(self, raw: dict) -> None:
        super().__init__(raw)
        self.prompt = _str(raw, "prompt") or ""

    @property
    def is_task_notification(self) -> bool:
        """A finished background subagent announced to the main agent — not a user's prompt."""
        return is_task_notification(self.prompt)

    @property
    def is_agent_message(self) -> bool:
        """A subagent's hand-back delivered to the main agent — not a user's prompt."""
        return is_agent_message(self.prompt)

    @property
    def is_agent_turn(self) -> bool:
        """A task notification or a hand-back message: the client's turn for an agent's result."""
        return is_agent_turn(self.prompt)


class ToolEvent(Event):
    __slots__ = ("tool_name", "tool_input", "tool_use_id")

    def __init__(self, raw: dict) -> None:
        super().__init__(raw)
        self.tool_name = _str(raw, "tool_name") or ""
        self.tool_input = _dict(raw, "tool_input")
        self.tool_use_id = _str(raw, "tool_use_id")

    @property
    def is_subagent_tool(self) -> bool:
        return self.tool_name in SUBAGENT_TOOLS

    @property
    def is_channel_tool(self) -> bool:
        """Any tool that starts or resumes a subagent: Agent/Task, Workflow, SendMessage."""
        return self.tool_name in CHANNEL_TOOLS

    @property
    def spawn_model(self) -> "str | None":
        """The Agent tool's `model` (an alias: sonnet, opus, haiku, …), when given."""
        return _str(self.tool_input, "model") or None

    # -- Workflow ---------------------------------------------------------------------------
    @property
    def workflow_script(self) -> "str | None":
        return _str(self.tool_input, "script")

    @property
    def workflow_script_path(self) -> "str | None":
        return _str(self.tool_input, "scriptPath")

    @property
    def workflow_name(self) -> "str | None":
        return _str(self.tool_input, "name")

    @property
    def workflow_args(self) -> object:
        return self.tool_input.get("args")

    # -- SendMessage ------------------------------------------------------------------------
    @property
    def message_to(self) -> str:
        """The recipient: an agent id, a name, "main" (a trailing " [ref]" dropped)."""
        to = (_str(self.tool_input, "to") or _str(self.tool_input, "recipient") or "").strip()
        if to.endswith("]") and " [" in to:
            to = to.rsplit(" [", 1)[0].strip()
        return to

    @property
    def message_text(self) -> str:
        return _str(self.tool_input, "message") or _str(self.tool_input, "content") or ""

    # -- SubagentHandback -------------------------------------------------------------------
    @property
    def handback_message(self) -> str:
        """The report a subagent hands back (SubagentHandback's `message`)."""
        return _str(self.tool_input, "message") or ""

    @property
    def subagent_type(self) -> str:
        return _str(self.tool_input, "subagent_type") or "general-purpose"

    @property
    def spawn_prompt(self) -> str:
        return _str(self.tool_input, "prompt") or ""

    @property
    def run_in_background(self) -> bool:
        """The client's default is background (true) when the field is absent."""
        return _bool(self.tool_input, "run_in_background", True)


class PreToolUse(ToolEvent):
    __slots__ = ()


class PostToolUse(ToolEvent):
    __slots__ = ("tool_response",)

    def __init__(self, raw: dict) -> None:
        super().__init__(raw)
        self.tool_response = _dict(raw, "tool_response")

    @property
    def status(self) -> "str | None":
        return _str(self.tool_response, "status")

    @property
    def child_agent_id(self) -> "str | None":
        return _str(self.tool_response, "agentId")

    @property
    def report_text(self) -> str:
        """The foreground subagent's final text (all text blocks of `content`)."""
        content = self.tool_response.get("content")
        if isinstance(content, str):
            return content
        if not isinstance(content, list):
            return ""
        parts = [b.get("text") for b in content if isinstance(b, dict)]
        return "\n".join(p for p in parts if isinstance(p, str))

    @property
    def total_tokens(self) -> int:
        v = self.tool_response.get("totalTokens")
        return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else 0

    @property
    def resolved_model(self) -> "str | None":
        """The model the client resolved for the spawned agent (foreground and background)."""
        return _str(self.tool_response, "resolvedModel") or None

    @property
    def workflow_launch(self) -> "dict[str, str]":
        """A Workflow launch: taskId, runId, workflowName (empty strings when absent)."""
        return {k: _str(self.tool_response, k) or "" for k in ("taskId", "runId", "workflowName")}

    @property
    def resumed_agent_id(self) -> "str | None":
        """SendMessage: the agent the message resumed (None when it was not sent)."""
        if self.tool_response.get("success") is False:
            return None
        return _str(self.tool_response, "resumedAgentId") or _str(self.tool_response, "revivedAgentId")

    @property
    def message_sent(self) -> bool:
        return self.tool_response.get("success") is True


class PostToolUseFailure(ToolEvent):
    """The tool call failed after PreToolUse allowed it (e.g. an unknown agent type)."""

    __slots__ = ("error",)

    def __init__(self, raw: dict) -> None:
        super().__init__(raw)
        self.error = _str(raw, "error") or ""


class SubagentStart(Event):
    __slots__ = ()


class StopEvent(Event):
    __slots__ = ("stop_hook_active", "last_assistant_message", "background_tasks")

    def __init__(self, raw: dict) -> None:
        super().__init__(raw)
        self.stop_hook_active = _bool(raw, "stop_hook_active")
        self.last_assistant_message = _str(raw, "last_assistant_message") or ""
        tasks = raw.get("background_tasks")
        self.background_tasks = [t for t in tasks if isinstance(t, dict)] if isinstance(tasks, list) else []

    @property
    def lists_background_tasks(self) -> bool:
        """The payload says which background tasks run (2.1.x Stop / SubagentStop)."""
        return isinstance(self.raw.get("background_tasks"), list)

    @property
    def running_background_ids(self) -> "list[str]":
        return [t["id"] for t in self.background_tasks if isinstance(t.get("id"), str) and t.get("status") == "running"]


class SubagentStop(StopEvent):
    __slots__ = ("agent_transcript_path",)

    def __init__(self, raw: dict) -> None:
        super().__init__(raw)
        self.agent_transcript_path = _str(raw, "agent_transcript_path")


class Stop(StopEvent):
    __slots__ = ()


class SessionEvent(Event):
    __slots__ = ()


_CLASSES = {
    "UserPromptSubmit": UserPromptSubmit,
    "PreToolUse": PreToolUse,
    "PostToolUse": PostToolUse,
    "PostToolUseFailure": PostToolUseFailure,
    "SubagentStart": SubagentStart,
    "SubagentStop": SubagentStop,
    "Stop": Stop,
    "SessionStart": SessionEvent,
    "SessionEnd": SessionEvent,
}


def check_size(size: int) -> None:
    """The one payload limit: a hook's stdin of more than MAX_PAYLOAD_BYTES is refused."""
    if size > MAX_PAYLOAD_BYTES:
        raise PayloadError(f"payload of {size} bytes exceeds {MAX_PAYLOAD_BYTES}")


def parse(data: "bytes | str", expected_event: str) -> Event:
    """Parse stdin into the event class of `expected_event` (the script's own event)."""
    if not data or not data.strip():
        raise PayloadError("empty stdin")
    check_size(len(data))
    try:
        raw = fastjson.loads(data)
    except (ValueError, RecursionError) as exc:
        raise PayloadError(f"stdin is not JSON ({str(exc)[:80]})") from None
    if not isinstance(raw, dict):
        raise PayloadError(f"payload is a JSON {type(raw).__name__}, not an object")
    name = raw.get("hook_event_name")
    if name is not None and name != expected_event:
        raise PayloadError(f"payload is for {name!r}, this hook handles {expected_event!r}")
    return _CLASSES[expected_event](raw)


# Events whose answer to the model is additionalContext, and those of them where a block is
# said as context too (measured: docs/HOOK_ANSWERS.md). On Stop and SubagentStop any context
# holds the turn: it is only ever given with a block.
# What the client passes on (measured on 2.1.328, docs/HOOK_ANSWERS.md): an additionalContext of
# more than CONTEXT_LIMIT characters reaches the model as "Output too large … Preview (first
# 2KB)" and a file path. The plugin's long answers are built to fit ANSWER_BUDGET (a 10 % margin);
# `render` cuts anything longer at CUT_AT, saying so, rather than let the client replace it whole.
CONTEXT_LIMIT = 10_000
ANSWER_BUDGET = 9_000
CUT_AT = 9_600


def fitted(text: str, limit: int = CUT_AT) -> str:
    """`text` as the client passes it on whole: at most `limit` characters, a cut said."""
    if len(text) <= limit:
        return text
    note = f"\n… [{len(text) - limit} more characters cut: the client passes at most {CONTEXT_LIMIT} on]"
    return text[: limit - len(note)] + note


CONTEXT_EVENTS = ("UserPromptSubmit", "PostToolUse", "SessionStart", "SubagentStart", "PreToolUse", "Stop", "SubagentStop")
HOLD_BY_CONTEXT = ("PostToolUse", "Stop", "SubagentStop")


class Answer:
    """What a hook tells the client. Empty answer → print nothing (proceed).

    `decision` is what the plugin decided — deny / ask / allow a tool call, or block: the main
    agent (or the subagent) must act before it goes on — and stays so in the event log;
    `render` turns it into the event's dialect. `kinds`: the kinds of the outcomes it says (the
    `kind` of the text layer's outcome classes, e.g. "gate_failed"), for the event log and the
    demo to dispatch on — never rendered: the client never sees them."""

    __slots__ = ("decision", "reason", "context", "system_message", "updated_input", "stop_reason", "kinds")

    def __init__(
        self,
        decision: "str | None" = None,
        reason: "str | None" = None,
        context: "str | None" = None,
        system_message: "str | None" = None,
        updated_input: "dict | None" = None,
        stop_reason: "str | None" = None,
        kinds: "tuple[str, ...]" = (),
    ) -> None:
        self.decision = decision  # PreToolUse: allow|deny|ask; others: block
        self.reason = reason
        self.context = context
        self.system_message = system_message
        # PreToolUse: the tool runs with this input instead (the user's permission rules still apply)
        self.updated_input = updated_input
        # UserPromptSubmit of a task notification: no model turn now (`continue: false`), said so
        self.stop_reason = stop_reason
        self.kinds = tuple(kinds)

    @classmethod
    def block(cls, reason: str, context: "str | None" = None, system_message: "str | None" = None) -> "Answer":
        return cls("block", reason, context, system_message)

    @classmethod
    def deny(cls, reason: str, context: "str | None" = None, system_message: "str | None" = None) -> "Answer":
        return cls("deny", reason, context, system_message)

    @classmethod
    def ask(cls, reason: str, context: "str | None" = None, system_message: "str | None" = None) -> "Answer":
        return cls("ask", reason, context, system_message)

    def is_empty(self) -> bool:
        return not (self.decision or self.context or self.system_message or self.updated_input is not None or self.stop_reason)

    def warn(self, message: str) -> "Answer":
        """Add a line to the user-visible systemMessage."""
        self.system_message = f"{self.system_message}\n{message}" if self.system_message else message
        return self

    def render(self, event_name: str) -> "dict | None":
        """The hook's stdout object for `event_name` (None: print nothing). See the module
        docstring for why each event gets the form it gets."""
        if self.is_empty():
            return None
        out: dict = {}
        specific: dict = {}
        context = self.context
        if event_name == "PreToolUse":
            if self.decision in ("allow", "deny", "ask"):
                specific["permissionDecision"] = self.decision
                if self.reason:
                    specific["permissionDecisionReason"] = self.reason
            if self.updated_input is not None and self.decision != "deny":
                specific["updatedInput"] = self.updated_input
        elif event_name in HOLD_BY_CONTEXT:
            # a block is said as context: the same hold (Stop/SubagentStop), read once, no command line
            if self.decision == "block" or context:
                reason = self.reason if self.decision == "block" else None
                context = "\n\n".join(p for p in (reason, context) if p) or "The deliberation plugin holds this step."
        elif self.decision == "block" and event_name == "UserPromptSubmit":
            out["decision"] = "block"
            out["reason"] = self.reason or "blocked by the deliberation plugin"
        if self.stop_reason and event_name == "UserPromptSubmit":
            out["continue"] = False
            out["stopReason"] = self.stop_reason
        if context and event_name in CONTEXT_EVENTS:
            specific["additionalContext"] = fitted(context)
        if specific:
            specific["hookEventName"] = event_name
            out["hookSpecificOutput"] = specific
        if self.system_message:
            out["systemMessage"] = self.system_message
        return out or None

    @classmethod
    def read(cls, event_name: str, out: "dict | None") -> "Answer":
        """What a hook's stdout object means to the client (the inverse of `render` as far as
        the client can tell): on Stop and SubagentStop additionalContext is a hold (block). A
        PostToolUse block, said as context, reads back as context — as the model reads it."""
        out = out if isinstance(out, dict) else {}
        specific = got if isinstance(got := out.get("hookSpecificOutput"), dict) else {}
        context = specific.get("additionalContext")
        if event_name == "PreToolUse":
            updated = specific.get("updatedInput")
            return cls(
                specific.get("permissionDecision"),
                specific.get("permissionDecisionReason"),
                context,
                out.get("systemMessage"),
                updated if isinstance(updated, dict) else None,
            )
        if event_name in ("Stop", "SubagentStop") and context:
            return cls("block", context, None, out.get("systemMessage"))
        stop_reason = (out.get("stopReason") or "stopped") if out.get("continue") is False else None
        return cls(out.get("decision"), out.get("reason"), context, out.get("systemMessage"), stop_reason=stop_reason)

    def to_json(self, event_name: str) -> str:
        rendered = self.render(event_name)
        return "" if rendered is None else fastjson.dumps(rendered, ensure_ascii=False)

    def saying(self, *kinds: str) -> "Answer":
        """This answer, said of outcomes of these kinds too (empty kinds ignored)."""
        self.kinds = tuple(dict.fromkeys(k for k in self.kinds + kinds if k))
        return self

    def summary(self) -> dict:
        """A compact form for the event log (replay compares these; `kinds` as a list)."""
        out = {k: getattr(self, k) for k in self.__slots__ if getattr(self, k)}
        if self.kinds:
            out["kinds"] = list(self.kinds)
        return out
