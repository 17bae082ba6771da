// White-box tests of the partial evaluator's whistle (lib/pe/whistle.hpp): what embeds (counters
// past the floor, not pieces of program text), and the rigid-atom filter that skips most
// embedding tests never rejects a pair of keys that embed.
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

bool filter_rejects(const Key& a, const Key& b, const std::vector<bool>& a_counted = {}) {
  gc_vector<uint64_t> ra, rb;
  REQUIRE(quasi::pe::rigid_atoms(a.items, ra, a_counted));
  REQUIRE(quasi::pe::rigid_atoms(b.items, rb));
  return !std::includes(rb.begin(), rb.end(), ra.begin(), ra.end());
}

}  // namespace

TEST_CASE("pe whistle: the rigid-atom filter never rejects keys that embed", "[pe][whistle]") {
  quasi::bridge::Engine* e = quasi::bridge::create_engine();
  auto arity = [](quasi::LambdaNode*) { return size_t(0); };
  Gen g(20261128);
  int rejected = 0, embedded = 0, embedded_counted = 0;
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
    // With some of a's items loop counters (Entry::counted), the filter (which leaves them out)
    // still never rejects what embeds, and counters only add embeddings.
    std::vector<bool> counted(a.items.size());
    for (size_t k = 0; k < counted.size(); k++) counted[k] = g.pick(2) == 0;
    bool emb_c = quasi::pe::key_embedded(a.items, a.slots, b.items, b.slots, arity, &counted);
    REQUIRE(!(emb_c && filter_rejects(a, b, counted)));
    REQUIRE((!emb || emb_c));
    embedded_counted += emb_c;
  }
  // The filter decides most pairs (else it saves nothing) and the generator makes embeddings.
  CHECK(rejected > 2000);
  CHECK(embedded > 50);
  CHECK(embedded_counted > embedded);
  quasi::bridge::destroy_engine(e);
}

TEST_CASE("pe whistle: a loop counter under dynamic control embeds by size from 0", "[pe][whistle]") {
  quasi::bridge::Engine* e = quasi::bridge::create_engine();
  auto arity = [](quasi::LambdaNode*) { return size_t(0); };
  auto one = [](int64_t n) {
    Key k;
    k.slots.push_back(0);
    KeyItem it{KeyItem::kFrozen};
    it.value = quasi::make_fixnum(n);
    k.items.push_back(it);
    return k;
  };
  std::vector<bool> yes{true};
  auto emb = [&](int64_t a, int64_t b, const std::vector<bool>* c) {
    Key ka = one(a), kb = one(b);
    return quasi::pe::key_embedded(ka.items, ka.slots, kb.items, kb.slots, arity, c);
  };
  // Not a counter: below the floor only in itself.
  CHECK(!emb(0, 1, nullptr));
  CHECK(!emb(5, 6, nullptr));
  CHECK(emb(64, 65, nullptr));
  // A counter: by magnitude within its sign; 0 in any integer.
  CHECK(emb(0, 1, &yes));
  CHECK(emb(5, 6, &yes));
  CHECK(emb(5, 5, &yes));
  CHECK(!emb(6, 5, &yes));
  CHECK(emb(0, -2, &yes));
  CHECK(emb(-1, -3, &yes));
  CHECK(!emb(-3, -1, &yes));
  CHECK(!emb(1, -1, &yes));
  CHECK(!emb(-1, 2, &yes));
  // The rigid-atom filter leaves counters out (it would reject 0 against 1).
  CHECK(filter_rejects(one(0), one(1)));
  CHECK(!filter_rejects(one(0), one(1), yes));
  quasi::bridge::destroy_engine(e);
}

TEST_CASE("pe whistle: counters embed from the floor on; program text is atomic", "[pe][whistle]") {
  quasi::bridge::Engine* e = quasi::bridge::create_engine();
  auto arity = [](quasi::LambdaNode*) { return size_t(0); };
  auto frozen = [](Value v) {
    KeyItem it{KeyItem::kFrozen};
    it.value = v;
    return it;
  };
  KeyItem pair{KeyItem::kPair};
  KeyItem hole{KeyItem::kHole};
  // An interpreter's program: the loop body holds the expression of its own arm.
  Value arm = quasi::list({quasi::intern("call"), quasi::intern("f"), quasi::intern("x")});
  Value body = quasi::list({quasi::intern("if"), quasi::intern("c"), arm, quasi::intern("y")});
  // Keys (expression, store) with the store ((i . N)) partially static.
  auto key = [&](Value expr, int64_t i) {
    Key k;
    k.slots.push_back(0);
    k.items.push_back(frozen(expr));
    k.slots.push_back(uint32_t(k.items.size()));
    k.items.insert(k.items.end(), {pair, pair, frozen(quasi::intern("i")), frozen(quasi::make_fixnum(i)),
                                   frozen(quasi::kNil)});
    return k;
  };
  Key b5 = key(body, 5), b6 = key(body, 6), b64 = key(body, 64), b70 = key(body, 70), a64 = key(arm, 64);
  // Below the floor a counter is a distinct atom: the filter alone decides.
  CHECK(filter_rejects(b5, b6));
  CHECK(!quasi::pe::key_embedded(b5.items, b5.slots, b6.items, b6.slots, arity));
  // From the floor on it embeds by magnitude.
  CHECK(!filter_rejects(b64, b70));
  CHECK(quasi::pe::key_embedded(b64.items, b64.slots, b70.items, b70.slots, arity));
  CHECK(!quasi::pe::key_embedded(b70.items, b70.slots, b64.items, b64.slots, arity));
  // The arm's expression is a piece of the body's, but program text is not taken apart.
  CHECK(filter_rejects(a64, b70));
  CHECK(!quasi::pe::key_embedded(a64.items, a64.slots, b70.items, b70.slots, arity));
  // Rigid atoms the filter cannot place: the embedding test decides.
  Key x, y;
  x.slots.push_back(0);
  x.items = {pair, frozen(quasi::make_fixnum(3)), hole};
  y.slots.push_back(0);
  y.items = {pair, hole, frozen(quasi::make_fixnum(3))};
  CHECK(!filter_rejects(x, y));
  CHECK(!quasi::pe::key_embedded(x.items, x.slots, y.items, y.slots, arity));
  quasi::bridge::destroy_engine(e);
}
