;;; gc-pacing-test.scm — the collector's free-space divisor follows the share of time spent
;;; collecting (lib/core/gc_pacing.hpp): it drops while a large live heap is marked again and
;;; again, and the live data stays intact. The policy itself (steps, bounds, rising again) is
;;; tested with made-up times in tests/unit/gc_pacing_test.cpp.
(include "harness.scm")

(define (divisor) (cdr (assq 'free-space-divisor (gc-stats))))
(define churned 0)
(define last-vector #f)
;; n short-lived 32 KiB vectors, each kept until the next one (so no pass drops them). Filling
;; a vector costs little per byte in every mode, so collections dominate even with the JIT off
;; under the sanitizers.
(define (churn n)
  (let loop ((i 0))
    (if (< i n)
        (begin (set! last-vector (make-vector 4096 i))
               (set! churned (+ churned (vector-ref last-vector 1)))
               (loop (+ i 1))))))

(test-assert "starts in range" (<= 1 (divisor) 3))

;; About 12 MiB of live pairs (16-byte pairs), then garbage: every collection marks them again.
(define live (let loop ((i 0) (acc '())) (if (= i 800000) acc (loop (+ i 1) (cons i acc)))))
(define low
  (let loop ((round 0) (lowest (divisor)))
    (if (or (= round 40) (= lowest 1))
        lowest
        (begin (churn 2000) (loop (+ round 1) (min lowest (divisor)))))))
(test-assert "drops while a large live heap is marked" (< low 3))
(test "live data intact" (* 800000 799999 1/2) (apply + live))

(test-end)
