# warnings.sh — compile-time warnings (issue 15): possibly unbound variables and calls with the
# wrong number of arguments, as file:line:col: warning: message on stderr; -W switches them.
source "$(dirname "$0")/common.bash"
cd "$TMP"

# Forward references, definitions made by define-record-type and define-values, and locals
# shadowing nothing: no warning. The program runs normally.
cat > clean.scm <<'SCM'
(define (main) (display (helper 2)) (display (point-x (make-point 1 2))) (display (+ a b)) (newline))
(define (helper x) (* x 10))
(define-record-type point (make-point x y) point? (x point-x) (y point-y))
(define-values (a b) (values 3 4))
(define (uses-local car) (car))
(main)
SCM
run "$QUASI" clean.scm
expect_rc "a clean program" 0
expect_eq "a clean program prints" "$OUT" "2017"
expect_eq "a clean program gets no warning" "$ERR" ""

# A library imported part-way through a program (after other forms) is the library's text:
# its forward references are not the program's unbound variables.
mkdir -p fwd
cat > fwd/lib.sld <<'SCM'
(define-library (fwd lib)
  (export twice)
  (import (scheme base))
  (begin
    (define (twice x) (helper-defined-later x))
    (define (helper-defined-later x) (* 2 x))))
SCM
cat > late-import.scm <<'SCM'
(import (scheme base) (scheme write))
(define before 1)
(import (fwd lib))
(display (twice 21))
SCM
run "$QUASI" late-import.scm
expect_rc "a late import" 0
expect_eq "a late import runs" "$OUT" "42"
expect_eq "a late import's library gets no warning" "$ERR" ""

cat > unbound.scm <<'SCM'
(define (f x)
  (if (> x 100) (undefined-thing x) x))
(display (f 1))
(newline)
(define (g) (undefined-thing 2))
SCM
run "$QUASI" unbound.scm
expect_rc "a warning does not stop the program" 0
expect_eq "the program still runs" "$OUT" "1"
expect_match "possibly unbound variable, located" "$ERR" \
  '^unbound\.scm:2:[0-9]+: warning: possibly unbound variable undefined-thing$'
expect_eq "one warning per name" "$(printf '%s\n' "$ERR" | grep -c 'undefined-thing')" "1"

cat > arity.scm <<'SCM'
(define (two a b) (+ a b))
(define (later-rest a . more) a)
(define (use)
  (list (two 1)
        (car '(1) '(2))
        (later-rest)
        (later-rest 1 2 3)
        (three 1 2)
        (vector-ref (vector 1 2) 0 1)))
(define (three a b c) c)
(display "ran")
SCM
run "$QUASI" arity.scm
expect_rc "arity warnings do not stop the program" 0
expect_eq "arity: the program runs" "$OUT" "ran"
expect_match "a call to a procedure defined in the file" "$ERR" \
  '^arity\.scm:4:[0-9]+: warning: wrong number of arguments to two: it takes 2 arguments, given 1$'
expect_match "a call to a primitive" "$ERR" \
  '^arity\.scm:5:[0-9]+: warning: wrong number of arguments to car: it takes 1 argument, given 2$'
expect_match "a rest parameter needs its required arguments" "$ERR" \
  '^arity\.scm:6:[0-9]+: warning: wrong number of arguments to later-rest: it takes at least 1 argument, given 0$'
expect_no_match "a rest parameter takes any number more" "$ERR" ':7:[0-9]+: warning'
expect_match "a procedure defined further down" "$ERR" \
  '^arity\.scm:8:[0-9]+: warning: wrong number of arguments to three: it takes 3 arguments, given 2$'
expect_match "a primitive with optional arguments" "$ERR" \
  '^arity\.scm:9:[0-9]+: warning: wrong number of arguments to vector-ref: it takes 2 arguments, given 3$'

# A name the program assigns or defines twice has no one arity; a program that redefines a
# built-in is checked against its own definition.
cat > redefine.scm <<'SCM'
(define (hook a) a)
(define (call-hook) (hook 1 2))
(set! hook (lambda (a b) b))
(define (car a b) a)
(display (car 1 2))
SCM
run "$QUASI" redefine.scm
expect_rc "redefinitions" 0
expect_eq "a redefined built-in follows the program's definition" "$OUT" "1"
expect_eq "no warning for assigned or redefined names" "$ERR" ""

# -W0 and -Wnone: nothing; -Wno-KIND drops one kind; -WKIND keeps only the kinds listed.
run "$QUASI" -W0 unbound.scm
expect_eq "-W0 turns warnings off" "$ERR" ""
run "$QUASI" -Wnone arity.scm
expect_eq "-Wnone turns warnings off" "$ERR" ""
cat > both.scm <<'SCM'
(define (f) (car 1 2) (nowhere))
SCM
run "$QUASI" -Wno-arity-mismatch both.scm
expect_match "-Wno-arity-mismatch keeps unbound-variable" "$ERR" 'possibly unbound variable nowhere'
expect_no_match "-Wno-arity-mismatch drops arity warnings" "$ERR" 'wrong number'
run "$QUASI" -Warity-mismatch both.scm
expect_match "-Warity-mismatch keeps arity warnings" "$ERR" 'wrong number of arguments to car'
expect_no_match "-Warity-mismatch alone drops unbound-variable" "$ERR" 'possibly unbound'
run "$QUASI" -Wbogus both.scm
expect_rc "an unknown warning is a usage error" 2
expect_match "an unknown warning is named" "$ERR" 'unknown warning -Wbogus'

# The REPL warns about an entry, and a later entry can define the name.
run_repl() { printf '%s\n' "$@" | "$QUASI" 2>&1; }
OUT=$(run_repl '(define (p) (q 1))' '(define (q x) x)' '(p)' '(define (r) (q))')
expect_match "the REPL warns about an entry" "$OUT" '<repl>:1:[0-9]+: warning: possibly unbound variable q'
expect_match "the REPL checks arities against earlier entries" "$OUT" \
  '<repl>:[0-9]+:[0-9]+: warning: wrong number of arguments to q: it takes 1 argument, given 0'

# load: a loaded file is checked as a whole.
cat > loaded.scm <<'SCM'
(define (lf) (lg))
(define (lg) (string-length "a" "b"))
SCM
printf '(load "loaded.scm")\n(display (lf))\n' > loader.scm
run "$QUASI" loader.scm
expect_no_match "load: forward references are not unbound" "$ERR" 'possibly unbound'
expect_match "load: a loaded file's calls are checked" "$ERR" \
  '^loaded\.scm:2:[0-9]+: warning: wrong number of arguments to string-length'

finish
