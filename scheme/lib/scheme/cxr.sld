;; (scheme cxr) — the three- and four-level car/cdr compositions (R7RS 6.4).
;; The bindings are the engine's own (quasi core); this file only says which names are here.
(define-library (scheme cxr)
  (import (quasi core))
  (export
    caaaar caaadr caaar caadar caaddr caadr cadaar cadadr cadar caddar cadddr caddr cdaaar
    cdaadr cdaar cdadar cdaddr cdadr cddaar cddadr cddar cdddar cddddr cdddr))
