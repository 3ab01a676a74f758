"""command_path: the `deliberation` launcher for a terminal's PATH, and the step doctor names."""

from __future__ import annotations

import os
from pathlib import Path

from deliberation.runtime import command_path as cp
from deliberation.cli.doctor import check_command

ROOT = Path(__file__).resolve().parents[2]


def make_plugin(folder: Path) -> Path:
    (folder / "bin").mkdir(parents=True)
    (folder / ".claude-plugin").mkdir()
    (folder / ".claude-plugin" / "plugin.json").write_text("{}")
    (folder / "bin" / "deliberation").write_text((ROOT / "bin" / "deliberation").read_text())
    (folder / "bin" / "deliberation").chmod(0o755)
    return folder


def test_a_cached_copy_gets_a_copy_of_the_finder_a_folder_a_two_line_launcher(tmp_path):
    env = {"HOME": str(tmp_path / "home")}
    cached = make_plugin(tmp_path / "home" / ".claude" / "plugins" / "cache" / "m" / "deliberation" / "1.0.0")
    kind, text = cp.launcher(str(cached), env)
    assert kind == "follows-updates" and text == (ROOT / "bin" / "deliberation").read_text()
    clone = make_plugin(tmp_path / "it's a clone")
    kind, text = cp.launcher(str(clone), env)
    assert kind == "runs-folder"
    assert text.splitlines()[-1] == "exec '" + str(clone).replace("'", "'\"'\"'") + '/bin/deliberation\' "$@"'
    assert cp.is_ours(str(clone / "bin" / "deliberation"))


def test_the_plugins_own_bin_is_not_a_terminal_command(tmp_path):
    env = {"HOME": str(tmp_path / "home")}
    clone = make_plugin(tmp_path / "clone")
    assert cp.on_path({**env, "PATH": str(clone / "bin")}) is None
    link = tmp_path / "links" / "deliberation"
    link.parent.mkdir()
    link.symlink_to(clone / "bin" / "deliberation")  # into the plugin folder: breaks at an update
    assert cp.on_path({**env, "PATH": f"relative:{link.parent}"}) is None
    code, lines = cp.install(str(clone), env, str(tmp_path / "bin"))
    assert code == 0, lines
    assert cp.on_path({**env, "PATH": f"{clone / 'bin'}:{tmp_path / 'bin'}"}) == str(tmp_path / "bin" / "deliberation")


def test_install_refuses_the_plugins_own_folder_and_a_file_of_someone_else(tmp_path):
    env = {"HOME": str(tmp_path / "home"), "PATH": "/usr/bin"}
    clone = make_plugin(tmp_path / "clone")
    assert cp.install(str(clone), env, str(clone / "bin"))[0] == 1
    theirs = tmp_path / "bin" / "deliberation"
    theirs.parent.mkdir()
    theirs.write_text("#!/bin/sh\necho theirs\n")
    code, lines = cp.install(str(clone), env, str(theirs.parent))
    assert code == 1 and "is not a deliberation launcher: left alone" in lines[0]
    assert theirs.read_text() == "#!/bin/sh\necho theirs\n"
    theirs.unlink()
    theirs.symlink_to("/bin/sh")
    assert cp.install(str(clone), env, str(theirs.parent))[0] == 1


def test_install_writes_an_executable_and_says_the_path_line(tmp_path):
    home = tmp_path / "home"
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "SHELL": "/bin/zsh"}
    clone = make_plugin(tmp_path / "clone")
    code, lines = cp.install(str(clone), env)
    target = home / ".local" / "bin" / "deliberation"
    assert code == 0 and os.access(target, os.X_OK) and not target.is_symlink()
    assert lines == [
        f"wrote {target}: it runs {clone / 'bin' / 'deliberation'}",
        f'{target.parent} is not on your PATH yet: export PATH="$HOME/.local/bin:$PATH"   '
        "(add it to ~/.zshrc, then open a new terminal)",
    ]
    assert [p.name for p in target.parent.iterdir()] == ["deliberation"]  # no temporary file left
    code, lines = cp.install(str(clone), {**env, "PATH": f"{target.parent}:/usr/bin"})
    assert code == 0 and lines[1].startswith("`deliberation status` now works in a terminal")


def test_doctor_names_the_step_with_this_machines_paths(tmp_path):
    home = tmp_path / "home"
    cached = make_plugin(home / ".claude" / "plugins" / "cache" / "m" / "deliberation" / "1.0.0")
    env = {"HOME": str(home), "PATH": f"{cached / 'bin'}:/usr/bin"}
    found = check_command(str(cached), env)
    assert found.status == "note" and found.area == "install"
    assert found.message == (
        "command: no `deliberation` on this PATH outside a plugin folder (Claude Code's Bash tool has the plugin's "
        f"own): `{cached / 'bin' / 'deliberation'} setup --command` (or `! deliberation setup --command` inside "
        f'Claude Code) puts it in {home / ".local" / "bin"}; then export PATH="$HOME/.local/bin:$PATH"   '
        "(add it to ~/.profile, then open a new terminal)"
    )
    cp.install(str(cached), env)
    on = {**env, "PATH": f"{home / '.local' / 'bin'}:/usr/bin"}
    assert check_command(str(cached), on).status == "ok"
    assert check_command(str(cached), on).message == (
        f"command: `deliberation` in a terminal runs {home / '.local' / 'bin' / 'deliberation'}"
    )
