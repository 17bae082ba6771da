# tty.bash — drives `quasi` on a pseudo-terminal for the tests/cli/*tty*.sh scripts (sourced after
# common.bash; not a test itself: ctest only runs *.sh). Uses `script` (util-linux) as a coprocess
# and waits for each expected output before typing on; the caller skips when `script` is missing.
#
#   start_tty [ARGS...]      starts quasi ARGS on a terminal, in $TMP
#   wait_for NAME TEXT       reads until TEXT appears (a check); $SEEN is what came up to it
#   send KEYS                types KEYS after a short pause
#   end_tty                  ends quasi by Ctrl-D and checks that it exits with status 0
#   finish_tty               kills quasi, prints the summary and exits

tty_available() { command -v script >/dev/null 2>&1; }

WAIT=${QUASI_TTY_WAIT:-30}  # seconds to wait for an expected output
TRANSCRIPT=""               # everything read so far
PENDING=""                  # read but not yet matched

start_tty() {
  cd "$TMP" || exit 2
  export TERM=xterm
  local cmd
  cmd="exec $(printf '%q ' "$QUASI" "$@")"
  # `script -c` runs the command through $SHELL; `exec` makes quasi that process, else a shell
  # that does not exec its last command (dash, the SHELL of a root CI container) waits in the
  # same foreground process group and dies of the first Ctrl-C, and script reports 130.
  coproc QUASI_TTY { SHELL=/bin/sh exec script -qfec "$cmd" /dev/null 2>&1; }
  QPID=$QUASI_TTY_PID
  IN=${QUASI_TTY[1]} OUTFD=${QUASI_TTY[0]}
}

wait_for() {
  local deadline=$((SECONDS + WAIT)) ch
  while [[ "$PENDING" != *"$2"* ]]; do
    if [ $SECONDS -ge $deadline ] || ! IFS= read -r -N 1 -t "$WAIT" -u "$OUTFD" ch; then
      fail "$1: timed out waiting for $(printf '%q' "$2")" "last output: $(printf '%q' "${PENDING: -300}")"
      finish_tty
    fi
    PENDING+=$ch TRANSCRIPT+=$ch
  done
  SEEN=${PENDING%%"$2"*}$2  # what came up to and including the match
  PENDING=${PENDING#*"$2"}
  pass "$1"
}

# Keys typed within a few milliseconds of a prompt can reach the terminal before libedit has
# switched it to raw mode (then ^D is lost), so type like a person: after a pause.
send() { sleep 0.3; printf '%s' "$1" >&"$IN"; }

finish_tty() {
  kill "$QPID" 2>/dev/null
  [ -n "${QUASI_TTY_SHOW:-}" ] && printf "%q\n" "$TRANSCRIPT"
  finish
  exit $?
}

end_tty() {
  send $'\x04'  # Ctrl-D
  # Keep typing nothing (stdin stays open) and see whether the REPL ends by itself.
  local deadline=$((SECONDS + WAIT)) ch
  while kill -0 "$QPID" 2>/dev/null && [ $SECONDS -lt $deadline ]; do
    IFS= read -r -N 1 -t 0.2 -u "$OUTFD" ch 2>/dev/null && TRANSCRIPT+=$ch
  done
  if kill -0 "$QPID" 2>/dev/null; then
    fail "Ctrl-D at the prompt ends the REPL" "last output: $(printf '%q' "${TRANSCRIPT: -300}")"
    finish_tty
  fi
  wait "$QPID"
  RC=$? OUT=$TRANSCRIPT ERR=""
  expect_rc "Ctrl-D at the prompt exits with status 0" 0
  [ -n "${QUASI_TTY_SHOW:-}" ] && printf "%q\n" "$TRANSCRIPT"
}
