// structural.cpp — how primitives build and take apart partially static data: the rules behind
// PrimFacts::structure (core/prim.hpp), which each primitive's table row declares. The evaluator
// names no primitive: everything else it decides from the flags (kPure, kFoldable, kVmSpecial).
//
// Each rule returns the partial value of the call, or null to fall back to the general path
// (fold when every argument is a frozen static value, else residual code). A rule never decides
// anything that depends on contents the program could change: it reads only the fields of the
// evaluator's own objects that have not escaped, and static values that are frozen.
#include <string>

#include "core/equality.hpp"
#include "core/error.hpp"
#include "eval/environment.hpp"
#include "pe/specializer.hpp"
#include "vm/vm.hpp"

namespace quasi::pe {

// The primitives the evaluator emits itself (to materialize objects, to apply), found by their
// facts, never by name: the core environment's primitive that builds a pair, a vector, ...
void build_fact_table(PeState& st, Environment* core) {
  for (auto& [sym, binding] : *core->table) {
    if (!has_type(binding, Type::GlobalCell)) continue;
    GlobalCell* cell = binding.as<GlobalCell>();
    if (cell->owner != make_ptr(core) || !is_primitive(cell->value)) continue;
    const Primitive* p = cell->value.as<Primitive>();
    const PrimFacts& f = p->facts;
    if (f.vm_op == kVmApply) st.apply_prim = cell->value;
    if (f.structure == Structure::kCons) st.cons_prim = cell->value;
    if (f.structure == Structure::kVector) st.vector_prim = cell->value;
    if (f.structure == Structure::kList) st.list_prim = cell->value;
    if (f.structure == Structure::kEq && !f.eqv) st.eq_prim = cell->value;
    // values is the primitive whose derivative rule is that of values (a shape of several)
    if (f.derivative && f.derivative->kind == DerivativeRule::Kind::kValues) st.values_prim = cell->value;
    if (f.structure == Structure::kVectorRef) st.vector_ref_prim = cell->value;
    if (f.inline_op == InlineOp::kVectorSet) st.vector_set_prim = cell->value;
    // by name: the one primitive the evaluator must not leave residual (internal.hpp)
    if (f.derivative && p->name && std::string(p->name) == "%ad-j") st.ad_j_prim = cell->value;
    if (f.derivative && p->name && std::string(p->name) == "%ad-arity") st.ad_arity_prim = cell->value;
    if (f.derivative && p->name && std::string(p->name) == "%ad-j-layout") st.ad_j_layout_prim = cell->value;
    if (f.derivative && p->name && std::string(p->name) == "%ad-j-quiet?") st.ad_j_quiet_prim = cell->value;
  }
  st.core = core;
  st.tables_ready = true;
}

Node* const_code(PeState& st, Value v) {
  if ((is_primitive(v) || is_closure(v)) && st.core) {
    std::string name = procedure_name(v);
    if (name.empty()) return gc_new<ConstNode>(v, SrcLoc{});
    Value cell = st.core->lookup(intern(name));
    if (has_type(cell, Type::GlobalCell) && cell.as<GlobalCell>()->value == v &&
        cell.as<GlobalCell>()->owner == make_ptr(st.core))
      return gc_new<GlobalRefNode>(cell, SrcLoc{});
  }
  return gc_new<ConstNode>(v, SrcLoc{});
}

namespace {

// One step along a known list spine: the next element and tail, from the evaluator's pair or a
// frozen static pair. False when the spine is not known there.
bool spine_step(Specializer& s, PVal* l, PVal** elem, PVal** tail) {
  if (l->known_fields() && l->kind == PKind::Pair) {
    *elem = l->car;
    *tail = l->cdr;
    return true;
  }
  if (l->kind == PKind::Static && is_pair(l->value) && s.frozen(l->value)) {
    *elem = s.make_static(car(l->value));
    *tail = s.make_static(cdr(l->value));
    return true;
  }
  return false;
}

bool is_nil(PVal* v) { return v->kind == PKind::Static && v->value == kNil; }

// eq?/eqv? of a static value with a static value.
bool same(Value a, Value b, bool use_eqv) { return use_eqv ? eqv(a, b) : a == b; }

}  // namespace

PVal* Specializer::structural(const PrimFacts& f, Value prim, gc_vector<PVal*>& args) {
  Primitive* p = prim.as<Primitive>();
  switch (f.structure) {
    case Structure::kNone:
    case Structure::kResultChar:  // handled by prim_call on the residual result
      return nullptr;
    case Structure::kEqual:  // facts.cpp
      return nullptr;
    case Structure::kCharEq: {
      // (char=? #\a (string-ref s i)) is (eq? #\a (string-ref s i)): both are characters.
      if (args.size() != 2 || !is_primitive(st_.eq_prim)) return nullptr;
      auto is_char = [](PVal* a) {
        return (a->kind == PKind::Static && a->value.is_char()) || (a->kind == PKind::Dyn && a->known_char);
      };
      if (!is_char(args[0]) || !is_char(args[1])) return nullptr;
      if (args[0]->kind == PKind::Static && args[1]->kind == PKind::Static) return nullptr;  // fold
      if (PVal* r = fact_structural(f, args)) return r;
      PVal* r = residual_prim(st_.eq_prim, args);
      note_result(f, args, r);
      return r;
    }
    case Structure::kCar:
    case Structure::kCdr: {
      PVal* a = args[0];
      if (a->kind != PKind::Pair || !a->known_fields()) return nullptr;
      return f.structure == Structure::kCar ? a->car : a->cdr;
    }
    case Structure::kCxr: {
      PVal* v = args[0];
      if (v->kind != PKind::Pair || !v->known_fields()) return nullptr;  // static: fold
      for (int i = 0; i < f.cxr_len; i++) {
        bool d = (f.cxr_bits >> i) & 1;
        if (v->kind == PKind::Pair && v->known_fields()) {
          v = d ? v->cdr : v->car;
        } else if (v->kind == PKind::Static && is_pair(v->value) && frozen(v->value)) {
          v = make_static(d ? cdr(v->value) : car(v->value));
        } else {
          return nullptr;  // the primitive raises its own error at run time
        }
      }
      return v;
    }
    case Structure::kCons:
      return make_pair(args[0], args[1]);
    case Structure::kList: {
      PVal* r = make_static(kNil);
      for (size_t i = args.size(); i-- > 0;) r = make_pair(args[i], r);
      return r;
    }
    case Structure::kConsStar: {
      PVal* r = args.back();
      for (size_t i = args.size() - 1; i-- > 0;) r = make_pair(args[i], r);
      return r;
    }
    case Structure::kVector:
      return make_vector(args);
    case Structure::kMakeVector: {
      // a fresh vector of n fills, like (vector fill ...): its length stays known once it escapes
      // (a vector-set! on it), so code over its length (a gradient's one-hot cotangents) folds
      if (args.size() != 2 || args[0]->kind != PKind::Static || !args[0]->value.is_fixnum()) return nullptr;
      int64_t n = args[0]->value.fixnum();
      if (n < 0 || n > kMaxFoldElements) return nullptr;
      return make_vector(gc_vector<PVal*>(size_t(n), args[1]));
    }
    case Structure::kVectorRef: {
      PVal* v = args[0];
      PVal* k = args[1];
      if (v->kind != PKind::Vector || !v->known_fields() || k->kind != PKind::Static || !k->value.is_fixnum())
        return nullptr;
      int64_t i = k->value.fixnum();
      if (i < 0 || i >= int64_t(v->items->size())) return nullptr;
      return (*v->items)[size_t(i)];
    }
    case Structure::kVectorLength:
      if (args[0]->kind == PKind::Vector) return make_static(make_fixnum(int64_t(args[0]->items->size())));
      return nullptr;
    case Structure::kTypePred: {
      PVal* a = args[0];
      if (a->kind == PKind::Static) {
        // A type never changes, so even a mutable object may be asked.
        try {
          Value v = a->value;
          return make_static(p->fn(vm(), p, 1, &v));
        } catch (SchemeError&) {
          return nullptr;
        }
      }
      if (a->kind == PKind::Dyn && a->known_number) {
        // number? (the one type test whose JIT recipe is kNumber) holds; pair?, vector?,
        // procedure?, null? do not; others (real?, boolean? ...) are asked at run time.
        if (f.jit == JitRecipe::kNumber) return make_static(kTrue);
        if (f.type_test != TypeTest::kOther) return make_static(kFalse);
        return nullptr;
      }
      if (!a->is_object()) return nullptr;
      TypeTest t = a->kind == PKind::Pair ? TypeTest::kPair : a->kind == PKind::Vector ? TypeTest::kVector : TypeTest::kProcedure;
      return make_static(make_bool(f.type_test == t));
    }
    case Structure::kNot:
      if (args[0]->is_object()) return make_static(kFalse);
      return nullptr;
    case Structure::kEq: {
      PVal* a = args[0];
      PVal* b = args[1];
      if (a->kind == PKind::Static && b->kind == PKind::Static) return make_static(make_bool(same(a->value, b->value, f.eqv)));
      if (a == b && a->is_object()) return make_static(kTrue);
      // A number is never eq? to a symbol, a boolean, the empty list or an object.
      auto non_number = [](PVal* v) {
        return (v->kind == PKind::Static && (is_symbol(v->value) || v->value == kTrue || v->value == kFalse || v->value == kNil)) ||
               v->is_object();
      };
      if ((a->kind == PKind::Dyn && a->known_number && non_number(b)) ||
          (b->kind == PKind::Dyn && b->known_number && non_number(a)))
        return make_static(kFalse);
      // An object the residual code never saw is distinct from everything else.
      if ((a->is_object() && !a->escaped) || (b->is_object() && !b->escaped)) return make_static(kFalse);
      return nullptr;
    }
    case Structure::kLength: {
      PVal* l = args[0];
      if (l->kind == PKind::Static) return nullptr;  // fold
      int64_t n = 0;
      for (;;) {
        if (is_nil(l)) return make_static(make_fixnum(n));
        PVal *e, *t;
        if (!spine_step(*this, l, &e, &t) || n > kMaxFoldElements * 64) return nullptr;
        n++;
        l = t;
      }
    }
    case Structure::kListP: {
      // (list? p) of the evaluator's own list (grad's argument list, jvp's): the spine's end
      PVal* l = args[0];
      if (l->kind == PKind::Static) return nullptr;  // fold
      for (int64_t n = 0;; n++) {
        if (is_nil(l)) return make_static(kTrue);
        PVal *e, *t;
        if (n > kMaxFoldElements * 64) return nullptr;
        if (spine_step(*this, l, &e, &t)) {
          l = t;
          continue;
        }
        // the end is known and not (): a vector, a procedure, a number, another static value
        bool not_list = (l->kind == PKind::Static && !is_pair(l->value)) || l->kind == PKind::Vector ||
                        l->kind == PKind::Closure || (l->kind == PKind::Dyn && l->known_number);
        return not_list ? make_static(kFalse) : nullptr;
      }
    }
    case Structure::kListRef:
    case Structure::kListTail: {
      PVal* l = args[0];
      PVal* k = args[1];
      // A long walk (a huge index into a circular structure) is left to the residual code.
      if (l->kind == PKind::Static || k->kind != PKind::Static || !k->value.is_fixnum() || k->value.fixnum() < 0 ||
          k->value.fixnum() > kMaxFoldElements * 64)
        return nullptr;
      for (int64_t i = k->value.fixnum(); i > 0; i--) {
        PVal *e, *t;
        if (!spine_step(*this, l, &e, &t)) return nullptr;
        l = t;
      }
      if (f.structure == Structure::kListTail) return l;
      PVal *e, *t;
      if (!spine_step(*this, l, &e, &t)) return nullptr;
      return e;
    }
    case Structure::kAssq:
    case Structure::kMemq: {
      PVal* key = args[0];
      PVal* l = args[1];
      if (key->kind != PKind::Static || l->kind == PKind::Static) return nullptr;  // static: fold
      for (int64_t n = 0;; n++) {
        if (is_nil(l)) return make_static(kFalse);
        PVal *e, *t;
        if (n > kMaxFoldElements * 64 || !spine_step(*this, l, &e, &t)) return nullptr;
        PVal* probe = e;
        if (f.structure == Structure::kAssq) {
          PVal *ek, *ed;
          if (!spine_step(*this, e, &ek, &ed)) return nullptr;  // not a pair: assq's own error
          probe = ek;
        }
        if (probe->kind == PKind::Static) {
          if (same(key->value, probe->value, f.eqv)) return f.structure == Structure::kAssq ? e : l;
        } else if (!probe->is_object()) {
          return nullptr;  // a dynamic element: undecidable now
        }
        // An object of the evaluator's is never eq? to a static key.
        l = t;
      }
    }
    case Structure::kAppend: {
      // The copied spines must be known (the evaluator's pairs or frozen static lists); the new
      // pairs are the evaluator's (append allocates them), the last argument is shared.
      if (args.empty()) return make_static(kNil);
      PVal* result = args.back();
      for (size_t k = args.size() - 1; k-- > 0;) {
        gc_vector<PVal*> elems;
        PVal* l = args[k];
        for (;;) {
          if (is_nil(l)) break;
          PVal *e, *t;
          if (elems.size() > size_t(kMaxFoldElements) || !spine_step(*this, l, &e, &t)) return nullptr;
          elems.push_back(e);
          l = t;
        }
        for (size_t i = elems.size(); i-- > 0;) result = make_pair(elems[i], result);
      }
      return result;
    }
  }
  return nullptr;
}

}  // namespace quasi::pe
