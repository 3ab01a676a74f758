"""Measuring whole hook processes: wall time, CPU time and peak memory, next to the bare interpreter.

A measurement is one child process started exactly as Claude Code starts a hook (the script
path, the payload on stdin, CLAUDE_PROJECT_DIR set), timed from spawn to reap. The child's own
`rusage` comes from `os.wait4`, so its peak RSS (`ru_maxrss`) and CPU time are its alone, not
a delta over all children. Every round runs the bare interpreter (`python -c pass`, the same
executable and environment) alongside the hooks, interleaved, so a noisy machine moves the
numerator and the denominator together and the ratio stays put.

Also here: which interpreter to use, small statistics, and table rendering shared by the
benchmark scripts.
"""

from __future__ import annotations

import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
LIB = os.path.join(ROOT, "lib")
HOOKS = os.path.join(ROOT, "hooks")

HOOK_SCRIPTS = {
    "SessionStart": "session_start.py",
    "UserPromptSubmit": "user_prompt_submit.py",
    "PreToolUse": "pre_tool_use.py",
    "PostToolUse": "post_tool_use.py",
    "SubagentStart": "subagent_start.py",
    "SubagentStop": "subagent_stop.py",
    "Stop": "stop.py",
}


def setup_paths() -> None:
    """Make `deliberation` (lib/) and `tests` (payload and state builders) importable."""
    for p in (LIB, ROOT):
        if p not in sys.path:
            sys.path.insert(0, p)


def e2e_modules(*names: str) -> list:
    """The end-to-end suite's modules by name (tests/e2e: the scripted Messages-API stand-in, the
    client harness, the scenarios), for the benches that drive the real client."""
    import importlib

    for p in (os.path.join(ROOT, "tests", "e2e"), ROOT, LIB):
        if p not in sys.path:
            sys.path.insert(0, p)
    return [importlib.import_module(name) for name in names]


def client_or_skip(title: str, out) -> "str | None":
    """The Claude Code client's path, or None after printing why `title` is skipped."""
    (harness,) = e2e_modules("harness")
    try:
        return harness.find_claude_bin()
    except harness.ClientUnavailable as exc:
        print(f"\n{title} — skipped: {exc}", file=out)
        return None


def default_python() -> str:
    """The plugin's own interpreter (<plugin>/.venv/bin/python, what hooks/run.sh uses), else ours.

    Not resolved through symlinks: a venv's python is a symlink, and running it by its venv
    path is what makes it the venv (its cheaper site, its packages)."""
    venv = os.path.join(ROOT, ".venv", "bin", "python")
    return venv if os.access(venv, os.X_OK) else sys.executable


def python_version(python: str) -> str:
    out = subprocess.run(
        [python, "-c", "import sys; print(sys.version.split()[0])"], capture_output=True, text=True, env=clean_env(None)
    )
    return out.stdout.strip() or "?"


def machine() -> str:
    """`nproc`, CPU model and OS, for the report header."""
    model = "?"
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        model = platform.processor() or "?"
    try:
        load = "load average %.2f %.2f %.2f" % os.getloadavg()
    except OSError:
        load = "load average ?"
    return f"{os.cpu_count()} CPUs ({model}), {platform.system()} {platform.release()}, {load}"


def clean_env(project: "str | None") -> "dict[str, str]":
    """The environment of a hook: the user's basics, no PYTHON* overrides, the project dir."""
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "USER", "DELIBERATION_USER_DATA")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    if project is not None:
        env["CLAUDE_PROJECT_DIR"] = project
    return env


@dataclass
class Sample:
    """One process run. `maxrss_kib` is unreliable here (see peak_rss_kib) and not reported."""

    wall_s: float
    cpu_s: float
    maxrss_kib: int
    returncode: int
    stdout: bytes = b""


def run_process(argv: "list[str]", stdin: bytes = b"", env: "dict[str, str] | None" = None, cwd: "str | None" = None) -> Sample:
    """Run one process to completion; its wall time, CPU time (user+sys) and peak RSS."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
    try:
        out = _feed_and_drain(proc, stdin)
    finally:
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Sample(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, proc.returncode, out)


def _feed_and_drain(proc: subprocess.Popen, stdin: bytes) -> bytes:
    """Write the payload and read the answer without a pipe deadlock (no Popen.wait: we reap)."""
    import threading

    def feed() -> None:
        try:
            proc.stdin.write(stdin)  # type: ignore[union-attr]  # Popen(stdin=PIPE, stdout=PIPE): pipes
        except (BrokenPipeError, OSError):
            pass
        finally:
            try:
                proc.stdin.close()  # type: ignore[union-attr]  # Popen(stdin=PIPE, stdout=PIPE): pipes
            except OSError:
                pass

    writer = threading.Thread(target=feed)
    writer.start()
    out = proc.stdout.read()  # type: ignore[union-attr]  # Popen(stdin=PIPE, stdout=PIPE): pipes
    proc.stdout.close()  # type: ignore[union-attr]  # Popen(stdin=PIPE, stdout=PIPE): pipes
    writer.join()
    return out


# The child of a big parent (this benchmark, with pydantic loaded) inherits the parent's RSS
# high-water mark until exec, and subprocess may vfork: its ru_maxrss would be ours. So peak
# memory is read by a small launcher (python -S -I, ~8 MiB, less than any hook) that forks,
# execs the target and reports the child's rusage.
_LAUNCHER = (
    "import os, sys\n"
    "pid = os.fork()\n"
    "if pid == 0:\n"
    "    os.execv(sys.argv[1], sys.argv[1:])\n"
    "_, status, ru = os.wait4(pid, 0)\n"
    "sys.stderr.write('maxrss=%d\\n' % ru.ru_maxrss)\n"
)


def peak_rss_kib(argv: "list[str]", stdin: bytes = b"", env: "dict[str, str] | None" = None, cwd: "str | None" = None) -> int:
    """Peak resident memory (KiB) of one run of `argv`, measured through the launcher."""
    proc = subprocess.run(
        [sys.executable, "-S", "-I", "-c", _LAUNCHER, *argv], input=stdin, capture_output=True, env=env, cwd=cwd
    )
    for line in proc.stderr.decode("utf-8", "replace").splitlines():
        if line.startswith("maxrss="):
            return int(line[len("maxrss=") :])
    raise RuntimeError(f"could not measure the memory of {argv[:2]}")


def bare_argv(python: str) -> "list[str]":
    return [python, "-c", "pass"]


def hook_argv(python: str, event: str) -> "list[str]":
    """The event's hook command exactly as install.sh writes it into settings.json (the
    template settings.example.json with its placeholders filled), run with `python`."""
    import json
    import shlex

    with open(os.path.join(ROOT, "settings.example.json"), encoding="utf-8") as fh:
        command = json.load(fh)["hooks"][event][0]["hooks"][0]["command"]
    argv = [t.replace("@PYTHON@", python).replace("@PLUGIN@", ROOT) for t in shlex.split(command)]
    if argv[-1] != os.path.join(HOOKS, HOOK_SCRIPTS[event]):
        raise RuntimeError(f"settings.example.json runs {argv[-1]} for {event}")
    return argv


def bare(python: str) -> Sample:
    return run_process(bare_argv(python), env=clean_env(None))


def run_hook(python: str, event: str, payload: bytes, project: str) -> Sample:
    """One hook process against `project`, as Claude Code runs hooks/<event>.py."""
    return run_process(hook_argv(python, event), payload, env=clean_env(project), cwd=project)


def restore(template: str, work: str) -> None:
    """Put `work` back to the state captured in `template` (outside any timing)."""
    if os.path.exists(work):
        shutil.rmtree(work)
    shutil.copytree(template, work, symlinks=True)


# ---------------------------------------------------------------------------------------------
# statistics


@dataclass
class Series:
    """Samples of one measured thing."""

    name: str
    samples: "list[Sample]" = field(default_factory=list)
    peak_kib: "list[int]" = field(default_factory=list)  # from peak_rss_kib runs

    @property
    def walls(self) -> "list[float]":
        return [s.wall_s for s in self.samples]

    def median(self) -> float:
        return statistics.median(self.walls)

    def quartiles(self) -> "tuple[float, float]":
        return quartiles(self.walls)

    def cpu_median(self) -> float:
        return statistics.median(s.cpu_s for s in self.samples)

    def peak_mib(self) -> float:
        return max(self.peak_kib) / 1024.0 if self.peak_kib else float("nan")


def quartiles(values: "list[float]") -> "tuple[float, float]":
    """(p25, p75); with fewer than 4 values, (min, max)."""
    if len(values) < 4:
        return min(values), max(values)
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], q[2]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


# ---------------------------------------------------------------------------------------------
# output


def table(headers: "list[str]", rows: "list[list[str]]") -> str:
    """A plain aligned text table (first column left-aligned, the rest right-aligned)."""
    widths = [max(len(str(r[i])) for r in [headers] + rows) for i in range(len(headers))]

    def line(cells: "list[str]") -> str:
        out = []
        for i, c in enumerate(cells):
            out.append(str(c).ljust(widths[i]) if i == 0 else str(c).rjust(widths[i]))
        return "  ".join(out).rstrip()

    sep = "  ".join("-" * w for w in widths)
    return "\n".join([line(headers), sep] + [line(r) for r in rows])


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


@dataclass
class Target:
    """One figure checked against its target, for the summary table of bench/run.py."""

    name: str
    figure: str
    target: str
    ok: bool
