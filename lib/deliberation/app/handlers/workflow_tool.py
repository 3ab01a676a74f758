"""The Workflow tool's PreToolUse: read the script the call will run, then decide (core/workflows.py).

The script is read here — inline, from `scriptPath`, or a saved workflow of the project
(`.claude/workflows/<name>.js`) — and bounded in size; its agent() calls are counted by
core/workflow_plan.py. PostToolUse and PostToolUseFailure go to core/workflows.py too.
"""

from __future__ import annotations

import errno
import os

from deliberation.app.handlers.common import Ctx
from deliberation.core import workflows
from deliberation.state.paths import plugin_agent_prefix
from deliberation.state import safe_read
from deliberation.wire import hookio

MAX_SCRIPT_BYTES = 512 * 1024


def pre(ctx: Ctx, event: hookio.PreToolUse) -> hookio.Answer:
    script, source = _script(ctx, event)
    return workflows.requested(ctx, event, script, source, plugin_agent_prefix())


def _script(ctx: Ctx, event: hookio.PreToolUse) -> "tuple[str | None, str]":
    """The script the call will run: inline, from `scriptPath`, or a saved workflow of the
    project (`.claude/workflows/<name>.js`). (None, why) when it cannot be read."""
    if event.workflow_script_path:
        return _read(event.workflow_script_path, "the script file")
    if event.workflow_script:
        return event.workflow_script, "inline"
    name = event.workflow_name
    if name and "/" not in name and not name.startswith("."):
        for folder in (os.path.join(ctx.layout.project, ".claude", "workflows"),):
            for ext in (".js", ".mjs"):
                path = os.path.join(folder, name + ext)
                if os.path.isfile(path):
                    return _read(path, f"saved workflow {name!r}")
        return None, f"workflow {name!r} is a saved or built-in workflow whose script the plugin cannot read"
    return None, "the call names no script"


def _read(path: str, what: str) -> "tuple[str | None, str]":
    try:  # a project file: never through a link, never a FIFO, bounded
        data = safe_read.read_bytes(path, MAX_SCRIPT_BYTES)
    except safe_read.Refused as exc:
        if exc.errno == errno.EFBIG:
            return None, f"{what} is larger than {MAX_SCRIPT_BYTES} bytes"
        return None, f"{what} could not be read ({exc.why})"
    except OSError as exc:
        return None, f"{what} could not be read ({exc.strerror or exc})"
    return data.decode("utf-8", "replace"), what
