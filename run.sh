#!/usr/bin/env bash
# Set up (once) and run: `bash run.sh video` renders the Chinese video, `bash run.sh test`
# runs the tests. Set-up installs the Debian packages Manim builds against (with sudo unless
# root), creates .venv at the repository root and installs the project; reruns skip both.
#
#   bash run.sh video [render.py options]   # e.g. --lang en --quality low
#   bash run.sh test  [pytest options]
#   bash run.sh setup
#   bash run.sh bench
set -euo pipefail
cd "$(dirname "$0")"

APT_PKGS=(libcairo2-dev libpango1.0-dev pkg-config fonts-dejavu-core)  # DejaVu: English text's curly quotes
# the preview page is tested in headless Chromium and audited by the W3C Nu checker (a Java
# jar) and axe-core (npm); the deck converted to PDF by LibreOffice, its Chinese drawn with a
# CJK font (Droid Sans Fallback; Noto Sans CJK SC is used instead where installed)
# (Java and npm from Debian only where none is installed: a Node.js from elsewhere brings its
# own npm, and Debian's would clash with it)
TEST_APT_PKGS=(chromium chromium-driver libreoffice-impress fonts-droid-fallback)
AXE_VERSION=4.14.1
NODE_DIR=.cache/node  # ignored by git
VENV=.venv
PY=$VENV/bin/python
STAMP=$VENV/.installed
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
PYTHON=${PYTHON:-python3}

apt_install() {
  echo "Installing Debian packages: $*" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

setup() {
  if ! dpkg -s "${APT_PKGS[@]}" >/dev/null 2>&1; then
    apt_install "${APT_PKGS[@]}"
  fi
  if [ "${WANT_TEST_PKGS:-0}" = 1 ] && ! dpkg -s "${TEST_APT_PKGS[@]}" >/dev/null 2>&1; then
    apt_install "${TEST_APT_PKGS[@]}"
  fi
  if ! command -v "$PYTHON" >/dev/null || ! "$PYTHON" -c 'import ensurepip, sys; assert sys.version_info >= (3, 11)' 2>/dev/null; then
    apt_install python3 python3-venv python3-dev gcc
  fi
  local want
  want=$(sha256sum pyproject.toml | cut -d' ' -f1)
  if [ ! -x "$PY" ] || [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$want" ]; then
    echo "Creating $VENV and installing the project (first run: about two minutes)" >&2
    [ -x "$PY" ] || "$PYTHON" -m venv "$VENV"
    "$PY" -m pip install -q --upgrade pip
    "$PY" -m pip install -q -e '.[test]'
    echo "$want" > "$STAMP"
  fi
  if [ "${WANT_TEST_PKGS:-0}" = 1 ]; then
    command -v java >/dev/null || apt_install default-jre-headless
    command -v npm >/dev/null || apt_install npm
  fi
  if [ "${WANT_TEST_PKGS:-0}" = 1 ] && ! grep -qs "\"version\": \"$AXE_VERSION\"" \
      "$NODE_DIR/node_modules/axe-core/package.json"; then
    echo "Installing axe-core $AXE_VERSION into $NODE_DIR" >&2
    mkdir -p "$NODE_DIR"
    npm install --prefix "$NODE_DIR" --no-save --no-audit --no-fund --silent \
      "axe-core@$AXE_VERSION" >/dev/null
  fi
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
  setup) setup ;;
  video) setup; exec "$PY" render.py --lang zh "$@" ;;
  # the tests run on one pytest-xdist worker per core; tests/conftest.py keeps those that
  # read the same build on one worker and hands out the longest first (in its order, not
  # xdist's most-tests-first). The slowest are listed at the end.
  test)  WANT_TEST_PKGS=1 setup; "$PY" -m ruff check .
         exec "$PY" -m pytest -q -n auto --dist loadgroup --no-loadscope-reorder \
           --durations=15 "$@" ;;
  bench) setup; for b in bench/bench_*.py; do "$PY" "$b"; done ;;
  *) echo "usage: bash run.sh video|test|setup|bench [options]" >&2; exit 2 ;;
esac
