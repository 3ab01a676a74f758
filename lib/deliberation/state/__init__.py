"""State on disk: ids, paths, the persisted models, the config, the schemas, the store (atomic writes, locks, the session transaction) and the event log."""
