// api.cpp — the Scheme procedures of the partial evaluator (see lib/pe/README.md, "API"):
//
//   (specialize f arg ...)          fix f's leading arguments; a procedure of the rest
//   (specialize* f '((pos . v) ...) [options])
//                                   fix any positions (0-based) of f's required parameters;
//                                   options: an alist ((effort . n) (residual-size . n)
//                                   (static-steps . n) (whistle . embedding|off|strict))
//   (residual p)                    the residual code of a procedure `specialize` made, a datum
//   (specialize-explain p [port])   what its request generalized or gave up (a list of alists;
//                                   with a port, printed one line each: the REPL's ,explain)
//   (dynamic x)                     x; the specializer treats the value as dynamic (unknown)
//   (print-residual p [port])       the same, pretty-printed (the REPL's ,residual)
//   (specialize-stats)              alist of counters
//   (freeze x)                      an immutable deep copy of x: data the specializer may read
//   (%specialization-valid? token)  the validity guard residual code runs on entry (internal)
//
// Each engine has its own PeState; the API primitives of that engine carry it in `data`.
#include <algorithm>
#include <unordered_map>

#include "builtins/port.hpp"
#include "builtins/registry.hpp"
#include "eval/environment.hpp"
#include "pe/internal.hpp"
#include "pe/pe.hpp"
#include "pe/pretty.hpp"

namespace quasi {
namespace {

pe::PeState& state_of(Primitive* self) { return *static_cast<pe::PeState*>(self->data); }

QUASI_PRIM(p_specialize) {
  std::vector<std::pair<int64_t, Value>> fixed;
  for (int i = 1; i < argc; i++) fixed.emplace_back(i - 1, argv[i]);
  return pe::specialize(vm, state_of(self), argv[0], fixed, "specialize");
}

// The options alist of specialize* (budgets.hpp, Options; lib/pe/README.md, "Options").
pe::Options parse_options(const char* who, Value opts) {
  pe::Options o;
  if (list_length(opts) < 0) type_error(who, "an alist of options ((name . value) ...)", opts);
  for (Value l = opts; is_pair(l); l = cdr(l)) {
    Value e = car(l);
    if (!is_pair(e) || !is_symbol(car(e))) type_error(who, "an option (name . value)", e);
    std::string k = symbol_name(car(e));
    Value v = cdr(e);
    if (k == "effort" || k == "residual-size" || k == "static-steps") {
      if (!v.is_fixnum() || v.fixnum() <= 0)
        throw_error(who, "option " + k + ": expected a positive exact integer", list({v}));
      if (k == "effort") o.effort = v.fixnum();
      else if (k == "residual-size") o.residual_size = v.fixnum();
      else o.static_steps = uint64_t(std::min<int64_t>(v.fixnum(), int64_t(pe::kStaticRunStepsPerRequest)));
    } else if (k == "whistle") {
      std::string w = is_symbol(v) ? symbol_name(v) : "";
      if (w == "embedding" || v == kTrue) o.whistle = pe::WhistleMode::kEmbedding;
      else if (w == "off" || v == kFalse) o.whistle = pe::WhistleMode::kOff;
      else if (w == "strict") o.whistle = pe::WhistleMode::kStrict;
      else throw_error(who, "option whistle: expected embedding, off or strict", list({v}));
    } else {
      throw_error(who, "unknown option (effort, residual-size, static-steps, whistle)", list({car(e)}));
    }
  }
  return o;
}

// (specialize* f '((1 . 16) (0 . x))): positions are 0-based indices of f's parameters.
QUASI_PRIM(p_specialize_star) {
  const char* who = "specialize*";
  std::vector<std::pair<int64_t, Value>> fixed;
  if (list_length(argv[1]) < 0) type_error(who, "a list of (position . value) pairs", argv[1]);
  for (Value l = argv[1]; is_pair(l); l = cdr(l)) {
    Value e = car(l);
    if (!is_pair(e) || !car(e).is_fixnum() || car(e).fixnum() < 0)
      type_error(who, "a (position . value) pair with a non-negative exact integer position", e);
    fixed.emplace_back(car(e).fixnum(), cdr(e));
  }
  std::sort(fixed.begin(), fixed.end(), [](auto& a, auto& b) { return a.first < b.first; });
  for (size_t i = 1; i < fixed.size(); i++)
    if (fixed[i].first == fixed[i - 1].first)
      throw_error(who, "position given twice", list({make_fixnum(fixed[i].first)}));
  pe::Options options = argc > 2 ? parse_options(who, argv[2]) : pe::Options{};
  return pe::specialize(vm, state_of(self), argv[0], fixed, who, options);
}

QUASI_PRIM(p_residual) { return pe::residual_of(state_of(self), argv[0], "residual"); }

QUASI_PRIM(p_print_residual) {
  Value code = pe::residual_of(state_of(self), argv[0], "print-residual");
  Value port = argc > 1 ? argv[1] : current_output_port(vm);
  if (!is_output_port(port)) type_error("print-residual", "an output port", port);
  port_write_utf8(port, pe::pretty_datum(code) + "\n");
  return kUnspecified;
}

QUASI_PRIM(p_specialize_explain) {
  Value notes = pe::explanation_of(state_of(self), argv[0], "specialize-explain");
  if (argc < 2) return notes;
  Value port = argv[1];
  if (!is_output_port(port)) type_error("specialize-explain", "an output port", port);
  std::string out;
  if (notes == kNil) out = "nothing generalized or given up: every static value stayed static\n";
  for (Value l = notes; is_pair(l); l = cdr(l)) {
    Value e = car(l);
    auto get = [&](const char* name) {
      for (Value f = e; is_pair(f); f = cdr(f))
        if (car(car(f)) == intern(name)) return cdr(car(f));
      return kFalse;
    };
    Value proc = get("procedure"), where = get("location"), count = get("count");
    out += is_symbol(proc) ? symbol_name(proc) : "(anonymous)";
    if (is_string(where)) out += " (" + string_to_utf8(where) + ")";
    out += ": " + std::string(symbol_name(get("action"))) + " (" + symbol_name(get("reason")) + ") " +
           string_to_utf8(get("detail"));
    if (count.is_fixnum() && count.fixnum() > 1) out += " [" + std::to_string(count.fixnum()) + " times]";
    out += "\n";
  }
  port_write_utf8(port, out);
  return kUnspecified;
}

// (dynamic x) is x. The specializer gives its value no static information (PeState::dynamic_prim):
// an annotation that keeps a value out of helper keys and static decisions.
QUASI_PRIM(p_dynamic) { return argv[0]; }

QUASI_PRIM(p_specialize_stats) { return pe::stats_alist(state_of(self)); }

// (freeze x): a deep copy of x's pairs, vectors, strings and bytevectors, all immutable (as
// literals are), sharing and cycles kept; other objects are shared. A program hands it to
// specialize to promise the data never changes: the specializer then reads it as it reads
// quoted data. Already immutable objects are shared as they are.
Value freeze_copy(Value root) {
  std::unordered_map<uint64_t, Value, std::hash<uint64_t>, std::equal_to<uint64_t>,
                     traceable_allocator<std::pair<const uint64_t, Value>>> copies;
  gc_vector<Value> todo;  // originals whose copies still need their fields
  auto copy_of = [&](Value v) -> Value {
    if (!is_object(v) || is_immutable_object(v)) return v;
    auto it = copies.find(v.bits);
    if (it != copies.end()) return it->second;
    Value c = v;
    switch (object_type(v)) {
      case Type::Pair:
        c = cons_immutable(kFalse, kFalse);
        todo.push_back(v);
        break;
      case Type::Vector:
        c = make_vector(v.as<Vector>()->length(), kFalse);
        todo.push_back(v);
        break;
      case Type::String:
        c = make_string_utf32(reinterpret_cast<const char32_t*>(v.as<String>()->chars()), v.as<String>()->length());
        c.obj()->set_immutable();
        break;
      case Type::Bytevector: {
        int64_t n = v.as<Bytevector>()->length();
        c = make_bytevector(n);
        std::copy(v.as<Bytevector>()->bytes(), v.as<Bytevector>()->bytes() + n, c.as<Bytevector>()->bytes());
        c.obj()->set_immutable();
        break;
      }
      default:
        return v;
    }
    copies.emplace(v.bits, c);
    return c;
  };
  Value out = copy_of(root);
  while (!todo.empty()) {
    Value v = todo.back();
    todo.pop_back();
    Value c = copies.at(v.bits);
    if (is_pair(v)) {
      c.as<Pair>()->car = copy_of(car(v));
      c.as<Pair>()->cdr = copy_of(cdr(v));
    } else {
      Vector* from = v.as<Vector>();
      for (int64_t i = 0; i < from->length(); i++) c.as<Vector>()->items()[i] = copy_of(from->items()[i]);
      c.obj()->set_immutable();
    }
  }
  return out;
}

QUASI_PRIM(p_freeze) { return freeze_copy(argv[0]); }

QUASI_PRIM(p_specialization_valid) {
  return has_type(argv[0], Type::Box) ? argv[0].as<Box>()->value : kFalse;
}

const PrimDef kPePrims[] = {
    {"specialize", p_specialize, 1, -1, kEffect},
    {"specialize*", p_specialize_star, 2, 3, kEffect},
    {"specialize-explain", p_specialize_explain, 1, 2, kEffect},
    // Pure, not foldable: the optimizer must not fold (dynamic 5) to 5 before the specializer
    // sees it (it knows the primitive by identity).
    {"dynamic", p_dynamic, 1, 1, kPure},
    {"residual", p_residual, 1, 1, kMayRaise},
    {"print-residual", p_print_residual, 1, 2, kEffect},
    {"specialize-stats", p_specialize_stats, 0, 0, kAllocates},
    {"freeze", p_freeze, 1, 1, kAlloc},
    // Reads a mutable flag: neither pure nor foldable.
    {"%specialization-valid?", p_specialization_valid, 1, 1, 0},
};

}  // namespace

void register_pe_primitives(Environment* env) {
  pe::PeState* st = pe::make_state();
  for (const PrimDef& d : kPePrims) {
    Value p = make_primitive(d.name, d.fn, d.min_args, d.max_args, d.flags, st);
    env->define(intern(d.name), p);
    if (d.fn == p_specialization_valid) st->guard_prim = p;  // by identity, not by name
    if (d.fn == p_dynamic) st->dynamic_prim = p;
  }
}

}  // namespace quasi
