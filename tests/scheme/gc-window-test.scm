;;; gc-window-test.scm — the collector's window (lib/core/gc_pacing.hpp): Boehm collects no
;;; sooner than `collection-window` bytes after the previous collection, starting at 6 MiB, and
;;; the window doubles while collections of a small heap take much of the CPU time; the live
;;; data stays intact. Its own process: the heap is still small here (gc-pacing-test.scm grows it
;;; to tens of megabytes). The policy itself is tested in tests/unit/gc_pacing_test.cpp.
(include "harness.scm")

(define (window) (cdr (assq 'collection-window (gc-stats))))
(define kMiB (* 1024 1024))
(test-assert "starts in range" (<= (* 6 kMiB) (window) (* 32 kMiB)))

;; 100000 live pairs (1.6 MiB; with the prelude's data under half the 6 MiB floor) are marked at
;; every collection, while 32 KiB vectors, cheap to make per byte, fill each window quickly.
(define live (let loop ((i 0) (acc '())) (if (= i 100000) acc (loop (+ i 1) (cons i acc)))))
(define last-vector #f)
(define start (window))
(define widest
  (let loop ((round 0) (widest start))
    (if (or (= round 20000) (> widest start))
        widest
        (begin (set! last-vector (make-vector 4096 round))
               (loop (+ round 1) (max widest (window)))))))
(test-assert "widens while a small heap is collected often" (> widest start))
(test-assert "stays under its ceiling" (<= widest (* 32 kMiB)))
(test "live data intact" (* 100000 99999 1/2) (apply + live))
(test "last vector intact" (vector-ref last-vector 0) (vector-ref last-vector 4095))

(test-end)
