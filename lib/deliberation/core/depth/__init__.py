"""The depth axis: contested points (hot spots), tier-2 spawn rules, depth-aware synthesis."""

# The floor every tier-2 worker's prompt carries verbatim (the depth axis checks it; the
# protocol quotes it). Here, in the package's light entry, so the protocol text loads no models.
FLOOR = ("Tier 1 is material, not the answer; agreeing again scores 0.", "The red team's words are material too: check them.")
