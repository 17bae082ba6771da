# jit.sh — the native-code compiler on the command line: --no-jit, --jit=MODE, --jit-log,
# QUASI_JIT, and the REPL's ,disasm.
source "$(dirname "$0")/common.bash"
cd "$TMP"

cat >loop.scm <<'SCM'
(define (count-up n) (let loop ((i 0) (acc 0)) (if (= i n) acc (loop (+ i 1) (+ acc i)))))
(display (count-up 100000)) (newline)
(display (jit-mode)) (newline)
SCM

run "$QUASI" loop.scm
expect_rc "default mode runs" 0
expect_eq "default mode is on" "$OUT" $'4999950000\non'

run "$QUASI" --no-jit --jit-log loop.scm
expect_eq "--no-jit turns it off" "$OUT" $'4999950000\noff'
expect_no_match "--no-jit compiles nothing" "$ERR" 'jit: compiled'

run "$QUASI" --jit-log loop.scm
# The named let runs in count-up's frame (vm/compiler.cpp, loop_letrec): its back-edges make
# count-up hot.
expect_match "--jit-log reports a hot loop" "$ERR" 'jit: compiled count-up \([0-9]+ instructions -> [0-9]+ bytes, [0-9]+ us\): hot'

run "$QUASI" --jit=force --jit-log loop.scm
expect_eq "--jit=force" "$OUT" $'4999950000\nforce'
expect_match "--jit=force compiles on first run" "$ERR" 'jit: compiled count-up .*: forced'

run env QUASI_JIT=off "$QUASI" loop.scm
expect_eq "QUASI_JIT=off" "$OUT" $'4999950000\noff'

run "$QUASI" --jit=fast loop.scm
expect_rc "--jit with a bad mode is a usage error" 2
expect_match "--jit names the modes" "$ERR" 'off, on or force'

cat >spec.scm <<'SCM'
(define (power x n) (if (= n 0) 1 (* x (power x (- n 1)))))
(define p5 (specialize* power '((1 . 5))))
(display (p5 2)) (newline)
(display (jit-compiled? p5)) (newline)
SCM
run "$QUASI" --jit-log spec.scm
expect_eq "a residual procedure is compiled at once" "$OUT" $'32\n#t'
expect_match "--jit-log says why" "$ERR" 'jit: compiled .*: residual'

run --stdin $'(define (sq x) (* x x))\n,disasm sq\n(sq 12)\n,disasm car\n' "$QUASI"
expect_match ",disasm lists machine code" "$OUT" 'imul '
expect_match ",disasm shows the bytes" "$OUT" '; [0-9A-F]{6,}'
expect_match "the REPL goes on" "$OUT" '144'
expect_match ",disasm of a primitive is an error" "$ERR" '^error: ,disasm: #<procedure car> is written in C\+\+'
expect_no_match ",disasm of a primitive names no internal procedure" "$ERR" 'jit-compile!'
finish
