#!/usr/bin/env bash
# Idle resident memory of `notch run` now vs at BASE (a git revision) and vs a minimal
# PySide6 window (QApplication + one shown QWidget), measured in the same run, rounds
# alternating, on a private Xvfb display: each process idle for 12 s, the overlay with the
# bundled integrations, no card, no widget ever shown (so the web engine is never loaded).
#   benchmarks/bench_idle_memory.sh [BASE] [ROUNDS]      (default BASE 11eee8b, ROUNDS 3)
# Target (issue 19): now ≤ the minimal window + 30 MiB. Exit status 1 when missed.
set -euo pipefail
cd "$(dirname "$0")/.."
BASE=${1:-11eee8b}
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
home=$(mktemp -d "$work/home.XXXX")  # no person's settings or integrations in either run
rss_of() {  # TREE -> VmRSS in KiB of an idle `notch run` started from TREE
  local dir; dir=$(mktemp -d "$work/run.XXXX"); chmod 700 "$dir"
  (cd "$1" && HOME=$home XDG_CONFIG_HOME=$home/.config DISPLAY=$display \
    "$PY" -m notch_app run --socket "$dir/s.sock" --data-dir "$dir/data" >"$dir/log" 2>&1) &
  local shell=$!
  sleep 12  # the measurement window: idle memory after start-up has settled
  local pid; pid=$(pgrep -P "$shell" -f "notch_app run" || echo "$shell")
  awk '/VmRSS/{print $2}' "/proc/$pid/status"
  pkill -P "$shell" -f "notch_app run" || true; wait "$shell" 2>/dev/null || true
}
window_rss() {  # -> VmRSS in KiB of a minimal PySide6 window, idle as long
  DISPLAY=$display "$PY" -c '
import sys
from PySide6.QtWidgets import QApplication, QWidget
app = QApplication(sys.argv[:1])
window = QWidget()
window.resize(300, 60)
window.show()
app.exec()' >/dev/null 2>&1 &
  local pid=$!
  sleep 12
  awk '/VmRSS/{print $2}' "/proc/$pid/status"
  kill "$pid"; wait "$pid" 2>/dev/null || true
}
met=1
for round in $(seq "$ROUNDS"); do
  if ((round % 2)); then
    before=$(rss_of "$work/base"); after=$(rss_of "$PWD"); window=$(window_rss)
  else
    window=$(window_rss); after=$(rss_of "$PWD"); before=$(rss_of "$work/base")
  fi
  budget=$((window + 30 * 1024))
  ((after <= budget)) || met=0
  echo "round $round (load $(cut -d' ' -f1 /proc/loadavg)): minimal window $((window / 1024)) MiB," \
    "base $BASE $((before / 1024)) MiB, now $((after / 1024)) MiB;" \
    "now - base $(((after - before) / 1024)) MiB, now - window $(((after - window) / 1024)) MiB (target ≤ 30)"
done
if ((met)); then echo "PASS: now ≤ the minimal window + 30 MiB"; else echo "MISSED: now > the minimal window + 30 MiB"; exit 1; fi
