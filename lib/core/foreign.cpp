// foreign.cpp — the hooks through which the embedding API prints and compares C++ objects.
#include "core/foreign.hpp"

namespace quasi {

ForeignHooks foreign_hooks;

bool print_foreign(Foreign* f, std::string& out) {
  return foreign_hooks.print && foreign_hooks.print(f->type_key, f->object, out);
}

int foreign_equal(Foreign* a, Foreign* b) {
  if (!foreign_hooks.equal) return 0;
  return foreign_hooks.equal(a->type_key, a->object, b->type_key, b->object) == 1 ? 1 : 0;
}

bool foreign_hash(Foreign* f, uint64_t* out) {
  return foreign_hooks.hash && foreign_hooks.hash(f->type_key, f->object, out);
}

}  // namespace quasi
