"""The files the plugin's workflow is checked against, each read bounded (regular files only,
never through a symlink, a size cap): the shipped workflows/deliberate.js, every saved workflow
the client may resolve a name from (state/client_files.py), a script file a Workflow call names,
a run folder's journal (core/plugin_workflow.py decides over them)."""

from __future__ import annotations

import os

from deliberation import plugin_root
from deliberation.app.transcripts import journal_starts, read_bounded
from deliberation.core.turn import WorkflowFiles
from deliberation.state import client_files
from deliberation.state.paths import hook_env

MAX_SCRIPT = 512 * 1024


def shipped_path() -> str:
    return os.path.join(plugin_root(), "workflows", "deliberate.js")


def files(project: str) -> WorkflowFiles:
    def saved() -> "list[tuple[str, bytes | None]]":
        """Every saved workflow the client may resolve a name from (the project's, a folder's
        above it, the user's), each path relative to the project when inside it."""
        out = []
        for path, data in client_files.workflow_files(project, client_files.home_of(hook_env())):
            rel = os.path.relpath(path, project)
            out.append((path if rel.startswith("..") else rel, data))
        return out

    return WorkflowFiles(
        shipped=lambda: read_bounded(shipped_path(), MAX_SCRIPT),
        project_workflows=saved,
        script=lambda path: read_bounded(path, MAX_SCRIPT),
        journal_starts=journal_starts,
    )
