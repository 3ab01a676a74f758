#!/usr/bin/env python3
"""PreToolUse hook: spawn budget, phase order, context isolation, depth-axis spawn rules; ask/deny while a decision awaits human review."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from deliberation.hook_runner import run  # noqa: E402

run("PreToolUse")
