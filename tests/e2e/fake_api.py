"""A scripted stand-in for the Anthropic Messages API, for driving the real Claude Code CLI.

`FakeApi` serves HTTP on 127.0.0.1 (ephemeral port) from a thread. Every `POST .../v1/messages`
is parsed into an `ApiRequest` and handed to the SCENARIO — a plain callable
`scenario(request) -> reply` — whose reply (a `Reply`, a string, or a list of blocks) is sent
back exactly as the real API would: a server-sent-event stream (`message_start`,
`content_block_start/delta/stop` per block, `message_delta`, `message_stop`), or one JSON
message when the request says `"stream": false`. `POST .../count_tokens` answers
`{"input_tokens": N}`; anything else is logged and answered 404 with an API-shaped error.

Every request (method, path, full JSON body, the reply sent) is kept in `FakeApi.log`;
`FakeApi.snapshot()` freezes it as a `RequestLog`, so a test can assert what the model was shown. `ApiRequest` carries the helpers a scenario needs to tell
who is asking: the main agent, a subagent (identified by its first user message — the prompt the
main agent gave it) or a side request of the client (title generation and other small-model
calls, which offer no tools).
"""

from __future__ import annotations

import itertools
import json
import re
import threading
import traceback
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterable, Union

MODEL_FALLBACK = "claude-sonnet-4-5"
SYSTEM_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>\s*", re.S)
SUBAGENT_MARK = "cc_is_subagent=true"
TASK_NOTIFICATION = re.compile(r"<task-notification>.*?</task-notification>", re.S)


# --------------------------------------------------------------------------- replies


def text(value: str) -> dict:
    """A text content block."""
    return {"type": "text", "text": value}


_tool_ids = itertools.count(1)
_tool_ids_lock = threading.Lock()


def tool_use(name: str, input: dict, id: "str | None" = None) -> dict:
    """A tool_use content block; ids are unique per process unless given."""
    if id is None:
        with _tool_ids_lock:
            id = f"toolu_e2e_{next(_tool_ids):05d}"
    return {"type": "tool_use", "id": id, "name": name, "input": input}


def agent_call(
    prompt: str,
    subagent_type: str = "general-purpose",
    description: "str | None" = None,
    run_in_background: "bool | None" = None,
    id: "str | None" = None,
    **extra: Any,
) -> dict:
    """An `Agent` tool call. `run_in_background=None` omits the key (the client's default:
    background). Extra keys (model, isolation, ...) go into the input unchanged."""
    payload: dict = {"description": description or f"{subagent_type} task", "prompt": prompt, "subagent_type": subagent_type}
    if run_in_background is not None:
        payload["run_in_background"] = run_in_background
    payload.update(extra)
    return tool_use("Agent", payload, id=id)


@dataclass
class Reply:
    """One assistant message: content blocks; stop_reason follows from them unless given."""

    blocks: list = field(default_factory=list)
    stop_reason: "str | None" = None
    # called before the reply is sent, outside the scenario lock: a subagent that must finish
    # after some event waits here without holding up the other agents' requests
    hold: "Callable[[], None] | None" = field(default=None, repr=False, compare=False)

    @property
    def effective_stop_reason(self) -> str:
        if self.stop_reason:
            return self.stop_reason
        return "tool_use" if any(b["type"] == "tool_use" for b in self.blocks) else "end_turn"


ReplyLike = Union[Reply, str, dict, list]
Scenario = Callable[["ApiRequest"], ReplyLike]


def as_reply(value: ReplyLike) -> Reply:
    """Normalise what a scenario returned: str → one text block, block or list → blocks."""
    if isinstance(value, Reply):
        return value
    if isinstance(value, str):
        return Reply([text(value)])
    if isinstance(value, dict):
        return Reply([value])
    if isinstance(value, (list, tuple)):
        return Reply([text(b) if isinstance(b, str) else b for b in value])
    raise TypeError(f"a scenario must return Reply, str, a block or a list of blocks, not {value!r}")


# --------------------------------------------------------------------------- requests


def _block_text(block: Any) -> str:
    if isinstance(block, str):
        return block
    if not isinstance(block, dict):
        return ""
    kind = block.get("type")
    if kind == "text":
        return block.get("text", "")
    if kind == "tool_result":
        return _content_text(block.get("content"))
    if kind == "tool_use":
        return json.dumps(block.get("input", {}), sort_keys=True)
    return ""


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_block_text(b) for b in content)
    return ""


def _blocks(message: dict) -> list:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return content if isinstance(content, list) else []


class ApiRequest:
    """One parsed Messages API request, with the questions a scenario asks of it."""

    def __init__(self, body: dict, path: str = "/v1/messages", index: int = 0) -> None:
        self.body = body
        self.path = path
        self.index = index
        self.messages: list = body.get("messages") or []
        self.model: str = body.get("model") or MODEL_FALLBACK
        self.stream: bool = bool(body.get("stream", False))

    # -- who is asking -----------------------------------------------------------------

    @property
    def system(self) -> str:
        """The system prompt as one string (the API accepts a string or a list of blocks)."""
        return _content_text(self.body.get("system"))

    @property
    def tool_names(self) -> "list[str]":
        return [t.get("name", "") for t in self.body.get("tools") or [] if isinstance(t, dict)]

    @property
    def is_side_request(self) -> bool:
        """A side call of the client (title generation, summaries, ...): it offers no tools.
        Agent turns — main agent and subagents alike — always carry a tools list."""
        return not self.tool_names

    @property
    def is_subagent(self) -> bool:
        """A subagent's turn (any depth). The client marks it in the first system block
        (`cc_is_subagent=true`); subagents are offered the `Agent` tool too, so the tools list
        does not tell them apart. See `agent_prompt` for telling the subagents apart."""
        return not self.is_side_request and SUBAGENT_MARK in self.system

    @property
    def is_main_agent(self) -> bool:
        return not self.is_side_request and not self.is_subagent

    @property
    def first_user_text(self) -> str:
        """Text of the first user message, system reminders removed. For a subagent this is
        the prompt the main agent gave it; for the main agent it is the user's prompt."""
        for message in self.messages:
            if message.get("role") == "user":
                return self._strip(_content_text(message.get("content")))
        return ""

    agent_prompt = first_user_text

    # -- what has happened so far ---------------------------------------------------------

    @property
    def tool_results(self) -> "list[dict]":
        """Every tool_result block in the conversation, oldest first, with `text` added."""
        out = []
        for message in self.messages:
            if message.get("role") != "user":
                continue
            for block in _blocks(message):
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    out.append({**block, "text": _content_text(block.get("content"))})
        return out

    @property
    def tool_uses(self) -> "list[dict]":
        """Every tool_use block the assistant sent so far, oldest first."""
        out = []
        for message in self.messages:
            if message.get("role") == "assistant":
                out.extend(b for b in _blocks(message) if isinstance(b, dict) and b.get("type") == "tool_use")
        return out

    def tool_result_for(self, tool_use_id: str) -> "dict | None":
        return next((r for r in self.tool_results if r.get("tool_use_id") == tool_use_id), None)

    @property
    def assistant_turns(self) -> int:
        """How many assistant messages the conversation already holds."""
        return sum(1 for m in self.messages if m.get("role") == "assistant")

    @property
    def last_user_text(self) -> str:
        """Text of the newest user message (tool results included), reminders kept."""
        for message in reversed(self.messages):
            if message.get("role") == "user":
                return _content_text(message.get("content"))
        return ""

    @property
    def new_messages(self) -> "list[dict]":
        """The messages after the agent's last reply: what is new to it in this request (tool
        results, hook feedback, task notifications)."""
        last = max((i for i, m in enumerate(self.messages) if m.get("role") == "assistant"), default=-1)
        return self.messages[last + 1 :]

    @property
    def new_text(self) -> str:
        return "\n".join(_content_text(m.get("content")) for m in self.new_messages)

    def saw(self, needle: str) -> bool:
        """Whether `needle` appears anywhere the model can read (system prompt, any message)."""
        return needle in self.all_text

    @property
    def all_text(self) -> str:
        """The system prompt and every message's text: for `"needle" in req.all_text`."""
        parts = [self.system]
        parts.extend(_content_text(m.get("content")) for m in self.messages)
        return "\n".join(parts)

    @property
    def task_notifications(self) -> "list[str]":
        """Every `<task-notification>` block (finished background subagents) seen so far. The
        client sends one as a user message when the agent is idle, but as a `system` message
        when it arrives while the agent is mid-turn: both count."""
        return TASK_NOTIFICATION.findall(
            "\n".join(_content_text(m.get("content")) for m in self.messages if m.get("role") != "assistant")
        )

    @staticmethod
    def _strip(value: str) -> str:
        return SYSTEM_REMINDER.sub("", value).strip()

    def __repr__(self) -> str:
        who = "side" if self.is_side_request else ("sub" if self.is_subagent else "main")
        return f"<ApiRequest #{self.index} {who} turns={self.assistant_turns} {self.first_user_text[:40]!r}>"


# --------------------------------------------------------------------------- wire format


def _sse(event: str, data: dict) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def _usage(request: ApiRequest, output_tokens: int) -> dict:
    return {
        "input_tokens": estimate_tokens(request.body),
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }


def estimate_tokens(body: dict) -> int:
    """A stable, plausible token count (about four characters a token)."""
    return max(1, len(json.dumps(body)) // 4)


def message_json(request: ApiRequest, reply: Reply, message_id: str) -> dict:
    """The non-streaming answer."""
    output_tokens = max(1, len(json.dumps(reply.blocks)) // 4)
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": request.model,
        "content": reply.blocks,
        "stop_reason": reply.effective_stop_reason,
        "stop_sequence": None,
        "usage": _usage(request, output_tokens),
    }


def sse_events(request: ApiRequest, reply: Reply, message_id: str) -> Iterable[bytes]:
    """The streaming answer, event by event, as the real API sends it."""
    start = message_json(request, Reply([], reply.stop_reason), message_id)
    start.update(content=[], stop_reason=None)
    start["usage"]["output_tokens"] = 1
    yield _sse("message_start", {"type": "message_start", "message": start})
    for index, block in enumerate(reply.blocks):
        if block["type"] == "text":
            yield _sse(
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}},
            )
            yield _sse(
                "content_block_delta",
                {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": block["text"]}},
            )
        elif block["type"] == "tool_use":
            head = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            yield _sse("content_block_start", {"type": "content_block_start", "index": index, "content_block": head})
            yield _sse(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "input_json_delta", "partial_json": json.dumps(block["input"])},
                },
            )
        else:
            raise ValueError(f"unsupported block type {block['type']!r}")
        yield _sse("content_block_stop", {"type": "content_block_stop", "index": index})
    output_tokens = max(1, len(json.dumps(reply.blocks)) // 4)
    yield _sse(
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": reply.effective_stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": output_tokens},
        },
    )
    yield _sse("message_stop", {"type": "message_stop"})


# --------------------------------------------------------------------------- server


@dataclass
class LoggedRequest:
    """One request as received, and what was answered."""

    method: str
    path: str
    body: Any
    status: int
    reply: "Reply | None" = None
    error: "str | None" = None

    @property
    def request(self) -> "ApiRequest | None":
        if isinstance(self.body, dict) and self.path.split("?")[0].endswith("/v1/messages"):
            return ApiRequest(self.body, self.path)
        return None


class RequestLog:
    """A list of logged requests and the questions tests ask of it."""

    def __init__(self, entries: "list[LoggedRequest]") -> None:
        self.entries = list(entries)

    def __len__(self) -> int:
        return len(self.entries)

    @property
    def requests(self) -> "list[ApiRequest]":
        """Every Messages request, in arrival order (side requests included)."""
        out = []
        for i, entry in enumerate(self.entries):
            req = entry.request
            if req is not None:
                req.index = i
                out.append(req)
        return out

    @property
    def agent_requests(self) -> "list[ApiRequest]":
        """Requests of the main agent and of subagents (side requests left out)."""
        return [r for r in self.requests if not r.is_side_request]

    @property
    def main_requests(self) -> "list[ApiRequest]":
        return [r for r in self.requests if r.is_main_agent]

    @property
    def side_requests(self) -> "list[ApiRequest]":
        return [r for r in self.requests if r.is_side_request]

    def subagent_requests(self, prompt_contains: str = "") -> "list[ApiRequest]":
        """Subagent requests whose prompt (first user message) contains the string."""
        return [r for r in self.requests if r.is_subagent and prompt_contains in r.first_user_text]

    @property
    def other_calls(self) -> "list[LoggedRequest]":
        """Everything that was not a Messages request (count_tokens, probes of other paths)."""
        return [e for e in self.entries if e.request is None]

    @property
    def errors(self) -> "list[LoggedRequest]":
        """Requests the scenario failed on (their traceback is in `error`)."""
        return [e for e in self.entries if e.error]

    def dump(self, path: str) -> None:
        """Write the log as JSON lines (for post-mortems)."""
        with open(path, "w", encoding="utf-8") as fh:
            for entry in self.entries:
                row = {
                    "method": entry.method,
                    "path": entry.path,
                    "status": entry.status,
                    "body": entry.body,
                    "error": entry.error,
                    "reply": entry.reply.blocks if entry.reply else None,
                }
                fh.write(json.dumps(row) + "\n")


class FakeApi:
    """The stand-in server. Use as a context manager or call start()/stop().

    `scenario` may be replaced between runs (`api.scenario = ...`). Scenario calls are
    serialised by a lock, so a stateful scenario needs no locking of its own.
    """

    def __init__(self, scenario: "Scenario | None" = None) -> None:
        self.scenario: "Scenario | None" = scenario
        self.log: "list[LoggedRequest]" = []
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._server: "ThreadingHTTPServer | None" = None
        self._thread: "threading.Thread | None" = None

    # -- lifecycle ------------------------------------------------------------------------

    def start(self) -> "FakeApi":
        handler = _make_handler(self)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-api", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> "FakeApi":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "FakeApi is not running"
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # -- what was asked -------------------------------------------------------------------

    def snapshot(self, since: int = 0) -> "RequestLog":
        """The requests logged so far (from entry `since` on), frozen."""
        with self._lock:
            return RequestLog(self.log[since:])

    @property
    def errors(self) -> "list[LoggedRequest]":
        return self.snapshot().errors

    # -- answering ------------------------------------------------------------------------

    def _answer(self, req: ApiRequest) -> Reply:
        with self._lock:
            if self.scenario is None:
                return Reply([text("(no scenario)")])
            return as_reply(self.scenario(req))

    def _record(self, entry: LoggedRequest) -> int:
        with self._lock:
            self.log.append(entry)
            return len(self.log) - 1

    def _next_message_id(self) -> str:
        with self._lock:
            return f"msg_e2e_{next(self._ids):05d}"


def _make_handler(api: FakeApi) -> type:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # keep pytest output clean
            pass

        def _body(self) -> Any:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                return json.loads(raw) if raw else None
            except ValueError:
                return raw.decode("utf-8", "replace")

        def _send_json(self, status: int, payload: dict) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _not_found(self, body: Any) -> None:
            api._record(LoggedRequest(self.command, self.path, body, 404))
            self._send_json(
                404, {"type": "error", "error": {"type": "not_found_error", "message": f"no route {self.command} {self.path}"}}
            )

        def do_GET(self) -> None:
            self._not_found(None)

        def do_HEAD(self) -> None:
            api._record(LoggedRequest("HEAD", self.path, None, 200))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_POST(self) -> None:
            body = self._body()
            route = self.path.split("?")[0].rstrip("/")
            if route.endswith("/v1/messages/count_tokens"):
                api._record(LoggedRequest("POST", self.path, body, 200))
                self._send_json(200, {"input_tokens": estimate_tokens(body if isinstance(body, dict) else {})})
            elif route.endswith("/v1/messages") and isinstance(body, dict):
                self._messages(body)
            else:
                self._not_found(body)

        def _messages(self, body: dict) -> None:
            req = ApiRequest(body, self.path)
            try:
                reply = api._answer(req)
            except Exception:  # noqa: BLE001 - the scenario's bug: make it visible to the test, not a hang
                error = traceback.format_exc()
                api._record(LoggedRequest("POST", self.path, body, 500, error=error))
                self._send_json(500, {"type": "error", "error": {"type": "api_error", "message": error}})
                return
            if reply.hold is not None:
                reply.hold()
            req.index = api._record(LoggedRequest("POST", self.path, body, 200, reply=reply))
            message_id = api._next_message_id()
            if not req.stream:
                self._send_json(200, message_json(req, reply, message_id))
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            for chunk in sse_events(req, reply, message_id):
                self.wfile.write(chunk)
            self.wfile.flush()
            self.close_connection = True

    return Handler
