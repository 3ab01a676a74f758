#!/bin/sh
# Launch one hook script in plugin form (hooks/hooks.json): `sh run.sh EVENT_SCRIPT.py`.
#
# Interpreter, the first that exists:
#   1. the plugin's own environment in ${CLAUDE_PLUGIN_DATA}: `current` names it (envs/<name>),
#      and names only a finished one (lib/deliberation/runtime/plugin_env.py sets it up at session start)
#   2. <plugin>/.venv/bin/python, when install.sh has run in the plugin folder
#   3. python3 from PATH
# No probing here (every hook is latency: one `read` and a few stats): the hook script and
# hook_runner own the rest of the contract — on a missing dependency (ImportError) they print
# one JSON systemMessage saying what is going on and exit 0. This launcher only covers what
# Python cannot report: no interpreter at all, or a script name that is not ours. It never
# exits 2 (2 would block).
case "$0" in  # hooks.json gives an absolute path: no dirname processes (~4 ms a hook)
    /*) here=${0%/*} ;;
    *) here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd) ;;
esac
plugin=${here%/*}

say() {
    cat >/dev/null 2>&1  # drain the payload so the client never sees a broken pipe
    printf '{"systemMessage": "deliberation: %s"}\n' "$1"
    exit 0
}

case "${1:-}" in
    *[!a-z_.]* | "" | .*) say "hook launcher called without a valid hook script name; hooks are inactive" ;;
esac
[ -f "$here/$1" ] || say "hook script $1 is missing from the plugin folder; reinstall the plugin"

python=""
if [ -n "${CLAUDE_PLUGIN_DATA:-}" ] && read -r env 2>/dev/null <"$CLAUDE_PLUGIN_DATA/current"; then
    case "$env" in
        envs/*/* | envs/*[!0-9a-f-]*) ;;  # not a name the set-up writes: ignored
        envs/?*) [ -x "$CLAUDE_PLUGIN_DATA/$env/bin/python" ] && python="$CLAUDE_PLUGIN_DATA/$env/bin/python" ;;
    esac
fi
if [ -z "$python" ] && [ -x "$plugin/.venv/bin/python" ]; then
    python="$plugin/.venv/bin/python"
fi
if [ -z "$python" ]; then
    python=$(command -v python3 2>/dev/null) || python=""
fi
[ -n "$python" ] || say "no python3 found; install Python 3.10 or newer (hooks are inactive until then)"

exec "$python" -I -S "$here/$1"
