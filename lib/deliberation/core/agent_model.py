"""Which model each agent ran on, and the rule that puts conflicting personas on different models.

Judges who share priors vote unanimously and wrongly (docs/EVIDENCE.md, E3), and a panel on
one model shares the most priors. So every agent's model is recorded, from the best source:
- asked for: the Agent tool's `model` input (an alias: sonnet, opus, haiku, …), else the agent
  file's front matter `model:` (`inherit` = the parent's: recorded as None);
- ran on: the client's `resolvedModel` in PostToolUse (foreground and background launches), else
  the agent's transcript (`agent_transcript_path` of SubagentStop: the `model` of its last
  assistant entry), else the `agent-<id>.meta.json` the client writes beside it (its `model`:
  the resolved id, or the alias a Workflow's `agent(…, {model})` asked for). At SubagentStop the
  transcript is sometimes not written yet (measured: 7 of 15 workflow agents); the meta file was
  there every time. These files are the only source for a Workflow's agents.

`diversity_refusal` is the hook side of `models.diverse` (off by default, see docs/CONFIGURATION.md for
what it costs): two personas whose priorities conflict (conformity.conflicting_pairs) may not run
the same stage on the same model; `assignment` is what the protocol asks for.

Pure and stdlib-only; the handlers read the files and pass their text in.
"""

from __future__ import annotations

import json
import re
from typing import Iterable, Sequence

from deliberation.core.token_usage import assistant_messages
from deliberation.text import refusals

ALIASES = ("opus", "sonnet", "haiku", "fable")
_FAMILY = re.compile(r"claude-(?:[0-9.-]+-)?([a-z]+)")


def family(model: "str | None") -> "str | None":
    """`claude-sonnet-5-5` → `sonnet`; `sonnet` → `sonnet`; None / `inherit` → None."""
    if not model:
        return None
    m = model.strip().lower()
    if m in ("", "inherit", "default"):
        return None
    found = _FAMILY.match(m)
    if found and found.group(1) in ALIASES:
        return found.group(1)
    for alias in ALIASES:
        if alias in m:
            return alias
    return m


_ALIAS = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:\[\]-]{0,99}")


def frontmatter_model(text: str) -> "str | None":
    """The `model:` of an agent file's front matter (None when absent or `inherit`)."""
    if not text.startswith("---"):
        return None
    end = text.find("\n---", 3)
    head = text[3:end] if end > 0 else text[3:]
    for line in head.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() == "model":
            value = value.strip().strip("'\"")
            if value.lower() in ("", "inherit") or not _ALIAS.fullmatch(value):
                return None  # an agent file is a project file: only a model name, never text, goes on
            return value
    return None


def transcript_model(lines_newest_first: Iterable[bytes]) -> "str | None":
    """The model of the newest assistant entry of a transcript (lines given newest first)."""
    for message in assistant_messages(lines_newest_first, b'"model"'):
        model = message.get("model")
        if isinstance(model, str) and model and not model.startswith("<"):  # "<synthetic>" entries
            return model[:100]
    return None


def meta_model(text: str) -> "str | None":
    """The `model` of a subagent's `agent-<id>.meta.json` (written by the client at its start)."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    model = data.get("model") if isinstance(data, dict) else None
    return model[:100] if isinstance(model, str) and model and not model.startswith("<") else None


def label(model: "str | None") -> str:
    return model or "the session's model (inherit)"


# ---------------------------------------------------------------------------------------------
# diversity


def conflicting_partners(persona: str, pairs: Sequence[Sequence[str]]) -> "list[str]":
    out = []
    for pair in pairs:
        if len(pair) == 2 and persona in pair:
            other = pair[1] if pair[0] == persona else pair[0]
            if other != persona and other not in out:
                out.append(other)
    return out


def diversity_refusal(
    persona: str,
    stage: str,
    requested: "str | None",
    agents: Iterable,
    pairs: Sequence[Sequence[str]],
    pool: Sequence[str],
    session_model: "str | None" = None,
) -> "str | None":
    """With models.diverse on: the refusal of a spawn of `persona` for `stage` asking for
    `requested`, when a persona with conflicting priorities already runs that stage on the same
    model family. No model asked for means the session's model (`session_model`, when known).
    `agents` are the deliberation's AgentRecords (duck-typed)."""
    partners = conflicting_partners(persona, pairs)
    if not partners:
        return None
    mine = family(requested) or family(session_model)
    clash, taken = [], set()
    for a in agents:
        if a.persona not in partners or a.stage != stage or a.superseded or a.status in ("invalid", "refused"):
            continue
        theirs = family(a.model) or family(a.model_requested) or family(session_model)
        taken.add(theirs)
        if theirs == mine:
            clash.append(a)
    if not clash:
        return None
    other = clash[0]
    free = [m for m in pool if family(m) not in taken]
    return refusals.model_clash(
        persona,
        other.persona,
        stage,
        label(other.model or other.model_requested or session_model),
        free[0] if free else None,
        partners,
    )


def assignment(panel: Sequence[str], pairs: Sequence[Sequence[str]], pool: Sequence[str]) -> "dict[str, str]":
    """A model from `pool` for each persona of `panel` such that conflicting personas differ
    where the pool allows (greedy, in panel order): what the protocol asks for."""
    chosen: dict[str, str] = {}
    for persona in panel:
        partners = conflicting_partners(persona, pairs)
        used = {chosen[p] for p in partners if p in chosen}
        free = [m for m in pool if m not in used]
        chosen[persona] = (free or list(pool))[0]
    return chosen
