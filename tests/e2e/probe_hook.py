"""A probe hook for measuring how the client shows each hook answer to the model.

`python3 probe_hook.py EVENT` logs its payload to `<project>/probe-log.jsonl` and answers from
`<project>/probe.json`: {key: [answer, ...]}, the n-th call of a key taking the n-th answer (none
left → no output, exit 0). The key is the event name, or `PreToolUse:<tool>` for PreToolUse, or
`Stop:running` for a Stop while a background agent still runs (whether one does when the main
agent first stops is a race the client decides). An answer is {"stdout": JSON object or text,
"stderr": text, "exit": code}.
Stdlib only; used by test_e2e_hook_answers.py (never by the plugin).
"""

import json
import os
import sys


def main() -> int:
    event = sys.argv[1]
    root = os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd()
    raw = sys.stdin.read()
    payload = json.loads(raw) if raw.strip() else {}
    with open(os.path.join(root, "probe-log.jsonl"), "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"event": event, "payload": payload}) + "\n")
    key = f"PreToolUse:{payload.get('tool_name')}" if event == "PreToolUse" else event
    if event == "Stop" and any(
        isinstance(t, dict) and t.get("status") == "running" for t in payload.get("background_tasks") or []
    ):
        key = "Stop:running"
    try:
        with open(os.path.join(root, "probe.json"), encoding="utf-8") as fh:
            answers = json.load(fh).get(key) or []
    except OSError:
        answers = []
    counter = os.path.join(root, f".probe-count-{key.replace(':', '_')}")
    try:
        with open(counter, encoding="utf-8") as fh:
            n = int(fh.read() or 0)
    except OSError:
        n = 0
    with open(counter, "w", encoding="utf-8") as fh:
        fh.write(str(n + 1))
    if n >= len(answers):
        return 0
    answer = answers[n]
    out = answer.get("stdout")
    if out is not None:
        sys.stdout.write(out if isinstance(out, str) else json.dumps(out))
    if answer.get("stderr"):
        sys.stderr.write(answer["stderr"])
    return int(answer.get("exit", 0))


if __name__ == "__main__":
    sys.exit(main())
