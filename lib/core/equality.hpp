// equality.hpp — Scheme's equivalence predicates and hash functions consistent with them.
//
//   eqv(a, b)   eqv?: identity, except numbers (num_eqv: same exactness and value) and characters
//               (immediates, so identity already works).
//   equal(a, b) equal?: structural on pairs, vectors, strings and bytevectors, eqv? elsewhere.
//               Terminates on cyclic structures (two structures are equal when their infinite
//               unfoldings are) and never overflows the C stack: a bounded recursive fast phase
//               falls back to an iterative walk with an explicit stack, which after a fixed
//               number of steps starts unioning visited object pairs (union-find) so that each
//               pair of nodes is compared at most once.
//   equal_hash  structural hash with bounded work: equal? values hash equally (also cyclic ones).
//   eqv_hash    consistent with eqv?.
#pragma once

#include <cstdint>

#include "core/value.hpp"

namespace quasi {

bool eqv(Value a, Value b);
bool equal(Value a, Value b);
uint64_t eqv_hash(Value v);
uint64_t equal_hash(Value v);

// Hashing for hash tables: keyed by a per-engine random seed (Vm::hash_seed, from
// fresh_hash_seed), so keys that collide cannot be computed in advance by whoever supplies them
// (an embedding's scripts or input data). equal_hash_seeded agrees with equal? for one seed and
// hashes strings in full; string_hash_seeded is its hash of a string's code points.
uint64_t equal_hash_seeded(Value v, uint64_t seed);
uint64_t string_hash_seeded(const uint32_t* chars, int64_t n, uint64_t seed);
uint64_t fresh_hash_seed();  // random, never 0

// The splitmix64 finalizer: every bit of x reaches every bit of the result. The one bit mixer
// of the hash functions above, the numeric hashes and the hash tables.
inline uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

}  // namespace quasi
