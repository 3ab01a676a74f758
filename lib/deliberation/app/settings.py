"""The project's config as a hook or a command uses it: validated, the settings that wait for this
user's approval held back (state/config.py, state/consent.py), and the problems to show — the
waiting settings among them, in the words of text/consent.py (said when config.json was resolved
again; every session start says them too)."""

from __future__ import annotations

from deliberation.state.config import Config, project_config_and_waiting
from deliberation.state.paths import Layout
from deliberation.text import consent as words


def project_config(layout: Layout) -> "tuple[Config, list[str]]":
    cfg, problems, waiting = project_config_and_waiting(layout)
    said = words.awaiting([i.pair() for i in waiting], layout.project)
    return cfg, problems + ([said] if said else [])
