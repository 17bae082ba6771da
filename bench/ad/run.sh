#!/usr/bin/env bash
# bench/ad/run.sh — the AD benchmarks (bench/README.md, "Automatic differentiation"): each
# program in its versions — Quasi's grad, grad with the partial evaluator (specialize), hand-written
# derivative code on Quasi, and operator-overloading AD in portable Scheme on Chez and on Quasi —
# median user CPU seconds of N rounds (default 5). The versions alternate within a round, so a
# change in the machine's load hits them alike. Every run's output must equal the hand-written
# version's. Usage: bench/ad/run.sh [N] [path/to/quasi]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
n=${1:-5}
quasi=${2:-$here/../../build/quasi}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {if (NR) printf "%.2f", a[int((NR+1)/2)]; else print "n/a"}'; }
run_one() {  # label expected command...
  local label=$1 expected=$2; shift 2
  local out
  out=$(/usr/bin/time -f %U -o "$tmp/t" "$@")
  if [ "$out" != "$expected" ]; then echo "FAIL: $* printed $out, expected $expected" >&2; exit 1; fi
  cat "$tmp/t" >> "$tmp/$label"
}
printf 'load average at start: %s\n\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '| program | quasi grad | quasi grad + specialize | quasi hand-written | overloading on chez | overloading on quasi |\n|---|---|---|---|---|---|\n'
# repetitions per program: enough that start-up (about 0.02 s user) is small against the work
for spec in saddle:200 particle:5; do
  prog=${spec%:*} reps=${spec#*:}
  expected=$("$quasi" "$here/$prog-hand.scm" "$reps")
  rm -f "$tmp"/v-*
  for _ in $(seq "$n"); do
    run_one v-grad "$expected" "$quasi" "$here/$prog-grad.scm" "$reps"
    [ -f "$here/$prog-spec.scm" ] && run_one v-spec "$expected" "$quasi" "$here/$prog-spec.scm" "$reps"
    run_one v-hand "$expected" "$quasi" "$here/$prog-hand.scm" "$reps"
    command -v scheme >/dev/null && run_one v-chez "$expected" scheme --script "$here/$prog-ovl.scm" "$reps"
    run_one v-ovl "$expected" "$quasi" "$here/$prog-ovl.scm" "$reps"
  done
  row="| $prog"
  for v in grad spec hand chez ovl; do
    row="$row | $(cat "$tmp/v-$v" 2>/dev/null | median)"
  done
  echo "$row |"
done
