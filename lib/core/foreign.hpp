// foreign.hpp — a C++ object held by Scheme (Type::Foreign), made by the embedding API
// (engine.cpp, quasi::Engine::define_type).
//
// The Scheme object points at the C++ object; `holder` is what owns it (a heap-allocated
// std::shared_ptr made by the API), released by a GC finalizer when the Scheme object dies, or
// null when the host keeps ownership (a raw pointer handed to Scheme). `type_key` is an address
// unique to the C++ type: conversions back to C++ compare it, never the name.
//
// The hooks let the embedding API print foreign objects and compare them with equal? (a C++
// type's printer, equality and hash given to define_type). They are process-wide, set once,
// must not throw, and are null until the API sets them.
#pragma once

#include <cstdint>
#include <string>

#include "core/object.hpp"

namespace quasi {

struct Foreign : Object {
  const void* type_key;
  Value name;     // symbol: the type's name, printed as #<name>
  void* object;   // the C++ object
  void* holder;   // owner released by `release`, or null
  void (*release)(void* holder);
};

inline bool is_foreign(Value v) { return has_type(v, Type::Foreign); }

struct ForeignHooks {
  // Appends the object's printed form to `out`; false: print the default #<name>.
  bool (*print)(const void* key, void* object, std::string& out) = nullptr;
  // 1: equal?, 0: not, -1: no equality for these types (then only identity is equal?).
  int (*equal)(const void* key_a, void* a, const void* key_b, void* b) = nullptr;
  // The equal?-consistent hash; false: none (identity hash).
  bool (*hash)(const void* key, void* object, uint64_t* out) = nullptr;
};
extern ForeignHooks foreign_hooks;

// The hooks applied to foreign objects (printer.cpp, equality.cpp).
bool print_foreign(Foreign* f, std::string& out);
int foreign_equal(Foreign* a, Foreign* b);       // 1, 0 (identity is checked by the caller)
bool foreign_hash(Foreign* f, uint64_t* out);

}  // namespace quasi
