#!/usr/bin/env python3
"""SessionStart hook (plugin form): sets up, or updates, the plugin's own Python environment in the background."""

import sys

sys.path.insert(0, (__file__.rpartition("/")[0] or ".") + "/../lib")  # stdlib only: no environment exists yet
from deliberation.runtime.plugin_env import hook_main

hook_main()
