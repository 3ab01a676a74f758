"""The files the plugin's workflow is checked against, each read bounded (regular files only,
never through a symlink, a size cap): the shipped workflows/deliberate.js, the project's saved
workflows, a script file a Workflow call names, a run folder's journal (core/plugin_workflow.py
decides over them)."""

from __future__ import annotations

import os

from deliberation import plugin_root
from deliberation.app.transcripts import journal_starts, read_bounded
from deliberation.core.turn import WorkflowFiles

MAX_SCRIPT = 512 * 1024
MAX_SAVED = 200  # saved workflows of a project looked at, at most


def shipped_path() -> str:
    return os.path.join(plugin_root(), "workflows", "deliberate.js")


def files(project: str) -> WorkflowFiles:
    def saved() -> "list[tuple[str, bytes]]":
        folder = os.path.join(project, ".claude", "workflows")
        try:
            names = sorted(os.listdir(folder))[:MAX_SAVED]
        except OSError:
            return []
        out = []
        for name in names:
            if name.endswith((".js", ".mjs")):
                data = read_bounded(os.path.join(folder, name), MAX_SCRIPT)
                if data:
                    out.append((name, data))
        return out

    return WorkflowFiles(
        shipped=lambda: read_bounded(shipped_path(), MAX_SCRIPT),
        project_workflows=saved,
        script=lambda path: read_bounded(path, MAX_SCRIPT),
        journal_starts=journal_starts,
    )
