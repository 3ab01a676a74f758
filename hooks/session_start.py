#!/usr/bin/env python3
"""SessionStart hook: reminds Claude of an unfinished deliberation after a restart."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from deliberation.hook_runner import run  # noqa: E402

run("SessionStart")
