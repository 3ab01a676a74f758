#!/usr/bin/env python3
"""UserPromptSubmit hook: the trigger (confidence module) and background-report capture from task notifications."""

import sys

sys.path.insert(0, (__file__.rpartition("/")[0] or ".") + "/../lib")  # no os.path: see hook_client
from deliberation.runtime.hook_client import main

main("UserPromptSubmit")
