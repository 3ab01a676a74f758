#!/usr/bin/env python3
"""PostToolUse hook: links a spawn to its agent id; foreground reports and Gate 1."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from deliberation.hook_runner import run  # noqa: E402

run("PostToolUse")
