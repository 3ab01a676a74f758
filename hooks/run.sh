#!/bin/sh
# Launch one hook script in plugin form (hooks/hooks.json): `sh run.sh EVENT_SCRIPT.py`.
#
# Interpreter, the first that exists:
#   1. the plugin's own environment in ${CLAUDE_PLUGIN_DATA}: `current` names it (envs/<name>),
#      and names only a finished one (lib/deliberation/runtime/plugin_env.py sets it up at session start)
#   2. <plugin>/.venv/bin/python, when install.sh has run in the plugin folder
#   3. python3 from PATH — an absolute entry that resolves outside the project only (Claude Code passes the
#      project's .claude/settings.json `env` to plugin hooks, PATH included: `./tools` there
#      must not pick the interpreter), else /usr/local/bin, /opt/homebrew/bin, /usr/bin
# No probing here (every hook is latency: one `read` and a few stats): the hook script and
# hook_runner own the rest of the contract — on a missing dependency (ImportError) they print
# one JSON systemMessage saying what is going on and exit 0. This launcher only covers what
# Python cannot report: no interpreter at all, or a script name that is not ours. It never
# exits 2 (2 would block).
case "$0" in  # hooks.json gives an absolute path: no dirname processes (~4 ms a hook)
    /*) here=${0%/*} ;;
    *) here=$(CDPATH= cd -- "${0%/*}" && pwd) ;;  # builtins only: PATH may be the project's
esac
plugin=${here%/*}

say() {
    /bin/cat >/dev/null 2>&1  # drain the payload so the client never sees a broken pipe
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
if [ -z "$python" ]; then  # python3 on PATH: absolute entries outside the project only
    # each entry judged by what it resolves to (`cd -P`, a builtin): `/proc/self/cwd/tools` or a
    # link to the project's tools/ is the project's, whatever its spelling
    start=$PWD project=""
    if [ -n "${CLAUDE_PROJECT_DIR:-}" ] && cd -P -- "$CLAUDE_PROJECT_DIR" 2>/dev/null; then project=$PWD; fi
    IFS_WAS=$IFS IFS=: skipped=""
    set -f
    for dir in $PATH; do
        case "$dir" in /*) ;; *) skipped=1; continue ;; esac
        cd -- "$start" 2>/dev/null  # /proc/self/cwd resolves against the hook's own folder
        cd -P -- "$dir" 2>/dev/null || continue
        real=$PWD
        if [ -n "${CLAUDE_PROJECT_DIR:-}" ]; then
            case "$dir/" in "$CLAUDE_PROJECT_DIR"/*) skipped=1; continue ;; esac
            if [ -n "$project" ]; then case "$real/" in "$project"/*) skipped=1; continue ;; esac; fi
        fi
        if [ -x "$real/python3" ] && [ ! -d "$real/python3" ]; then python="$real/python3"; break; fi
    done
    set +f
    IFS=$IFS_WAS
    cd -- "$start" 2>/dev/null || cd /
    if [ -z "$python" ] && [ -n "$skipped" ]; then  # PATH pointed into the project: the system's python3
        for fallback in /usr/local/bin/python3 /opt/homebrew/bin/python3 /usr/bin/python3; do
            if [ -x "$fallback" ]; then python=$fallback; break; fi
        done
    fi
fi
[ -n "$python" ] || say "no python3 found; install Python 3.10 or newer (hooks are inactive until then)"

exec "$python" -I -S "$here/$1"
