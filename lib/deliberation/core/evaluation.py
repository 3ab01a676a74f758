"""`deliberation eval`: the routing policies D, T1, T2, D+T2 (and PROBE, D+T2+PROBE when a row has
probe data) measured on a labelled decision history (docs/ESCALATION.md, "Evaluation", gives the
line format and the definitions).

`parse_history` reads JSON Lines into `Row`s (a malformed line raises `HistoryError` with its line
number, or is skipped); `evaluate` classes each row's vote pattern, escalates the rows each policy
catches against the registry of reversal-prone classes (minus a hold-out) and returns the
figures as an `Evaluation` — misses caught and still auto-passed, true passes escalated, and with
a hold-out its line and the control line. text/evaluation.py lays them out. Pure: parsing takes
lines, not files.
"""

from __future__ import annotations

import fnmatch
import json
import math
from dataclasses import dataclass, field
from typing import Callable, Iterable

from deliberation.core import reversals
from deliberation.state.models import ReversalRegistry
from deliberation.text import evaluation as words

UNANIMOUS_CONFIDENCE = 0.9
BASE_POLICIES = ("D", "T1", "T2", "D+T2")
PROBE_POLICIES = ("PROBE", "D+T2+PROBE")
_KEYS = {"id", "class", "decision", "bad", "votes", "confidence", "probe"}


class HistoryError(ValueError):
    """A malformed history line; `line` is its 1-based number."""

    def __init__(self, line: int, why: str) -> None:
        super().__init__(f"line {line}: {why}")
        self.line = line


@dataclass(frozen=True)
class Row:
    id: str
    cls: str
    decision: str
    bad: bool
    votes: "tuple[str, ...] | None"
    confidence: "float | None"
    probe: "str | None"
    line: int = 0

    @property
    def pattern(self) -> "str | None":
        """'unanimous', 'split', or None (excluded)."""
        if self.votes:
            return "unanimous" if len(set(self.votes)) == 1 else "split"
        if self.confidence is not None:
            return "unanimous" if self.confidence >= UNANIMOUS_CONFIDENCE else "split"
        return None

    @property
    def is_miss(self) -> bool:
        return self.bad and self.decision == "pass"

    @property
    def is_true_pass(self) -> bool:
        return not self.bad and self.decision == "pass"

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "class": self.cls,
            "decision": self.decision,
            "bad": self.bad,
            "votes": list(self.votes) if self.votes is not None else None,
            "confidence": self.confidence,
            "probe": self.probe,
        }


# -- parsing ----------------------------------------------------------------------------------


def _check(cond: bool, line: int, rule: str, got: object = None) -> None:
    if not cond:
        raise HistoryError(line, words.bad_row(rule, got))


def parse_row(text: str, line: int) -> Row:
    """One history line → Row, or HistoryError saying what is wrong."""
    try:
        d = json.loads(text)
    except ValueError as exc:
        raise HistoryError(line, words.bad_row("not_json", str(exc))) from None
    _check(isinstance(d, dict), line, "not_object", type(d).__name__)
    missing = sorted({"id", "class", "decision", "bad"} - d.keys())
    _check(not missing, line, "missing", missing)
    unknown = sorted(d.keys() - _KEYS)
    _check(not unknown, line, "unknown", unknown)
    _check(isinstance(d["id"], str) and d["id"] != "", line, "id")
    _check(isinstance(d["class"], str) and d["class"] != "", line, "class")
    _check(d["decision"] in ("pass", "fail"), line, "decision", d["decision"])
    _check(isinstance(d["bad"], bool), line, "bad", d["bad"])
    votes = d.get("votes")
    _check(votes is None or (isinstance(votes, list) and all(v in ("pass", "fail") for v in votes)), line, "votes")
    conf = d.get("confidence")
    _check(
        conf is None
        or (isinstance(conf, (int, float)) and not isinstance(conf, bool) and math.isfinite(conf) and 0 <= conf <= 1),
        line,
        "confidence",
        conf,
    )
    probe = d.get("probe")
    _check(probe in (None, "pass", "fail"), line, "probe", probe)
    return Row(
        d["id"],
        d["class"],
        d["decision"],
        d["bad"],
        tuple(votes) if votes is not None else None,
        float(conf) if conf is not None else None,
        probe,
        line,
    )


@dataclass
class History:
    rows: "list[Row]" = field(default_factory=list)
    skipped: "list[HistoryError]" = field(default_factory=list)


def parse_history(lines: Iterable[str], skip_invalid: bool = False) -> History:
    """Parse every non-blank line; the first malformed one raises unless `skip_invalid`."""
    out = History()
    for n, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            out.rows.append(parse_row(text, n))
        except HistoryError as exc:
            if not skip_invalid:
                raise
            out.skipped.append(exc)
    return out


# -- the registry -----------------------------------------------------------------------------


def registry_predicate(
    registry: "ReversalRegistry | None" = None, globs: "Iterable[str]" = (), holdout: "Iterable[str]" = ()
) -> "Callable[[str], bool]":
    """class → in the registry (reversal-prone), after removing the hold-out classes."""
    patterns = [g.strip() for g in globs if g.strip()]
    held = set(holdout)

    def listed(cls: str) -> bool:
        if cls in held:
            return False
        if registry is not None and reversals.is_reversal_prone(registry, cls):
            return True
        return any(fnmatch.fnmatchcase(cls, g) for g in patterns)

    return listed


def split_globs(spec: "str | None") -> "list[str]":
    return [g.strip() for g in (spec or "").split(",") if g.strip()]


# -- policies ---------------------------------------------------------------------------------


def escalates(policy: str, row: Row, listed: "Callable[[str], bool]") -> bool:
    """Whether `policy` escalates `row` (see the module docstring)."""
    d = row.pattern == "split"
    t1 = listed(row.cls)
    high = row.confidence is None or row.confidence >= UNANIMOUS_CONFIDENCE
    t2 = t1 and row.decision == "pass" and row.pattern == "unanimous" and high
    probe = row.probe == "fail"
    return {"D": d, "T1": t1, "T2": t2, "D+T2": d or t2, "PROBE": probe, "D+T2+PROBE": d or t2 or probe}[policy]


@dataclass
class PolicyResult:
    policy: str
    n: int
    misses: int
    misses_escalated: int
    true_passes: int
    true_passes_escalated: int
    holdout_misses: int = 0
    holdout_misses_escalated: int = 0

    @property
    def miss_capture_rate(self) -> "float | None":
        return self.misses_escalated / self.misses if self.misses else None

    @property
    def misses_auto_passed(self) -> int:
        return self.misses - self.misses_escalated

    @property
    def miss_auto_pass_rate(self) -> "float | None":
        return self.misses_auto_passed / self.misses if self.misses else None

    @property
    def control_misses(self) -> int:
        """Misses outside the hold-out classes (the control population)."""
        return self.misses - self.holdout_misses

    @property
    def control_misses_escalated(self) -> int:
        return self.misses_escalated - self.holdout_misses_escalated

    @property
    def control_capture_rate(self) -> "float | None":
        return self.control_misses_escalated / self.control_misses if self.control_misses else None

    @property
    def true_pass_escalation_rate(self) -> "float | None":
        return self.true_passes_escalated / self.true_passes if self.true_passes else None

    def to_json(self) -> dict:
        return {
            "policy": self.policy,
            "n": self.n,
            "misses": self.misses,
            "misses_escalated": self.misses_escalated,
            "miss_capture_rate": self.miss_capture_rate,
            "misses_auto_passed": self.misses_auto_passed,
            "miss_auto_pass_rate": self.miss_auto_pass_rate,
            "true_passes": self.true_passes,
            "true_passes_escalated": self.true_passes_escalated,
            "true_pass_escalation_rate": self.true_pass_escalation_rate,
            "holdout_misses": self.holdout_misses,
            "holdout_misses_escalated": self.holdout_misses_escalated,
            "control_misses": self.control_misses,
            "control_misses_escalated": self.control_misses_escalated,
            "control_capture_rate": self.control_capture_rate,
        }


@dataclass
class Evaluation:
    results: "list[PolicyResult]"
    rows: int
    excluded: "list[str]"
    skipped: "list[str]"
    holdout: "list[str]"

    def by_policy(self) -> "dict[str, PolicyResult]":
        return {r.policy: r for r in self.results}

    def to_json(self) -> dict:
        return {
            "rows": self.rows,
            "evaluated": self.rows - len(self.excluded),
            "excluded": len(self.excluded),
            "excluded_ids": self.excluded,
            "skipped": len(self.skipped),
            "skipped_lines": self.skipped,
            "holdout": self.holdout,
            "policies": [r.to_json() for r in self.results],
        }


def evaluate(history: History, listed: "Callable[[str], bool]", holdout: "Iterable[str]" = ()) -> Evaluation:
    """Every policy over the history's evaluable rows."""
    held = set(holdout)
    rows = [r for r in history.rows if r.pattern is not None]
    excluded = [r.id for r in history.rows if r.pattern is None]
    policies = BASE_POLICIES + (PROBE_POLICIES if any(r.probe for r in rows) else ())
    results = []
    for policy in policies:
        res = PolicyResult(policy, n=len(rows), misses=0, misses_escalated=0, true_passes=0, true_passes_escalated=0)
        for r in rows:
            esc = escalates(policy, r, listed)
            if r.is_miss:
                res.misses += 1
                res.misses_escalated += esc
                if r.cls in held:
                    res.holdout_misses += 1
                    res.holdout_misses_escalated += esc
            elif r.is_true_pass:
                res.true_passes += 1
                res.true_passes_escalated += esc
        results.append(res)
    return Evaluation(results, len(history.rows), excluded, [str(e) for e in history.skipped], sorted(held))
