"""What the plugin keeps, how big and for how long: the defaults, as plain constants.

Stdlib only, beside config.py: the fast path reads them (it never imports the config's models)
and `config.RetentionConfig` uses them as its defaults. docs/STORAGE.md explains each one.
"""

# A string in a logged hook payload (a prompt, a tool input, an agent's final message) is kept up
# to this many characters; the record names each cut field and its full length. It is at least
# the report limit (`deliberation.max_report_bytes`, 64 KiB by default), so every report a
# deliberation accepts stays whole in its log and replays exactly.
LOG_FIELD_CAP_CHARS = 64 * 1024

# Session folders (their event log, lineage, state) untouched this long are removed at a
# session start; and beyond this total size of session folders and logs, the oldest go first.
RETENTION_MAX_AGE_DAYS = 30
RETENTION_MAX_TOTAL_MB = 100

# A session start looks for what to prune at most this often (one stat of the last run's stamp
# otherwise): a scan of every session folder is not paid on every session start.
RETENTION_CHECK_EVERY_S = 3600

# A session start spends at most this long removing (folder removal costs 0.2-3 ms each,
# depending on the filesystem); what is left goes at the next session start, which is then due
# at once. `deliberation gc` has no budget.
PRUNE_BUDGET_S = 0.1

# errors.log beyond this size keeps its newest half (tracebacks of old failures are not kept whole).
ERRORS_LOG_MAX_BYTES = 1 << 20
