#!/usr/bin/env bash
# Install the deliberation hook plugin into a project, or take it out again.
#
#   ./install.sh [PROJECT_DIR]              set up <plugin>/.venv, wire the hooks into
#                                           PROJECT_DIR/.claude/settings.json (default: .)
#   ./install.sh --dry-run [PROJECT_DIR]    print what would change; change nothing
#   ./install.sh --uninstall [PROJECT_DIR]  remove exactly what install added
#   ./install.sh --demo [ARGS...]           set up the venv, then run the bundled demo
#
# <plugin>/.venv is a symlink to the venv, which lives in
# ${XDG_DATA_HOME:-~/.local/share}/deliberation/venvs/ (see venv_home below).
#
# Environment (mostly for tests):
#   DELIBERATION_VENV    use this existing venv (or Python prefix) instead of <plugin>/.venv;
#                        pip runs only when the dependencies are not importable there
#   DELIBERATION_PYTHON  the interpreter to build the venv with (default: newest python3.1x)
#
# The project-side work (settings merge, copies, manifest) is
# lib/deliberation/cli/install_settings.py; this script only finds Python and builds the venv.
set -euo pipefail

PLUGIN="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
VENV="${DELIBERATION_VENV:-$PLUGIN/.venv}"
DEPS_IMPORT='import pydantic, orjson, jsonschema'

say() { printf '%s\n' "$*"; }
die() { printf 'install.sh: %s\n' "$*" >&2; exit 1; }

usage() { sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

# --- arguments ---------------------------------------------------------------------------------
MODE=install
DRY_RUN=0
PROJECT=""
while [ $# -gt 0 ]; do
  case "$1" in
    --uninstall) MODE=uninstall ;;
    --dry-run) DRY_RUN=1 ;;
    --demo) MODE=demo; shift; break ;;
    -h|--help) usage; exit 0 ;;
    --) shift; [ $# -le 1 ] || die "only one PROJECT_DIR may be given"; PROJECT="${1:-}"; break ;;
    -*) die "unknown option $1 (see ./install.sh --help)" ;;
    *) [ -z "$PROJECT" ] || die "only one PROJECT_DIR may be given"; PROJECT="$1" ;;
  esac
  shift
done

# The project is someone else's input: resolve it now, then work from the plugin's own folder, so
# no `python -m`/`-c` below imports a module the project holds (argparse.py, hashlib.py, pip/…:
# the working directory comes first on sys.path). Every Python run is -I as well.
if [ "$MODE" != demo ]; then
  PROJECT="${PROJECT:-$PWD}"
  [ -d "$PROJECT" ] || die "project directory $PROJECT does not exist"
  PROJECT="$(cd "$PROJECT" && pwd -P)"
  cd "$PLUGIN"
fi

# --- python ------------------------------------------------------------------------------------
# The first candidate that really runs and is >= 3.10 (version shims may exist but not run).
find_python() {
  local c exe
  for c in ${DELIBERATION_PYTHON:+"$DELIBERATION_PYTHON"} python3.13 python3.12 python3.11 python3.10 python3; do
    command -v "$c" >/dev/null 2>&1 || continue
    exe="$("$c" -I -c 'import sys; print(sys.executable if sys.version_info >= (3, 10) else "")' 2>/dev/null)" || continue
    if [ -n "$exe" ]; then printf '%s\n' "$exe"; return 0; fi
  done
  return 1
}

BASE_PY="$(find_python)" || {
  found="$(python3 --version 2>&1 || echo "no python3 on PATH")"
  die "Python >= 3.10 is required (found: $found). Install Python 3.10 or newer, or point DELIBERATION_PYTHON at one."
}

# Run the stdlib-only project module from this plugin's lib/ with a given interpreter.
project_tool() {
  local py="$1"; shift
  "$py" -I -c 'import sys; sys.path.insert(0, sys.argv.pop(1)); from deliberation.cli.install_settings import main; sys.exit(main(sys.argv[1:]))' \
    "$PLUGIN/lib" "$@"
}

# --- venv --------------------------------------------------------------------------------------
# The venv lives outside the plugin folder and <plugin>/.venv is a symlink to it. Claude Code
# copies a plugin folder that is added as a marketplace by its path into its cache, untracked
# and git-ignored files included, but leaves out symlinks that lead outside the folder: a venv
# inside would be copied (40 MB) at every install and update, the link is not. One venv per
# plugin folder: its name is the folder's name and a hash of its path. No HOME and no
# XDG_DATA_HOME: the venv is made in the folder, as before.
venv_home() {
  local base="${XDG_DATA_HOME:-${HOME:+$HOME/.local/share}}"
  [ -n "$base" ] || return 1
  "$BASE_PY" -I -c 'import hashlib, os, re, sys
path = sys.argv[2]
name = re.sub(r"[^A-Za-z0-9._-]+", "_", os.path.basename(path)).strip("._") or "plugin"
print(os.path.join(sys.argv[1], "deliberation", "venvs", "%s-%s" % (name[:40], hashlib.sha256(path.encode()).hexdigest()[:12])))' \
    "$base" "$PLUGIN"
}

# Create the venv: outside the folder with <plugin>/.venv linking to it (when .venv is absent or
# a link), else (an existing .venv folder of an earlier install, or no HOME) in place.
create_venv() {
  local home=""
  if [ "$VENV" = "$PLUGIN/.venv" ] && { [ -L "$VENV" ] || [ ! -e "$VENV" ]; }; then
    home="$(venv_home)" || home=""
  fi
  if [ -n "$home" ]; then
    say "venv: creating the plugin's Python environment, linked as .venv, in"
    say "  $home"
    say "  with $BASE_PY"
    mkdir -p "$(dirname "$home")"
    "$BASE_PY" -I -m venv --clear "$home" \
      || die "could not create a venv at $home (on Debian/Ubuntu: apt-get install python3-venv)"
    rm -f "$VENV"
    ln -s "$home" "$VENV" || die "could not link $VENV to $home"
  else
    say "venv: creating the plugin's Python environment in"
    say "  $VENV"
    say "  with $BASE_PY"
    "$BASE_PY" -I -m venv "$VENV" \
      || die "could not create a venv at $VENV (on Debian/Ubuntu: apt-get install python3-venv)"
  fi
}

venv_python_ok() {
  [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -I -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null
}

pyproject_hash() {
  "$BASE_PY" -I -c 'import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest())' \
    "$PLUGIN/pyproject.toml"
}

ensure_venv() {
  local vpy="$VENV/bin/python" stamp="$VENV/.deliberation-installed" want
  if venv_python_ok; then
    say "venv: reusing the plugin's Python environment (.venv)"
  else
    [ -z "${DELIBERATION_VENV:-}" ] || die "DELIBERATION_VENV=$VENV has no bin/python >= 3.10"
    create_venv
  fi
  if [ "$VENV" = "$PLUGIN/.venv" ] && [ -d "$VENV" ] && [ ! -L "$VENV" ]; then
    say "venv: note: .venv is a folder inside the plugin folder (an earlier install made it): a"
    say "  marketplace added from this folder copies it into Claude Code's cache. To move it out:"
    say "  rm -rf \"$VENV\" and re-run."
  fi
  want="$(pyproject_hash)"
  if "$vpy" -I -c "$DEPS_IMPORT" 2>/dev/null; then
    if [ -n "${DELIBERATION_VENV:-}" ]; then
      say "venv: dependencies importable in \$DELIBERATION_VENV; pip skipped"; return 0
    fi
    if [ -x "$VENV/bin/deliberation" ] && [ "$(cat "$stamp" 2>/dev/null || true)" = "$want" ]; then
      say "venv: package and dependencies up to date"; return 0
    fi
  fi
  if ! "$vpy" -I -c 'import pip, sys; sys.exit(tuple(map(int, pip.__version__.split(".")[:2])) < (21, 3))' 2>/dev/null; then
    say "venv: upgrading pip (editable installs need pip >= 21.3)"
    "$vpy" -I -m pip install --disable-pip-version-check -q --upgrade pip || die "pip upgrade failed in $VENV"
  fi
  say "venv: installing the package and its dependencies (pip install -e <this folder>; a minute or so)"
  "$vpy" -I -m pip install --disable-pip-version-check -q -e "$PLUGIN" \
    || die "pip install failed; the hooks are not installed. Fix the error above and re-run."
  printf '%s\n' "$want" > "$stamp"
}

# --- modes -------------------------------------------------------------------------------------
if [ "$MODE" = demo ]; then
  ensure_venv
  if ! PYTHONPATH="$PLUGIN/lib" "$VENV/bin/python" -c \
      'import importlib.util, sys; sys.exit(importlib.util.find_spec("deliberation.cli.demo") is None)' 2>/dev/null; then
    die "the demo (python module deliberation.cli.demo) is not part of this checkout; nothing to run"
  fi
  export PYTHONPATH="$PLUGIN/lib${PYTHONPATH:+:$PYTHONPATH}"
  exec "$VENV/bin/python" -m deliberation.cli.demo "$@"
fi

[ "$PROJECT" != "$PLUGIN" ] || die "refusing to install the plugin into its own folder; pass your project's directory"

DRY_FLAG=()
[ "$DRY_RUN" = 0 ] || DRY_FLAG=(--dry-run)

# Refuse before anything changes when settings.json cannot be merged safely.
project_tool "$BASE_PY" check --project "$PROJECT" --plugin "$PLUGIN"

if [ "$MODE" = uninstall ]; then
  say "uninstalling deliberation from $PROJECT"
  project_tool "$BASE_PY" uninstall --project "$PROJECT" --plugin "$PLUGIN" ${DRY_FLAG[@]+"${DRY_FLAG[@]}"}
  if [ "$DRY_RUN" = 0 ]; then
    where="$VENV"; [ -L "$VENV" ] && where="$VENV -> $(readlink "$VENV")"
    say "done. The plugin's venv ($where) is left in place: other projects may use it."
  fi
  exit 0
fi

say "installing deliberation into $PROJECT"
if [ "$DRY_RUN" = 1 ]; then
  if venv_python_ok; then say "venv: would reuse $VENV"; else say "venv: would create $VENV (a link to a venv in ${XDG_DATA_HOME:-~/.local/share}/deliberation/venvs/) and pip install the package"; fi
  project_tool "$BASE_PY" install --project "$PROJECT" --plugin "$PLUGIN" --python "$VENV/bin/python" --dry-run
  exit 0
fi
ensure_venv
project_tool "$VENV/bin/python" install --project "$PROJECT" --plugin "$PLUGIN" --python "$VENV/bin/python"
say "done. Check the setup with:"
say "  \"$PLUGIN/bin/deliberation\" doctor \\"
say "      --project \"$PROJECT\""
