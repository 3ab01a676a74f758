#!/usr/bin/env python3
"""PostToolUse hook: links a spawn to its agent id; foreground reports and Gate 1."""

import sys

sys.path.insert(0, (__file__.rpartition("/")[0] or ".") + "/../lib")  # no os.path: see hook_client
from deliberation.runtime.hook_client import main

main("PostToolUse")
