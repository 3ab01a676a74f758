"""The Workflow tool's PreToolUse: read the script the call will run, then decide (core/workflows.py).

The script is read here — inline, from `scriptPath`, or the saved workflow the client resolves
the name to (by its meta.name: state/client_files.py, core/shadows.py) — and bounded in size; its agent() calls are counted by
core/workflow_plan.py. PostToolUse and PostToolUseFailure go to core/workflows.py too.
"""

from __future__ import annotations

import errno

from deliberation.app.handlers.common import Ctx
from deliberation.app import vouch
from deliberation.core import shadows
from deliberation.core.instructions import WORKFLOW_NAME
from deliberation.state import client_files
from deliberation.state.paths import hook_env
from deliberation.text import shadows as words
from deliberation.core import workflows
from deliberation.state.paths import plugin_agent_prefix
from deliberation.state import safe_read
from deliberation.wire import hookio

MAX_SCRIPT_BYTES = 512 * 1024


def pre(ctx: Ctx, event: hookio.PreToolUse) -> hookio.Answer:
    refused = _foreign_agents(ctx, event)
    if refused is not None:
        return refused
    script, source = _script(ctx, event)
    return workflows.requested(ctx, event, script, source, plugin_agent_prefix())


def _foreign_agents(ctx: Ctx, event: hookio.PreToolUse) -> "hookio.Answer | None":
    """The install.sh form's plugin workflow runs bare agent types: refused before it runs while
    a file the plugin does not vouch for takes a shipped agent's name (app/vouch.py)."""
    if ctx.vouch is None or ctx.vouch.prefix or event.workflow_name != WORKFLOW_NAME:
        return None
    taken = vouch.foreign_definitions(ctx.vouch)
    if not taken:
        return None
    files = sorted({vouch.shown(p, ctx.layout.project) for paths in taken.values() for p in paths})
    reason = words.workflow_agents(sorted(taken), files)
    ctx.refuse(event.tool_use_id, event.agent_id or "main", "Workflow", "workflow_foreign_agents", reason)
    return hookio.Answer.deny(reason)


def _script(ctx: Ctx, event: hookio.PreToolUse) -> "tuple[str | None, str]":
    """The script the call will run: inline, from `scriptPath`, or the one saved workflow whose
    meta.name could be the call's name. (None, why) when it cannot be read or told."""
    if event.workflow_script_path:
        return _read(event.workflow_script_path, "the script file")
    if event.workflow_script:
        return event.workflow_script, "inline"
    name = event.workflow_name
    if name:  # by its meta.name, as the client finds it (core/shadows.py), never by the file's name
        found = [
            (path, data)
            for path, data in client_files.workflow_files(ctx.layout.project, client_files.home_of(hook_env()))
            if shadows.could_be(data, name)
        ]
        if len(found) == 1 and found[0][1] is not None:
            return found[0][1].decode("utf-8", "replace"), f"saved workflow {name!r}"
        if found:
            return None, f"{len(found)} saved workflows may answer the name {name!r} (or one cannot be read)"
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
