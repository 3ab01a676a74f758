"""The novelty arm: probes, independent second reads that do not share the judges' priors
(docs/ESCALATION.md states the two independence tests; docs/SECURITY.md how a probe is held).

A probe (`escalation.probes`: name, argv, classes globs, inputs, timeout_s) passes on exit status
0. `validate_probe` (and `config.ProbeConfig`) refuses a command that templates deliberation text,
reads the plugin's state folder or prompts another LLM; `run_probe` checks again, then runs it in
the project folder, argv without a shell, stdin /dev/null, a minimal environment (`probe_env`:
the locale, the user, a home and a PATH — no keys, no tokens), in its own process group killed
at its timeout. `causal_overlap` warns when its `inputs` share paths with the findings'
evidence; `core.escalation.matching_probes` selects by class or task type. The one module that runs commands,
and only probes this user approved (state/consent.py).
"""

from __future__ import annotations

import fnmatch
import os
import re
import signal
import subprocess
import time
from typing import Sequence

from deliberation.state.config import STATE_DIR_PATTERN, EscalationConfig, ProbeConfig, command_problems
from deliberation.core.escalation import matching_probes
from deliberation.state.models import Deliberation, ProbeRun
from deliberation.state import project_env, user_data
from deliberation.state.paths import hook_env

CAUSAL_WARNING = "probe shares an upstream with the claim: not causally independent"


def validate_probe(p: ProbeConfig) -> "list[str]":
    """Problems that make `p` unsafe to run (empty when it is fine). The config refuses a bad
    command already (ProbeConfig's validator); this also checks the declared inputs and is
    applied again before every run."""
    problems = [f"probe {p.name!r}: {why}" for why in command_problems(list(p.command))]
    for path in p.inputs:
        if STATE_DIR_PATTERN.search(path):
            problems.append(
                f"probe {p.name!r}: input {path!r} is the plugin's state (.claude/deliberation), which holds the agents' reports"
            )
    return problems


def validate_probes(cfg: EscalationConfig) -> "list[str]":
    """Every problem of every configured probe, plus duplicate names."""
    problems: list[str] = []
    seen: set[str] = set()
    for p in cfg.probes:
        if p.name in seen:
            problems.append(f"probe {p.name!r} is configured twice")
        seen.add(p.name)
        problems.extend(validate_probe(p))
    return problems


# -- the causal test --------------------------------------------------------------------------

_LINE_SUFFIX = re.compile(r"(#L?\d+.*|(:\d+)+(-\d+)?)$")
_EXTENSION = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,7}$")


def _norm(path: str) -> str:
    path = path.strip().strip("'\"`()[]<>,;").replace("\\", "/")
    path = _LINE_SUFFIX.sub("", path)
    while path.startswith("./"):
        path = path[2:]
    return path.rstrip("/") if path != "/" else path


def cited_paths(evidence_texts: "list[str]") -> "list[str]":
    """Path-like tokens (with a '/' or a file extension) cited in evidence, normalised:
    'see ./data/export.csv:12' → 'data/export.csv'."""
    found: dict[str, None] = {}
    for text in evidence_texts:
        for tok in re.split(r"[\s,;]+", text):
            cand = _norm(tok)
            if not cand or re.fullmatch(r"[\d./:-]+", cand):
                continue
            if "/" in cand or _EXTENSION.search(os.path.basename(cand)):
                found.setdefault(cand, None)
    return list(found)


def _overlaps(declared: str, cited: str) -> bool:
    if any(ch in declared for ch in "*?["):
        return fnmatch.fnmatchcase(cited, declared) or fnmatch.fnmatchcase(cited, declared + "/*")
    return cited == declared or cited.startswith(declared + "/") or declared.startswith(cited + "/")


def causal_overlap(inputs: "list[str]", evidence_texts: "list[str]") -> str:
    """The causal-test warning when a declared input overlaps a cited path, else ''."""
    cited = cited_paths(evidence_texts)
    shared: list[str] = []
    for declared in (_norm(i) for i in inputs):
        for c in cited:
            if declared and _overlaps(declared, c):
                pair = c if c == declared else f"{declared} ~ {c}"
                if pair not in shared:
                    shared.append(pair)
    if not shared:
        return ""
    return f"{CAUSAL_WARNING} (shared: {', '.join(shared)})"


def cited_evidence(delib: Deliberation) -> "list[str]":
    """The evidence text of every finding of every (not superseded) report."""
    return [
        f.evidence for a in delib.agents if a.report is not None and not a.superseded for f in a.report.findings if f.evidence
    ]


# -- running ----------------------------------------------------------------------------------


PROBE_ENV_KEEP = ("USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ", "TMPDIR", "TERM")
SYSTEM_PATH = ("/usr/local/bin", "/opt/homebrew/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin")


def probe_env(project_dir: "str | None" = None) -> "dict[str, str]":
    """The minimal environment a probe runs with: the locale and user variables of the hook's
    environment, this user's home (from the password database), and a PATH without relative
    entries — the user's own, or the system's when the project's settings supplied PATH. No API
    key, token or other secret of the hook's environment, no DELIBERATION_* variable.

    In the warm worker the hook's own environment travels with the request (paths.REQUEST_ENV)."""
    env = hook_env()
    out = {k: env[k] for k in PROBE_ENV_KEEP if env.get(k)}
    out["HOME"] = user_data.home()
    path = project_env.supplied(project_dir, env).own(env, "PATH")
    entries = [p for p in (path or "").split(os.pathsep) if os.path.isabs(p)] or list(SYSTEM_PATH)
    out["PATH"] = os.pathsep.join(dict.fromkeys(entries))
    return out


def _kill_group(proc: "subprocess.Popen") -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:  # pragma: no cover - a zombie we cannot reap
        pass


def run_probe(
    p: ProbeConfig, project_dir: str, evidence_texts: "Sequence[str]" = (), timeout_s: "float | None" = None
) -> ProbeRun:
    """Run one probe (timeout: `timeout_s` if given, else its own); a probe that fails
    validation is not run and fails with the reason."""
    warning = causal_overlap(p.inputs, list(evidence_texts))
    problems = validate_probe(p)
    if problems:
        return ProbeRun(
            name=p.name, passed=False, exit_code=None, causal_warning=warning, error="refused: " + "; ".join(problems)
        )
    timeout = p.timeout_s if timeout_s is None else timeout_s
    start = time.monotonic()
    try:
        proc = subprocess.Popen(
            list(p.command),
            cwd=project_dir,
            env=probe_env(project_dir),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            shell=False,
        )
    except OSError as exc:
        return ProbeRun(
            name=p.name,
            passed=False,
            exit_code=None,
            causal_warning=warning,
            duration_s=round(time.monotonic() - start, 3),
            error=f"could not start {p.command[0]!r}: {exc.strerror or exc}",
        )
    try:
        code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        return ProbeRun(
            name=p.name,
            passed=False,
            exit_code=None,
            timed_out=True,
            duration_s=round(time.monotonic() - start, 3),
            causal_warning=warning,
            error=f"timed out after {timeout:.1f}s; process group killed",
        )
    finally:
        if proc.poll() is None:  # interrupted while waiting: never leave the group behind
            _kill_group(proc)
    return ProbeRun(
        name=p.name, passed=code == 0, exit_code=code, duration_s=round(time.monotonic() - start, 3), causal_warning=warning
    )


def run_probes(
    cfg: EscalationConfig, decision_class: str, project_dir: str, evidence_texts: "Sequence[str]" = ()
) -> "list[ProbeRun]":
    """Run every probe that covers `decision_class`, in config order, within
    `cfg.probe_budget_s` altogether: a probe gets min(its timeout, what is left); one left with
    no time is not started and fails (an unchecked claim must not pass as checked)."""
    deadline = time.monotonic() + cfg.probe_budget_s
    runs: list[ProbeRun] = []
    for p in matching_probes(cfg.probes, decision_class):
        left = deadline - time.monotonic()
        if left <= 0.05:
            runs.append(
                ProbeRun(
                    name=p.name,
                    passed=False,
                    exit_code=None,
                    causal_warning=causal_overlap(p.inputs, list(evidence_texts)),
                    error=f"not run: the probe budget of {cfg.probe_budget_s:g}s was spent",
                )
            )
            continue
        runs.append(run_probe(p, project_dir, evidence_texts, timeout_s=min(p.timeout_s, left)))
    return runs
