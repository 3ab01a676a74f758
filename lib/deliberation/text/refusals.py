"""The words of a refused spawn or message: context isolation, the findings a synthesis lacks,
the vote a ranking prompt carries, two conflicting personas on one model.

The rules (core/isolation.py, core/blind_ranking.py, core/agent_model.py, core/resume.py) find
what leaked or clashed; the refusal they return is worded here. Standard library only: the
trigger's modules (agent_model) load it on the fast path.
"""

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    from typing import Iterable

CLIP = 60  # characters of a quoted claim

# what a ranking prompt (or a message to a ranker) may not carry, as a refusal names it
VOTE_LEAK = {
    "leader": "which approach leads",
    "scores": "scores",
    "verdicts": "other agents' verdicts or preferences",
    "rationale": "another agent's words",
    "order": "the approaches out of the neutral order",
}


def quoted(ref: str, claim: "str | None") -> str:
    """`security-analyst:F1 ("the claim, clipped…")`, or the ref alone when it has no claim."""
    claim = " ".join((claim or "").split())
    if len(claim) > CLIP:
        claim = claim[: CLIP - 1] + "…"
    return '%s ("%s")' % (ref, claim) if claim else ref


LEAK_SUBJECT = "this RESEARCH prompt"
LEAK_INSTEAD = "remove other agents' findings from this research prompt"


def research_leak(refs: "list[str]", claims: "dict[str, str]", subject: str = LEAK_SUBJECT, instead: str = LEAK_INSTEAD) -> str:
    """A research prompt (or a message to a research agent, `subject`) carries other agents'
    findings `refs` (`claims`: ref → claim)."""
    named = [quoted(ref, claims.get(ref)) for ref in refs]
    noun = "finding" if len(refs) == 1 else "findings"
    return (
        f"Context isolation: {subject} carries {len(refs)} {noun} of other agents: "
        f"{'; '.join(named)}. Research agents must work independently: {instead}; give only the "
        "question and shared project context; findings are shared in DELIBERATION."
    )


def findings_missing(role: str, missing: "list[str]", table: "list[tuple[str, str, str]]", late: "Iterable[str]" = ()) -> str:
    """A synthesis or debate prompt (`role`) lacks the findings `missing` of research agents;
    `table`: every (ref, claim, evidence) to send; `late`: personas whose report has not
    reached the main agent yet."""
    claims = {ref: claim for ref, claim, _evidence in table}
    late = set(late)
    named = [
        quoted(ref, claims.get(ref)) + (" — its report has not reached you yet" if ref.split(":", 1)[0] in late else "")
        for ref in missing
    ]
    noun = "finding" if len(missing) == 1 else "findings"
    waiting = sorted({ref.split(":", 1)[0] for ref in missing} & late)
    lines = [
        f"Deliberation input: this {role} prompt lacks {len(missing)} {noun} of the research agents: "
        f"{'; '.join(named)}. DELIBERATION works from the findings of every research agent; a "
        "perspective left out is silently dropped."
    ]
    if waiting:
        lines.append(
            f"Next: wait for the task notification(s) of {', '.join(waiting)}, then spawn {role} again with every finding below."
        )
    else:
        lines.append(
            f"Next: spawn {role} again with the claim and evidence of every finding below "
            "(summarise freely; keep each finding's claim and evidence)."
        )
    lines += [
        f"- {ref}: {' '.join(claim.split())}"
        + (f" (evidence: {' '.join(evidence.split())})" if evidence and evidence.strip() else "")
        for ref, claim, evidence in table
    ]
    return "\n".join(lines)


def vote_in_ranking_prompt(leaks: "list[tuple[str, str]]", listed: str = "") -> str:
    """A ranking prompt carries the vote: `leaks` are (kind, snippet) pairs; `listed` is the
    approach list to send instead (the neutral order)."""
    found = "; ".join(
        f'{VOTE_LEAK.get(kind, kind)}: "{snippet}"' if kind not in ("rationale", "order") else f"{VOTE_LEAK[kind]}: {snippet}"
        for kind, snippet in leaks
    )
    return (
        f"Blind ranking: this RANKING prompt carries {found}. A ranker that sees the vote herds "
        "toward it. Re-spawn with the question, the shared context and the approaches below, in "
        "this order, and nothing of the vote — no leader, no scores, verdicts or rationale of other "
        "agents (the plugin computes the leader after the vote and reads dissent against it)." + (f"\n{listed}" if listed else "")
    )


def vote_in_message(ranker: str, leaks: "list[tuple[str, str]]") -> str:
    """A message to a ranker carries the vote: `leaks` are (kind, snippet) pairs."""
    found = "; ".join(f"{VOTE_LEAK[kind]}: {snippet}" for kind, snippet in leaks)
    return (
        f"Blind ranking: this message to ranker {ranker} carries {found}. A ranker that sees the "
        "vote herds toward it. Next: send it only what the plugin asked for (the concern and reason "
        "to document, or the report to fix), with no leader and no other agent's scores, verdicts or "
        "words — the plugin reads dissent against the leader it computes after the vote."
    )


def model_clash(persona: str, other: str, stage: str, other_model: str, free_model: "str | None", partners: "list[str]") -> str:
    """models.diverse: `persona` would run `stage` on the model (`other_model`, a label) its
    conflicting partner `other` runs it on; `free_model`: a model of the pool no partner uses."""
    suggestion = (
        f'Spawn {persona} again with model: "{free_model}" in the Agent call'
        if free_model
        else f"Spawn {persona} with a model none of {', '.join(partners)} uses"
    )
    return (
        f"Model diversity (models.diverse is on): {persona} and {other} have conflicting "
        f"priorities, and {other} already runs this {stage} stage on "
        f"{other_model}; a panel on one model shares its priors. {suggestion}."
    )


def state_folder_ahead() -> str:
    """Told to every deliberation agent at its start (SubagentStart context), so its first search
    from the project root keeps the state folder out instead of being refused for it. Every step
    it names passes core/state_guard (tests/unit/test_state_guard.py)."""
    return (
        "Deliberation plugin: .claude/deliberation/ holds this plugin's state; a deliberation agent "
        "may not read or search it (such calls are refused). From the project root, search so that it "
        'stays out: Grep with `glob` "!.claude" (or a `type` or `glob` such as "*.py"); in Bash, '
        "leave .claude out. Glob may list it (names only): do not Read what it lists there."
    )


def _name(path: str) -> str:
    from deliberation.names import quoted

    return quoted(path)


def state_folder(case: str, how: str = "") -> str:
    """A deliberation agent's Read/Grep/Glob/Bash call on the plugin's state folder. case: read
    (`how` is the path inside it) | search_in (a search root inside it: `how`) | grep_over (a
    Grep whose root `how` contains it, with no glob or type that keeps it out) | glob_names (a Glob
    pattern `how` that names it) | bash_names (a command naming it) | bash_over (a recursive walk over it; `how`
    the program: grep, rg, ag, find, git, other; `follow`: a walk that follows links). Every
    command or argument named in a Next
    passes core/state_guard (tests/unit/test_state_guard.py)."""
    why = (
        "Refused: .claude/deliberation/ holds this plugin's state (earlier deliberations' "
        "findings, votes and rationale); a deliberation agent does not read it — an earlier "
        "decision enters only as context the main agent gives in your prompt."
    )
    if case == "read":
        return f"{why} ({_name(how)})\nNext: work from your prompt and the project's own files."
    if case == "search_in":
        return f'{why} ({_name(how)})\nNext: search the project\'s own folders instead (e.g. path "src").'
    if case == "grep_over":
        return (
            f"{why} The search root {_name(how)} contains it.\nNext: run the same Grep with `glob` "
            '"!.claude" (or " !.claude" at the end of your glob: every file but that folder), '
            'or with `path` set to a source folder (e.g. "src"), or with a `glob` or `type` for files that folder never holds '
            '(e.g. "*.py" or type "py"; it holds .json, .jsonl, .md, .html, .log and .lock files).'
        )
    if case == "glob_names":
        return (
            f"{why} The pattern {_name(how)} leads into it.\nNext: run a Glob for the project's own files "
            '(e.g. "**/*.py", or `path` set to a source folder such as "src").'
        )
    if case == "bash_names":
        return f"{why}\nNext: run the command without that folder."
    ways = {
        "grep": "add `--exclude-dir=.claude` (e.g. `grep -rn PATTERN . --exclude-dir=.claude`) or name "
        "the folders (`grep -rn PATTERN src/ tests/`).",
        "rg": "drop --hidden/-uu (rg skips hidden folders such as .claude by default), or add "
        "`-g '!.claude'`, or name the folders (`rg PATTERN src/ tests/`).",
        "ag": "drop --hidden/-u (ag skips hidden folders such as .claude by default) or name the "
        "folders (`ag PATTERN src/ tests/`).",
        "find": "leave it out (`find . -path ./.claude -prune -o -name '*.py' -print`) or name the "
        "folders (`find src tests -name '*.py'`).",
        "git": "leave it out with a pathspec (`git grep PATTERN -- . ':!.claude'`) or name the folders "
        "(`git grep PATTERN -- src tests`).",
        "follow": "run it without following links (`grep -r`, not -R; rg and find without -L): a link under the "
        "project may lead into that folder.",
    }
    return f"{why} This command would walk it from the project root.\nNext: " + ways.get(
        how, "name the folders to walk (e.g. `src/ tests/`)."
    )


def rationale_label(persona: str, stage: str) -> str:
    """How a vote-leak refusal names the rationale a prompt quotes: a ranker's (`stage` ranking)
    or the synthesis' for its preferred approach."""
    if stage == "ranking":
        return f"{persona}'s ranking rationale"
    return f"the {persona}'s rationale for its preferred approach"


def refused_for_person(what: str, reason: str, limit: int = 240) -> str:
    """The person's line for a call the plugin refused (`what`: the agent type, or the tool and
    its target; `reason`: what the model was told). The client shows a refused Agent call only as
    "Not run" (measured), so the reason's first line goes to the person too."""
    first = " ".join((reason.strip().splitlines() or [""])[0].split())
    if len(first) > limit:
        first = first[: limit - 1] + "…"
    return f"Deliberation plugin refused {what}: {first}" if first else f"Deliberation plugin refused {what}."
