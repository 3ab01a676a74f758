#!/usr/bin/env python3
"""SubagentStop hook: background reports, report validation with one send-back, Gate 1."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from deliberation.hook_runner import run  # noqa: E402

run("SubagentStop")
