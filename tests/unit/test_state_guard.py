"""state_guard: a deliberation agent's Read/Grep/Glob/Bash on the plugin's state is refused."""

from __future__ import annotations

import pytest

from deliberation.core.state_guard import refusal

P = "/home/u/proj"
AGENT = "deliberation:security-analyst"


def ask(tool, args, agent=AGENT, cwd=P):
    return refusal(tool, args, agent, cwd, P)


@pytest.mark.parametrize(
    "tool, args",
    [
        ("Read", {"file_path": f"{P}/.claude/deliberation/records/d-1.md"}),
        ("Read", {"file_path": ".claude/deliberation/sessions/s.json"}),
        ("Grep", {"pattern": "password|revoke"}),  # root: the trial's leak
        ("Grep", {"pattern": "x", "path": f"{P}/.claude/deliberation"}),
        ("Grep", {"pattern": "x", "glob": "*.md"}),
        ("Glob", {"pattern": ".claude/deliberation/**"}),
        ("Glob", {"pattern": "**/.claude/deliberation/*.json"}),
        ("Glob", {"pattern": "*.md", "path": ".claude/deliberation/records"}),
        ("Bash", {"command": "cat .claude/deliberation/records/d-1.md"}),
        ("Bash", {"command": "grep -rn password ."}),
        ("Bash", {"command": "find . -name '*.json'"}),
    ],
)
def test_a_deliberation_agent_is_refused_with_the_next_step(tool, args):
    why = ask(tool, args)
    assert why is not None and why.startswith("Refused: .claude/deliberation/ holds this plugin's state")
    assert "\nNext: " in why


@pytest.mark.parametrize(
    "tool, args",
    [
        ("Read", {"file_path": f"{P}/src/auth.py"}),
        ("Grep", {"pattern": "x", "path": "src"}),
        ("Grep", {"pattern": "x", "type": "py"}),
        ("Grep", {"pattern": "x", "glob": "*.py"}),
        ("Grep", {"pattern": "x", "glob": "docs/**/*.md"}),
        ("Glob", {"pattern": "**/*.py"}),
        ("Glob", {"pattern": "src/**/*"}),
        ("Glob", {"pattern": "**/*"}),  # a Glob lists names: t17's first searches
        ("Glob", {"pattern": "**/Dockerfile*"}),
        ("Glob", {"pattern": "**/*.{yaml,yml,sh,py,txt,toml,cfg,ini,json}"}),
        ("Bash", {"command": "grep -rn password src/ tests/"}),
        ("Bash", {"command": "grep -rn password . --exclude-dir=.claude"}),
        ("Bash", {"command": "git log --oneline -5"}),
    ],
)
def test_what_cannot_reach_the_state_folder_runs(tool, args):
    assert ask(tool, args) is None


def test_the_main_agent_and_other_subagents_are_not_refused():
    args = {"file_path": f"{P}/.claude/deliberation/records/d-1.md"}
    assert ask("Read", args, agent="") is None
    assert ask("Read", args, agent="Explore") is None
    assert ask("Read", args, agent="evidence-chase") is not None
    assert ask("Edit", args) is None


# The client's Grep is ripgrep with --hidden; `glob` becomes --glob flags (.gitignore semantics).
@pytest.mark.parametrize(
    "args",
    [
        {"pattern": "x", "path": P, "glob": "*.py"},  # the refusal's own advice, with the root
        {"pattern": "x", "path": P, "glob": "**/*.py"},
        {"pattern": "x", "glob": "*.{py,ts}"},
        {"pattern": "x", "glob": "*.py *.ts"},
        {"pattern": "x", "glob": "*.py,*.toml"},
        {"pattern": "x", "glob": "!.claude"},  # every file but that folder
        {"pattern": "x", "glob": "!.claude/**"},
        {"pattern": "x", "glob": "!**/.claude/**"},
        {"pattern": "x", "glob": "*.md !.claude"},  # an excluded folder is not walked
        {"pattern": "x", "glob": "src/*"},
        {"pattern": "x", "glob": "Makefile"},
        {"pattern": "x", "type": "py"},
        {"pattern": "x", "type": "rust"},
        {"pattern": "x", "path": "/home/u", "glob": "!.claude"},  # from above the project too
    ],
)
def test_a_grep_over_the_root_kept_out_of_the_state_runs(args):
    assert ask("Grep", args) is None


@pytest.mark.parametrize(
    "args",
    [
        {"pattern": "x", "path": P},
        {"pattern": "x", "glob": "*"},
        {"pattern": "x", "glob": "**/*"},
        {"pattern": "x", "glob": "*.json"},
        {"pattern": "x", "glob": "*.{py,md}"},
        {"pattern": "x", "glob": "*.py,*.jsonl"},
        {"pattern": "x", "glob": "*.py *.log"},
        {"pattern": "x", "glob": "**/records/*"},
        {"pattern": "x", "glob": ".claude/**"},
        {"pattern": "x", "glob": "*/*/sessions/**"},
        {"pattern": "x", "glob": "!*.py"},  # an exclusion alone admits the rest
        {"pattern": "x", "glob": "!.claude *"},  # a later glob re-admits the folder
        {"pattern": "x", "glob": "!.claude/deliberation/records/**"},
        {"pattern": "x", "glob": "*.lock"},
        {"pattern": "x", "glob": "*.tmp-*"},
        {"pattern": "x", "glob": "d-1?"},
        {"pattern": "x", "type": "json"},
        {"pattern": "x", "type": "md"},
        {"pattern": "x", "type": "py", "glob": "*.md"},  # a positive glob overrides the type
        {"pattern": "x", "path": "/home/u", "glob": "*.json"},
    ],
)
def test_a_grep_that_could_read_the_state_is_refused(args):
    assert ask("Grep", args) is not None


@pytest.mark.parametrize(
    "args, refused",
    [
        ({"pattern": "*.py"}, False),
        ({"pattern": "*.json"}, False),  # could list state files: names only, and Read refuses them
        ({"pattern": "**"}, False),
        ({"pattern": ".claude/**"}, False),  # .claude holds more than the state folder
        ({"pattern": ".c*/deliberation/**"}, False),
        ({"pattern": ".claude/deliberation"}, True),
        ({"pattern": ".claude/deliberation/**"}, True),
        ({"pattern": "./.Claude/Deliberation/records/*.md"}, True),
        ({"pattern": "**/.claude/deliberation/**"}, True),
        ({"pattern": "{src,.claude/deliberation}/**/*.json"}, True),
        ({"pattern": "proj/.claude/deliberation/*", "path": "/home/u"}, True),
        ({"pattern": "**/.claude/deliberation/*", "path": "/home"}, True),  # ** reaches it at any depth
        ({"pattern": ".claude/deliberation/*", "path": "/home"}, False),  # anchored at /home: no such folder
        ({"pattern": "*", "path": f"{P}/.claude/deliberation"}, True),  # rooted in it
        ({"pattern": f"{P}/**/*.json"}, False),  # an absolute pattern searches from its folder part
        ({"pattern": f"{P}/.claude/deliberation/*"}, True),
        ({"pattern": f"{P}/src/**/*.json"}, False),
    ],
)
def test_a_glob_is_refused_exactly_when_it_names_the_state_folder(args, refused):
    assert (ask("Glob", args) is not None) is refused


@pytest.mark.parametrize(
    "command",
    [
        "rg password",  # rg skips hidden folders by default
        "rg -n 'revoke|password' --type py",
        "rg --hidden -g '!.claude' password",
        "rg -uu password src/",
        "grep -rn password . --exclude-dir=.claude",
        "grep -rn --exclude-dir={.git,.claude} password .",
        "grep -rn password src/ tests/",
        "find . -path ./.claude -prune -o -name '*.py' -print",
        "find . -not -path '*/.claude/*' -name '*.md'",
        "find src tests -name '*.py'",
        "git grep password -- . ':!.claude'",
        "git merge main",
        "git worktree list",
        "git tag v1",
        "ls -la",
        "ls -R src",
        "du -sh .",
        "pytest -q tests/ 2>&1 | grep -n FAIL",
    ],
)
def test_a_command_that_does_not_walk_the_state_runs(command):
    assert ask("Bash", {"command": command}) is None


@pytest.mark.parametrize(
    "command",
    [
        "rg --hidden password",
        "rg -uu password",
        "rg -. password",
        "rg -g '*' password",
        "rg password .claude",
        "grep -rn password .",
        "grep -r -A 3 password",
        "grep -R password",
        "egrep -ri 'a|b' .",
        "find . -name '*.json'",
        "tree -a",
        "ls -aR",
        "du -a .",
        "cd .claude && cat deliberation/records/d-1.md",
        "cat .claude/*/records/*",
        "git grep password -- .",
        "git grep password",  # config.json and reversals.json are committed
        "cd src && grep -rn x .. ",
    ],
)
def test_a_command_that_walks_the_state_is_refused(command):
    assert ask("Bash", {"command": command}) is not None


def test_every_step_a_refusal_names_passes_the_guard():
    grep = ask("Grep", {"pattern": "x"})
    assert '`glob` "!.claude"' in grep and '"*.py"' in grep and 'type "py"' in grep and '"src"' in grep
    for args in (
        {"pattern": "x", "glob": "!.claude"},
        {"pattern": "x", "glob": "*.py"},
        {"pattern": "x", "type": "py"},
        {"pattern": "x", "path": "src"},
    ):
        assert ask("Grep", args) is None, args
    glob = ask("Glob", {"pattern": ".claude/deliberation/**"})
    assert '"**/*.py"' in glob and '"src"' in glob and 'The pattern ".claude/deliberation/**" leads into it' in glob
    assert ask("Glob", {"pattern": "**/*.py"}) is None and ask("Glob", {"pattern": "**/*", "path": "src"}) is None
    for refused, advised in (
        ("grep -rn x .", ("grep -rn PATTERN . --exclude-dir=.claude", "grep -rn PATTERN src/ tests/")),
        ("rg --hidden x", ("rg PATTERN src/ tests/", "rg --hidden -g '!.claude' PATTERN")),
        ("find . -name '*.md'", ("find . -path ./.claude -prune -o -name '*.py' -print", "find src tests -name '*.py'")),
        ("git grep x -- .", ("git grep PATTERN -- . ':!.claude'", "git grep PATTERN -- src tests")),
    ):
        why = ask("Bash", {"command": refused})
        assert why is not None and "\nNext: " in why, refused
        for step in advised:
            assert ask("Bash", {"command": step}) is None, step
        assert all(s in why for s in advised if "--hidden" not in s), (refused, why)


def test_the_exclusion_the_grep_refusal_advises_works_at_the_end_of_any_glob():
    assert ask("Grep", {"pattern": "x", "glob": "* !.claude"}) is None
    assert ask("Grep", {"pattern": "x", "glob": "*.json !.claude"}) is None


def test_every_step_the_start_advice_names_passes_the_guard():
    """What each deliberation agent is told at its start: the searches it names are not refused,
    and the ones it warns about are."""
    from deliberation.text.refusals import state_folder_ahead

    told = state_folder_ahead()
    assert '`glob` "!.claude"' in told and '"*.py"' in told and "Glob may list it (names only)" in told
    for tool, args in (
        ("Grep", {"pattern": "x", "glob": "!.claude"}),
        ("Grep", {"pattern": "x", "glob": "*.py"}),
        ("Grep", {"pattern": "x", "type": "py"}),
        ("Glob", {"pattern": "**/*.py"}),
        ("Glob", {"pattern": "**/*", "path": "src"}),
    ):
        assert ask(tool, args) is None, (tool, args)
    assert ask("Grep", {"pattern": "x"}) is not None and ask("Glob", {"pattern": "**/*"}) is None
