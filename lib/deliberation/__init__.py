"""Deliberation gates for Claude Code.

Nothing is imported here on purpose: every hook is a fresh process and import time is latency.
See docs/ARCHITECTURE.md for the module map.
"""

__version__ = "0.1.0"
SCHEMA_VERSION = 1
