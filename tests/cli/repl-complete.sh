# repl-complete.sh — Tab completion in the REPL on a pseudo-terminal: Scheme names (built-ins,
# the session's own definitions, after a quote), meta-commands, file names after ,load and inside
# a string, and the list shown for an ambiguous prefix. Skipped when `script` is missing.
source "$(dirname "$0")/common.bash"
source "$(dirname "$0")/tty.bash"
if ! tty_available; then
  echo "skipped: 'script' (util-linux) is not installed"
  exit 0
fi
mkdir -p "$TMP/sub"
printf '(define loaded-by-completion 77)\n' > "$TMP/sub/completion-target.scm"
start_tty
wait_for "prompt" "quasi> "

# Completion is checked by its effect (what the completed line evaluates to): libedit redraws
# with cursor movements, so the completed word is not in the output stream as one piece.
send '(string-app'
send $'\t'
send $'"ab" "cd")\n'
wait_for "Tab completes a built-in's name" $'"abcd"\r\n'
wait_for "prompt" "quasi> "

send $'(define (my-session-helper x) (* x 3))\n'
wait_for "prompt" "quasi> "
send '(my-sess'
send $'\t'
send $'14)\n'
wait_for "Tab completes a name the session defined" $'42\r\n'
wait_for "prompt" "quasi> "

send "(list 'my-sess"
send $'\t'
send $')\n'
wait_for "Tab completes after a quote" $'(my-session-helper)\r\n'
wait_for "prompt" "quasi> "

send '(vector-f'
send $'\t\t'
wait_for "two Tabs list the candidates of an ambiguous prefix" "vector-for-each"
expect_match "the list has every candidate" "$SEEN" 'vector-fill!'
send $'\x03'
wait_for "prompt" "quasi> "

send ',he'
send $'\t'
send $'\n'
wait_for "Tab completes a meta-command" "Meta-commands"
wait_for "prompt" "quasi> "

send ',load sub/completion-t'
send $'\t'
send $'\n'
wait_for "prompt" "quasi> "
send $'loaded-by-completion\n'
wait_for "Tab completes a file name after ,load" $'77\r\n'
wait_for "prompt" "quasi> "

send $'(define loaded-by-completion 0)\n'
wait_for "prompt" "quasi> "
send '(load "sub/completion-t'
send $'\t'
send $')\n'
wait_for "prompt" "quasi> "
send $'loaded-by-completion\n'
wait_for "Tab completes a file name in a string" $'77\r\n'
wait_for "prompt" "quasi> "

end_tty
finish
