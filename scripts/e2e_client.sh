#!/usr/bin/env bash
# Run the end-to-end suite (tests/e2e) against one Claude Code version, and say which version it
# was and how the suite went, so the supported range is tested rather than assumed.
#
#   CLAUDE_CODE_VERSION=2.1.328 scripts/e2e_client.sh            the whole e2e suite on 2.1.328
#   CLAUDE_CODE_VERSION=2.1.332 scripts/e2e_client.sh -k handback a selection (pytest arguments)
#   CLAUDE_BIN=/path/to/claude scripts/e2e_client.sh             a binary you have (its version is checked)
#
# The client comes from $CLAUDE_BIN when its `--version` is the one asked for (or when no version
# is asked for), else from scripts/install_claude_client.sh (npm, into .cache/claude-client/<version>/).
# The last line printed is the verdict, e.g. "claude-code 2.1.332: e2e 163 passed"; the exit code
# is pytest's. A summary line per run is appended to .cache/e2e-clients.log.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO="$(pwd -P)"
die() { printf 'e2e_client: %s\n' "$*" >&2; exit 2; }

version_of() { "$1" --version 2>/dev/null | awk 'NR==1 {print $1}'; }

want="${CLAUDE_CODE_VERSION:-}"
bin="${CLAUDE_BIN:-}"
if [ -n "$bin" ]; then
  [ -x "$bin" ] || die "CLAUDE_BIN=$bin is not an executable file"
  got="$(version_of "$bin" || true)"
  if [ -n "$want" ] && [ "$got" != "$want" ]; then
    echo "CLAUDE_BIN is claude-code ${got:-?}, not $want: installing $want" >&2
    bin=""
  fi
fi
if [ -z "$bin" ]; then
  bin="$(CLAUDE_CODE_VERSION="${want:-}" bash scripts/install_claude_client.sh | tail -n 1)" \
    || die "could not install claude-code ${want:-(the pinned version)}"
fi
got="$(version_of "$bin" || true)"
[ -n "$got" ] || die "$bin --version printed nothing"
[ -z "$want" ] || [ "$got" = "$want" ] || die "$bin is claude-code $got, not $want"

py="$REPO/.venv/bin/python"
[ -x "$py" ] || py="$(command -v python3)"
echo "e2e suite against claude-code $got ($bin)" >&2
set +e
out="$(mktemp)"
# CI=true: a client that cannot run fails the tests instead of skipping them
CLAUDE_BIN="$bin" CI=true "$py" -m pytest tests/e2e -q -p no:cacheprovider "$@" 2>&1 | tee "$out"
rc="${PIPESTATUS[0]}"
set -e
summary="$(grep -E '^[0-9]+ (passed|failed)|^=+ .*(passed|failed|error).* =+$|no tests ran' "$out" | tail -n 1 | tr -d '=' | sed 's/^ *//; s/ *$//')"
rm -f "$out"
line="claude-code $got: e2e ${summary:-no summary (exit $rc)}"
mkdir -p "$REPO/.cache"
printf '%s %s%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$line" "${*:+ (args: $*)}" >> "$REPO/.cache/e2e-clients.log"
echo "$line"
exit "$rc"
