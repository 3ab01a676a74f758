#!/usr/bin/env python3
"""SessionStart hook: reminds Claude of an unfinished deliberation after a restart."""

import sys

sys.path.insert(0, (__file__.rpartition("/")[0] or ".") + "/../lib")  # no os.path: see hook_client
from deliberation.runtime.hook_client import main

main("SessionStart")
