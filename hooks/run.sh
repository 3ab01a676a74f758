#!/bin/sh
# Launch one hook script in plugin form (hooks/hooks.json): `sh run.sh EVENT_SCRIPT.py`.
#
# Interpreter: <plugin>/.venv/bin/python when install.sh has run, else python3 from PATH.
# No probing here (every hook is latency): the hook script and hook_runner own the rest of the
# contract — on a missing dependency (ImportError) they print one JSON systemMessage saying
# to run <plugin>/install.sh and exit 0. This launcher only covers what Python cannot report:
# no interpreter at all, or a script name that is not ours. It never exits 2 (2 would block).
here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
plugin=$(dirname -- "$here")

say() {
    cat >/dev/null 2>&1  # drain the payload so the client never sees a broken pipe
    printf '{"systemMessage": "deliberation: %s"}\n' "$1"
    exit 0
}

case "${1:-}" in
    *[!a-z_.]* | "" | .*) say "hook launcher called without a valid hook script name; hooks are inactive" ;;
esac
[ -f "$here/$1" ] || say "hook script $1 is missing from the plugin folder; reinstall the plugin"

python="$plugin/.venv/bin/python"
if [ ! -x "$python" ]; then
    python=$(command -v python3 2>/dev/null) || python=""
fi
[ -n "$python" ] || say "no python3 found; run install.sh in the plugin folder (hooks are inactive until then)"

exec "$python" -I -S "$here/$1"
