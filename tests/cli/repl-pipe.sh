# repl-pipe.sh — the REPL fed through a pipe: no prompts, every result printed, multi-line
# entries, errors that do not end the session, meta-commands.
source "$(dirname "$0")/common.bash"
cd "$TMP"

session='(define (square x)
  (* x
     x))
(car 42)
(square 12)
(define a 1) (define b 2) (+ a b)
"a string"
(if #f #f)
'
run --stdin "$session" "$QUASI"
all="$OUT
$ERR"
expect_rc "piped session ends with end of input" 0
expect_no_match "no prompts when stdin is not a terminal" "$OUT$ERR" 'quasi>|\.\.\.>'
expect_match "the error is reported" "$ERR" 'car: expected a pair, got 42'
expect_match "a define spanning 3 lines, then a call" "$OUT" '^144$'
expect_match "several datums on one line are all evaluated" "$OUT" '^3$'
expect_match "results are printed in write form" "$OUT" '^"a string"$'
expect_eq "only values are printed (defines and unspecified print nothing)" "$OUT" '144
3
"a string"'

# Order of error and later results, with both streams in one pipe.
printf '%s' "$session" | timeout -k 5 "$RUN_TIMEOUT" "$QUASI" >"$TMP/both" 2>&1
expect_before "the REPL continues after the error" "$(cat "$TMP/both")" \
  'car: expected a pair, got 42' '144'

run --stdin '(display "hi")
(newline)
(+ 40 2)
' "$QUASI"
expect_eq "output of the code and results interleave in order" "$OUT" 'hi
42'

run --stdin '(+ 1 2)
(exit 4)
(display "not reached")
' "$QUASI"
expect_rc "(exit 4) ends the REPL with status 4" 4
expect_eq "nothing runs after exit" "$OUT" "3"

run --stdin ',quit
(display "not reached")
' "$QUASI"
expect_rc ",quit" 0
expect_eq ",quit stops reading" "$OUT" ""

run --stdin ',q
(display "not reached")
' "$QUASI"
expect_eq ",q stops reading" "$OUT" ""

run --stdin ',help
' "$QUASI"
expect_match ",help lists ,time" "$OUT" ',time'
expect_match ",help lists ,load" "$OUT" ',load'
expect_match ",help lists ,quit" "$OUT" ',quit'

run --stdin ',time (+ 20 22)
' "$QUASI"
expect_match ",time prints the value" "$OUT" '^42$'
expect_match ",time prints the elapsed time" "$OUT" '^; [0-9]+\.[0-9]{3} s elapsed$'

run --stdin ',time (+ 1
  2)
' "$QUASI"
expect_match ",time takes a multi-line expression" "$OUT" '^3$'

run --stdin ',frob
(+ 1 1)
' "$QUASI"
expect_match "unknown meta-command" "$ERR" 'unknown command ,frob \(try ,help\)'
expect_match "the REPL continues after an unknown command" "$OUT" '^2$'

printf '(define loaded-value 99)\n' > lib.scm
run --stdin ',load lib.scm
loaded-value
' "$QUASI"
expect_match ",load FILE" "$OUT" '^99$'

run --stdin '(+ 1
' "$QUASI"
expect_rc "unfinished datum at end of input" 0
expect_match "unfinished datum at end of input is reported" "$ERR" 'error'

finish
