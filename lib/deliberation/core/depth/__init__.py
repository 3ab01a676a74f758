"""The depth axis: contested points (hot spots), tier-2 spawn rules, depth-aware synthesis."""
