;; (scheme sort) — R7RS-large's name for SRFI 132 (srfi/132.sld).
(define-library (scheme sort)
  (import (srfi 132))
  (export
    list-sorted? vector-sorted? list-sort list-stable-sort list-sort! list-stable-sort!
    vector-sort vector-stable-sort vector-sort! vector-stable-sort! list-merge list-merge!
    vector-merge vector-merge! list-delete-neighbor-dups list-delete-neighbor-dups!
    vector-delete-neighbor-dups vector-delete-neighbor-dups! vector-find-median
    vector-find-median! vector-select! vector-separate!))
