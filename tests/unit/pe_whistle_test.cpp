// White-box tests of the partial evaluator's whistle (lib/pe/whistle.hpp): the rigid-atom filter
// that skips most embedding tests must never reject a pair of keys that embed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "core/gc.hpp"
#include "core/object.hpp"
#include "engine/engine_bridge.hpp"
#include "pe/whistle.hpp"

namespace {

using quasi::gc_vector;
using quasi::Value;
using quasi::pe::KeyItem;

struct Key {
  gc_vector<KeyItem> items;
  gc_vector<uint32_t> slots;
};

class Gen {
 public:
  explicit Gen(uint32_t seed) : rng_(seed) {}

  Value atom() {
    switch (pick(6)) {
      case 0: return quasi::make_fixnum(int64_t(pick(4)));          // rigid: below the floor
      case 1: return quasi::make_fixnum(64 + int64_t(pick(40)));    // embeds by magnitude
      case 2: return quasi::intern(pick(2) ? "a" : "b");
      case 3: return quasi::kNil;
      case 4: return quasi::make_fixnum(-int64_t(pick(3)) - 1);
      default: return quasi::kTrue;
    }
  }
  Value datum(int depth) {
    if (depth == 0 || pick(3) == 0) return atom();
    return quasi::cons(datum(depth - 1), datum(depth - 1));
  }
  void tree(Key& k, int depth) {
    uint32_t c = depth == 0 ? pick(2) : pick(5);
    if (c == 0) {
      k.items.push_back(KeyItem{KeyItem::kHole});
    } else if (c == 1) {
      KeyItem it{KeyItem::kFrozen};
      it.value = datum(depth);
      k.items.push_back(it);
    } else if (c == 2 || c == 3) {
      k.items.push_back(KeyItem{KeyItem::kPair});
      tree(k, depth - 1);
      tree(k, depth - 1);
    } else {
      KeyItem it{KeyItem::kVector};
      it.n = 2;
      k.items.push_back(it);
      tree(k, depth - 1);
      tree(k, depth - 1);
    }
  }
  Key key(int nslots) {
    Key k;
    for (int s = 0; s < nslots; s++) {
      k.slots.push_back(uint32_t(k.items.size()));
      tree(k, 3);
    }
    return k;
  }
  uint32_t pick(uint32_t n) { return std::uniform_int_distribution<uint32_t>(0, n - 1)(rng_); }

 private:
  std::mt19937 rng_;
};

bool filter_rejects(const Key& a, const Key& b) {
  gc_vector<uint64_t> ra, rb;
  REQUIRE(quasi::pe::rigid_atoms(a.items, ra));
  REQUIRE(quasi::pe::rigid_atoms(b.items, rb));
  return !std::includes(rb.begin(), rb.end(), ra.begin(), ra.end());
}

}  // namespace

TEST_CASE("pe whistle: the rigid-atom filter never rejects keys that embed", "[pe][whistle]") {
  quasi::bridge::Engine* e = quasi::bridge::create_engine();
  auto arity = [](quasi::LambdaNode*) { return size_t(0); };
  Gen g(20261128);
  int rejected = 0, embedded = 0;
  for (int round = 0; round < 4000; round++) {
    int nslots = 1 + int(g.pick(2));
    Key a = g.key(nslots), b = g.key(nslots);
    bool emb = quasi::pe::key_embedded(a.items, a.slots, b.items, b.slots, arity);
    bool rej = filter_rejects(a, b);
    INFO("round " << round);
    REQUIRE(!(emb && rej));
    rejected += rej;
    embedded += emb;
    // A key embeds in itself and in a copy with a larger integer past the floor.
    REQUIRE(quasi::pe::key_embedded(a.items, a.slots, a.items, a.slots, arity));
    REQUIRE(!filter_rejects(a, a));
  }
  // The filter decides most pairs (else it saves nothing) and the generator makes embeddings.
  CHECK(rejected > 2000);
  CHECK(embedded > 50);
  quasi::bridge::destroy_engine(e);
}

TEST_CASE("pe whistle: a counter below the floor is rejected by the filter, past it embeds", "[pe][whistle]") {
  quasi::bridge::Engine* e = quasi::bridge::create_engine();
  auto arity = [](quasi::LambdaNode*) { return size_t(0); };
  // The flowchart interpreter's store: ((i . N) (n . hole)) beside its frozen program text.
  auto store = [](int64_t i, bool three = true) {
    Key k;
    k.slots.push_back(0);
    KeyItem pair{KeyItem::kPair};
    KeyItem sym{KeyItem::kFrozen};
    sym.value = quasi::intern("i");
    KeyItem num{KeyItem::kFrozen};
    num.value = quasi::make_fixnum(i);
    KeyItem nil{KeyItem::kFrozen};
    nil.value = quasi::kNil;
    k.items = {pair, pair, sym, num, nil};
    k.slots.push_back(uint32_t(k.items.size()));
    KeyItem prog{KeyItem::kFrozen};
    prog.value = three ? quasi::list({quasi::intern("lt"), quasi::make_fixnum(3), quasi::intern("i")})
                       : quasi::list({quasi::intern("lt"), quasi::intern("i")});
    k.items.push_back(prog);
    return k;
  };
  Key k5 = store(5), k6 = store(6), k64 = store(64), k70 = store(70), k3 = store(3, false);
  CHECK(filter_rejects(k5, k6));
  CHECK(!quasi::pe::key_embedded(k5.items, k5.slots, k6.items, k6.slots, arity));
  // 3 occurs in the other key's program text: the filter cannot decide, the embedding test does.
  CHECK(!filter_rejects(k3, k6));
  CHECK(!quasi::pe::key_embedded(k3.items, k3.slots, k6.items, k6.slots, arity));
  CHECK(!filter_rejects(k64, k70));
  CHECK(quasi::pe::key_embedded(k64.items, k64.slots, k70.items, k70.slots, arity));
  quasi::bridge::destroy_engine(e);
}
