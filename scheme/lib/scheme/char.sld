;; (scheme char) — the Unicode character and string procedures (R7RS 6.6, 6.7).
;; The bindings are the engine's own (quasi core); this file only says which names are here.
(define-library (scheme char)
  (import (quasi core))
  (export
    char-alphabetic? char-ci<=? char-ci<? char-ci=? char-ci>=? char-ci>? char-downcase
    char-foldcase char-lower-case? char-numeric? char-upcase char-upper-case? char-whitespace?
    digit-value string-ci<=? string-ci<? string-ci=? string-ci>=? string-ci>? string-downcase
    string-foldcase string-upcase))
