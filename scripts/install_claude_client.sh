#!/usr/bin/env bash
# Install the real Claude Code CLI at a pinned version into the repo's git-ignored cache
# (.cache/claude-client/<version>/, so versions sit side by side) for the end-to-end tests, and
# print the binary's absolute path on the last line of stdout. Idempotent: does nothing when that
# version is already installed. The pin is the newest release the e2e suite passed on
# (scripts/e2e_client.sh runs it against any version; the README states the range).
#
#   CLAUDE_CODE_VERSION   version to install (default below)
#   CLAUDE_CLIENT_DIR     install directory (default <repo>/.cache/claude-client/<version>)
set -euo pipefail

CLAUDE_CODE_VERSION="${CLAUDE_CODE_VERSION:-2.1.332}"
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CLIENT_DIR="${CLAUDE_CLIENT_DIR:-$REPO_ROOT/.cache/claude-client/$CLAUDE_CODE_VERSION}"

die() { echo "install_claude_client: $*" >&2; exit 1; }

native_package() {
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64|Linux-amd64) echo "claude-code-linux-x64" ;;
    Linux-aarch64|Linux-arm64) echo "claude-code-linux-arm64" ;;
    *) die "unsupported platform $(uname -s)-$(uname -m) (linux-x64 and linux-arm64 only)" ;;
  esac
}

binary_path() {
  echo "$CLIENT_DIR/node_modules/@anthropic-ai/$(native_package)/claude"
}

installed_version() {
  # `claude --version` prints e.g. "2.1.328 (Claude Code)"
  local bin="$1"
  [ -x "$bin" ] || return 1
  "$bin" --version 2>/dev/null | awk 'NR==1 {print $1}'
}

main() {
  local bin
  bin="$(binary_path)"
  if [ "$(installed_version "$bin" || true)" = "$CLAUDE_CODE_VERSION" ]; then
    echo "claude-code $CLAUDE_CODE_VERSION already installed" >&2
    echo "$bin"
    return 0
  fi
  command -v npm >/dev/null 2>&1 || die "npm not found; install Node.js (>= 18) first"
  mkdir -p "$CLIENT_DIR"
  [ -f "$CLIENT_DIR/package.json" ] || echo '{"name": "claude-client-cache", "private": true}' > "$CLIENT_DIR/package.json"
  echo "installing @anthropic-ai/claude-code@$CLAUDE_CODE_VERSION into $CLIENT_DIR" >&2
  # The native binary lives in a platform-specific optional dependency, so a skipped
  # postinstall script (npm's allow-scripts policy) does not matter.
  (cd "$CLIENT_DIR" && npm install --no-audit --no-fund --loglevel=error \
      "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" >&2) \
    || die "npm install @anthropic-ai/claude-code@$CLAUDE_CODE_VERSION failed"
  local got
  got="$(installed_version "$bin" || true)"
  [ "$got" = "$CLAUDE_CODE_VERSION" ] \
    || die "expected $bin to report version $CLAUDE_CODE_VERSION, got '${got:-nothing}'"
  echo "$bin"
}

main "$@"
