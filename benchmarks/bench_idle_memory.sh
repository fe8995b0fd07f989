#!/usr/bin/env bash
# Idle resident memory of `notch run` now vs at BASE (a git revision) and vs a minimal
# PySide6 window (QApplication + one shown QWidget), measured in the same run, rounds
# alternating, on a private Xvfb display: each process idle for 12 s, the overlay with the
# bundled integrations, no card, no widget ever shown (so the web engine is never loaded).
#   benchmarks/bench_idle_memory.sh [BASE] [ROUNDS]      (default BASE 11eee8b, ROUNDS 3)
# Target (issue 19): now ≤ the minimal window + 30 MiB. Exit status 1 when missed.
# Each round also prints, per process, its RSS split into anonymous memory (its own heap:
# Python objects, Qt's) and mapped files (code and data of the libraries it loaded, pages
# the kernel may share with other processes; /proc/PID/smaps_rollup), and the CPU it used
# in the 12 s (start-up and idle: a process at rest adds nothing).
set -euo pipefail
cd "$(dirname "$0")/.."
BASE=${1:-11eee8b}
ROUNDS=${2:-3}
PY=$PWD/.venv/bin/python
work=$(mktemp -d /tmp/notch-idle.XXXXXX)
chmod 700 "$work"
git worktree add -q --detach "$work/base" "$BASE"
# Both trees' bytecode written first: where PYTHONDONTWRITEBYTECODE is set (this VM, CI)
# the fresh worktree would otherwise compile every module of its own at each start
# (~1 s more CPU, and ~0.8 MiB more RSS left behind by the compiler).
"$PY" -m compileall -q "$work/base/notch_app" "$PWD/notch_app" >/dev/null
display=:$((90 + RANDOM % 9))
Xvfb "$display" -screen 0 1280x800x24 >/dev/null 2>&1 &
xvfb=$!
cleanup() { kill "$xvfb" 2>/dev/null || true; git worktree remove --force "$work/base" || true; rm -rf "$work"; }
trap cleanup EXIT
home=$(mktemp -d "$work/home.XXXX")  # no person's settings or integrations in either run
usage_of() {  # PID -> "RSS ANONYMOUS FILES" in KiB and the CPU it used in ms
  awk '/^Rss:/{r=$2} /^Anonymous:/{a=$2} END{printf "%d %d %d", r, a, r - a}' \
    "/proc/$1/smaps_rollup"
  awk -v hz="$(getconf CLK_TCK)" '{printf " %d\n", ($14 + $15) * 1000 / hz}' "/proc/$1/stat"
}
rss_of() {  # TREE -> usage_of an idle `notch run` started from TREE
  local dir; dir=$(mktemp -d "$work/run.XXXX"); chmod 700 "$dir"
  (cd "$1" && HOME=$home XDG_CONFIG_HOME=$home/.config DISPLAY=$display \
    "$PY" -m notch_app run --socket "$dir/s.sock" --data-dir "$dir/data" >"$dir/log" 2>&1) &
  local shell=$!
  sleep 12  # the measurement window: idle memory after start-up has settled
  local pid; pid=$(pgrep -P "$shell" -f "notch_app run" || echo "$shell")
  usage_of "$pid"
  pkill -P "$shell" -f "notch_app run" || true; wait "$shell" 2>/dev/null || true
}
window_rss() {  # -> usage_of a minimal PySide6 window, idle as long
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
  usage_of "$pid"
  kill "$pid"; wait "$pid" 2>/dev/null || true
}
met=1
for round in $(seq "$ROUNDS"); do
  if ((round % 2)); then
    b=$(rss_of "$work/base"); a=$(rss_of "$PWD"); w=$(window_rss)
  else
    w=$(window_rss); a=$(rss_of "$PWD"); b=$(rss_of "$work/base")
  fi
  read -r before b_anon b_files b_cpu <<<"$b"
  read -r after a_anon a_files a_cpu <<<"$a"
  read -r window w_anon w_files w_cpu <<<"$w"
  budget=$((window + 30 * 1024))
  ((after <= budget)) || met=0
  echo "round $round (load $(cut -d' ' -f1 /proc/loadavg)): minimal window $((window / 1024)) MiB," \
    "base $BASE $((before / 1024)) MiB, now $((after / 1024)) MiB;" \
    "now - base $(((after - before) / 1024)) MiB, now - window $(((after - window) / 1024)) MiB (target ≤ 30)"
  echo "  anonymous + mapped files MiB, CPU ms in the 12 s:" \
    "window $((w_anon / 1024)) + $((w_files / 1024)), $w_cpu;" \
    "base $((b_anon / 1024)) + $((b_files / 1024)), $b_cpu;" \
    "now $((a_anon / 1024)) + $((a_files / 1024)), $a_cpu"
done
if ((met)); then echo "PASS: now ≤ the minimal window + 30 MiB"; else echo "MISSED: now > the minimal window + 30 MiB"; exit 1; fi
