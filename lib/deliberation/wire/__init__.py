"""Claude Code's hook protocol and the worker's wire format: events in, answers out, one deadline per event, the per-user socket. Standard library (mostly builtins) only."""
