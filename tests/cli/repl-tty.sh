# repl-tty.sh — the REPL on a pseudo-terminal (the libedit path): prompts, continuation
# prompts, results, errors, Ctrl-C at the prompt, during an evaluation and during a blocking
# read, a fresh line before the prompt, Ctrl-D, history file. Skipped when `script` is missing.
source "$(dirname "$0")/common.bash"
source "$(dirname "$0")/tty.bash"
if ! tty_available; then
  echo "skipped: 'script' (util-linux) is not installed"
  exit 0
fi
start_tty

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

send $'(read-line)\n'
sleep 1
send $'\x03'
wait_for "Ctrl-C during a blocking (read-line) gives back the prompt" "quasi> "
expect_match "Ctrl-C during a read reports an interrupt" "$SEEN" 'error: interrupted'
send $'(+ 40 3)\n'
wait_for "the REPL goes on after an interrupted read" $'43\r\n'
wait_for "prompt" "quasi> "

send $'(display (string-append "no" "-newline"))\n'
wait_for "output without a final newline" "no-newline"
wait_for "the prompt starts on a fresh line after it" $'\r\nquasi> '
expect_eq "nothing but the line end between the output and the prompt" "$SEEN" $'\r\nquasi> '

end_tty
expect_match "history is saved to ~/.quasi_history" "$(cat "$HOME/.quasi_history" 2>/dev/null)" '\(square.*12'
finish
