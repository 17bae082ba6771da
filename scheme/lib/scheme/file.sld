;; (scheme file) — file ports and files (R7RS 6.13).
;; The bindings are the engine's own (quasi core); this file only says which names are here.
(define-library (scheme file)
  (import (quasi core))
  (export
    call-with-input-file call-with-output-file delete-file file-exists? open-binary-input-file
    open-binary-output-file open-input-file open-output-file with-input-from-file
    with-output-to-file))
