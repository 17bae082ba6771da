# gc-threads.sh — the executable keeps the collector single-threaded (no lock, no parallel marker
# threads) while the heap is small, and starts the markers once it passes 32 MiB
# (quasi::single_thread_process, core/gc.hpp). GC_PRINT_STATS makes Boehm GC say when it starts
# them ("Started N mark helper threads").
source "$(dirname "$0")/common.bash"
cd "$TMP"
unset GC_MARKERS GC_NPROCS GC_INITIAL_HEAP_SIZE

small='(define (loop i acc) (if (= i 0) acc (loop (- i 1) (cons i acc))))
(display (length (loop 300000 (quote ()))))'
run env GC_PRINT_STATS=1 "$QUASI" -e "$small"
expect_rc "a small heap" 0
expect_eq "a small heap: the program's output" "$OUT" "300000"
expect_match "a small heap: the collector ran" "$ERR" 'Complete collection'
expect_no_match "a small heap: no marker threads" "$ERR" 'mark helper threads'

# About 48 MiB live (a million and a half pairs), then garbage: the heap grows past 32 MiB, and
# the collections after that are marked in parallel on a machine with more than one processor.
big='(define keep (let loop ((i 1500000) (acc (quote ()))) (if (= i 0) acc (loop (- i 1) (cons i acc)))))
(define (churn n acc) (if (> n 0) (churn (- n 1) (if (= 0 (remainder n 1000)) (quote ()) (cons n acc)))))
(churn 2000000 (quote ()))
(display (length keep))'
run env GC_PRINT_STATS=1 "$QUASI" -e "$big"
expect_rc "a large heap" 0
expect_eq "a large heap: the program's output" "$OUT" "1500000"
if [ "$(nproc)" -gt 1 ]; then
  expect_match "a large heap: the marker threads start" "$ERR" 'Started [1-9][0-9]* mark helper threads'
fi

finish
