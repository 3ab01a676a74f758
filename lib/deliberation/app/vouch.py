"""The agent types of one event, judged before any rule reads them: a persona is a persona only
when the agent that ran is the plugin's own (core/shadows.py decides; docs/SECURITY.md says why).

`session_vouch` builds the judge for this hook: the plugin form's namespace, and — in the
install.sh form, only when a bare type names a shipped agent — every agent file the client may
resolve that type from (state/client_files.py) with the plugin's own agents/*.md beside it.
`apply` rewrites the event's agent types in place: one the plugin does not vouch for keeps its
name with a mark no catalogue name can be read out of (its reports never count), install.sh's
renamed copy (`deliberation-security-analyst`) reads as its persona. The raw payload, which the
event log keeps, is not touched. `refusal` is the answer to an Agent call that asks for a persona
by a type the plugin does not vouch for: denied before it runs, with the type that is the plugin's.
"""

from __future__ import annotations

import os

from deliberation import plugin_root
from deliberation.core import shadows
from deliberation.state import client_files, safe_read
from deliberation.state.paths import Layout, hook_env, plugin_agent_prefix
from deliberation.text import shadows as words
from deliberation.wire import hookio

SHIPPED_LIMIT = 64 * 1024


def shipped_agent(slug: str) -> "bytes | None":
    """The plugin's own agents/<slug>.md (whatever generated it: the bytes it ships)."""
    try:
        return safe_read.read_bytes(os.path.join(plugin_root(), "agents", f"{slug}.md"), SHIPPED_LIMIT)
    except OSError:
        return None


def session_vouch(layout: Layout, prefix: "str | None" = None) -> shadows.Vouch:
    """The judge for this hook (`prefix`: the plugin form's namespace, '' for the install.sh
    form; default: this hook's)."""
    prefix = plugin_agent_prefix() if prefix is None else prefix

    def files() -> "list[tuple[str, bytes | None]]":
        return client_files.agent_files(layout.project, client_files.home_of(hook_env()))

    return shadows.Vouch(prefix, files, shipped_agent)


def apply(event: hookio.Event, vouch: shadows.Vouch) -> None:
    """Rewrite the event's agent types (its own, and an Agent call's `subagent_type`)."""
    if event.agent_type:
        event.agent_type = vouch.canonical(event.agent_type)
    if isinstance(event, hookio.ToolEvent) and event.is_subagent_tool:
        asked = event.tool_input.get("subagent_type")
        if isinstance(asked, str) and asked:
            event.tool_input = {**event.tool_input, "subagent_type": vouch.canonical(asked)}


def shown(path: str, project: str) -> str:
    rel = os.path.relpath(path, project)
    return path if rel.startswith("..") else rel


def refusal(event: hookio.PreToolUse, vouch: shadows.Vouch, project: str) -> "str | None":
    """Why an Agent call for a persona by a type the plugin does not vouch for is denied (None:
    it is not such a call)."""
    asked = event.raw.get("tool_input", {}).get("subagent_type") if isinstance(event.raw.get("tool_input"), dict) else None
    if not isinstance(asked, str) or not shadows.is_foreign(event.subagent_type):
        return None
    ok, bad = vouch.judge(asked)
    slug = asked.strip().rsplit(":", 1)[-1].lower()
    if slug.startswith(shadows.RENAMED) and slug[len(shadows.RENAMED) :] in shadows.SHIPPED_TYPES:
        slug = slug[len(shadows.RENAMED) :]
    if vouch.prefix:
        instead = f"{vouch.prefix}{slug}"
    else:
        renamed = shadows.RENAMED + slug
        instead = renamed if renamed != asked.strip().lower() and vouch.judge(renamed)[0] and _defined(vouch, renamed) else ""
    return words.foreign_agent(asked, [shown(p, project) for p in bad], instead, plugin_form=bool(vouch.prefix))


def _defined(vouch: shadows.Vouch, agent_type: str) -> bool:
    """Some agent file defines this type (install.sh wrote the plugin's copy under that name)."""
    return any(name == agent_type for _path, name, _data in vouch.definitions())


def foreign_definitions(vouch: shadows.Vouch) -> "dict[str, list[str]]":
    """install.sh form: each shipped agent whose bare type the plugin does not vouch for, with
    the files that take its name (doctor, and the plugin's workflow before it starts a wave)."""
    if vouch.prefix:
        return {}
    out = {}
    for slug in sorted(shadows.SHIPPED_TYPES):
        ok, bad = vouch.judge(slug)
        if not ok:
            out[slug] = bad
    return out
