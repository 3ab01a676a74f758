"""core/retention: what a prune removes, keeps and why."""

from __future__ import annotations

from deliberation.core.retention import DAY_S, Item, plan, summary

NOW = 2_000_000_000.0
MB = 1 << 20


def steps_of(items, age=30, total=100, errors_max=MB):
    return {s.item.name: (s.action, s.reason) for s in plan(items, NOW, age, total, errors_max)}


def test_age_removes_what_was_untouched_too_long_and_keeps_what_is_in_use():
    items = [
        Item("session", "sessions/old", 10, NOW - 40 * DAY_S),
        Item("session", "sessions/new", 10, NOW - 2 * DAY_S),
        Item("session", "sessions/open", 10, NOW - 400 * DAY_S, busy="deliberation d-1 is open"),
        Item("quarantined", "config.json.corrupt-1", 10, NOW - 31 * DAY_S),
        Item("leftover", "sessions/.trash-x", 10, NOW),
    ]
    got = steps_of(items)
    assert got["sessions/old"] == ("remove", "untouched for 40 days (the limit is 30)")
    assert got["sessions/new"][0] == "keep"
    assert got["sessions/open"] == ("keep", "deliberation d-1 is open")
    assert got["config.json.corrupt-1"][0] == "remove"
    assert got["sessions/.trash-x"] == ("remove", "left by an interrupted prune")


def test_size_removes_the_oldest_first_but_nothing_used_today_nor_in_use():
    items = [Item("session", f"sessions/s{i}", 30 * MB, NOW - (10 - i) * DAY_S) for i in range(6)]
    items.append(Item("session", "sessions/today", 30 * MB, NOW - 3600))
    items.append(Item("session", "sessions/busy", 30 * MB, NOW - 20 * DAY_S, busy="its decision awaits a person's review"))
    got = steps_of(items, total=100)
    removed = [n for n, (a, _) in got.items() if a == "remove"]
    assert removed == ["sessions/s0", "sessions/s1", "sessions/s2", "sessions/s3", "sessions/s4"]  # 90 MB left
    assert got["sessions/today"][0] == "keep" and got["sessions/busy"][0] == "keep"
    assert got["sessions/s0"][1] == "the oldest beyond the 100 MB total"
    assert [n for n, (a, _) in steps_of(items, total=200).items() if a == "remove"] == ["sessions/s0", "sessions/s1"]


def test_errors_log_is_trimmed_to_the_newest_half_of_its_limit_and_the_summary_counts_bytes():
    """Whatever its size, what stays is the newest half of the limit: a 2 GiB errors.log keeps
    512 KiB (and the trim reads only that: app/retention._trim)."""
    items = [Item("errors_log", "errors.log", 3 * MB, NOW - DAY_S), Item("session", "sessions/a", 100, NOW - 99 * DAY_S)]
    steps = plan(items, NOW, 30, 100, MB)
    assert [(s.item.name, s.action) for s in steps] == [("sessions/a", "remove"), ("errors.log", "trim")]
    assert steps[1].keep == MB // 2
    assert summary(steps) == {
        "removed": 1,
        "freed_bytes": 100 + 3 * MB - MB // 2,
        "kept": 0,
        "kept_bytes": MB // 2,
        "trimmed": 1,
    }
    huge = plan([Item("errors_log", "errors.log", 2 << 30, NOW - DAY_S)], NOW, 30, 100, MB)
    assert huge[0].keep == MB // 2
