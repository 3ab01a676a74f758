"""The `deliberation` command in a terminal: one launcher on your PATH that outlives updates.

Claude Code puts the plugin's bin/ on its Bash tool's PATH only, and a marketplace install
sits in a folder named after its version (<config>/plugins/cache/<marketplace>/deliberation/
<version>/), which an update replaces. So one step puts a launcher on the terminal's PATH:

    deliberation setup --command [--bin DIR]      (DIR: ~/.local/bin unless given)

It writes DIR/deliberation (never a symlink into a versioned folder):
  - for a copy in the client's cache (a marketplace install from a repository): a copy of
    bin/deliberation — outside a plugin folder it finds the installed plugin at each run
    (the data folder's `root`, rewritten at every session start) and runs that version's
    bin/deliberation, so it follows updates;
  - for a plugin folder elsewhere (a clone: a marketplace added from a local path,
    `--plugin-dir`, install.sh): two lines that run <that folder>/bin/deliberation.
A file there that is not one of these launchers is left alone. `doctor` and the end of the
plugin's first set-up name the step with this machine's paths (`advice`).

Standard library only (doctor and setup import it before any environment exists).
"""

from __future__ import annotations

import os
import shlex

HEADER = "# `deliberation …`, the plugin's command line"  # bin/deliberation's second line
MARK = "# the deliberation command, written by `deliberation setup --command`"


def config_dir(environ: "dict[str, str]") -> str:
    return environ.get("CLAUDE_CONFIG_DIR") or os.path.join(environ.get("HOME") or os.path.expanduser("~"), ".claude")


def in_client_cache(plugin: str, environ: "dict[str, str]") -> bool:
    cache = os.path.normpath(os.path.join(config_dir(environ), "plugins", "cache")) + os.sep
    return os.path.normpath(os.path.abspath(plugin)).startswith(cache)


def default_bin(environ: "dict[str, str]") -> str:
    return os.path.join(environ.get("HOME") or os.path.expanduser("~"), ".local", "bin")


def launcher(plugin: str, environ: "dict[str, str]") -> "tuple[str, str]":
    """(kind, the launcher's text) for `plugin`: 'follows-updates' (a copy of bin/deliberation,
    for a copy in the client's cache) or 'runs-folder' (for a plugin folder that stays put)."""
    script = os.path.join(plugin, "bin", "deliberation")
    if in_client_cache(plugin, environ):
        with open(script, encoding="utf-8") as fh:
            return "follows-updates", fh.read()
    quoted = "'" + script.replace("'", "'\"'\"'") + "'"
    return "runs-folder", f'#!/bin/sh\n{MARK} (docs/CLI.md)\nexec {quoted} "$@"\n'


def is_ours(path: str) -> bool:
    """A launcher this module writes (or a copy of bin/deliberation): safe to replace."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    return HEADER in head or MARK in head


def _in_a_plugin(path: str, environ: "dict[str, str]") -> bool:
    """A plugin's own bin/deliberation (what the client puts on its Bash tool's PATH), also
    through a symlink: one into a versioned folder breaks at the next update."""
    real = os.path.realpath(path)
    plugins = os.path.realpath(os.path.join(config_dir(environ), "plugins")) + os.sep
    folder = os.path.dirname(os.path.dirname(real))
    return real.startswith(plugins) or os.path.isfile(os.path.join(folder, ".claude-plugin", "plugin.json"))


def on_path(environ: "dict[str, str]") -> "str | None":
    """The `deliberation` a terminal with this PATH runs, when it is not a plugin's own bin/
    (which only the client's Bash tool has); None when there is none."""
    for folder in (environ.get("PATH") or "").split(os.pathsep):
        if not folder or not os.path.isabs(folder):
            continue
        candidate = os.path.join(folder, "deliberation")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            if _in_a_plugin(candidate, environ):
                continue  # the client's Bash tool's, or a link into a versioned folder
            return candidate
    return None


def path_line(bin_dir: str, environ: "dict[str, str]") -> "str | None":
    """The line to add to the shell's profile when `bin_dir` is not on PATH, else None."""
    entries = [os.path.normpath(e) for e in (environ.get("PATH") or "").split(os.pathsep) if e]
    if os.path.normpath(bin_dir) in entries:
        return None
    home = environ.get("HOME") or os.path.expanduser("~")
    shown = "$HOME" + bin_dir[len(home) :] if bin_dir.startswith(home + os.sep) else bin_dir
    shell = os.path.basename(environ.get("SHELL") or "")
    profile = {"zsh": "~/.zshrc", "bash": "~/.bashrc"}.get(shell, "~/.profile")
    return f'export PATH="{shown}:$PATH"   (add it to {profile}, then open a new terminal)'


def advice(plugin: str, environ: "dict[str, str]") -> str:
    """The one step, with this machine's paths: what to run to get `deliberation` in a terminal."""
    script = os.path.join(plugin, "bin", "deliberation")
    return (
        f"`{script} setup --command` (or `! deliberation setup --command` inside Claude Code) puts it in {default_bin(environ)}"
    )


def install(plugin: str, environ: "dict[str, str]", bin_dir: "str | None" = None) -> "tuple[int, list[str]]":
    """Write the launcher into `bin_dir`: (exit code, the lines to print)."""
    bin_dir = os.path.abspath(bin_dir or default_bin(environ))
    target = os.path.join(bin_dir, "deliberation")
    if os.path.realpath(os.path.dirname(os.path.abspath(target))) == os.path.realpath(os.path.join(plugin, "bin")):
        return 1, [f"{bin_dir} is the plugin's own bin/ folder: give another --bin DIR"]
    if os.path.lexists(target) and (os.path.islink(target) or not is_ours(target)):
        return 1, [
            f"{target} exists and is not a deliberation launcher: left alone; remove it, or give "
            "--bin DIR for another folder on your PATH"
        ]
    kind, text = launcher(plugin, environ)
    os.makedirs(bin_dir, exist_ok=True)
    tmp = f"{target}.tmp-{os.getpid()}"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o755)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, 0o755)
        os.replace(tmp, target)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return 1, [f"could not write {target}: {exc}"]
    how = (
        "it finds the installed plugin at each run, so it keeps working across updates"
        if kind == "follows-updates"
        else f"it runs {os.path.join(plugin, 'bin', 'deliberation')}"
    )
    lines = [f"wrote {target}: {how}"]
    line = path_line(bin_dir, environ)
    if line:
        lines.append(f"{bin_dir} is not on your PATH yet: {line}")
    else:
        lines.append("`deliberation status` now works in a terminal (`deliberation doctor` checks the install)")
    return 0, lines


def terminal_command(plugin: str, environ: "dict[str, str]") -> str:
    """How a line printed to a person names the command so that it runs as printed from a
    terminal: `deliberation` when this PATH has one (a launcher, or a plugin's bin/ in Claude
    Code's Bash tool), else the full path of the plugin's bin/deliberation, shell-quoted."""
    for folder in (environ.get("PATH") or "").split(os.pathsep):
        candidate = os.path.join(folder, "deliberation")
        if folder and os.path.isabs(folder) and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return "deliberation"
    script = os.path.join(os.path.abspath(plugin), "bin", "deliberation")
    return shell_quoted(script)


def shell_quoted(word: str) -> str:
    """`word` as one shell word (bare when it needs no quoting)."""
    return shlex.quote(word)
