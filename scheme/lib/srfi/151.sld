;; (srfi 151) — bitwise operations on exact integers (any size), every name of the SRFI.
;; bitwise-and/-xor/-not, arithmetic-shift and bit-count are the core's (builtins/numeric.cpp,
;; GMP for bignums); the rest are defined in 151-body.scm on top of them.
(define-library (srfi 151)
  (import (quasi core))
  (export
    bitwise-not bitwise-and bitwise-ior bitwise-xor bitwise-eqv bitwise-nand bitwise-nor
    bitwise-andc1 bitwise-andc2 bitwise-orc1 bitwise-orc2
    arithmetic-shift shift-left shift-right
    bit-count integer-length bitwise-if
    bit-set? copy-bit bit-swap any-bit-set? every-bit-set? first-set-bit
    bit-field bit-field-any? bit-field-every? bit-field-clear bit-field-set bit-field-replace
    bit-field-replace-same bit-field-rotate bit-field-reverse
    bits->list list->bits bits->vector vector->bits bits
    bitwise-fold bitwise-for-each bitwise-unfold make-bitwise-generator)
  (include "151-body.scm"))
