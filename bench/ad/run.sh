#!/usr/bin/env bash
# bench/ad/run.sh — the AD benchmarks (bench/README.md, "Automatic differentiation"): each
# program in its three versions — Quasi's grad, hand-written derivative code on Quasi, and
# operator-overloading AD in portable Scheme on Chez (and on Quasi) — median of N runs (default 3).
# Every run's output must equal the expected line. Usage: bench/ad/run.sh [N] [path/to/quasi]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
n=${1:-3}
quasi=${2:-$here/../../build/quasi}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_one() {  # expected command...
  local expected=$1; shift
  for _ in $(seq "$n"); do
    local start end out
    start=$(date +%s.%N)
    out=$("$@")
    end=$(date +%s.%N)
    if [ "$out" != "$expected" ]; then echo "FAIL: $* printed $out, expected $expected" >&2; exit 1; fi
    echo "$end - $start" | bc
  done | median
}
printf '| program | quasi grad | quasi hand-written | overloading on chez | overloading on quasi |\n|---|---|---|---|---|\n'
for prog in saddle particle; do
  expected=$("$quasi" "$here/$prog-hand.scm")
  g=$(time_one "$expected" "$quasi" "$here/$prog-grad.scm")
  h=$(time_one "$expected" "$quasi" "$here/$prog-hand.scm")
  c=$(command -v scheme >/dev/null && time_one "$expected" scheme --script "$here/$prog-ovl.scm" || echo n/a)
  o=$(time_one "$expected" "$quasi" "$here/$prog-ovl.scm")
  [ "$c" != n/a ] && c=$(printf '%.2f' "$c")
  printf '| %s | %.2f | %.2f | %s | %.2f |\n' "$prog" "$g" "$h" "$c" "$o"
done
