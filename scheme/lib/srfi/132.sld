;; (srfi 132) — sorting lists and vectors, every name of the SRFI. The sorts are the core's stable
;; merge sort (prelude/30-sort.scm); this library adds the SRFI's optional [start end] ranges,
;; merging, duplicate removal, medians and selection (132-body.scm).
(define-library (srfi 132)
  (import (except (quasi core) vector-sort vector-sort!))
  (export
    list-sorted? vector-sorted? list-sort list-stable-sort list-sort! list-stable-sort!
    vector-sort vector-stable-sort vector-sort! vector-stable-sort! list-merge list-merge!
    vector-merge vector-merge! list-delete-neighbor-dups list-delete-neighbor-dups!
    vector-delete-neighbor-dups vector-delete-neighbor-dups! vector-find-median
    vector-find-median! vector-select! vector-separate!)
  (include "132-body.scm"))
