;;; srfi-14-test.scm — SRFI 14 character sets (also as (scheme charset)): construction, the
;;; algebra, iteration and cursors, the standard sets (ASCII exactly per the SRFI's tables,
;;; a few non-ASCII members), and the linear-update forms.
(import (scheme base) (scheme char) (scheme write) (scheme process-context) (scheme eval))
(include "harness.scm")
(import (srfi 14))

(define (s cs) (char-set->string cs))
(define abc (string->char-set "cba"))

(test-assert "char-set?" (char-set? abc))
(test "char-set? of a string" #f (char-set? "abc"))
(test "string->char-set, in order" "abc" (s abc))
(test "char-set" "xyz" (s (char-set #\z #\y #\x #\y)))
(test "list->char-set with a base" "abcd" (s (list->char-set '(#\d) abc)))
(test "char-set-contains?" '(#t #f) (list (char-set-contains? abc #\b) (char-set-contains? abc #\d)))
(test "char-set-size" 3 (char-set-size abc))
(test "char-set-size of the full set" (- #x110000 2048) (char-set-size char-set:full))
(test "char-set-count" 2 (char-set-count (lambda (c) (char<? c #\c)) abc))
(test "char-set->list" '(#\a #\b #\c) (char-set->list abc))
(test "char-set=" #t (char-set= abc (char-set #\a #\b #\c) (string->char-set "abcabc")))
(test "char-set= differs" #f (char-set= abc (char-set #\a)))
(test "char-set= of none" #t (char-set=))
(test "char-set<=" #t (char-set<= (char-set #\a) abc char-set:letter))
(test "char-set<= not" #f (char-set<= abc (char-set #\a)))
(test "char-set-hash agrees with char-set=" #t
      (= (char-set-hash abc) (char-set-hash (string->char-set "bca"))))
(test-assert "char-set-hash bound" (< (char-set-hash char-set:letter 100) 100))
(test "ucs-range->char-set" "ABC" (s (ucs-range->char-set 65 68)))
(test "ucs-range->char-set with a base" "ABCa" (s (ucs-range->char-set 65 68 #f (char-set #\a))))
(test "ucs-range->char-set leaves out the surrogates" #x1000
      (char-set-size (ucs-range->char-set #xD000 #xE800)))
(test "->char-set" '("ab" "x" "abc") (list (s (->char-set "ba")) (s (->char-set #\x)) (s (->char-set abc))))
(test "char-set-filter" "ac" (s (char-set-filter (lambda (c) (not (char=? c #\b))) abc)))
(test "char-set-filter into a base" "acz" (s (char-set-filter (lambda (c) (not (char=? c #\b))) abc (char-set #\z))))
(test "char-set-copy is equal and separate" '(#t "abc")
      (let ((c (char-set-copy abc))) (char-set-adjoin! c #\q) (list (char-set= abc (char-set-copy abc)) (s abc))))
(test "char-set-adjoin" "abcd" (s (char-set-adjoin abc #\d)))
(test "char-set-delete" "ac" (s (char-set-delete abc #\b #\q)))
(test "char-set-adjoin leaves its argument" "abc" (begin (char-set-adjoin abc #\d) (s abc)))
(test "char-set-unfold" "abcde"
      (s (char-set-unfold (lambda (i) (= i 5)) (lambda (i) (integer->char (+ 97 i))) (lambda (i) (+ i 1)) 0)))
;; The stop predicate is the first argument (idea: chibi-scheme lib/srfi/14/test.sld, the SRFI's
;; reference tests): a list walked with null? car cdr, added to a base set.
(test "char-set-unfold p f g into a base" "01aeiou"
      (s (char-set-unfold null? car cdr '(#\a #\e #\i #\o #\u #\u) (string->char-set "01"))))
(test "char-set-unfold! p f g" "9ae"
      (s (char-set-unfold! null? car cdr '(#\a #\e) (char-set #\9))))
(test "char-set-map" "ABC" (s (char-set-map char-upcase abc)))
(test "char-set-fold" 3 (char-set-fold (lambda (c n) (+ n 1)) 0 abc))
(test "char-set-for-each" '(#\c #\b #\a)
      (let ((l '())) (char-set-for-each (lambda (c) (set! l (cons c l))) abc) l))
(test "char-set-every" #t (char-set-every char-lower-case? abc))
(test "char-set-any" #t (char-set-any (lambda (c) (char=? c #\b)) abc))
(test "char-set-any none" #f (char-set-any char-upper-case? abc))
;; A cursor that is not one of the set's is an error, and so is the end (idea: Guile
;; test-suite/tests/srfi-14.test, "invalid character cursor").
(test-error-message "char-set-ref of a foreign cursor" "char-set-ref" (char-set-ref (char-set #\B #\r) 1000))
(test-error-message "char-set-ref past the end" "char-set-ref"
                    (let ((cs (char-set #\a))) (char-set-ref cs (char-set-cursor-next cs (char-set-cursor cs)))))
(test "cursors walk the set" "abcxy"
      (let ((cs (string->char-set "yxcab")))
        (let loop ((cur (char-set-cursor cs)) (acc '()))
          (if (end-of-char-set? cur)
              (list->string (reverse acc))
              (loop (char-set-cursor-next cs cur) (cons (char-set-ref cs cur) acc))))))
(test-assert "cursor of the empty set" (end-of-char-set? (char-set-cursor char-set:empty)))

;; Algebra.
(define def (string->char-set "cdef"))
(test "union" "abcdef" (s (char-set-union abc def)))
(test "union of none" "" (s (char-set-union)))
(test "intersection" "c" (s (char-set-intersection abc def)))
(test "intersection of none is full" #t (char-set= char-set:full (char-set-intersection)))
(test "difference" "ab" (s (char-set-difference abc def)))
(test "difference of several" "a" (s (char-set-difference abc def (char-set #\b))))
(test "xor" "abdef" (s (char-set-xor abc def)))
(test "diff+intersection" '("ab" "c")
      (call-with-values (lambda () (char-set-diff+intersection abc def)) (lambda (d i) (list (s d) (s i)))))
(test "complement" #f (char-set-contains? (char-set-complement abc) #\a))
(test "complement contains the rest" #t (char-set-contains? (char-set-complement abc) #\d))
(test "complement twice" #t (char-set= abc (char-set-complement (char-set-complement abc))))
(test "complement of empty is full" #t (char-set= char-set:full (char-set-complement char-set:empty)))
(test "de Morgan" #t
      (char-set= (char-set-complement (char-set-union abc def))
                 (char-set-intersection (char-set-complement abc) (char-set-complement def))))

;; Linear update.
(test "char-set-adjoin!" "abcz" (let ((c (char-set-copy abc))) (char-set-adjoin! c #\z) (s c)))
(test "char-set-delete!" "bc" (let ((c (char-set-copy abc))) (char-set-delete! c #\a) (s c)))
(test "char-set-union!" "abcdef" (let ((c (char-set-copy abc))) (char-set-union! c def) (s c)))
(test "char-set-intersection!" "c" (s (char-set-intersection! (char-set-copy abc) def)))
(test "char-set-difference!" "ab" (s (char-set-difference! (char-set-copy abc) def)))
(test "char-set-xor!" "abdef" (s (char-set-xor! (char-set-copy abc) def)))
(test "list->char-set!" "abcq" (s (list->char-set! '(#\q) (char-set-copy abc))))
(test "string->char-set!" "abcq" (s (string->char-set! "q" (char-set-copy abc))))

;; Standard sets: the ASCII members as the SRFI lists them.
(define (ascii-of cs) (s (char-set-intersection cs char-set:ascii)))
(test "lower-case" "abcdefghijklmnopqrstuvwxyz" (ascii-of char-set:lower-case))
(test "upper-case" "ABCDEFGHIJKLMNOPQRSTUVWXYZ" (ascii-of char-set:upper-case))
(test "letter" "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" (ascii-of char-set:letter))
(test "digit" "0123456789" (ascii-of char-set:digit))
(test "hex-digit" "0123456789ABCDEFabcdef" (s char-set:hex-digit))
(test "letter+digit" 62 (char-set-size (char-set-intersection char-set:letter+digit char-set:ascii)))
(test "punctuation" "!\"#%&'()*,-./:;?@[\\]_{}" (ascii-of char-set:punctuation))
(test "symbol" "$+<=>^`|~" (ascii-of char-set:symbol))
(test "graphic is 94 in ASCII" 94 (char-set-size (char-set-intersection char-set:graphic char-set:ascii)))
(test "printing adds whitespace" 100 (char-set-size (char-set-intersection char-set:printing char-set:ascii)))
(test "whitespace" (list->string (map integer->char '(9 10 11 12 13 32))) (ascii-of char-set:whitespace))
(test "blank" (list->string (map integer->char '(9 32))) (ascii-of char-set:blank))
(test "iso-control" 65 (char-set-size char-set:iso-control))
(test "ascii" 128 (char-set-size char-set:ascii))
(test "empty" 0 (char-set-size char-set:empty))
(test "title-case" (quote (#t #f #f)) (list (char-set-contains? char-set:title-case (integer->char #x1C5)) (char-set-contains? char-set:upper-case (integer->char #x1C5))
                                  (char-set-contains? char-set:title-case #\A)))
(test "Unicode members" '(#t #t #t #t #f)
      (list (char-set-contains? char-set:letter (integer->char #x3B1))       ; Greek alpha
            (char-set-contains? char-set:upper-case (integer->char #xC9))     ; É
            (char-set-contains? char-set:digit (integer->char #x663))         ; Arabic-Indic 3
            (char-set-contains? char-set:whitespace (integer->char #x3000))   ; ideographic space
            (char-set-contains? char-set:letter (integer->char #x663))))
(test "a lazy set's ranges agree with its predicate" #t
      (char-set-every char-alphabetic? char-set:letter))
(test "letter is large" #t (> (char-set-size char-set:letter) 100000))
(test "lower and upper are disjoint" 0
      (char-set-size (char-set-intersection char-set:lower-case char-set:upper-case)))
(test "letter and digit are disjoint" 0
      (char-set-size (char-set-intersection char-set:letter char-set:digit)))
(test "(scheme charset)" #t
      (eval '(char-set-contains? char-set:digit #\5) (environment '(scheme charset))))

(test-end)
