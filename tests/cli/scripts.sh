# scripts.sh — running a program file: output, exit status, uncaught errors and backtraces.
source "$(dirname "$0")/common.bash"
cd "$TMP"

cat > ok.scm <<'SCM'
(define (square x) (* x x))
(display (square 12))
(newline)
SCM
run "$QUASI" ok.scm
expect_rc "script that finishes" 0
expect_eq "script output" "$OUT" "144"
expect_eq "script writes nothing to stderr" "$ERR" ""

printf '(display "first")\n(newline)\n(car 42)\n(display "not reached")\n' > err.scm
run "$QUASI" err.scm
expect_rc "uncaught error" 1
expect_match "error is reported as file:line:col: error: message" "$ERR" \
  '^err\.scm:3:[0-9]+: error: car: expected a pair, got 42$'
expect_eq "output before the error is kept, nothing after it runs" "$OUT" "first"

cat > trace.scm <<'SCM'
(define (inner x)
  (+ 1 (car x)))
(define (outer y)
  (+ 1 (inner y)))
(outer 42)
SCM
run "$QUASI" trace.scm
expect_rc "uncaught error inside procedures" 1
expect_match "error line comes first" "$(printf '%s' "$ERR" | head -n 1)" \
  '^trace\.scm:2:[0-9]+: error: car: expected a pair, got 42$'
expect_match "backtrace shows the innermost call with its argument and location" "$ERR" \
  '^  in \(inner 42\) at trace\.scm:2:[0-9]+$'
expect_match "backtrace shows the caller at its call site" "$ERR" '^  in \(outer 42\) at trace\.scm:4:[0-9]+$'
expect_before "backtrace is innermost first" "$ERR" "  in (inner" "  in (outer"

# (call/cc (lambda (k) body)) is compiled in its caller's frame (vm/compiler.cpp, callcc): an
# error in the body is located in the body and shown in the procedure that contains it, the
# caller's frames follow; the same with every procedure compiled to machine code.
cat > callcc.scm <<'SCM'
(define (outer x)
  (+ 1 (call/cc (lambda (k)
                  (car x)))))
(define (driver y) (list (outer y)))
(driver 5)
SCM
for jit in on force; do
  run env QUASI_JIT=$jit "$QUASI" callcc.scm
  expect_match "error in a call/cc body ($jit): its location" "$(printf '%s' "$ERR" | head -n 1)" \
    '^callcc\.scm:3:19: error: car: expected a pair, got 5$'
  expect_match "error in a call/cc body ($jit): the procedure around it, there" "$ERR" '^  in \(outer 5\) at callcc\.scm:3:19$'
  expect_match "error in a call/cc body ($jit): its caller" "$ERR" '^  in \(driver 5\) at callcc\.scm:4:26$'
done

cat > deep.scm <<'SCM'
(define (g n) (if (= n 0) (car 0) (+ 1 (g (- n 1)))))
(g 1000)
SCM
run "$QUASI" deep.scm
expect_match "a deep backtrace shows the innermost frames" "$ERR" '^  in \(g 0\) at deep\.scm:1:'
expect_match "and counts the rest right (1001 frames, 10 shown)" "$ERR" '^  \.\.\. 991 more frames$'
# The same through machine-code frames (every call a compiled call: lib/jit/README.md "Calls and
# returns"): each frame's procedure, argument and call site as the interpreter shows them.
run env QUASI_JIT=force "$QUASI" deep.scm
expect_match "compiled frames: the innermost frame" "$ERR" '^  in \(g 0\) at deep\.scm:1:'
expect_match "compiled frames: a caller at its call site with its argument" "$ERR" '^  in \(g 9\) at deep\.scm:1:40$'
expect_match "compiled frames: counted right" "$ERR" '^  \.\.\. 991 more frames$'

cat > prelude.scm <<'SCM'
(for-each (lambda (x) (car x)) (list 1))
SCM
run "$QUASI" prelude.scm
expect_no_match "the prelude's own procedures are hidden" "$ERR" 'in \(for-each'
run "$QUASI" --verbose-backtrace prelude.scm
expect_match "--verbose-backtrace shows them" "$ERR" '^  in \(for-each .*prelude/'

# An error raised inside library code (the prelude, an embedded library) is reported at the
# user's call site, and the library procedure called there is the backtrace line naming it.
cat > libcall.scm <<'SCM'
(import (scheme base) (srfi 1))
(define (g x)
  (+ 1 (take x 5)))
(g '(1 2))
SCM
run "$QUASI" libcall.scm
expect_match "library error: located at the user's call" "$ERR" '^libcall\.scm:3:8: error: take: list too short'
expect_match "library error: the library procedure at the call site" "$ERR" '^  in \(take \(1 2\) 5\) at libcall\.scm:3:8$'
expect_no_match "library error: no location inside the library" "$ERR" 'prelude/|<quasi>/'
cat > libtail.scm <<'SCM'
(define (g v)
  (vector-map car v))
(g (vector 1 2))
SCM
run "$QUASI" libtail.scm
expect_match "library error after tail calls: at the top-level form" "$ERR" '^libtail\.scm:3:1: error: car: expected a pair, got 1$'
expect_match "library error after tail calls: the library procedure" "$ERR" '^  in \(vector-map #<procedure car> #\(1 2\)\) at libtail\.scm:3:1$'

# A variadic procedure's line spreads its rest list as the call passed it (review D4).
cat > restlist.scm <<'SCM'
(import (scheme base) (srfi 1))
(define (f a . more) (car more))
(define (g x) (+ 1 (f x)))
(define (h x) (+ 1 (append! x (list 1))))
(g 7)
SCM
run "$QUASI" restlist.scm
expect_match "rest list spread: no rest arguments" "$ERR" '^  in \(f 7\) at restlist\.scm:'
printf '(import (scheme base) (srfi 1))\n(define (h x) (+ 1 (append! x (list 1))))\n(h 5)\n' > restlist2.scm
run "$QUASI" restlist2.scm
expect_match "rest list spread: a library procedure's line" "$ERR" '^  in \(append! 5 \(1\)\) at restlist2\.scm:2:'
printf '(define (f . xs) (car 0))\n(define (g) (+ 1 (f 1 2 3 4 5 6 7 8 9 10)))\n(g)\n' > restlist3.scm
run "$QUASI" restlist3.scm
expect_match "rest list spread: a long one is cut" "$ERR" '^  in \(f 1 2 3 4 5 6 7 8 \.\.\.\) at restlist3\.scm:1:18'

# A primitive raising in tail position: the caller's line shows the caller's own arguments,
# not the primitive's (they used to overwrite the caller's registers).
cat > tailprim.scm <<'SCM'
(define (f n) (if (= n 0) (vector-ref (vector 1 2) n 5) (+ 1 (f (- n 1)))))
(f 3)
SCM
for mode in on off force; do
  run env QUASI_JIT=$mode "$QUASI" -W0 tailprim.scm
  expect_match "tail primitive error ($mode): the caller's argument" "$ERR" '^  in \(f 0\) at tailprim\.scm:1:27$'
  expect_no_match "tail primitive error ($mode): not the primitive's" "$ERR" 'in \(f #\('
done

# A closure called with the wrong number of arguments in tail position: the caller's line still
# shows the caller's own arguments (the callee's used to overwrite them before the arity check),
# as does a library procedure's line after an apply-like step (call-with-values; g and h tail-call
# it, so the error is located at the top-level call).
cat > tailarity.scm <<'SCM'
(define (two a b) a)
(define (f n) (if (= n 0) (two n) (+ 1 (f (- n 1)))))
(define (g) (call-with-values (lambda () (values 1 2)) (lambda (a) a)))
(define (h) (call-with-values (lambda () 1) 5))
SCM
for mode in on off force; do
  for passes in on off; do
    cp tailarity.scm ta.scm; echo '(f 3)' >> ta.scm
    run env QUASI_JIT=$mode QUASI_PASSES=$passes "$QUASI" -W0 ta.scm
    expect_match "tail arity error ($mode/$passes): message" "$ERR" '^ta\.scm:2:27: error: two: expected 2 arguments, got 1$'
    expect_match "tail arity error ($mode/$passes): the caller's argument" "$ERR" '^  in \(f 0\) at ta\.scm:2:27$'
    cp tailarity.scm ta.scm; echo '(g)' >> ta.scm
    run env QUASI_JIT=$mode QUASI_PASSES=$passes "$QUASI" -W0 ta.scm
    expect_match "consumer arity ($mode/$passes): an anonymous lambda is named by its place" "$ERR" \
      '^ta\.scm:5:1: error: #<procedure at ta\.scm:3:56>: expected 1 argument, got 2$'
    expect_match "consumer arity ($mode/$passes): call-with-values' own arguments" "$ERR" \
      '^  in \(call-with-values #<procedure> #<procedure>\) at ta\.scm:5:1$'
    cp tailarity.scm ta.scm; echo '(h)' >> ta.scm
    run env QUASI_JIT=$mode QUASI_PASSES=$passes "$QUASI" -W0 ta.scm
    expect_match "a non-procedure given to a library procedure ($mode/$passes): named" "$ERR" \
      '^ta\.scm:5:1: error: call-with-values: expected a procedure, got 5$'
  done
done

# include looks beside the including file first, then relative to the current directory (where
# Chez and Larceny's R7RS tests look).
mkdir -p inc/sub
printf '(define from-beside 1)\n' > inc/sub/beside.scm
printf '(define from-cwd 2)\n' > inc/cwd.scm
printf '(include "beside.scm")\n(include "inc/cwd.scm")\n(display (+ from-beside from-cwd))\n' > inc/sub/main.scm
run "$QUASI" inc/sub/main.scm
expect_eq "include: beside the file, then from the current directory" "$OUT" "3"
printf '(include "inc/missing.scm")\n' > inc/sub/bad.scm
run "$QUASI" inc/sub/bad.scm
expect_match "include: a missing file is still an error" "$ERR" 'cannot open file'

printf '(display "x")\n(newline)\nfoo\n' > unbound.scm
run "$QUASI" unbound.scm
expect_match "a bare unbound symbol at top level is located" "$ERR" '^unbound\.scm:3:1: error: unbound variable: foo$'

# Columns count characters, not bytes: the reader's ASCII fast path and its UTF-8 path must agree.
printf '(define s "\xce\xbb\xc3\xa9")\n(display "\xf0\x9f\x98\x80") (car 7)\n' > cols.scm
run "$QUASI" cols.scm
expect_match "column after multi-byte characters counts characters" "$ERR" \
  '^cols\.scm:2:[0-9]+: error: car: expected a pair, got 7$'
expect_match "the column is the 15th character" "$ERR" '^cols\.scm:2:15: '

printf '(display 1)\n(car (\n' > unterminated.scm
run "$QUASI" unterminated.scm
expect_match "reader errors: file:line:col: error: message" "$ERR" \
  '^unterminated\.scm:3:1: error: unterminated list \(opened at unterminated\.scm:2:6\)$'


printf '(display "bye")\n(exit 7)\n(display "not reached")\n' > exit7.scm
run "$QUASI" exit7.scm
expect_rc "(exit 7)" 7
expect_eq "output before exit is flushed" "$OUT" "bye"
expect_eq "(exit 7) prints no error" "$ERR" ""

printf '(exit)\n' > exit0.scm
run "$QUASI" exit0.scm
expect_rc "(exit)" 0

printf '(exit #f)\n' > exitf.scm
run "$QUASI" exitf.scm
expect_rc "(exit #f)" 1

run "$QUASI" no-such-file.scm
expect_rc "missing script file" 1
expect_match "missing script file is named on stderr" "$ERR" 'no-such-file\.scm'

printf '(display (+ 40 2))\n' > from-stdin.scm
run --stdin "$(cat from-stdin.scm)" "$QUASI" -
expect_rc "script from stdin (-)" 0
expect_eq "script from stdin output" "$OUT" "42"

finish
