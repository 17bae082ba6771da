;; (quasi pretty-print) — the printer the REPL uses for values, and the parameters that shape it.
(define-library (quasi pretty-print)
  (import (quasi core))
  (export pretty-print print-length print-level pretty-print-width fresh-line))
