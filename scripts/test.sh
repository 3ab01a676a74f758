#!/usr/bin/env bash
# The test command (README): set up .venv with the test extras and the pinned Claude Code
# client if they are missing, then the static checks (ruff, mypy: pyproject.toml configures
# both) and the suite. Other arguments go to pytest.
#
#   ./scripts/test.sh            everything (static checks, unit, integration, reliability, end-to-end)
#   ./scripts/test.sh --quick    the edit-test loop: the static checks and the unit tests not marked
#                                slow (well under 3 minutes on a loaded 2-CPU machine; CI runs everything)
#   ./scripts/test.sh -k budget  a selection
#
# Exits non-zero on any failure; pytest's "no tests collected" (exit 5) is a failure too.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO="$(pwd -P)"
QUICK=0
if [ "${1:-}" = "--quick" ]; then QUICK=1; shift; fi
export PIP_DISABLE_PIP_VERSION_CHECK=1 DEBIAN_FRONTEND=noninteractive

section() { printf '\n==== %s ====\n' "$*"; }
warn() { printf 'WARNING: %s\n' "$*" >&2; }
die() { printf 'FAILED: %s\n' "$*" >&2; exit 1; }

have() { command -v "$1" >/dev/null 2>&1; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif have sudo; then sudo -n "$@"; else return 1; fi; }
APT_UPDATED=0
apt_install() {
  have apt-get || return 2
  if [ "$APT_UPDATED" = 0 ]; then as_root apt-get update -qq || return 1; APT_UPDATED=1; fi
  as_root apt-get install -y -qq "$@"
}

# --- 1. python and venv --------------------------------------------------------------------
section "python and venv"
PY=""
for c in python3.13 python3.12 python3.11 python3.10 python3; do
  have "$c" || continue
  exe="$("$c" -c 'import sys; print(sys.executable if sys.version_info >= (3, 10) else "")' 2>/dev/null)" || continue
  if [ -n "$exe" ]; then PY="$exe"; break; fi
done
if [ -z "$PY" ]; then
  apt_install python3 python3-venv python3-pip || true
  PY="$(command -v python3 || true)"
  [ -n "$PY" ] && "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 10))' || die "no Python >= 3.10"
fi
echo "python: $PY ($("$PY" --version 2>&1))"
# .venv is a link to a venv outside the folder, as install.sh makes it (its venv_home): a
# marketplace added from this folder's path copies the folder into Claude Code's cache but not a
# link that leads outside it. No HOME: a venv in the folder.
if ! .venv/bin/python -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
  base="${XDG_DATA_HOME:-${HOME:+$HOME/.local/share}}"
  if [ -n "$base" ] && { [ -L .venv ] || [ ! -e .venv ]; }; then
    home="$("$PY" -I -c 'import hashlib, os, re, sys
path = sys.argv[2]
name = re.sub(r"[^A-Za-z0-9._-]+", "_", os.path.basename(path)).strip("._") or "plugin"
print(os.path.join(sys.argv[1], "deliberation", "venvs", "%s-%s" % (name[:40], hashlib.sha256(path.encode()).hexdigest()[:12])))' \
      "$base" "$REPO")"
    mkdir -p "$(dirname "$home")"
    "$PY" -m venv --clear "$home" || { apt_install python3-venv && "$PY" -m venv --clear "$home"; } \
      || die "cannot create the venv $home"
    rm -f .venv
    ln -s "$home" .venv || die "cannot link .venv to $home"
  else
    rm -rf .venv
    "$PY" -m venv .venv || { apt_install python3-venv && "$PY" -m venv .venv; } || die "cannot create .venv"
  fi
fi
.venv/bin/python -m pip install -q --upgrade pip || warn "pip upgrade failed; using the venv's pip"
.venv/bin/python -m pip install -q -e ".[test]" || die "pip install -e .[test] failed"
.venv/bin/python -c 'import pydantic, orjson, jsonschema, pytest, hypothesis, mypy, deliberation' \
  || die "the venv lacks a dependency"
.venv/bin/ruff --version >/dev/null 2>&1 || die "the venv lacks ruff"
echo "venv: $REPO/.venv ready$([ -L .venv ] && echo " (a link to $(readlink .venv))")"

# --- 2. static checks ----------------------------------------------------------------------
section "static checks: ruff (lint, format), mypy"
.venv/bin/ruff check --quiet || die "ruff found problems (ruff check shows them)"
.venv/bin/ruff format --check --quiet || die "files are not formatted (ruff format fixes them; ruff format --diff shows how)"
.venv/bin/mypy || die "mypy found type errors"

# --- 3. Claude Code client -----------------------------------------------------------------
section "Claude Code client"
if [ "$QUICK" = 1 ]; then
  echo "--quick: no client needed (the end-to-end tests are not run)"
elif [ -n "${CLAUDE_BIN:-}" ] && [ -x "$CLAUDE_BIN" ]; then
  echo "claude: $CLAUDE_BIN (from CLAUDE_BIN)"
elif [ -f scripts/install_claude_client.sh ]; then
  if ! have npm; then apt_install nodejs npm || warn "npm unavailable and could not be installed"; fi
  if out="$(bash scripts/install_claude_client.sh)"; then
    CLAUDE_BIN="$(printf '%s\n' "$out" | tail -n 1)"
    export CLAUDE_BIN
    echo "claude: $CLAUDE_BIN ($("$CLAUDE_BIN" --version 2>/dev/null || echo '?'))"
  else
    warn "scripts/install_claude_client.sh failed; the end-to-end tests will fail under CI=true"
  fi
else
  echo "scripts/install_claude_client.sh not present: skipped"
fi

# --- 4. tests ------------------------------------------------------------------------------
rc=0
if [ "$QUICK" = 1 ]; then
  section "tests (--quick): pytest -m 'not slow' tests/unit"
  .venv/bin/python -m pytest -q -m "not slow" tests/unit "$@" || rc=$?
else
  section "tests: .venv/bin/python -m pytest -q"
  .venv/bin/python -m pytest -q "$@" || rc=$?
fi
case "$rc" in
  0) section "tests passed" ;;
  5) die "pytest collected no tests (exit 5)" ;;
  *) die "pytest failed (exit $rc)" ;;
esac
