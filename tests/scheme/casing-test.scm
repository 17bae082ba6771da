;;; casing-test.scm — Unicode special casing in string-upcase / string-downcase / string-foldcase
;;; (builtins/chars_strings.cpp; SpecialCasing.txt and CaseFolding.txt, unconditional mappings),
;;; and SRFI 13's [start end] on the core's string-upcase / string-downcase / string-map /
;;; string-for-each.
(include "harness.scm")

(define (codes s) (map char->integer (string->list s)))

(test "upcase ß" "STRASSE" (string-upcase "straße"))
(test "upcase ǰ" '(#x4A #x30C) (codes (string-upcase (string (integer->char #x1F0)))))
(test "upcase ŉ" '(#x2BC #x4E) (codes (string-upcase (string (integer->char #x149)))))
(test "upcase ﬁ ligature" "FIX" (string-upcase (string (integer->char #xFB01) #\x)))
(test "upcase ﬃ" "FFI" (string-upcase (string (integer->char #xFB03))))
(test "upcase ΐ" '(#x399 #x308 #x301) (codes (string-upcase (string (integer->char #x390)))))
(test "upcase ᾳ" '(#x391 #x399) (codes (string-upcase (string (integer->char #x1FB3)))))
(test "upcase ᾀ" '(#x1F08 #x399) (codes (string-upcase (string (integer->char #x1F80)))))
(test "upcase ᾯ" '(#x1F6F #x399) (codes (string-upcase (string (integer->char #x1FAF)))))
(test "upcase և" '(#x535 #x552) (codes (string-upcase (string (integer->char #x587)))))
(test "upcase plain" "ABC" (string-upcase "abc"))
(test "downcase İ" '(#x69 #x307) (codes (string-downcase (string (integer->char #x130)))))
(test "downcase final sigma" '(#x3C3 #x3C2) (codes (string-downcase (string (integer->char #x3A3) (integer->char #x3A3)))))
;; Final_Sigma skips case-ignorable characters both ways and needs a cased letter before (idea:
;; Larceny test/R7RS/Lib/tests/scheme/char.sld, "AΣ'x").
(define (sig . codes) (apply string (map (lambda (c) (if (char? c) c (integer->char c))) codes)))
(test "sigma before an apostrophe and a letter" '(#x61 #x3C3 #x27 #x78) (codes (string-downcase (sig #\A #x3A3 #\' #\x))))
(test "sigma before an apostrophe at the end" '(#x61 #x3C2 #x27) (codes (string-downcase (sig #\A #x3A3 #\'))))
(test "sigma after a letter and a combining mark" '(#x3B1 #x301 #x3C2) (codes (string-downcase (sig #x391 #x301 #x3A3))))
(test "sigma alone" '(#x3C3) (codes (string-downcase (sig #x3A3))))
(test "sigma after an uncased letter" '(#x4E2D #x3C3) (codes (string-downcase (sig #x4E2D #x3A3))))
(test "sigma in a word end, then a space" '(#x3B1 #x3C2 #x20 #x3B1) (codes (string-downcase (sig #x391 #x3A3 #x20 #x391))))
(test "downcase plain" "abc" (string-downcase "ABC"))
(test "foldcase ß" "ss" (string-foldcase "ß"))
(test "foldcase ẞ" "ss" (string-foldcase (string (integer->char #x1E9E))))
(test "foldcase İ" '(#x69 #x307) (codes (string-foldcase (string (integer->char #x130)))))
(test "foldcase ǰ" '(#x6A #x30C) (codes (string-foldcase (string (integer->char #x1F0)))))
(test "foldcase ﬁ" "fi" (string-foldcase (string (integer->char #xFB01))))
(test "foldcase ᾀ" '(#x1F00 #x3B9) (codes (string-foldcase (string (integer->char #x1F80)))))
(test "foldcase ᾼ" '(#x3B1 #x3B9) (codes (string-foldcase (string (integer->char #x1FBC)))))
(test "string-ci=? with ligature" #t (string-ci=? (string (integer->char #xFB01)) "FI"))
(test "char-upcase stays simple" (integer->char #x1F0) (char-upcase (integer->char #x1F0)))
(test "char-foldcase ASCII" #\a (char-foldcase #\A))
;; SRFI 13 ranges on the core's procedures
(test "string-upcase range" "BC" (string-upcase "abcd" 1 3))
(test "string-downcase range" "bc" (string-downcase "ABCD" 1 3))
(test-error "string-upcase bad range" #t (string-upcase "abc" 2 1))
(test "string-map range" "BCD" (string-map char-upcase "abcd" 1))
(test "string-map range end" "B" (string-map char-upcase "abcd" 1 2))
(test "string-map R7RS" "ad" (string-map (lambda (a b) (if (char<? a b) a b)) "ae" "xd"))
(test "string-for-each range" '(#\d #\c) (let ((acc '())) (string-for-each (lambda (c) (set! acc (cons c acc))) "abcd" 2) acc))

(test-end)
