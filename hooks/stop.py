#!/usr/bin/env python3
"""Stop hook: Gate 2, depth-axis step, escalation route, decision record."""

import sys

sys.path.insert(0, (__file__.rpartition("/")[0] or ".") + "/../lib")  # no os.path: see hook_client
from deliberation.runtime.hook_client import main

main("Stop")
