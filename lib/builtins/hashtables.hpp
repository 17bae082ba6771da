// hashtables.hpp — what layers outside the builtins (the embedding API's conversions of std::map)
// need of hash tables; the tables themselves and their Scheme procedures are hashtables.cpp's.
// Invariant: nothing here runs Scheme code, so it needs no running VM.
#pragma once

#include <cstdint>

#include "core/value.hpp"

namespace quasi {

struct Vm;

// A new mutable table with equal? keys, as (make-hash-table equal? capacity) makes: seeded and
// with the equal? procedure of `vm`'s engine, or (vm null) a process-wide seed and equal?.
Value make_equal_hash_table(Vm* vm, int64_t capacity);
bool is_hash_table(Value v);
// (hash-table-set! table key value) for a table whose equivalence and hash are built in (the
// others need Scheme calls: a type error).
void hash_table_insert(Value table, Value key, Value value);
// Calls fn(ctx, key, value) for each entry, in the table's order; fn must not change the table.
void hash_table_each(Value table, void (*fn)(void* ctx, Value key, Value value), void* ctx);

}  // namespace quasi
