#!/usr/bin/env python3
"""PreToolUse hook: spawn budget, phase order, context isolation, depth-axis spawn rules; ask/deny while a decision awaits human review."""

import sys

sys.path.insert(0, (__file__.rpartition("/")[0] or ".") + "/../lib")  # no os.path: see hook_client
from deliberation.runtime.hook_client import main

main("PreToolUse")
