#!/usr/bin/env bash
# tests/fuzz/run.sh BUILD-DIR SECONDS [TARGET...] [-- LIBFUZZER-ARGS...]
# Runs each fuzz target (default: all) for SECONDS on its seed corpus (BUILD-DIR/fuzz-corpus/T,
# read only; with FUZZ_SEEDS=small the eighth of it in BUILD-DIR/fuzz-corpus-small/T, which loads
# faster: .ci/run) and its working corpus (BUILD-DIR/fuzz-work/T, where new inputs go); crashes and
# broken invariants are saved as BUILD-DIR/fuzz-artifacts/T-crash-*. Prints each target's
# executions; exits non-zero when any target found something. See tests/fuzz/README.md.
# FUZZ_TIMEOUT: seconds one input may run before it counts as a finding (default 20).
# Standard output of the inputs' programs is closed (-close_fd_mask=1); reports go to stderr.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$1
seconds=$2
shift 2
targets=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do targets+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
[ ${#targets[@]} -eq 0 ] && targets=(reader expand eval specialize api)
status=0
mkdir -p "$build/fuzz-artifacts"
for t in "${targets[@]}"; do
  seeds="$build/fuzz-corpus/$t"
  [ "${FUZZ_SEEDS:-}" = small ] && seeds="$build/fuzz-corpus-small/$t"
  mkdir -p "$build/fuzz-work/$t" "$seeds"
  log="$build/fuzz-artifacts/$t.log"
  "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout="${FUZZ_TIMEOUT:-20}" -rss_limit_mb=3072 -max_len=4096 \
    -dict="$here/scheme.dict" -print_final_stats=1 -close_fd_mask=1 -artifact_prefix="$build/fuzz-artifacts/$t-" "$@" \
    "$build/fuzz-work/$t" "$seeds" >"$log" 2>&1
  rc=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
  if [ $rc -ne 0 ]; then
    status=1
    echo "fuzz_$t: FOUND SOMETHING (exit $rc) after ${execs:-?} executions; log $log"
    grep -E 'ERROR|runtime error|invariant broken|Test unit written|SUMMARY' "$log" | head -n 8
  else
    echo "fuzz_$t: ${execs:-?} executions in ${seconds}s, nothing found"
  fi
done
exit $status
