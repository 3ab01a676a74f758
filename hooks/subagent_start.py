#!/usr/bin/env python3
"""SubagentStart hook: lineage - records the child as running."""

import sys

sys.path.insert(0, (__file__.rpartition("/")[0] or ".") + "/../lib")  # no os.path: see hook_client
from deliberation.runtime.hook_client import main

main("SubagentStart")
