#include "ir/ir.hpp"

#include <atomic>

namespace quasi {

Var* make_var(Value name) {
  static std::atomic<uint32_t> next_id{1};
  Var* v = gc_new<Var>();
  v->name = name;
  v->id = next_id.fetch_add(1, std::memory_order_relaxed);
  return v;
}

}  // namespace quasi
