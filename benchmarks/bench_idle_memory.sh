#!/usr/bin/env bash
# Idle resident memory of `notch run` now vs at BASE (a git revision), measured in the same
# run, alternating, on a private Xvfb display: the overlay idle for 12 s with the bundled
# integrations, no card, no widget ever shown (so the web engine is never loaded).
#   benchmarks/bench_idle_memory.sh [BASE] [ROUNDS]      (default BASE d635c42, ROUNDS 3)
set -euo pipefail
cd "$(dirname "$0")/.."
BASE=${1:-d635c42}
ROUNDS=${2:-3}
PY=$PWD/.venv/bin/python
work=$(mktemp -d /tmp/notch-idle.XXXXXX)
chmod 700 "$work"
git worktree add -q --detach "$work/base" "$BASE"
display=:$((90 + RANDOM % 9))
Xvfb "$display" -screen 0 1280x800x24 >/dev/null 2>&1 &
xvfb=$!
cleanup() { kill "$xvfb" 2>/dev/null || true; git worktree remove --force "$work/base" || true; rm -rf "$work"; }
trap cleanup EXIT
rss_of() {  # TREE -> VmRSS in KiB of an idle `notch run` started from TREE
  local dir; dir=$(mktemp -d "$work/run.XXXX"); chmod 700 "$dir"
  (cd "$1" && DISPLAY=$display "$PY" -m notch_app run --socket "$dir/s.sock" --data-dir "$dir/data" >"$dir/log" 2>&1) &
  local shell=$!
  sleep 12  # the measurement window: idle memory after start-up has settled
  local pid; pid=$(pgrep -P "$shell" -f "notch_app run" || echo "$shell")
  awk '/VmRSS/{print $2}' "/proc/$pid/status"
  pkill -P "$shell" -f "notch_app run" || true; wait "$shell" 2>/dev/null || true
}
for round in $(seq "$ROUNDS"); do
  before=$(rss_of "$work/base"); after=$(rss_of "$PWD")
  echo "round $round: base $((before / 1024)) MiB, now $((after / 1024)) MiB, now - base $(((after - before) / 1024)) MiB"
done
