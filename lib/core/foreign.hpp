// foreign.hpp — a C++ object held by Scheme (Type::Foreign), made by the embedding API
// (engine.cpp, quasi::Engine::define_type).
//
// The Scheme object points at the C++ object; `holder` is what owns it (a heap-allocated
// std::shared_ptr made by the API), released by a GC finalizer when the Scheme object dies, or
// null when the host keeps ownership (a raw pointer handed to Scheme). `type_key` is an address
// unique to the C++ type: conversions back to C++ compare it, never the name.
#pragma once

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

}  // namespace quasi
