# repl-tty.sh — the REPL on a pseudo-terminal (the libedit path): prompts, continuation
# prompts, results, errors, Ctrl-C at the prompt and during an evaluation, Ctrl-D, history file.
# Drives `script` (util-linux) as a coprocess and waits for each expected output before
# typing on. Skipped when `script` is not installed.
source "$(dirname "$0")/common.bash"

if ! command -v script >/dev/null 2>&1; then
  echo "skipped: 'script' (util-linux) is not installed"
  exit 0
fi
cd "$TMP"
export TERM=xterm

WAIT=${QUASI_TTY_WAIT:-30}  # seconds to wait for an expected output
TRANSCRIPT=""               # everything read so far
PENDING=""                  # read but not yet matched

# `script -c` runs the command through $SHELL; `exec` makes quasi that process, else a shell
# that does not exec its last command (dash, the SHELL of a root CI container) waits in the
# same foreground process group and dies of the first Ctrl-C, and script reports 130.
coproc QUASI_TTY { SHELL=/bin/sh exec script -qfec "exec $(printf '%q' "$QUASI")" /dev/null 2>&1; }
QPID=$QUASI_TTY_PID
IN=${QUASI_TTY[1]} OUTFD=${QUASI_TTY[0]}

# wait_for NAME TEXT: reads until TEXT appears; consumes up to its end.
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
  finish
  exit $?
}

wait_for "prompt on a terminal" "quasi> "

send $'(define (square x)\n'
wait_for "continuation prompt for an unfinished datum" "  ...> "
send $'  (* x\n'
wait_for "continuation prompt again" "  ...> "
send $'     x))\n'
wait_for "prompt after the entry is complete" "quasi> "

send $'(square 12)\n'
wait_for "result of a multi-line definition" $'144\r\n'
wait_for "prompt after the result" "quasi> "

send $'(car 42)\n'
wait_for "error is printed" "car: expected a pair, got 42"
wait_for "prompt after the error" "quasi> "

send '(+ 1000'
sleep 0.3
send $'\x03'
wait_for "Ctrl-C at the prompt gives a fresh prompt" "quasi> "
send $'(+ 2 3)\n'
wait_for "the abandoned line is not evaluated" $'\r\n5\r\n'
expect_no_match "no result for the abandoned line" "$SEEN" '1005'
wait_for "prompt" "quasi> "

send $'(let loop () (loop))\n'
sleep 1
send $'\x03'
wait_for "Ctrl-C during an evaluation gives back the prompt" "quasi> "
expect_match "Ctrl-C during an evaluation reports an interrupt" "$SEEN" '[Ii]nterrupt'
send $'(+ 40 2)\n'
wait_for "the REPL goes on after an interrupt" $'42\r\n'
wait_for "prompt" "quasi> "

send $'\x04'  # Ctrl-D
# Keep typing nothing (stdin stays open) and see whether the REPL ends by itself.
deadline=$((SECONDS + WAIT))
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
expect_match "history is saved to ~/.quasi_history" "$(cat "$HOME/.quasi_history" 2>/dev/null)" '\(square.*12'
[ -n "${QUASI_TTY_SHOW:-}" ] && printf "%q\n" "$TRANSCRIPT"
finish
