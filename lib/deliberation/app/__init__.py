"""The application layer: one handler per hook event, and the shells around the core that touch state or the outside world (human review, probes, the reversal registry, transcripts)."""
