# libraries.sh — import and define-library from the command line: what a program sees, the
# library search path (-I, -A, QUASI_LIBRARY_PATH, the program's directory, share/quasi/lib
# beside the binary, the built-in libraries) and the load-time errors.
source "$(dirname "$0")/common.bash"
cd "$TMP"

# ---- a program sees only what it imports ----
cat > only.scm <<'SCM'
(import (only (scheme base) car quote) (scheme write))
(display (car '(1 2)))
(cdr '(1 2))
SCM
run "$QUASI" only.scm
expect_rc "(only (scheme base) car): cdr is not there" 1
expect_eq "car is imported" "$OUT" "1"
expect_match "cdr is unbound in the program" "$ERR" '^only\.scm:3:[0-9]+: error: unbound variable: cdr$'

cat > noimport.scm <<'SCM'
(display (list (cdr '(1 2)) (iota 3)))
SCM
run "$QUASI" noimport.scm
expect_rc "an import-less script" 0
expect_eq "an import-less script sees the whole environment" "$OUT" "((2) (0 1 2))"

run --stdin "(import (only (scheme base) car))
(display (cdr '(1 2)))" "$QUASI"
expect_eq "the REPL keeps the whole environment after an import" "$OUT" "(2)"

run --stdin "(define (f x) (car x))
(f '(1 2))
(define (car x) 'mine)
(f '(1 2))
(filter odd? '(1 2 3))" "$QUASI"
expect_eq "the REPL: a later define of a built-in is what earlier procedures call" "$OUT" "1
mine
(1 3)"

printf '(import (scheme base))\n(display 1)\n' > nowrite.scm
run "$QUASI" nowrite.scm
expect_rc "(scheme base) has no display" 1
expect_match "display belongs to (scheme write)" "$ERR" 'unbound variable: display$'

# ---- unknown libraries ----
printf '(import (scheme base)\n        (srfi 9999))\n(exit 3)\n' > unknown.scm
run "$QUASI" unknown.scm
expect_rc "an unknown library" 1
expect_match "the error names the import and the library, at the import" "$ERR" \
  '^unknown\.scm:1:1: error: import: library \(srfi 9999\) not found \(looked for srfi/9999\.sld in'
expect_no_match "not reported as define-library" "$ERR" 'define-library'

run "$QUASI" -e '(import (scheme nonexistent))'
expect_rc "-e: an unknown library" 1
expect_match "-e: the error names the library" "$ERR" 'import: library \(scheme nonexistent\) not found'

# ---- the search path ----
mkdir -p inc/tools app/tools sys/tools late/tools env1/tools env2/tools
cat > inc/tools/greet.sld <<'SCM'
(define-library (tools greet)
  (import (scheme base) (scheme write))
  (export greet)
  (begin (define (greet) (display "from -I"))))
SCM
cat > env2/tools/env.sld <<'SCM'
(define-library (tools env)
  (import (scheme base) (scheme write))
  (export where)
  (begin (define (where) (display "from QUASI_LIBRARY_PATH"))))
SCM
cat > late/tools/late.sld <<'SCM'
(define-library (tools late)
  (import (scheme base))
  (export late)
  (begin (define late 'from-A)))
SCM
# -A comes after the built-in libraries: it cannot replace (scheme base).
mkdir -p late/scheme
printf '(define-library (scheme base) (export) (begin))\n' > late/scheme/base.sld
printf '(import (scheme base) (tools greet))\n(greet)\n' > app/use-greet.scm
run "$QUASI" app/use-greet.scm
expect_rc "a library outside the path is not found" 1
expect_match "the search is listed" "$ERR" 'looked for tools/greet\.sld in app, the built-in libraries'
run "$QUASI" -I inc app/use-greet.scm
expect_rc "a library found through -I DIR" 0
expect_eq "-I DIR" "$OUT" "from -I"
run "$QUASI" -Iinc app/use-greet.scm
expect_eq "-IDIR" "$OUT" "from -I"

printf '(import (scheme base) (tools env))\n(where)\n' > app/use-env.scm
run env QUASI_LIBRARY_PATH="$TMP/env1:$TMP/env2" "$QUASI" app/use-env.scm
expect_rc "a library found through QUASI_LIBRARY_PATH" 0
expect_eq "QUASI_LIBRARY_PATH (the second directory)" "$OUT" "from QUASI_LIBRARY_PATH"

printf '(import (scheme base) (scheme write) (tools late))\n(display late)\n(display (car (list 1)))\n' > app/use-late.scm
run "$QUASI" -A late app/use-late.scm
expect_rc "a library found through -A DIR" 0
expect_eq "-A DIR, and (scheme base) is still the built-in one" "$OUT" "from-A1"

# The program's directory comes first: its own (tools greet) wins over -I.
cat > app/tools/greet.sld <<'SCM'
(define-library (tools greet)
  (import (scheme base) (scheme write))
  (export greet)
  (begin (define (greet) (display "beside the program"))))
SCM
run "$QUASI" -I inc app/use-greet.scm
expect_eq "the importing program's directory comes first" "$OUT" "beside the program"

# -I comes before the built-in libraries: -I can replace (scheme write).
mkdir -p over/scheme
cat > over/scheme/write.sld <<'SCM'
(define-library (scheme write)
  (import (rename (quasi core) (display core-display)))
  (export display)
  (begin (define (display x) (core-display "[") (core-display x) (core-display "]"))))
SCM
printf '(import (scheme write))\n(display 5)\n' > over.scm
run "$QUASI" -I over over.scm
expect_eq "-I DIR precedes the built-in libraries" "$OUT" "[5]"

# A library imports another from the root it was found under, and includes a file beside it.
mkdir -p root/shapes
cat > root/shapes/area.sld <<'SCM'
(define-library (shapes area)
  (import (scheme base) (shapes unit))
  (export area)
  (include "area-body.scm"))
SCM
printf '(define (area w h) (* unit w h))\n' > root/shapes/area-body.scm
printf '(define-library (shapes unit) (import (scheme base)) (export unit) (begin (define unit 2)))\n' > root/shapes/unit.sld
printf '(import (scheme base) (scheme write) (shapes area))\n(display (area 3 4))\n' > app/area.scm
run "$QUASI" -I root app/area.scm
expect_rc "a library importing a sibling library and including a .scm" 0
expect_eq "include is relative to the .sld, imports resolve from its root" "$OUT" "24"

# share/quasi/lib beside the binary.
mkdir -p inst/bin inst/share/quasi/lib/site
cp "$QUASI" inst/bin/quasi
printf '(define-library (site hello) (import (scheme base)) (export hello) (begin (define hello "installed")))\n' \
  > inst/share/quasi/lib/site/hello.sld
printf '(import (scheme base) (scheme write) (site hello))\n(display hello)\n' > app/site.scm
run inst/bin/quasi app/site.scm
expect_rc "a library in bin/../share/quasi/lib" 0
expect_eq "share/quasi/lib beside the binary is searched" "$OUT" "installed"

# ---- load-time errors ----
mkdir -p bad
printf '(define-library (bad undefined) (import (scheme base)) (export defined missing) (begin (define defined 1)))\n' \
  > bad/undefined.sld
printf '(import (scheme base) (bad undefined))\n' > undefined.scm
run "$QUASI" undefined.scm
expect_rc "exporting an undefined name" 1
expect_match "the error names the export and the library" "$ERR" \
  'bad/undefined\.sld:1:[0-9]+: error: export: missing is exported by \(bad undefined\) but not defined or imported there'

printf '(define-library (bad a) (import (scheme base) (bad b)) (export a) (begin (define a 1)))\n' > bad/a.sld
printf '(define-library (bad b) (import (scheme base) (bad a)) (export b) (begin (define b 1)))\n' > bad/b.sld
printf '(import (bad a))\n' > cycle.scm
run "$QUASI" cycle.scm
expect_rc "an import cycle" 1
expect_match "the cycle is reported" "$ERR" 'import cycle: \(bad a\) -> \(bad b\) -> \(bad a\)'

printf '(define x 1)\n(define-library (bad stray) (export) (begin))\n' > bad/stray.sld
printf '(import (bad stray))\n' > stray.scm
run "$QUASI" stray.scm
expect_rc "a library file with other forms" 1
expect_match "only define-library forms" "$ERR" 'a library file may hold only define-library forms'

printf '(import (only (scheme base) car nosuch))\n' > notexported.scm
run "$QUASI" notexported.scm
expect_rc "only: a name the library does not export" 1
expect_match "the missing name is named" "$ERR" 'import: nosuch is not exported by \(scheme base\)'

finish
