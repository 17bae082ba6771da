;;; 13-body.scm — the SRFI 13 procedures the core does not have, and the ones whose SRFI 13 form
;;; takes more arguments than R7RS's (included by srfi/13.sld).
;;;
;;; A "char/char-set/pred" argument is a character (matches itself), a SRFI 14 char-set (its
;;; members) or a predicate. [start end] ranges are optional everywhere and checked.
;;; The /shared and ! variants return fresh strings like the plain ones (the
;;; ! case-mapping, reversing and mapping procedures do write their argument).

(define (%s13-error who msg . irritants)
  (apply error (string-append who ": " msg) irritants))

(define (%check-string who s)
  (if (not (string? s)) (%s13-error who "expected a string, got" s)))

;; (values start end) of the optional range `opt` over s.
(define (%range who s opt)
  (%check-string who s)
  (let* ((len (string-length s))
         (start (if (pair? opt) (car opt) 0))
         (end (if (and (pair? opt) (pair? (cdr opt))) (cadr opt) len)))
    (if (not (and (exact-integer? start) (<= 0 start len)))
        (%s13-error who "start index out of range" start s))
    (if (not (and (exact-integer? end) (<= start end len)))
        (%s13-error who "end index out of range" end s))
    (values start end)))

(define (%opt-rest opt) (if (pair? opt) (cdr opt) '()))

(define (%matcher who x)
  (cond ((char? x) (lambda (c) (char=? c x)))
        ((char-set? x) (lambda (c) (char-set-contains? x c)))
        ((procedure? x) x)
        (else (%s13-error who "expected a character, char-set or predicate, got" x))))

;; ---- the SRFI's parsing helpers ----------------------------------------------------------------
(define (string-parse-start+end proc s args)
  (%check-string "string-parse-start+end" s)
  (let ((len (string-length s)))
    (cond ((null? args) (values '() 0 len))
          ((null? (cdr args))
           (let ((start (car args)))
             (if (not (and (exact-integer? start) (<= 0 start len)))
                 (%s13-error "string-parse-start+end" "start index out of range" proc start))
             (values '() start len)))
          (else
           (let ((start (car args)) (end (cadr args)))
             (if (not (and (exact-integer? start) (exact-integer? end) (<= 0 start end len)))
                 (%s13-error "string-parse-start+end" "range out of bounds" proc start end))
             (values (cddr args) start end))))))

(define (string-parse-final-start+end proc s args)
  (let-values (((rest start end) (string-parse-start+end proc s args)))
    (if (pair? rest) (%s13-error "string-parse-final-start+end" "too many arguments" proc rest))
    (values start end)))

(define-syntax let-string-start+end
  (syntax-rules ()
    ((_ (start end) proc s args body ...)
     (let-values (((start end) (string-parse-final-start+end proc s args))) body ...))
    ((_ (start end rest) proc s args body ...)
     (let-values (((rest start end) (string-parse-start+end proc s args))) body ...))))

(define (substring-spec-ok? s start end)
  (and (string? s) (exact-integer? start) (exact-integer? end)
       (<= 0 start end (string-length s))))

(define (check-substring-spec proc s start end)
  (if (not (substring-spec-ok? s start end))
      (%s13-error "check-substring-spec" "bad substring" proc s start end)))

;; ---- predicates ---------------------------------------------------------------------------------
(define (string-null? s) (%check-string "string-null?" s) (= (string-length s) 0))

(define (string-every pred s . opt)
  (let ((m (%matcher "string-every" pred)))
    (let-values (((start end) (%range "string-every" s opt)))
      (let loop ((i start) (last #t))
        (if (= i end)
            last
            (let ((r (m (string-ref s i)))) (and r (loop (+ i 1) r))))))))

(define (string-any pred s . opt)
  (let ((m (%matcher "string-any" pred)))
    (let-values (((start end) (%range "string-any" s opt)))
      (let loop ((i start))
        (and (< i end) (or (m (string-ref s i)) (loop (+ i 1))))))))

;; ---- constructors and conversion ------------------------------------------------------------------
(define (%check-procs who . ps)
  (for-each (lambda (p) (if (not (procedure? p)) (%s13-error who "expected a procedure, got" p))) ps))

(define (string-tabulate proc len)
  (%check-procs "string-tabulate" proc)
  (%check-length "string-tabulate" len)
  (let ((s (make-string len)))
    (do ((i 0 (+ i 1))) ((= i len) s) (string-set! s i (proc i)))))

(define (reverse-list->string l) (list->string (reverse l)))

;; ---- selection --------------------------------------------------------------------------------
(define (substring/shared s start . end) (apply string-copy s start end))

(define (string-take s n) (%range "string-take" s (list 0 n)) (substring s 0 n))
(define (string-drop s n) (%range "string-drop" s (list n)) (substring s n (string-length s)))
(define (string-take-right s n)
  (%check-string "string-take-right" s)
  (let ((len (string-length s)))
    (%range "string-take-right" s (list (- len n)))
    (substring s (- len n) len)))
(define (string-drop-right s n)
  (%check-string "string-drop-right" s)
  (let ((len (string-length s)))
    (%range "string-drop-right" s (list 0 (- len n)))
    (substring s 0 (- len n))))

;; The rightmost n characters of the range, padded with char on the left.
(define (%check-length who n)
  (if (not (and (exact-integer? n) (>= n 0)))
      (%s13-error who "expected a non-negative exact integer, got" n)))

(define (string-pad s n . opt)
  (let ((char (if (pair? opt) (car opt) #\space)))
    (%check-length "string-pad" n)
    (let-values (((start end) (%range "string-pad" s (%opt-rest opt))))
      (let ((len (- end start)))
        (if (>= len n)
            (substring s (- end n) end)
            (string-append (make-string (- n len) char) (substring s start end)))))))

(define (string-pad-right s n . opt)
  (let ((char (if (pair? opt) (car opt) #\space)))
    (%check-length "string-pad-right" n)
    (let-values (((start end) (%range "string-pad-right" s (%opt-rest opt))))
      (let ((len (- end start)))
        (if (>= len n)
            (substring s start (+ start n))
            (string-append (substring s start end) (make-string (- n len) char)))))))

(define (%trim-args who s opt)
  (let ((m (%matcher who (if (pair? opt) (car opt) char-whitespace?))))
    (let-values (((start end) (%range who s (%opt-rest opt))))
      (values m start end))))

(define (string-trim s . opt)
  (let-values (((m start end) (%trim-args "string-trim" s opt)))
    (let loop ((i start))
      (if (and (< i end) (m (string-ref s i))) (loop (+ i 1)) (substring s i end)))))

(define (string-trim-right s . opt)
  (let-values (((m start end) (%trim-args "string-trim-right" s opt)))
    (let loop ((j end))
      (if (and (> j start) (m (string-ref s (- j 1)))) (loop (- j 1)) (substring s start j)))))

(define (string-trim-both s . opt)
  (let-values (((m start end) (%trim-args "string-trim-both" s opt)))
    (let* ((i (let loop ((i start)) (if (and (< i end) (m (string-ref s i))) (loop (+ i 1)) i)))
           (j (let loop ((j end)) (if (and (> j i) (m (string-ref s (- j 1)))) (loop (- j 1)) j))))
      (substring s i j))))

;; ---- comparison ---------------------------------------------------------------------------------
;; Two ranges: (values s1 start1 end1 s2 start2 end2) from [start1 end1 start2 end2].
(define (%two-ranges who s1 s2 opt)
  (let*-values (((start1 end1) (%range who s1 (if (pair? opt) opt '())))
                ((start2 end2) (%range who s2 (if (and (pair? opt) (pair? (cdr opt))) (cddr opt) '()))))
    (values start1 end1 start2 end2)))

;; The index in s1 of the first mismatch, and the order there: -1, 0 or 1.
(define (%compare who fold s1 s2 opt)
  (let-values (((start1 end1 start2 end2) (%two-ranges who s1 s2 opt)))
    (let loop ((i start1) (j start2))
      (cond ((and (= i end1) (= j end2)) (values i 0))
            ((= i end1) (values i -1))
            ((= j end2) (values i 1))
            (else
             (let ((a (fold (string-ref s1 i))) (b (fold (string-ref s2 j))))
               (cond ((char<? a b) (values i -1))
                     ((char<? b a) (values i 1))
                     (else (loop (+ i 1) (+ j 1))))))))))

(define (string-compare s1 s2 proc< proc= proc> . opt)
  (let-values (((i c) (%compare "string-compare" values s1 s2 opt)))
    ((case c ((-1) proc<) ((0) proc=) (else proc>)) i)))

(define (string-compare-ci s1 s2 proc< proc= proc> . opt)
  (let-values (((i c) (%compare "string-compare-ci" char-foldcase s1 s2 opt)))
    ((case c ((-1) proc<) ((0) proc=) (else proc>)) i)))

(define-syntax %define-comparison
  (syntax-rules ()
    ((_ name fold test)
     (define (name s1 s2 . opt)
       (let-values (((i c) (%compare (symbol->string 'name) fold s1 s2 opt)))
         (test c))))))

(%define-comparison string= values (lambda (c) (= c 0)))
(%define-comparison string<> values (lambda (c) (not (= c 0))))
(%define-comparison string< values (lambda (c) (< c 0)))
(%define-comparison string> values (lambda (c) (> c 0)))
(%define-comparison string<= values (lambda (c) (<= c 0)))
(%define-comparison string>= values (lambda (c) (>= c 0)))
(%define-comparison string-ci= char-foldcase (lambda (c) (= c 0)))
(%define-comparison string-ci<> char-foldcase (lambda (c) (not (= c 0))))
(%define-comparison string-ci< char-foldcase (lambda (c) (< c 0)))
(%define-comparison string-ci> char-foldcase (lambda (c) (> c 0)))
(%define-comparison string-ci<= char-foldcase (lambda (c) (<= c 0)))
(%define-comparison string-ci>= char-foldcase (lambda (c) (>= c 0)))

(define string-hash-ci string-ci-hash)

;; ---- prefixes and suffixes --------------------------------------------------------------------
(define (%prefix-length who same? s1 s2 opt)
  (let-values (((start1 end1 start2 end2) (%two-ranges who s1 s2 opt)))
    (let loop ((i start1) (j start2) (n 0))
      (if (and (< i end1) (< j end2) (same? (string-ref s1 i) (string-ref s2 j)))
          (loop (+ i 1) (+ j 1) (+ n 1))
          n))))

(define (%suffix-length who same? s1 s2 opt)
  (let-values (((start1 end1 start2 end2) (%two-ranges who s1 s2 opt)))
    (let loop ((i end1) (j end2) (n 0))
      (if (and (> i start1) (> j start2) (same? (string-ref s1 (- i 1)) (string-ref s2 (- j 1))))
          (loop (- i 1) (- j 1) (+ n 1))
          n))))

(define (string-prefix-length s1 s2 . opt) (%prefix-length "string-prefix-length" char=? s1 s2 opt))
(define (string-suffix-length s1 s2 . opt) (%suffix-length "string-suffix-length" char=? s1 s2 opt))
(define (string-prefix-length-ci s1 s2 . opt) (%prefix-length "string-prefix-length-ci" char-ci=? s1 s2 opt))
(define (string-suffix-length-ci s1 s2 . opt) (%suffix-length "string-suffix-length-ci" char-ci=? s1 s2 opt))

(define (%range-length who s opt)
  (let-values (((start end) (%range who s (if (pair? opt) opt '())))) (- end start)))

(define (string-prefix? s1 s2 . opt)
  (= (%range-length "string-prefix?" s1 opt) (%prefix-length "string-prefix?" char=? s1 s2 opt)))
(define (string-suffix? s1 s2 . opt)
  (= (%range-length "string-suffix?" s1 opt) (%suffix-length "string-suffix?" char=? s1 s2 opt)))
(define (string-prefix-ci? s1 s2 . opt)
  (= (%range-length "string-prefix-ci?" s1 opt) (%prefix-length "string-prefix-ci?" char-ci=? s1 s2 opt)))
(define (string-suffix-ci? s1 s2 . opt)
  (= (%range-length "string-suffix-ci?" s1 opt) (%suffix-length "string-suffix-ci?" char-ci=? s1 s2 opt)))

;; ---- searching --------------------------------------------------------------------------------
(define (%search who s x opt from-right? want)
  (let ((m (%matcher who x)))
    (let-values (((start end) (%range who s opt)))
      (if from-right?
          (let loop ((i (- end 1)))
            (cond ((< i start) #f)
                  ((eq? want (and (m (string-ref s i)) #t)) i)
                  (else (loop (- i 1)))))
          (let loop ((i start))
            (cond ((= i end) #f)
                  ((eq? want (and (m (string-ref s i)) #t)) i)
                  (else (loop (+ i 1)))))))))

(define (string-index s x . opt) (%search "string-index" s x opt #f #t))
(define (string-index-right s x . opt) (%search "string-index-right" s x opt #t #t))
(define (string-skip s x . opt) (%search "string-skip" s x opt #f #f))
(define (string-skip-right s x . opt) (%search "string-skip-right" s x opt #t #f))

(define (string-count s x . opt)
  (let ((m (%matcher "string-count" x)))
    (let-values (((start end) (%range "string-count" s opt)))
      (let loop ((i start) (n 0))
        (if (= i end) n (loop (+ i 1) (if (m (string-ref s i)) (+ n 1) n)))))))

(define (string-contains-ci s1 s2 . opt)
  (let-values (((start1 end1 start2 end2) (%two-ranges "string-contains-ci" s1 s2 opt)))
    (let ((n (- end2 start2)))
      (let loop ((i start1))
        (cond ((> (+ i n) end1) #f)
              ((= n (%prefix-length "string-contains-ci" char-ci=? s1 s2 (list i (+ i n) start2 end2))) i)
              (else (loop (+ i 1))))))))

;; ---- case -----------------------------------------------------------------------------------
;; The titlecase of a character: its uppercase, except for the letters with a titlecase form of
;; their own (Unicode's Lt): the digraphs ǅ ǈ ǋ ǲ and the Greek letters with prosgegrammeni.
(define (%char-titlecase c)
  (let ((n (char->integer c)))
    (cond ((< n #x1C4) (char-upcase c))
          ((<= n #x1C6) (integer->char #x1C5))
          ((<= n #x1C9) (integer->char #x1C8))
          ((<= n #x1CC) (integer->char #x1CB))
          ((<= #x1F1 n #x1F3) (integer->char #x1F2))
          ((or (<= #x1F80 n #x1F87) (<= #x1F90 n #x1F97) (<= #x1FA0 n #x1FA7)) (integer->char (+ n 8)))
          ((or (<= #x1F88 n #x1F8F) (<= #x1F98 n #x1F9F) (<= #x1FA8 n #x1FAF)) c)
          ((memv n '(#x1FB3 #x1FC3 #x1FF3)) (integer->char (+ n 9)))
          ((memv n '(#x1FBC #x1FCC #x1FFC)) c)
          (else (char-upcase c)))))

;; Words are maximal runs of letters: the first letter of each is titlecased, the rest
;; downcased.
(define (string-titlecase s . opt)
  (let-values (((start end) (%range "string-titlecase" s opt)))
    (let ((r (substring s start end)))
      (let loop ((i 0) (in-word #f))
        (if (= i (string-length r))
            r
            (let ((c (string-ref r i)))
              (if (char-alphabetic? c)
                  (begin (string-set! r i (if in-word (char-downcase c) (%char-titlecase c)))
                         (loop (+ i 1) #t))
                  (loop (+ i 1) #f))))))))

(define (%write-back! s start r)
  (do ((i 0 (+ i 1))) ((= i (string-length r))) (string-set! s (+ start i) (string-ref r i))))

(define (%in-place who f s opt)
  (let-values (((start end) (%range who s opt)))
    (let ((r (f (substring s start end))))
      (if (= (string-length r) (- end start))
          (%write-back! s start r)
          ;; A mapping that changes the length (ß -> SS) cannot be done in place: per character.
          (do ((i start (+ i 1))) ((= i end))
            (let ((one (f (string (string-ref s i)))))
              (if (= (string-length one) 1) (string-set! s i (string-ref one 0)))))))))

(define (string-upcase! s . opt) (%in-place "string-upcase!" string-upcase s opt))
(define (string-downcase! s . opt) (%in-place "string-downcase!" string-downcase s opt))
(define (string-titlecase! s . opt) (%in-place "string-titlecase!" string-titlecase s opt))

;; ---- reverse and append -----------------------------------------------------------------------
(define (string-reverse s . opt)
  (let-values (((start end) (%range "string-reverse" s opt)))
    (let ((r (make-string (- end start))))
      (do ((i start (+ i 1))) ((= i end) r)
        (string-set! r (- end i 1) (string-ref s i))))))

(define (string-reverse! s . opt)
  (let-values (((start end) (%range "string-reverse!" s opt)))
    (let loop ((i start) (j (- end 1)))
      (if (< i j)
          (let ((c (string-ref s i)))
            (string-set! s i (string-ref s j))
            (string-set! s j c)
            (loop (+ i 1) (- j 1)))))))

(define (string-concatenate strings) (apply string-append strings))
(define (string-concatenate/shared strings) (apply string-append strings))
(define (string-append/shared . strings) (apply string-append strings))

;; (string-concatenate-reverse strings [final [end]]): (string-append (reverse strings) (final 0..end)).
(define (string-concatenate-reverse strings . opt)
  (let* ((final (if (pair? opt) (car opt) ""))
         (end (if (and (pair? opt) (pair? (cdr opt))) (cadr opt) (string-length final))))
    (apply string-append (append (reverse strings) (list (substring final 0 end))))))
(define (string-concatenate-reverse/shared strings . opt) (apply string-concatenate-reverse strings opt))

;; ---- fold, unfold, map ------------------------------------------------------------------------
(define (string-map! proc s . opt)
  (let-values (((start end) (%range "string-map!" s opt)))
    (do ((i start (+ i 1))) ((= i end))
      (string-set! s i (proc (string-ref s i))))))

(define (string-for-each-index proc s . opt)
  (let-values (((start end) (%range "string-for-each-index" s opt)))
    (do ((i start (+ i 1))) ((= i end)) (proc i))))

(define (string-fold kons knil s . opt)
  (%check-procs "string-fold" kons)
  (let-values (((start end) (%range "string-fold" s opt)))
    (let loop ((i start) (acc knil))
      (if (= i end) acc (loop (+ i 1) (kons (string-ref s i) acc))))))

(define (string-fold-right kons knil s . opt)
  (%check-procs "string-fold-right" kons)
  (let-values (((start end) (%range "string-fold-right" s opt)))
    (let loop ((i (- end 1)) (acc knil))
      (if (< i start) acc (loop (- i 1) (kons (string-ref s i) acc))))))

;; (string-unfold p f g seed [base make-final])
(define (string-unfold p f g seed . opt)
  (%check-procs "string-unfold" p f g)
  (let ((base (if (pair? opt) (car opt) ""))
        (make-final (if (and (pair? opt) (pair? (cdr opt))) (cadr opt) (lambda (x) ""))))
    (let loop ((seed seed) (acc '()))
      (if (p seed)
          (string-append base (list->string (reverse acc)) (make-final seed))
          (loop (g seed) (cons (f seed) acc))))))

(define (string-unfold-right p f g seed . opt)
  (%check-procs "string-unfold-right" p f g)
  (let ((base (if (pair? opt) (car opt) ""))
        (make-final (if (and (pair? opt) (pair? (cdr opt))) (cadr opt) (lambda (x) ""))))
    (let loop ((seed seed) (acc '()))
      (if (p seed)
          (string-append (make-final seed) (list->string acc) base)
          (loop (g seed) (cons (f seed) acc))))))

;; ---- replicate and rotate -----------------------------------------------------------------------
;; (xsubstring s from [to [start end]]): the range repeated forever, indexed from..to.
(define (xsubstring s from . opt)
  (let*-values (((start end) (%range "xsubstring" s (%opt-rest opt)))
                ((len) (- end start))
                ((to) (if (pair? opt) (car opt) (+ from len))))
    (cond ((= from to) "")
          ((= len 0) (%s13-error "xsubstring" "empty range" s))
          (else (string-tabulate (lambda (k) (string-ref s (+ start (modulo (+ from k) len))))
                                 (- to from))))))

(define (string-xcopy! target tstart s sfrom . opt)
  (let ((r (apply xsubstring s sfrom opt)))
    (string-copy! target tstart r)))

;; ---- miscellaneous ------------------------------------------------------------------------------
;; s1 with [start1, end1) replaced by s2's [start2, end2).
(define (string-replace s1 s2 start1 end1 . opt)
  (%range "string-replace" s1 (list start1 end1))
  (let-values (((start2 end2) (%range "string-replace" s2 opt)))
    (string-append (substring s1 0 start1) (substring s2 start2 end2)
                   (substring s1 end1 (string-length s1)))))

;; The maximal runs of characters in token-set (default: the graphic characters).
(define (string-tokenize s . opt)
  (let ((m (%matcher "string-tokenize" (if (pair? opt) (car opt) char-set:graphic))))
    (let-values (((start end) (%range "string-tokenize" s (%opt-rest opt))))
      (let loop ((i start) (acc '()))
        (let ((b (let skip ((i i)) (if (and (< i end) (not (m (string-ref s i)))) (skip (+ i 1)) i))))
          (if (= b end)
              (reverse acc)
              (let ((e (let take ((i b)) (if (and (< i end) (m (string-ref s i))) (take (+ i 1)) i))))
                (loop e (cons (substring s b e) acc)))))))))

;; (string-filter char/char-set/pred s [start end]); the older (s pred) order is accepted too.
(define (%filter who keep? a b opt)
  (let-values (((x s) (if (string? a) (values b a) (values a b))))
    (let ((m (%matcher who x)))
      (let-values (((start end) (%range who s opt)))
        (let loop ((i start) (acc '()))
          (if (= i end)
              (list->string (reverse acc))
              (let ((c (string-ref s i)))
                (loop (+ i 1) (if (eq? keep? (and (m c) #t)) (cons c acc) acc)))))))))

(define (string-filter a b . opt) (%filter "string-filter" #t a b opt))
(define (string-delete a b . opt) (%filter "string-delete" #f a b opt))

;; ---- Knuth-Morris-Pratt ---------------------------------------------------------------------
;; rv[i]: where matching resumes in the pattern after a mismatch at pattern index i (-1: advance
;; the text): the length of the longest proper border of pattern[start, start + i).
(define (make-kmp-restart-vector pat . opt)
  (let* ((c= (if (pair? opt) (car opt) char=?)))
    (let-values (((start end) (%range "make-kmp-restart-vector" pat (%opt-rest opt))))
      (let* ((n (- end start)) (rv (make-vector n -1)))
        (do ((i 1 (+ i 1))) ((>= i n))
          (let border ((k (vector-ref rv (- i 1))))
            (if (and (>= k 0) (not (c= (string-ref pat (+ start k)) (string-ref pat (+ start i -1)))))
                (border (vector-ref rv k))
                (vector-set! rv i (+ k 1)))))
        rv))))

;; The next pattern index after matching character c at pattern index i.
(define (kmp-step pat rv c i c= p-start)
  (let loop ((i i))
    (if (c= c (string-ref pat (+ i p-start)))
        (+ i 1)
        (let ((i (vector-ref rv i)))
          (if (= i -1) 0 (loop i))))))

;; Scans s[s-start, s-end) from pattern state i: the negated index after a complete match, or the
;; pattern state reached at s-end.
(define (string-kmp-partial-search pat rv s i . opt)
  (let* ((c= (if (pair? opt) (car opt) char=?))
         (p-start (if (and (pair? opt) (pair? (cdr opt))) (cadr opt) 0))
         (rest (if (and (pair? opt) (pair? (cdr opt))) (cddr opt) '()))
         (plen (vector-length rv)))
    (let-values (((s-start s-end) (%range "string-kmp-partial-search" s rest)))
      (let loop ((si s-start) (i i))
        (cond ((= i plen) (- si))
              ((= si s-end) i)
              (else (loop (+ si 1) (kmp-step pat rv (string-ref s si) i c= p-start))))))))
