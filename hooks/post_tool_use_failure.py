#!/usr/bin/env python3
"""PostToolUseFailure hook: a spawn that failed after it was allowed stops counting as running."""

import sys

sys.path.insert(0, (__file__.rpartition("/")[0] or ".") + "/../lib")  # no os.path: see hook_client
from deliberation.runtime.hook_client import main

main("PostToolUseFailure")
