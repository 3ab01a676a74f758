#!/usr/bin/env python3
"""PostToolUseFailure hook: a spawn that failed after it was allowed stops counting as running."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from deliberation.hook_runner import run  # noqa: E402

run("PostToolUseFailure")
