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

run --stdin '(+ 1 2) (+ 3 4)
(values 10 (quote x) "s")
(values)
(begin (display "out") 5)
(display "tail")
' "$QUASI"
expect_eq "every datum's value, multiple values one per line, fresh lines" "$OUT" '3
7
10
x
"s"
out
5
tail'

run --stdin '(iota 100)
,set print-length 5
(iota 100)
(list->vector (iota 10))
,set print-depth 2
(quote (1 (2 (3 (4)))))
,set print-length off
,set print-depth off
,set width 40
(iota 30)
,set
,set colour 3
' "$QUASI"
expect_eq "a long list is pretty-printed over lines of 79 columns" "$(printf '%s\n' "$OUT" | head -4)" '(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28
 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54
 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80
 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95 96 97 98 99)'
expect_match ",set print-length cuts lists with an ellipsis" "$OUT" '^\(0 1 2 3 4 \.\.\.\)$'
expect_match ",set print-length cuts vectors too" "$OUT" '^#\(0 1 2 3 4 \.\.\.\)$'
expect_match ",set print-depth cuts nesting" "$OUT" '^\(1 \(2 \.\.\.\)\)$'
expect_match ",set width" "$OUT" '^\(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15$'
expect_match ",set alone shows the settings" "$OUT" '^print-length off$'
expect_match ",set with an unknown name says how to use it" "$ERR" '^usage: ,set'

run --stdin '(+ 1
2)
' "$QUASI" --interactive
expect_eq "--interactive prints prompts without a terminal" "$OUT" 'Quasi '"$("$QUASI" --version | cut -d' ' -f2)"' -- ,help lists commands, Ctrl-D exits
quasi>   ...> 3
quasi> '

run --stdin ',load /no/such/file.scm
' "$QUASI"
expect_eq ",load of a missing file names it once" "$ERR" 'error: load: cannot open file "/no/such/file.scm"'

printf '(define loaded-value 99)\n' > lib.scm
run --stdin ',load lib.scm
loaded-value
' "$QUASI"
expect_match ",load FILE" "$OUT" '^99$'

run --stdin '(+ 1
' "$QUASI"
expect_rc "unfinished datum at end of input" 0
expect_match "unfinished datum at end of input is reported" "$ERR" 'error'

# ,explain: what specialize generalized or gave up (lib/pe/README.md, "Explaining a request").
run --stdin '(define (acc l r) (if (null? l) r (acc (cdr l) (cons (car l) r))))
(define p (specialize* acc (quote ((1 . ())))))
,explain p
,explain (specialize (lambda (x y) (+ x y)) 1)
' "$QUASI"
expect_match ",explain names the procedure, the action and the reason" "$OUT" '^acc .*generalized \(accumulator\) r '
expect_match ",explain when nothing was generalized" "$OUT" '^nothing generalized or given up'

finish
