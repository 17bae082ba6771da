;; (quasi jit) — the x86-64 native-code compiler's controls (lib/jit/README.md).
(define-library (quasi jit)
  (import (quasi core))
  (export jit-mode jit-compile! jit-compiled? jit-disassemble jit-log))
