#!/usr/bin/env bash
# Installs everything Notch and its tests need on a fresh Debian/Ubuntu machine:
# the system libraries Qt's xcb and offscreen platforms load, fonts (PySide6 wheels ship
# none, so offscreen text would be blank), Xvfb + a compositor + xdotool for the real-window
# tests, then a virtualenv in .venv with Notch installed editable with its test, bench and
# web (QtWebEngine, for HTML widgets) extras, and the framework connectors' (langchain,
# openai-agents: ~60 MB, pure Python; their end-to-end tests run in CI).
# Safe to run again: it skips what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

# One list, shared with .ci/run: scripts/debian-packages.txt (comments and blanks skipped).
mapfile -t APT_PACKAGES < <(grep -v '^\s*#' scripts/debian-packages.txt | grep -v '^\s*$')

if command -v apt-get >/dev/null 2>&1; then
  missing=()
  for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    echo "setup: installing system packages: ${missing[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
else
  echo "setup: no apt-get here; install Qt's xcb libraries, fonts and Xvfb with your package manager" >&2
fi

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip 2>&1 | grep -v "^WARNING: Location" || true
.venv/bin/python -m pip install -q -e ".[test,bench,web,langchain,openai-agents,voice]" 2>&1 | grep -v "^WARNING: Location" || true
.venv/bin/python -c "import notch_app, PySide6, pydantic, jsonschema, qasync" \
  || { echo "setup: the virtualenv is incomplete; see the pip output above" >&2; exit 1; }
# The TypeScript MCP SDK (a real client) and server-everything for the gateway's e2e
# tests, pinned by tests/clients/node/package-lock.json; without npm those tests skip.
if [ ! -d tests/clients/node/node_modules/@modelcontextprotocol/sdk ]; then
  if command -v npm >/dev/null 2>&1; then
    npm ci --prefix tests/clients/node --no-audit --no-fund --loglevel=error >/dev/null \
      || echo "setup: npm ci in tests/clients/node failed; the TypeScript client tests will skip" >&2
  else
    echo "setup: no npm here; the TypeScript client tests will skip" >&2
  fi
fi
echo "setup: ready (.venv)"
