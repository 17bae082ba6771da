# repl-debug.sh — the REPL's introspection and post-mortem commands, through a pipe: ,bt ,frame
# ,locals after an error, ,describe ,doc ,apropos ,expand ,trace ,untrace ,gc.
source "$(dirname "$0")/common.bash"
cd "$TMP"

run --stdin '(define (inner a b) (car b))
(define (outer n) (+ 1 (inner n (* n 2))))
,bt
(outer 21)
,bt
,locals
,frame 1
,locals
,frame 7
' "$QUASI"
expect_match ",bt before any error says so" "$ERR" 'error: no error to inspect yet'
expect_match ",bt lists the innermost frame, selected, with arguments" "$OUT" '^\* 0: \(inner 21 42\) at <repl>:1:21$'
expect_match ",bt lists the caller at its call site" "$OUT" '^  1: \(outer 21\) at <repl>:1:24$'
expect_match ",locals names the parameters of frame 0" "$OUT" '^  b = 42$'
expect_match ",frame 1 selects the caller" "$OUT" '^1: \(outer 21\)'
expect_match ",locals then shows the caller's parameter" "$OUT" '^  n = 21$'
expect_match ",frame out of range is an error" "$ERR" 'expected a frame number from 0 to'

run --stdin '(define (area r) (* 3 r r))
,describe area
,describe car
,describe define
,describe no-such-name
,doc car
,doc filter
,doc let
,doc make-vector
,doc current-output-port
,describe string-comparator
,describe syntax-rules
,doc guard
,apropos string-upc
,expand (when (> 1 0) (display 1))
' "$QUASI"
expect_match ",describe a user procedure: kind and arity" "$OUT" '^area: procedure, 1 argument$'
expect_match ",describe: parameters" "$OUT" '^  parameters: \(r\)$'
expect_match ",describe: where it was defined" "$OUT" '^  defined at <repl>:1:1$'
expect_match ",describe a built-in shows its documentation" "$OUT" 'The first element of pair'
expect_match ",describe a keyword" "$OUT" '^define: syntax$'
expect_match ",describe of an unbound name" "$ERR" 'no-such-name is not bound'
expect_match ",doc" "$OUT" '^\(car pair\)'
expect_match ",doc of a procedure the prelude defines" "$OUT" '^\(filter pred list\)  The elements of list for which pred is true'
expect_match ",doc of a keyword" "$OUT" '^\(let \[name\] \(\(var init\) \.\.\.\) body \.\.\.\)  '
expect_match ",doc: optional arguments in brackets" "$OUT" '^\(make-vector k \[fill\]\)  '
expect_match ",doc of a parameter" "$OUT" '^\(current-output-port\)  A parameter'
expect_match ",describe of a built-in value shows its line" "$OUT" '^  string-comparator  A comparator for strings'
expect_match ",describe of a keyword shows its line" "$OUT" '^  \(syntax-rules \(literal \.\.\.\) '
expect_match ",doc guard" "$OUT" '^\(guard \(var clause \.\.\.\) body \.\.\.\)  '
expect_match ",apropos" "$OUT" '^string-upcase$'
expect_match ",expand shows the expansion as Scheme" "$OUT" '^\(if \(> 1 0\)'

run --stdin '(define (fact n) (if (= n 0) 1 (* n (fact (- n 1)))))
,trace fact
(fact 2)
,trace
,untrace fact
(fact 3)
,untrace fact
' "$QUASI"
expect_eq ",trace prints calls and returns indented by depth, then the value; ,untrace stops it" "$OUT" '(fact 2)
  (fact 1)
    (fact 0)
    => 1
  => 1
=> 2
2
fact
6'
expect_match ",untrace of what is not traced" "$ERR" 'fact is not traced'

run --stdin '(define (burn end) (if (< (current-jiffy) end) (burn end) (quote done)))
,profile (burn (+ (current-jiffy) (quotient (jiffies-per-second) 4)))
' "$QUASI"
expect_match ",profile counts the samples" "$OUT" '^; [0-9]+ samples'
expect_match ",profile lists the busy procedure with its location" "$OUT" ' burn  <repl>:1:1$'
expect_match ",profile prints the value" "$OUT" '^done$'

run --stdin ',gc
' "$QUASI"
expect_match ",gc prints heap statistics" "$OUT" 'heap-size: [0-9]+'

finish
