// jit_code.hpp — the compiled-code object one Proto owns: where its machine code lives, the
// native address of each entry point, and the GC-visible table of the heap constants that the
// machine code embeds. Allocated by the collector; a finalizer returns the machine code to the
// code allocator when the object (hence its Proto) is unreachable.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/value.hpp"

namespace quasi {

struct Proto;

struct JitCode {
  void* entry0;          // native address of instruction 0 (compiled calls jump here)
  void** entries;        // per bytecode index: native address, or null if not an entry point
  void* code;            // start of the machine code (owned; released by the finalizer)
  size_t code_size;      // bytes
  Value* constants;      // heap values the machine code refers to by address
  int64_t nconstants;
  Proto* proto;          // the code this was compiled from
  // Set when its Proto stops holding it (a redefinition dropped it, or new code replaced it):
  // its own self calls test this instead of comparing the Proto's code with itself.
  bool superseded = false;
};

}  // namespace quasi
