"""Deliberation gates for Claude Code.

Nothing is imported here on purpose: every hook is a fresh process and import time is latency.
See docs/ARCHITECTURE.md for the module map.
"""

__version__ = "0.1.0"
SCHEMA_VERSION = 1

# The layers, lowest first. A module imports only from its own layer or a lower one, and no
# chain of imports comes back to where it started (tests/unit/test_architecture.py walks every
# import, function-level ones included). docs/ARCHITECTURE.md says what each layer holds.
LAYERS = ("wire", "state", "core", "report", "app", "runtime", "cli")

# The latency tiers: what a hook process may load before it knows it has work to do.
#   builtins — the hook process itself: builtin modules and _socket only (not even os or json)
#   stdlib   — routine events answered without the models: the standard library only
# Everything else may load pydantic (the slow path, or the warm worker that keeps it loaded).
TIERS = {
    "builtins": ("deliberation.runtime.hook_client", "deliberation.wire.worker_socket",
                 "deliberation.wire.deadlines"),
    "stdlib": ("deliberation.runtime.cheap_answers", "deliberation.runtime.hook_runner",
               "deliberation.runtime.error_handler", "deliberation.wire.hookio", "deliberation.state.ids",
               "deliberation.state.paths", "deliberation.state.event_log", "deliberation.runtime.plugin_env",
               "deliberation.state.safe_read", "deliberation.state.seal", "deliberation.state.user_data",
               "deliberation.state.project_env", "deliberation.state.consent", "deliberation.state.plain_reads"),
}
