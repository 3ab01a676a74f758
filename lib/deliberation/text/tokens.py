"""What a deliberation's subagent token figure counts, as the decision record states it beside
the figure (core/token_usage.py computes the figure). Standard library only, and it imports
nothing: core/token_usage.py is loaded when a prompt triggers."""

COUNTED = (
    "each subagent's final context plus its last output (input, cache and output tokens of its "
    "last API response — the figure the client reports as totalTokens)"
)
