"""The reliability suite's one-line summaries, repeated in pytest's terminal summary."""

from __future__ import annotations


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    from tests.helpers.reliability import SUMMARIES

    if SUMMARIES:
        terminalreporter.section("reliability counts")
        for line in SUMMARIES:
            terminalreporter.write_line(line)
