"""The pure decisions of a deliberation: functions over the typed models, no I/O."""
