;;; kmp.scm — the KMP test: a naive string matcher specialized to a fixed pattern.
;;;
;;; The matcher below is naive: after a mismatch it restarts at the next text position and
;;; compares the pattern from its first character again. What it does differently from the
;;; textbook naive matcher is only that it REMEMBERS what it has read: a text character that
;;; matched a pattern character is kept in `known` as that (static!) pattern character, and a
;;; restart re-reads the remembered characters instead of the text. The program does no
;;; cleverness of its own — but once the pattern is static, everything about `known` is static,
;;; and specialization computes the restarts ahead of time: the residual program is a KMP
;;; automaton whose states are the helpers, and which reads every text character once (a state
;;; re-reads only the character that just mismatched, as KMP's failure transitions do).
;;; Run: quasi scheme/examples/kmp.scm

(define (prefix-chars s from to)           ; (string-ref s from) ... (string-ref s (- to 1))
  (if (>= from to)
      '()
      (cons (string-ref s from) (prefix-chars s (+ from 1) to))))

;; Number of (possibly overlapping) occurrences of pat in text.
(define (count-occurrences pat text)
  (let ((m (string-length pat))
        (n (string-length text)))
    ;; pat[0..i) matches text at start; known: characters of text from start+i on that an
    ;; earlier attempt already read.
    (define (try start i known count)
      (cond ((= i m) (shift start i known (+ count 1)))
            ((pair? known)
             (if (char=? (string-ref pat i) (car known))
                 (try start (+ i 1) (cdr known) count)
                 (shift start i known count)))
            ((>= (+ start i) n) count)
            ((char=? (string-ref pat i) (string-ref text (+ start i)))
             (try start (+ i 1) '() count))
            (else (shift start i '() count))))
    ;; Restart one position further. What is known from start on is pat[0 .. i) then `rest`; from
    ;; start+1 on it is the same minus its first character.
    (define (shift start i rest count)
      (try (+ start 1)
           0
           (cond ((> i 0) (append (prefix-chars pat 1 i) rest))
                 ((pair? rest) (cdr rest))
                 (else '()))
           count))
    (try 0 0 '() 0)))

(define pattern "abaababa")
(define kmp (specialize count-occurrences pattern))

(display ";; residual of (specialize count-occurrences \"abaababa\"):") (newline)
(print-residual kmp)

;; The residual and the original agree.
(define (check text)
  (let ((a (kmp text)) (b (count-occurrences pattern text)))
    (if (not (= a b)) (error "kmp disagrees" text a b))
    a))
(display (map check '("" "abaababa" "abaababaababa" "aabaababaabaababab" "bbbbb")))
(newline)
