;; (srfi 14) — character sets over Unicode code points.
;;
;; A char-set holds its members as a vector of inclusive code-point ranges #(lo0 hi0 lo1 hi1 ...),
;; sorted, disjoint and not adjacent (so equal sets have equal vectors). Membership is a binary
;; search; the set operations merge range lists in linear time. The surrogates D800-DFFF are not
;; characters and are never members; char-set:full and complements are relative to the other
;; code points.
;;
;; The standard sets defined by a Unicode property (letter, lower-case, upper-case, digit and
;; the ones built from them) are made lazily: until something needs their ranges they answer
;; membership with the core's character predicate (char-alphabetic? ...), and the first
;; operation that needs the ranges computes them once by scanning the code points that have
;; assigned letters and digits (below #x323B0). char-set:punctuation and char-set:symbol are
;; exact in ASCII and Latin-1 (the SRFI's lists) and cover the main Unicode punctuation and
;; symbol blocks beyond that (the core has no general-category table); char-set:title-case is
;; Unicode's Lt list.
;;
;; The linear-update procedures (ending in !) store their result in their first argument and
;; return it.
(define-library (srfi 14)
  (import (scheme base) (scheme char) (scheme case-lambda))
  (export char-set? char-set= char-set<= char-set-hash
          char-set-cursor char-set-ref char-set-cursor-next end-of-char-set?
          char-set-fold char-set-unfold char-set-unfold! char-set-for-each char-set-map
          char-set-copy char-set list->char-set string->char-set list->char-set!
          string->char-set! char-set-filter char-set-filter! ucs-range->char-set
          ucs-range->char-set! ->char-set char-set->list char-set->string
          char-set-size char-set-count char-set-contains? char-set-every char-set-any
          char-set-adjoin char-set-delete char-set-adjoin! char-set-delete!
          char-set-complement char-set-union char-set-intersection char-set-difference
          char-set-xor char-set-diff+intersection
          char-set-complement! char-set-union! char-set-intersection! char-set-difference!
          char-set-xor! char-set-diff+intersection!
          char-set:lower-case char-set:upper-case char-set:title-case char-set:letter
          char-set:digit char-set:letter+digit char-set:graphic char-set:printing
          char-set:whitespace char-set:iso-control char-set:punctuation char-set:symbol
          char-set:hex-digit char-set:blank char-set:ascii char-set:empty char-set:full)
  (begin
    ;; ranges: the vector described above, or #f while a lazy set has not computed it;
    ;; pred: the membership predicate of a lazy set (#f once it has ranges only).
    (define-record-type <char-set>
      (%make-char-set ranges pred) char-set?
      (ranges %ranges %set-ranges!)
      (pred %pred %set-pred!))

    (define max-code #x10FFFF)
    (define scan-end #x323B0)

    ;; ---- ranges as lists of (lo . hi) while operating on them ----

    (define (ranges-of cs)
      (or (%ranges cs)
          (let ((pred (%pred cs)))
            (let loop ((i 0) (start #f) (acc '()))
              (cond ((= i #xD800) (loop #xE000 #f (if start (cons (cons start #xD7FF) acc) acc)))
                    ((>= i scan-end)
                     (let ((v (list->ranges (reverse (if start (cons (cons start (- i 1)) acc) acc)))))
                       (%set-ranges! cs v)
                       v))
                    ((pred (integer->char i)) (loop (+ i 1) (or start i) acc))
                    (start (loop (+ i 1) #f (cons (cons start (- i 1)) acc)))
                    (else (loop (+ i 1) #f acc)))))))

    (define (ranges->list v)
      (let loop ((i (- (vector-length v) 2)) (acc '()))
        (if (< i 0) acc (loop (- i 2) (cons (cons (vector-ref v i) (vector-ref v (+ i 1))) acc)))))
    (define (list->ranges l)
      (let ((v (make-vector (* 2 (length l)))))
        (let loop ((l l) (i 0))
          (if (null? l)
              v
              (begin (vector-set! v i (car (car l)))
                     (vector-set! v (+ i 1) (cdr (car l)))
                     (loop (cdr l) (+ i 2)))))))
    (define (pairs cs) (ranges->list (ranges-of cs)))
    (define (make-from-pairs l) (%make-char-set (list->ranges l) #f))

    ;; Sorts and merges arbitrary ranges into canonical form (removing the surrogates).
    (define (normalize l)
      (let* ((sorted (list-sort-by-lo l))
             (merged (let loop ((l sorted) (acc '()))
                       (cond ((null? l) (reverse acc))
                             ((and (pair? acc) (<= (car (car l)) (+ 1 (cdr (car acc)))))
                              (let ((top (car acc)))
                                (loop (cdr l) (cons (cons (car top) (max (cdr top) (cdr (car l))))
                                                    (cdr acc)))))
                             (else (loop (cdr l) (cons (car l) acc)))))))
        (remove-surrogates merged)))
    (define (remove-surrogates l)
      (let loop ((l l) (acc '()))
        (cond ((null? l) (reverse acc))
              (else
               (let ((lo (car (car l))) (hi (cdr (car l))))
                 (cond ((or (< hi #xD800) (> lo #xDFFF)) (loop (cdr l) (cons (car l) acc)))
                       (else
                        (let* ((acc (if (< lo #xD800) (cons (cons lo #xD7FF) acc) acc))
                               (acc (if (> hi #xDFFF) (cons (cons #xE000 hi) acc) acc)))
                          (loop (cdr l) acc)))))))))
    ;; Merge sort on the ranges' low ends.
    (define (list-sort-by-lo l)
      (define (merge a b)
        (let loop ((a a) (b b) (acc '()))
          (cond ((null? a) (append-reverse acc b))
                ((null? b) (append-reverse acc a))
                ((<= (car (car a)) (car (car b))) (loop (cdr a) b (cons (car a) acc)))
                (else (loop a (cdr b) (cons (car b) acc))))))
      (define (append-reverse rev tail)
        (if (null? rev) tail (append-reverse (cdr rev) (cons (car rev) tail))))
      (let sort ((l l) (n (length l)))
        (if (<= n 1)
            (if (= n 1) (list (car l)) '())
            (let ((half (quotient n 2)))
              (merge (sort l half) (sort (list-tail l half) (- n half)))))))

    (define full-pairs '((0 . #xD7FF) (#xE000 . #x10FFFF)))

    ;; Set operations on canonical pair lists, each linear.
    (define (pairs-union a b) (normalize (append a b)))
    (define (pairs-complement a)
      (let loop ((a a) (next 0) (acc '()))
        (cond ((null? a)
               (remove-surrogates (reverse (if (<= next max-code) (cons (cons next max-code) acc) acc))))
              (else
               (let ((lo (car (car a))) (hi (cdr (car a))))
                 (loop (cdr a) (+ hi 1) (if (< next lo) (cons (cons next (- lo 1)) acc) acc)))))))
    (define (pairs-intersection a b)
      (let loop ((a a) (b b) (acc '()))
        (if (or (null? a) (null? b))
            (reverse acc)
            (let ((lo (max (car (car a)) (car (car b))))
                  (hi (min (cdr (car a)) (cdr (car b)))))
              (let ((acc (if (<= lo hi) (cons (cons lo hi) acc) acc)))
                (if (< (cdr (car a)) (cdr (car b)))
                    (loop (cdr a) b acc)
                    (loop a (cdr b) acc)))))))
    (define (pairs-difference a b) (pairs-intersection a (pairs-complement b)))
    (define (pairs-xor a b) (pairs-union (pairs-difference a b) (pairs-difference b a)))

    ;; ---- membership ----

    (define (code-member? cs code)
      (let ((pred (%pred cs)))
        (if (and pred (not (%ranges cs)))
            (and (not (and (>= code #xD800) (<= code #xDFFF))) (pred (integer->char code)))
            (let ((v (%ranges cs)))
              (let search ((lo 0) (hi (quotient (vector-length v) 2)))
                (and (< lo hi)
                     (let ((mid (quotient (+ lo hi) 2)))
                       (cond ((< code (vector-ref v (* 2 mid))) (search lo mid))
                             ((> code (vector-ref v (+ 1 (* 2 mid)))) (search (+ mid 1) hi))
                             (else #t)))))))))

    (define (check cs who)
      (if (not (char-set? cs)) (error (string-append who ": expected a char-set, got") cs)))
    (define (char-set-contains? cs c)
      (check cs "char-set-contains?")
      (if (not (char? c)) (error "char-set-contains?: expected a character, got" c))
      (code-member? cs (char->integer c)))

    ;; ---- comparison and hashing ----

    (define (char-set= . sets)
      (for-each (lambda (cs) (check cs "char-set=")) sets)
      (or (null? sets)
          (let ((first (ranges-of (car sets))))
            (let loop ((l (cdr sets)))
              (or (null? l) (and (equal? first (ranges-of (car l))) (loop (cdr l))))))))
    (define (char-set<= . sets)
      (for-each (lambda (cs) (check cs "char-set<=")) sets)
      (or (null? sets)
          (let loop ((a (car sets)) (l (cdr sets)))
            (or (null? l)
                (and (null? (pairs-difference (pairs a) (pairs (car l))))
                     (loop (car l) (cdr l)))))))
    (define (char-set-hash cs . bound)
      (check cs "char-set-hash")
      (let ((b (if (and (pair? bound) (> (car bound) 0)) (car bound) 4194304))
            (v (ranges-of cs)))
        (let loop ((i 0) (h 0))
          (if (= i (vector-length v))
              h
              (loop (+ i 1) (modulo (+ (* h 31) (vector-ref v i)) b))))))

    ;; ---- cursors: a cursor is a member's code point, or #f past the end ----

    (define (char-set-cursor cs)
      (check cs "char-set-cursor")
      (let ((v (ranges-of cs))) (if (zero? (vector-length v)) #f (vector-ref v 0))))
    (define (char-set-ref cs cursor)
      (check cs "char-set-ref")
      (if (not (and (exact-integer? cursor) (code-member? cs cursor)))
          (error "char-set-ref: not a cursor of the char-set" cursor))
      (integer->char cursor))
    (define (char-set-cursor-next cs cursor)
      (let ((v (ranges-of cs)) (next (+ cursor 1)))
        (let loop ((i 0))
          (cond ((>= i (vector-length v)) #f)
                ((> next (vector-ref v (+ i 1))) (loop (+ i 2)))
                ((< next (vector-ref v i)) (vector-ref v i))
                (else next)))))
    (define (end-of-char-set? cursor) (not cursor))

    ;; ---- iteration ----

    (define (char-set-fold kons knil cs)
      (check cs "char-set-fold")
      (let loop ((l (pairs cs)) (acc knil))
        (if (null? l)
            acc
            (let range ((i (car (car l))) (acc acc))
              (if (> i (cdr (car l)))
                  (loop (cdr l) acc)
                  (range (+ i 1) (kons (integer->char i) acc)))))))
    (define (char-set-for-each proc cs)
      (char-set-fold (lambda (c acc) (proc c) acc) #f cs))
    (define (char-set-map proc cs)
      (list->char-set (char-set-fold (lambda (c acc) (cons (proc c) acc)) '() cs)))
    (define (char-set->list cs) (reverse (char-set-fold cons '() cs)))
    (define (char-set->string cs) (list->string (char-set->list cs)))
    (define (char-set-size cs)
      (check cs "char-set-size")
      (let loop ((l (pairs cs)) (n 0))
        (if (null? l) n (loop (cdr l) (+ n 1 (- (cdr (car l)) (car (car l))))))))
    (define (char-set-count pred cs)
      (char-set-fold (lambda (c n) (if (pred c) (+ n 1) n)) 0 cs))
    (define (char-set-every pred cs)
      (call-with-current-continuation
       (lambda (k)
         (char-set-fold (lambda (c last) (or (pred c) (k #f))) #t cs))))
    (define (char-set-any pred cs)
      (call-with-current-continuation
       (lambda (k)
         (char-set-fold (lambda (c acc) (let ((v (pred c))) (if v (k v) #f))) #f cs))))

    ;; ---- construction ----

    (define (char-set-copy cs)
      (check cs "char-set-copy")
      (%make-char-set (vector-copy (ranges-of cs)) #f))
    (define (codes->pairs codes) (normalize (map (lambda (n) (cons n n)) codes)))
    (define (chars->pairs chars)
      (for-each (lambda (c) (if (not (char? c)) (error "char-set: expected a character, got" c))) chars)
      (codes->pairs (map char->integer chars)))
    (define (char-set . chars) (make-from-pairs (chars->pairs chars)))
    (define (base-pairs base) (if (pair? base) (pairs (car base)) '()))
    (define (list->char-set chars . base)
      (make-from-pairs (pairs-union (chars->pairs chars) (base-pairs base))))
    (define (string->char-set s . base)
      (apply list->char-set (string->list s) base))
    (define (store! cs result)
      (%set-ranges! cs (%ranges result))
      (%set-pred! cs #f)
      cs)
    (define (list->char-set! chars base) (store! base (list->char-set chars base)))
    (define (string->char-set! s base) (store! base (string->char-set s base)))

    (define (char-set-filter pred cs . base)
      (check cs "char-set-filter")
      (list->char-set (char-set-fold (lambda (c acc) (if (pred c) (cons c acc) acc)) '() cs)
                      (if (pair? base) (car base) char-set:empty)))
    (define (char-set-filter! pred cs base) (store! base (char-set-filter pred cs base)))

    ;; [lo, hi) as in the SRFI; error? is accepted and ignored (the surrogates and code points
    ;; past #x10FFFF are simply left out).
    (define (ucs-range->char-set lo hi . rest)
      (if (not (and (exact-integer? lo) (exact-integer? hi) (<= 0 lo) (<= lo hi)))
          (error "ucs-range->char-set: expected 0 <= lo <= hi, got" lo hi))
      (let* ((hi (min (- hi 1) max-code))
             (these (if (<= lo hi) (normalize (list (cons lo hi))) '()))
             (base (if (and (pair? rest) (pair? (cdr rest))) (pairs (cadr rest)) '())))
        (make-from-pairs (pairs-union these base))))
    (define (ucs-range->char-set! lo hi error? base)
      (store! base (ucs-range->char-set lo hi error? base)))

    (define (->char-set x)
      (cond ((char-set? x) x)
            ((string? x) (string->char-set x))
            ((char? x) (char-set x))
            (else (error "->char-set: expected a string, character or char-set, got" x))))

    ;; The stop predicate comes first (p f g), as in SRFI 1's unfold: the SRFI's own definition,
    ;; its reference code and its example agree on this order (its heading says f p g).
    (define char-set-unfold
      (case-lambda
        ((p f g seed) (char-set-unfold p f g seed char-set:empty))
        ((p f g seed base)
         (let loop ((seed seed) (acc '()))
           (if (p seed)
               (list->char-set acc base)
               (loop (g seed) (cons (f seed) acc)))))))
    (define (char-set-unfold! p f g seed base) (store! base (char-set-unfold p f g seed base)))

    (define (char-set-adjoin cs . chars)
      (check cs "char-set-adjoin")
      (make-from-pairs (pairs-union (pairs cs) (chars->pairs chars))))
    (define (char-set-delete cs . chars)
      (check cs "char-set-delete")
      (make-from-pairs (pairs-difference (pairs cs) (chars->pairs chars))))
    (define (char-set-adjoin! cs . chars) (store! cs (apply char-set-adjoin cs chars)))
    (define (char-set-delete! cs . chars) (store! cs (apply char-set-delete cs chars)))

    ;; ---- algebra ----

    (define (char-set-complement cs)
      (check cs "char-set-complement")
      (make-from-pairs (pairs-complement (pairs cs))))
    (define (combine who op identity)
      (lambda sets
        (for-each (lambda (cs) (check cs who)) sets)
        (make-from-pairs
         (if (null? sets)
             identity
             (let loop ((acc (pairs (car sets))) (l (cdr sets)))
               (if (null? l) acc (loop (op acc (pairs (car l))) (cdr l))))))))
    (define char-set-union (combine "char-set-union" pairs-union '()))
    (define char-set-intersection (combine "char-set-intersection" pairs-intersection full-pairs))
    (define char-set-xor (combine "char-set-xor" pairs-xor '()))
    (define (char-set-difference cs . sets)
      (check cs "char-set-difference")
      (make-from-pairs (pairs-difference (pairs cs) (pairs (apply char-set-union sets)))))
    (define (char-set-diff+intersection cs . sets)
      (check cs "char-set-diff+intersection")
      (let ((others (pairs (apply char-set-union sets))))
        (values (make-from-pairs (pairs-difference (pairs cs) others))
                (make-from-pairs (pairs-intersection (pairs cs) others)))))
    (define (char-set-complement! cs) (store! cs (char-set-complement cs)))
    (define (char-set-union! cs . sets) (store! cs (apply char-set-union cs sets)))
    (define (char-set-intersection! cs . sets) (store! cs (apply char-set-intersection cs sets)))
    (define (char-set-difference! cs . sets) (store! cs (apply char-set-difference cs sets)))
    (define (char-set-xor! cs . sets) (store! cs (apply char-set-xor cs sets)))
    (define (char-set-diff+intersection! cs1 cs2 . sets)
      (call-with-values (lambda () (apply char-set-diff+intersection cs1 cs2 sets))
        (lambda (d i) (store! cs1 d) (store! cs2 i) (values cs1 cs2))))

    ;; ---- the standard sets ----

    (define (lazy pred) (%make-char-set #f pred))
    (define (of-ranges . l) (make-from-pairs (normalize l)))

    (define char-set:empty (make-from-pairs '()))
    (define char-set:full (make-from-pairs full-pairs))
    (define char-set:ascii (of-ranges '(0 . 127)))
    (define char-set:title-case
      (of-ranges '(#x1C5 . #x1C5) '(#x1C8 . #x1C8) '(#x1CB . #x1CB) '(#x1F2 . #x1F2)
                 '(#x1F88 . #x1F8F) '(#x1F98 . #x1F9F) '(#x1FA8 . #x1FAF) '(#x1FBC . #x1FBC)
                 '(#x1FCC . #x1FCC) '(#x1FFC . #x1FFC)))
    ;; The core's case predicates (glibc's classes) call the title-case letters both upper and
    ;; lower case; here they are neither, as in Unicode.
    (define (not-title pred)
      (lambda (c) (and (pred c) (not (code-member? char-set:title-case (char->integer c))))))
    (define char-set:lower-case (lazy (not-title char-lower-case?)))
    (define char-set:upper-case (lazy (not-title char-upper-case?)))
    (define char-set:letter (lazy char-alphabetic?))
    (define char-set:digit (lazy char-numeric?))
    (define char-set:letter+digit
      (lazy (lambda (c) (or (char-alphabetic? c) (char-numeric? c)))))
    (define char-set:hex-digit (of-ranges '(48 . 57) '(65 . 70) '(97 . 102)))
    (define char-set:whitespace
      (of-ranges '(9 . 13) '(32 . 32) '(#x85 . #x85) '(#xA0 . #xA0) '(#x1680 . #x1680)
                 '(#x2000 . #x200A) '(#x2028 . #x2029) '(#x202F . #x202F) '(#x205F . #x205F)
                 '(#x3000 . #x3000)))
    (define char-set:blank
      (of-ranges '(9 . 9) '(32 . 32) '(#xA0 . #xA0) '(#x1680 . #x1680) '(#x2000 . #x200A)
                 '(#x202F . #x202F) '(#x205F . #x205F) '(#x3000 . #x3000)))
    (define char-set:iso-control (of-ranges '(0 . 31) '(127 . 159)))
    (define char-set:punctuation
      (of-ranges
       ;; ASCII: ! " # % & ' ( ) * , - . / : ; ? @ [ \ ] _ { }
       '(33 . 35) '(37 . 42) '(44 . 47) '(58 . 59) '(63 . 64) '(91 . 93) '(95 . 95)
       '(123 . 123) '(125 . 125)
       ;; Latin-1: ¡ § « ¶ · » ¿
       '(#xA1 . #xA1) '(#xA7 . #xA7) '(#xAB . #xAB) '(#xB6 . #xB7) '(#xBB . #xBB)
       '(#xBF . #xBF)
       ;; General Punctuation, supplemental punctuation, CJK and full-width punctuation.
       '(#x2010 . #x2027) '(#x2030 . #x2043) '(#x2045 . #x2051) '(#x2053 . #x205E)
       '(#x2E00 . #x2E4F) '(#x3001 . #x3003) '(#x3008 . #x3011) '(#x3014 . #x301F)
       '(#xFF01 . #xFF03) '(#xFF05 . #xFF0A) '(#xFF0C . #xFF0F) '(#xFF1A . #xFF1B)
       '(#xFF1F . #xFF20) '(#xFF3B . #xFF3D) '(#xFF3F . #xFF3F) '(#xFF5B . #xFF5B)
       '(#xFF5D . #xFF5D)))
    (define char-set:symbol
      (of-ranges
       ;; ASCII: $ + < = > ^ ` | ~
       '(36 . 36) '(43 . 43) '(60 . 62) '(94 . 94) '(96 . 96) '(124 . 124) '(126 . 126)
       ;; Latin-1: ¢ £ ¤ ¥ ¦ ¨ © ¬ ® ¯ ° ± ´ ¸ × ÷
       '(#xA2 . #xA6) '(#xA8 . #xA9) '(#xAC . #xAC) '(#xAE . #xB1) '(#xB4 . #xB4)
       '(#xB8 . #xB8) '(#xD7 . #xD7) '(#xF7 . #xF7)
       ;; Currency, letterlike, arrows, mathematical operators, technical, box drawing and
       ;; geometric shapes, miscellaneous symbols and dingbats.
       '(#x2044 . #x2044) '(#x2052 . #x2052) '(#x20A0 . #x20C0) '(#x2100 . #x2101)
       '(#x2103 . #x2106) '(#x2108 . #x2109) '(#x2114 . #x2114) '(#x2116 . #x2118)
       '(#x211E . #x2123) '(#x2125 . #x2125) '(#x2127 . #x2127) '(#x2129 . #x2129)
       '(#x212E . #x212E) '(#x2190 . #x2307) '(#x230C . #x2328) '(#x232B . #x2426)
       '(#x2500 . #x2767) '(#x2794 . #x27C4) '(#x27C7 . #x27E5) '(#x27F0 . #x2982)
       '(#x2999 . #x29D7) '(#x29DC . #x29FB) '(#x29FE . #x2B73) '(#xFF04 . #xFF04)
       '(#xFF0B . #xFF0B) '(#xFF1C . #xFF1E) '(#xFF3E . #xFF3E) '(#xFF40 . #xFF40)
       '(#xFF5C . #xFF5C) '(#xFF5E . #xFF5E) '(#x1F300 . #x1F6FF) '(#x1F900 . #x1F9FF)))
    (define char-set:graphic
      (lazy (lambda (c)
              (or (char-alphabetic? c) (char-numeric? c)
                  (code-member? char-set:punctuation (char->integer c))
                  (code-member? char-set:symbol (char->integer c))))))
    (define char-set:printing
      (lazy (lambda (c)
              (or (code-member? char-set:graphic (char->integer c))
                  (code-member? char-set:whitespace (char->integer c))))))))
