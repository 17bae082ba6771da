// introspection.cpp — what a REPL or a program can ask about a procedure, and (profile thunk):
//   (procedure-information proc) => an association list
//     ((name . car) (kind . primitive) (arity 1 . 1) (parameters pair)
//      (location . "file:line:col") (documentation . "..."))
// kind is primitive (written in C++: built-ins and host functions), procedure (compiled Scheme),
// continuation or parameter; arity is (min . max) with max #f when any number of arguments is
// accepted (for case-lambda, the union of its clauses); parameters are the names of the first
// clause, a rest parameter after a dot, or #f when unknown; location and documentation are #f
// when unknown.
#include "builtins/docs.hpp"
#include "builtins/registry.hpp"
#include "engine/startup.hpp"
#include "eval/environment.hpp"
#include "ir/ir.hpp"
#include "vm/profile.hpp"
#include "vm/proto.hpp"
#include "vm/vm.hpp"

namespace quasi {
namespace {

Value entry(const char* key, Value v) { return cons(intern(key), v); }

// The parameter list of a compiled clause: (a b . rest).
Value clause_parameters(const LambdaClause* c) {
  Value tail = c->rest ? c->rest->name : kNil;
  for (auto it = c->params.rbegin(); it != c->params.rend(); ++it) tail = cons((*it)->name, tail);
  return tail;
}

QUASI_PRIM(p_procedure_information) {
  Value p = argv[0];
  if (!is_procedure(p)) type_error("procedure-information", "a procedure", p);
  std::string name = procedure_name(p);
  Value kind, params = kFalse, location = kFalse, doc = kFalse;
  int64_t min = 0, max = -1;
  switch (p.obj()->type()) {
    case Type::Primitive: {
      Primitive* prim = p.as<Primitive>();
      kind = intern("primitive");
      min = prim->min_args;
      max = prim->max_args;
      if (const DocEntry* d = find_doc(name)) {
        params = doc_parameters(*d);
        doc = make_string_utf8(d->summary);
      }
      break;
    }
    case Type::Closure: {
      kind = intern("procedure");
      Proto* proto = p.as<Closure>()->proto;
      min = INT64_MAX;
      max = 0;
      for (Proto* c = proto; c; c = c->next_clause) {
        min = std::min<int64_t>(min, c->nparams);
        if (c->has_rest || max < 0) max = -1;
        else max = std::max<int64_t>(max, c->nparams);
      }
      if (proto->source && !proto->source->clauses.empty()) params = clause_parameters(proto->source->clauses[0]);
      SrcLoc loc = SrcLoc::unpack(proto->loc);
      if (loc.known()) location = make_string_utf8(loc.to_string());
      if (const DocEntry* d = find_doc(name); d && loc.known() && source_file_name(loc.file).rfind("prelude/", 0) == 0)
        doc = make_string_utf8(d->summary);  // a built-in written in Scheme
      break;
    }
    case Type::Continuation:
      kind = intern("continuation");
      max = -1;
      break;
    default:  // a parameter object
      kind = intern("parameter");
      max = 1;
      break;
  }
  Value arity = cons(make_fixnum(min), max < 0 ? kFalse : make_fixnum(max));
  return list({entry("name", name.empty() ? kFalse : intern(name)), entry("kind", kind), entry("arity", arity),
               entry("parameters", params), entry("location", location), entry("documentation", doc)});
}

// (documentation name): the one-line description of the built-in procedure or syntax `name`
// (a symbol), "(signature) summary", or #f.
QUASI_PRIM(p_documentation) {
  if (!is_symbol(argv[0])) type_error("documentation", "a symbol", argv[0]);
  const DocEntry* d = find_doc(symbol_name(argv[0]));
  if (!d) return kFalse;
  return make_string_utf8(std::string(d->signature) + "  " + d->summary);
}

// (profile thunk [interval-microseconds]): calls thunk under the statistical profiler (a sample
// every interval, 1000 us unless given) and returns two values: thunk's value and the profile,
// (samples interval-seconds (name location self total) ...), most self samples first; name and
// location are #f when unknown, self counts the samples taken in the procedure itself, total
// those taken with it anywhere on the stack.
QUASI_PRIM(p_profile) {
  if (!is_procedure(argv[0])) type_error("profile", "a procedure", argv[0]);
  int64_t interval = 1000;
  if (argc > 1) {
    if (!argv[1].is_fixnum() || argv[1].fixnum() < 100 || argv[1].fixnum() > 10000000)
      type_error("profile", "an interval of 100 to 10000000 microseconds", argv[1]);
    interval = argv[1].fixnum();
  }
  if (vm.profiler) throw_error("profile", "a profile is already being taken");
  Value result;
  gc_vector<Value> entries;
  uint64_t samples = 0;
  {
    Profiler profiler(vm, std::chrono::microseconds(interval));
    result = vm.apply(argv[0], 0, nullptr);
    samples = profiler.samples();
    for (const auto& [proto, counts] : profiler.results()) {
      SrcLoc loc = SrcLoc::unpack(proto->loc);
      entries.push_back(list({is_symbol(proto->name) ? proto->name : kFalse,
                              loc.known() ? make_string_utf8(loc.to_string()) : kFalse,
                              make_fixnum(int64_t(counts.self)), make_fixnum(int64_t(counts.total))}));
    }
  }
  Value tail = kNil;
  for (auto it = entries.rbegin(); it != entries.rend(); ++it) tail = cons(*it, tail);
  Value profile = cons(make_fixnum(int64_t(samples)), cons(make_flonum(double(interval) / 1e6), tail));
  Value both[2] = {result, profile};
  return make_values(2, both);
}

const PrimDef kIntrospectionPrims[] = {
    {"profile", p_profile, 1, 2, kEffect | kAllocates},
    {"procedure-information", p_procedure_information, 1, 1, kAlloc | kMayRaise},
    {"documentation", p_documentation, 1, 1, kAlloc | kMayRaise},
};

}  // namespace

void register_introspection_primitives(Environment* env) { install_primitives(env, kIntrospectionPrims); }

}  // namespace quasi
