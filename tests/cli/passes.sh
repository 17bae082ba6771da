# passes.sh — the optimizer on the command line: --list-passes, --dump-ir=PASS, QUASI_PASSES,
# and the REPL's ,ir / ,optimize.
source "$(dirname "$0")/common.bash"
cd "$TMP"

run "$QUASI" --list-passes
expect_rc "--list-passes" 0
expect_match "--list-passes names fold-constants" "$OUT" '^fold-constants +\(level 1\)'
expect_match "--list-passes names inline-small" "$OUT" 'inline-small +\(level 2\)'
expect_match "--list-passes names eqsat" "$OUT" 'eqsat +\(level 3\)'

# eqsat: off by default for ordinary code, on at level 3 (QUASI_PASSES=3).
cat >arith.scm <<'SCM'
(define (f v) (let ((s (vector-length v))) (+ (+ (+ s 1) 1) 1)))
SCM
run "$QUASI" --dump-ir=eqsat arith.scm
expect_eq "--dump-ir=eqsat at the default level: skipped" "$OUT" \
  '(define f (lambda (v) (+ (+ (+ (vector-length v) 1) 1) 1)))'
QUASI_PASSES=3 run "$QUASI" --dump-ir=eqsat arith.scm
expect_eq "--dump-ir=eqsat with QUASI_PASSES=3" "$OUT" \
  '(define f (lambda (v) (+ (vector-length v) 3)))'

cat >prog.scm <<'SCM'
(define (f x) (let ((n (* 6 7))) (if (not x) n (vector-length (make-vector 10 x)))))
(display "not run")
SCM

run "$QUASI" --dump-ir=expand prog.scm
expect_rc "--dump-ir=expand" 0
expect_eq "--dump-ir=expand prints the expander's IR" "$OUT" \
  '(define f (lambda (x) (let ((n (* 6 7))) (if (not x) n (vector-length (make-vector 10 x))))))
(display "not run")'

run "$QUASI" --dump-ir=fold-constants prog.scm
expect_rc "--dump-ir=fold-constants" 0
expect_eq "--dump-ir=fold-constants folds" "$OUT" \
  '(define f (lambda (x) (if x 10 42)))
(display "not run")'

run "$QUASI" --dump-ir=all prog.scm
expect_rc "--dump-ir=all" 0
expect_match "--dump-ir runs nothing" "$OUT" '^\(define f'

QUASI_PASSES=off run "$QUASI" --dump-ir=all prog.scm
expect_match "QUASI_PASSES=off leaves the IR alone" "$OUT" '\(\* 6 7\)'

run "$QUASI" --dump-ir=no-such-pass prog.scm
expect_rc "--dump-ir with an unknown pass" 1
expect_match "unknown pass is named" "$ERR" 'unknown pass no-such-pass'

run "$QUASI" --dump-ir
expect_rc "--dump-ir without a file" 2

run --stdin $',ir (let ((x 1)) (+ x 2))\n,optimize (let ((x 1)) (+ x 2))\n' "$QUASI"
expect_rc "REPL ,ir and ,optimize" 0
expect_eq "REPL ,ir then ,optimize" "$OUT" '(let ((x 1)) (+ x 2))
3'

finish
