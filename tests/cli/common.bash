# common.bash — helpers sourced by the tests/cli/*.sh scripts (not a test itself: ctest only
# runs *.sh). A test is run as `bash NAME.sh /path/to/quasi`, prints one line per check and
# exits non-zero when any check failed.

QUASI=${1:?usage: bash $0 /path/to/quasi}
case "$QUASI" in /*) ;; *) QUASI=$PWD/$QUASI;; esac
[ -x "$QUASI" ] || { echo "not an executable: $QUASI" >&2; exit 2; }

TMP=$(mktemp -d "${TMPDIR:-/tmp}/quasi-cli.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
export HOME=$TMP  # keep the REPL's history file out of the real home

# Every command gets this long before it counts as hung.
RUN_TIMEOUT=${QUASI_TEST_TIMEOUT:-60}
CHECKS=0 FAILURES=0

pass() { CHECKS=$((CHECKS + 1)); echo "ok   - $1"; }
fail() {
  CHECKS=$((CHECKS + 1)) FAILURES=$((FAILURES + 1))
  echo "FAIL - $1"
  shift
  local line
  for line in "$@"; do printf '       %s\n' "$line"; done
}

# run [--stdin TEXT] CMD ARGS...: runs the command and sets RC, OUT (stdout) and ERR (stderr).
# Without --stdin, standard input is /dev/null.
run() {
  local input=""
  local has_input=0
  if [ "$1" = --stdin ]; then input=$2 has_input=1; shift 2; fi
  if [ $has_input = 1 ]; then
    printf '%s' "$input" | timeout -k 5 "$RUN_TIMEOUT" "$@" >"$TMP/.out" 2>"$TMP/.err"
  else
    timeout -k 5 "$RUN_TIMEOUT" "$@" >"$TMP/.out" 2>"$TMP/.err" </dev/null
  fi
  RC=$?
  OUT=$(cat "$TMP/.out")
  ERR=$(cat "$TMP/.err")
}

show() { echo "rc=$RC" "stdout: $(printf '%s' "$OUT" | head -c 400)" "stderr: $(printf '%s' "$ERR" | head -c 400)"; }

expect_rc() {  # NAME EXPECTED
  if [ "$RC" = "$2" ]; then pass "$1: exit status $2"
  else fail "$1: exit status $RC, expected $2" "stdout: $OUT" "stderr: $ERR"; fi
}

expect_eq() {  # NAME ACTUAL EXPECTED
  if [ "$2" = "$3" ]; then pass "$1"
  else fail "$1" "got:      $(printf '%q' "$2")" "expected: $(printf '%q' "$3")"; fi
}

expect_match() {  # NAME TEXT EXTENDED-REGEX
  if printf '%s' "$2" | grep -Eq -- "$3"; then pass "$1"
  else fail "$1" "no match for /$3/ in:" "$2"; fi
}

expect_no_match() {  # NAME TEXT EXTENDED-REGEX
  if printf '%s' "$2" | grep -Eq -- "$3"; then fail "$1" "unexpected match for /$3/ in:" "$2"
  else pass "$1"; fi
}

# Line number of the first line of TEXT matching the fixed string, or 0.
line_of() { printf '%s\n' "$1" | grep -nF -m1 -- "$2" | cut -d: -f1 || true; }

expect_before() {  # NAME TEXT FIRST SECOND: both occur, FIRST on an earlier line
  local a b
  a=$(line_of "$2" "$3"); b=$(line_of "$2" "$4")
  if [ -n "$a" ] && [ -n "$b" ] && [ "$a" -lt "$b" ]; then pass "$1"
  else fail "$1" "expected '$3' on a line before '$4' in:" "$2"; fi
}

finish() {
  echo "$CHECKS checks, $FAILURES failed"
  [ "$FAILURES" -eq 0 ]
}
