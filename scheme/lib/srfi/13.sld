;; (srfi 13) — the string library, every name of the SRFI. R7RS's string procedures are the
;; core's, which also take SRFI 13's extra arguments (string-map, string-for-each, string-upcase
;; and string-downcase take [start end]; string-hash [bound start end]), so importing (srfi 13)
;; beside (scheme base) or (scheme char) is no conflict; the rest are defined in 13-body.scm.
;; Character-set arguments are SRFI 14's (srfi/14.sld).
(define-library (srfi 13)
  (import (quasi core) (only (srfi 14) char-set? char-set-contains? char-set:graphic))
  (export
    ;; predicates
    string? string-null? string-every string-any
    ;; constructors
    make-string string string-tabulate
    ;; list and string conversion
    string->list list->string reverse-list->string string-join
    ;; selection
    string-length string-ref string-copy substring substring/shared string-copy! string-take
    string-take-right string-drop string-drop-right string-pad string-pad-right string-trim
    string-trim-right string-trim-both
    ;; modification
    string-set! string-fill!
    ;; comparison
    string-compare string-compare-ci string<> string= string< string> string<= string>=
    string-ci<> string-ci= string-ci< string-ci> string-ci<= string-ci>= string-hash
    string-hash-ci
    ;; prefixes and suffixes
    string-prefix-length string-suffix-length string-prefix-length-ci string-suffix-length-ci
    string-prefix? string-suffix? string-prefix-ci? string-suffix-ci?
    ;; searching
    string-index string-index-right string-skip string-skip-right string-count string-contains
    string-contains-ci
    ;; case mapping
    string-titlecase string-upcase string-downcase string-titlecase! string-upcase!
    string-downcase!
    ;; reverse and append
    string-reverse string-reverse! string-append string-concatenate string-concatenate/shared
    string-append/shared string-concatenate-reverse string-concatenate-reverse/shared
    ;; fold, unfold, map
    string-map string-map! string-fold string-fold-right string-unfold string-unfold-right
    string-for-each string-for-each-index
    ;; replicate and rotate
    xsubstring string-xcopy!
    ;; miscellaneous
    string-replace string-tokenize
    ;; filtering and deleting
    string-filter string-delete
    ;; low-level
    string-parse-start+end string-parse-final-start+end let-string-start+end
    check-substring-spec substring-spec-ok? make-kmp-restart-vector kmp-step
    string-kmp-partial-search)
  (include "13-body.scm"))
