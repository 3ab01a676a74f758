"""How a hook runs: the hook client, the in-process runner, the warm worker and its batching, the cheap answers of routine events, the one error handler."""
