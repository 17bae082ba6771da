# options.sh — the command line: --version, --help, bad options, -e, (command-line).
source "$(dirname "$0")/common.bash"
cd "$TMP"

run "$QUASI" --version
expect_rc "--version" 0
expect_match "--version prints 'quasi X.Y.Z'" "$OUT" '^quasi [0-9]+\.[0-9]+\.[0-9]+$'

run "$QUASI" --help
expect_rc "--help" 0
expect_match "--help prints usage on stdout" "$OUT" '^usage: quasi'
expect_match "--help mentions -e" "$OUT" '-e'

run "$QUASI" --frobnicate
expect_rc "unknown option" 2
expect_match "unknown option is named on stderr" "$ERR" 'unknown option --frobnicate'
expect_match "unknown option prints usage on stderr" "$ERR" 'usage: quasi'
expect_eq "unknown option prints nothing on stdout" "$OUT" ""

run "$QUASI" -e
expect_rc "-e without an expression" 2

run "$QUASI" -e '(display (+ 1 2))'
expect_rc "-e" 0
expect_eq "-e prints what the code displays" "$OUT" "3"

run "$QUASI" -e '(+ 1 2)'
expect_rc "-e with a value" 0
expect_eq "-e does not print the value" "$OUT" ""

run "$QUASI" -e '(display 1) (display 2) (newline)'
expect_eq "-e evaluates every datum" "$OUT" "12"

run "$QUASI" -e '(car 42)'
expect_rc "-e with an uncaught error" 1
expect_match "-e error message" "$ERR" 'error: car: expected a pair, got 42'

run "$QUASI" -e '(exit 5)'
expect_rc "-e (exit 5)" 5

run "$QUASI" -e '(write (cdr (command-line)))' a 'b c'
expect_eq "-e passes the remaining arguments to (command-line)" "$OUT" '("a" "b c")'

printf '(write (command-line))\n' > args.scm
run "$QUASI" args.scm x 'y z' -e
expect_rc "script with arguments" 0
expect_eq "(command-line) is (FILE ARGS...)" "$OUT" '("args.scm" "x" "y z" "-e")'

run "$QUASI" -- args.scm --version
expect_eq "-- ends the options" "$OUT" '("args.scm" "--version")'

finish
