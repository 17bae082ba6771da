;; Library declarations for testlib/ordered.sld (include-library-declarations).
(export from-decls)
(begin (define from-decls 4))
