"""Deliberation gates for Claude Code.

Nothing is imported here on purpose: every hook is a fresh process and import time is latency.
See docs/ARCHITECTURE.md for the module map.
"""

__version__ = "0.1.0"
SCHEMA_VERSION = 1


def plugin_root() -> str:
    """The folder of this copy of the plugin: hooks/, lib/, agents/, pyproject.toml."""
    import os  # the package imports nothing when it loads: the hook process may not load os

    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# The layers, lowest first. A module imports only from its own layer or a lower one, and no
# chain of imports comes back to where it started (tests/unit/test_architecture.py walks every
# import, function-level ones included). docs/ARCHITECTURE.md says what each layer holds.
LAYERS = ("wire", "state", "text", "core", "report", "app", "runtime", "cli")
# Below every layer: modules of the package itself that import nothing but an earlier one of
# these (the catalogues of dimensions, task types and personas; the defaults of every setting,
# derived from them; the one way to show a project's name), so that any module of any tier may
# import them.
BASE = ("catalogue", "defaults", "names")

# The latency tiers: what a hook process may load before it knows it has work to do.
#   builtins — the hook process itself: builtin modules and _socket only (not even os or json)
#   stdlib   — routine events answered without the models: the standard library only
# Everything else may load pydantic (the slow path, or the warm worker that keeps it loaded).
TIERS = {
    "builtins": (
        "deliberation.runtime.hook_client",
        "deliberation.wire.worker_socket",
        "deliberation.wire.worker_protocol",
        "deliberation.wire.deadlines",
        "deliberation.catalogue",
        "deliberation.defaults",
        "deliberation.names",
        "deliberation.runtime.client_env",
    ),
    "stdlib": (
        "deliberation.runtime.cheap_answers",
        "deliberation.runtime.hook_runner",
        "deliberation.runtime.error_handler",
        "deliberation.runtime.plugin_env",
        "deliberation.runtime.worker_launch",
        "deliberation.wire.hookio",
        "deliberation.wire.fastjson",
        "deliberation.state.ids",
        "deliberation.state.paths",
        "deliberation.state.atomic",
        "deliberation.state.gitignore",
        "deliberation.state.event_log",
        "deliberation.state.safe_read",
        "deliberation.state.seal",
        "deliberation.state.user_data",
        "deliberation.state.project_env",
        "deliberation.state.consent",
        "deliberation.state.plain_reads",
        "deliberation.state.session_switch",
        # a session start's upkeep and the off switch
        "deliberation.core.off_switch",
        "deliberation.app.retention",
        "deliberation.core.retention",
        "deliberation.text.prune",
        # the trigger, and what it loads when a prompt triggers (the protocol, the model spread)
        "deliberation.core.trigger",
        "deliberation.core.confidence",
        "deliberation.text.trigger",
        "deliberation.core.terms",
        "deliberation.core.task_type",
        "deliberation.core.instructions",
        "deliberation.text.protocol",
        "deliberation.core.depth",
        "deliberation.core.agent_model",
        "deliberation.core.token_usage",
        "deliberation.text.tokens",
        "deliberation.core.personas",
        "deliberation.core.human_review",
        "deliberation.text",
        "deliberation.text.refusals",
        "deliberation.text.switch",
        "deliberation.core.vocabulary",
        "deliberation.core.acts",
        "deliberation.core.lexicon",
        # the self-rating (and the settings awaiting approval) said at SessionStart; the mid-task
        # net on a Bash or edit call
        "deliberation.text.self_rating",
        "deliberation.text.consent",
        "deliberation.core.tool_net",
        "deliberation.text.net",
        "deliberation.core.state_guard",
        "deliberation.core.document_call",
        # the plugin's names a file of the project takes: the prompt hook's deliberate command, the
        # session start's line (core/shadows.py, app/shadowed.py)
        "deliberation.app.shadowed",
        "deliberation.core.shadows",
        "deliberation.state.client_files",
        "deliberation.text.shadows",
        "deliberation.text.commands",
        "deliberation.names",
    ),
}

# Imports inside a function, where a module defers what most of its callers never need. Allowed
# in the tiers' modules (each defers what a routine event does not load) and in the modules
# below, for the reason given; tests/unit/test_architecture.py fails on any other.
DEFERRED_IMPORTS = {
    "deliberation": "the package imports nothing when it loads: the hook process may not load os",
    "deliberation.cli": "`deliberation --help` and `--version` load nothing but the dispatcher; argparse, the command and the store load when a command runs",
    "deliberation.cli.doctor": "it reports a broken environment, so the models load after the interpreter is checked",
    "deliberation.state.group_commit": "the warm worker imports it before site-packages: the store loads at a commit",
    "deliberation.state.schemas": "jsonschema loads when a file is validated (doctor, the drift check), not with the store",
}
