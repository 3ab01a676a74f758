"""Where the main agent hands over the decision document: a Write call the plugin reads.

The decision document is structured data for the record, not text for the user, so it does not
end the concluding answer. The main agent calls the Write tool with `file_path` =
`<project>/.claude/deliberation/documents/<deliberation id>.json` and the document as
`content`. The PreToolUse hook reads the content from the call itself (the client's payload
carries it whole), checks it like the concluding answer's block (core/prd.py) and records it in
the deliberation's state — and denies the call, so nothing is written: the file would be one
the plugin did not write, and `.claude/` is a folder the client guards itself (a hook's allow
does not open it: a headless Write there is refused as a "sensitive file", an interactive one
asks the person). The deny's reason is what the model reads as the tool's result: recorded,
or what to fix, each with the next step (docs/HOOK_ANSWERS.md).

Stdlib only: the fast path asks `target` for every Write, to send this one to the slow path.
"""

from __future__ import annotations

import posixpath

TOOL = "Write"
FOLDER = ".claude/deliberation/documents"


def relative(delib_id: str) -> str:
    """The path the request names, under the project folder."""
    return f"{FOLDER}/{delib_id}.json"


def target(tool_name: str, tool_input: object, cwd: str) -> "str | None":
    """The deliberation id a Write call hands a document to — a path ending in
    `<FOLDER>/<id>.json`, absolute or relative to `cwd` — else None. The folder's parent is not
    compared with the project's path: a symlinked path (macOS' /var → /private/var) names the
    same place, the id must be the open deliberation's, and the call writes nothing anyway."""
    if tool_name != TOOL or not isinstance(tool_input, dict):
        return None
    path = tool_input.get("file_path")
    if not isinstance(path, str) or not path.endswith(".json"):
        return None
    folder, name = posixpath.split(posixpath.normpath(posixpath.join(cwd or "/", path)))
    if not (folder + "/").endswith("/" + FOLDER + "/"):
        return None
    return name[: -len(".json")] or None
