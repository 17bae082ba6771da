// control.cpp — procedures about procedures and control: apply, values, raw continuations,
// error objects, records, promises and parameter objects. The Scheme-level parts (call/cc with
// winding, dynamic-wind, raise, with-exception-handler, parameterize) are in
// scheme/prelude/00-core.scm on top of these.
#include <string>

#include "builtins/registry.hpp"
#include "core/error.hpp"
#include "eval/environment.hpp"
#include "read/printer.hpp"
#include "vm/proto.hpp"
#include "vm/vm_impl.hpp"

namespace quasi {
namespace {

// Control primitives whose work the VM does (enter() in vm.cpp); their fn is never called.
QUASI_PRIM(p_vm_special) { throw_error(self->name, "internal error: control primitive called directly"); }

QUASI_PRIM(p_procedure_p) { return make_bool(is_procedure(argv[0])); }

QUASI_PRIM(p_continuation_winders) {
  if (!is_continuation(argv[0])) type_error("%continuation-winders", "a continuation", argv[0]);
  return argv[0].as<Continuation>()->winders();
}

QUASI_PRIM(p_continuation_handlers) {
  if (!is_continuation(argv[0])) type_error("%continuation-handlers", "a continuation", argv[0]);
  return argv[0].as<Continuation>()->handlers();
}

QUASI_PRIM(p_values) {
  if (argc == 1) return argv[0];
  return make_values(argc, argv);
}

// (raise obj): the VM catches this at the call site, which becomes the error's location, and
// hands obj to the Scheme-level %raise (vm_impl.hpp: raise_cell).
QUASI_PRIM(p_raise) { throw SchemeError{argv[0]}; }

QUASI_PRIM(p_uncaught) {
  Value payload = argv[0];
  if (is_condition(payload) && payload.as<Condition>()->loc == 0)
    payload.as<Condition>()->loc = vm.impl->user_location().pack();
  SrcLoc where = vm.impl->last_raise_where.known() ? vm.impl->last_raise_where : vm.impl->user_location();
  throw UncaughtRaise{payload, where};
}

// (error message irritant ...) or (error 'who "message" irritant ...).
QUASI_PRIM(p_error) {
  Value who = kFalse, msg = argv[0];
  int first = 1;
  if (is_symbol(argv[0]) && argc >= 2 && is_string(argv[1])) {
    who = argv[0];
    msg = argv[1];
    first = 2;
  }
  Value irritants = kNil;
  for (int i = argc - 1; i >= first; i--) irritants = cons(argv[i], irritants);
  throw SchemeError{make_condition(intern("error"), who, msg, irritants)};
}

// (%make-condition kind who message irritants)
QUASI_PRIM(p_make_condition) {
  if (!is_symbol(argv[0])) type_error("%make-condition", "a symbol", argv[0]);
  return make_condition(argv[0], argv[1], argv[2], argv[3]);
}

Condition* check_condition(const char* who, Value v) {
  if (!is_condition(v)) type_error(who, "an error object", v);
  return v.as<Condition>();
}

QUASI_PRIM(p_error_object_p) { return make_bool(is_condition(argv[0])); }

QUASI_PRIM(p_error_object_message) {
  Condition* c = check_condition("error-object-message", argv[0]);
  if (is_symbol(c->who) && is_string(c->message))
    return make_string_utf8(std::string(symbol_name(c->who)) + ": " + string_to_utf8(c->message));
  return c->message;
}

QUASI_PRIM(p_error_object_irritants) { return check_condition("error-object-irritants", argv[0])->irritants; }

QUASI_PRIM(p_condition_kind) { return check_condition("condition-kind", argv[0])->kind; }

QUASI_PRIM(p_condition_location) {
  SrcLoc loc = SrcLoc::unpack(check_condition("condition-location", argv[0])->loc);
  return loc.known() ? make_string_utf8(loc.to_string()) : kFalse;
}

QUASI_PRIM(p_condition_text) {
  return make_string_utf8(condition_text(make_ptr(check_condition("%condition-text", argv[0]))));
}

QUASI_PRIM(p_read_error_p) {
  return make_bool(is_condition(argv[0]) && argv[0].as<Condition>()->kind == intern("read"));
}
QUASI_PRIM(p_file_error_p) {
  return make_bool(is_condition(argv[0]) && argv[0].as<Condition>()->kind == intern("file"));
}

// ---- records ---------------------------------------------------------------------------------

RecordType* check_rtd(const char* who, Value v) {
  if (!has_type(v, Type::RecordType)) type_error(who, "a record type", v);
  return v.as<RecordType>();
}

// Collectable: the Primitive that points at it (GC-scanned) keeps it alive as long as needed.
const char* persistent_name(const std::string& s) {
  char* p = static_cast<char*>(gc_alloc_atomic(s.size() + 1));
  std::memcpy(p, s.c_str(), s.size() + 1);
  return p;
}

std::string record_type_name(RecordType* rtd) {
  std::string n = is_symbol(rtd->name) ? symbol_name(rtd->name) : "record";
  if (n.size() > 2 && n.front() == '<' && n.back() == '>') n = n.substr(1, n.size() - 2);
  return n;
}

QUASI_PRIM(p_make_record_type) {
  if (!is_vector(argv[1])) type_error("%make-record-type", "a vector of field names", argv[1]);
  RecordType* rtd = gc_alloc_object<RecordType>(Type::RecordType, sizeof(RecordType));
  rtd->name = argv[0];
  rtd->field_names = argv[1];
  rtd->nfields = argv[1].as<Vector>()->length();
  return make_ptr(rtd);
}

Value new_record(RecordType* rtd) {
  Record* r = gc_alloc_object<Record>(Type::Record, sizeof(Record) + sizeof(Value) * rtd->nfields, rtd->nfields);
  r->rtd = rtd;
  for (int64_t i = 0; i < rtd->nfields; i++) r->fields()[i] = kUnspecified;
  return make_ptr(r);
}

QUASI_PRIM(p_record_construct) {
  Value spec = self->data_value;  // (rtd . index-vector)
  RecordType* rtd = car(spec).as<RecordType>();
  Vector* idx = cdr(spec).as<Vector>();
  Value r = new_record(rtd);
  for (int i = 0; i < argc; i++) r.as<Record>()->fields()[idx->items()[i].fixnum()] = argv[i];
  return r;
}

QUASI_PRIM(p_record_constructor) {
  RecordType* rtd = check_rtd("%record-constructor", argv[0]);
  if (!is_vector(argv[1])) type_error("%record-constructor", "a vector of field indices", argv[1]);
  Vector* idx = argv[1].as<Vector>();
  for (int64_t i = 0; i < idx->length(); i++)
    check_index("%record-constructor", idx->items()[i], rtd->nfields);
  std::string name = "make-" + record_type_name(rtd);
  int n = int(idx->length());
  return make_primitive(persistent_name(name), p_record_construct, n, n, kAlloc, nullptr,
                        cons(argv[0], argv[1]));
}

QUASI_PRIM(p_record_test) {
  return make_bool(has_type(argv[0], Type::Record) && make_ptr(argv[0].as<Record>()->rtd) == self->data_value);
}

QUASI_PRIM(p_record_predicate) {
  RecordType* rtd = check_rtd("%record-predicate", argv[0]);
  return make_primitive(persistent_name(record_type_name(rtd) + "?"), p_record_test, 1, 1, kPure, nullptr, argv[0]);
}

Record* check_record(Primitive* self, Value rtd_value, Value v) {
  if (!has_type(v, Type::Record) || make_ptr(v.as<Record>()->rtd) != rtd_value) {
    std::string expected = "a record of type " + record_type_name(rtd_value.as<RecordType>());
    type_error(self->name, expected.c_str(), v);
  }
  return v.as<Record>();
}

QUASI_PRIM(p_record_get) {
  Value spec = self->data_value;  // (rtd . index)
  return check_record(self, car(spec), argv[0])->fields()[cdr(spec).fixnum()];
}

QUASI_PRIM(p_record_set) {
  Value spec = self->data_value;
  check_record(self, car(spec), argv[0])->fields()[cdr(spec).fixnum()] = argv[1];
  return kUnspecified;
}

std::string field_name(RecordType* rtd, int64_t i) {
  Value f = rtd->field_names.as<Vector>()->items()[i];
  return is_symbol(f) ? symbol_name(f) : "field";
}

// The optional third argument is the name the accessor or modifier is defined under: its errors
// and its printed form use it ((unbox 5) names unbox, not box-value).
QUASI_PRIM(p_record_accessor) {
  RecordType* rtd = check_rtd("%record-accessor", argv[0]);
  int64_t i = check_index("%record-accessor", argv[1], rtd->nfields);
  std::string name = argc > 2 && is_symbol(argv[2]) ? symbol_name(argv[2])
                                                    : record_type_name(rtd) + "-" + field_name(rtd, i);
  return make_primitive(persistent_name(name), p_record_get, 1, 1, kPure | kMayRaise, nullptr, cons(argv[0], argv[1]));
}

QUASI_PRIM(p_record_modifier) {
  RecordType* rtd = check_rtd("%record-modifier", argv[0]);
  int64_t i = check_index("%record-modifier", argv[1], rtd->nfields);
  std::string name = argc > 2 && is_symbol(argv[2]) ? symbol_name(argv[2])
                                                    : record_type_name(rtd) + "-" + field_name(rtd, i) + "-set!";
  return make_primitive(persistent_name(name), p_record_set, 2, 2, kEffect, nullptr, cons(argv[0], argv[1]));
}

QUASI_PRIM(p_record_p) { return make_bool(has_type(argv[0], Type::Record)); }

// ---- promises --------------------------------------------------------------------------------

Promise* new_promise(bool done, Value v) {
  Promise* p = gc_alloc_object<Promise>(Type::Promise, sizeof(Promise));
  p->done = done;
  p->value = v;
  return p;
}
Promise* check_promise(const char* who, Value v) {
  if (!has_type(v, Type::Promise)) type_error(who, "a promise", v);
  return v.as<Promise>();
}

QUASI_PRIM(p_make_promise) {
  if (has_type(argv[0], Type::Promise)) return argv[0];
  return make_ptr(new_promise(true, argv[0]));
}
// For `delay`: always a new promise, even when the value is itself a promise.
QUASI_PRIM(p_make_ready_promise) { return make_ptr(new_promise(true, argv[0])); }
QUASI_PRIM(p_make_lazy_promise) { return make_ptr(new_promise(false, argv[0])); }
QUASI_PRIM(p_promise_p) { return make_bool(has_type(argv[0], Type::Promise)); }
QUASI_PRIM(p_promise_done_p) { return make_bool(check_promise("force", argv[0])->done); }
QUASI_PRIM(p_promise_value) { return check_promise("force", argv[0])->value; }
QUASI_PRIM(p_promise_update) {
  Promise* p = check_promise("force", argv[0]);
  p->done = argv[1].is_true();
  p->value = argv[2];
  return kUnspecified;
}

// ---- parameter objects -----------------------------------------------------------------------

Parameter* check_parameter(const char* who, Value v) {
  if (!has_type(v, Type::Parameter)) type_error(who, "a parameter object", v);
  return v.as<Parameter>();
}
QUASI_PRIM(p_make_parameter) { return make_parameter(argv[0], argc > 1 ? argv[1] : kFalse); }
QUASI_PRIM(p_parameter_value) { return check_parameter("parameterize", argv[0])->value; }
QUASI_PRIM(p_parameter_set) {
  check_parameter("parameterize", argv[0])->value = argv[1];
  return kUnspecified;
}
QUASI_PRIM(p_parameter_converter) { return check_parameter("parameterize", argv[0])->converter; }

QUASI_PRIM(p_void) { return kUnspecified; }

QUASI_PRIM(p_procedure_name) {
  // (%procedure-name p): for messages written in Scheme.
  std::string n = procedure_name(argv[0]);
  return n.empty() ? kFalse : intern(n);
}

// Output and errors pass values on without computing with them: no derivative flows through
// them, so automatic differentiation lets them see the values it differentiates (core/prim.hpp).
constexpr DerivativeRule kDNoFlow{DerivativeRule::Kind::kZero, false, {}, {}};
// Several values are a shape like a list (their cotangent is the list of theirs); one is itself.
constexpr DerivativeRule kDValues{DerivativeRule::Kind::kValues, false, {}, {}};

const PrimDef kControlPrims[] = {
    {"procedure?", p_procedure_p, 1, 1, kPureFold,
     kFacts.structural(Structure::kTypePred, TypeTest::kProcedure).jit_as(JitRecipe::kProcedure)},
    {"apply", p_vm_special, 2, -1, kVmSpecial | kMayRaise | kHasEffects,
     kFacts.control(kVmApply)},
    {"%apply-values", p_vm_special, 2, 2, kVmSpecial | kMayRaise | kHasEffects,
     kFacts.control(kVmApplyValues)},
    {"call-with-current-continuation", p_vm_special, 1, 1, kVmSpecial | kMayRaise | kHasEffects,
     kFacts.control(kVmCallCC).inline_as(InlineOp::kCallCC)},
    {"%call/ec", p_vm_special, 1, 1, kVmSpecial | kMayRaise | kHasEffects, kFacts.control(kVmCallEC)},
    {"%continuation-winders", p_continuation_winders, 1, 1, kMayRaise},
    {"%continuation-handlers", p_continuation_handlers, 1, 1, kMayRaise},
    {"values", p_values, 0, -1, kPure, kFacts.differentiable(&kDValues)},
    {"%uncaught", p_uncaught, 1, 1, kEffect},
    {"raise", p_raise, 1, 1, kEffect,
     kFacts.differentiable(&kDNoFlow).raises_only()},
    {"error", p_error, 1, -1, kEffect,
     kFacts.differentiable(&kDNoFlow).raises_only()},
    {"%make-condition", p_make_condition, 4, 4, kAlloc | kMayRaise},
    {"error-object?", p_error_object_p, 1, 1, kPureFold},
    {"error-object-message", p_error_object_message, 1, 1, kPure | kMayRaise},
    {"error-object-irritants", p_error_object_irritants, 1, 1, kPure | kMayRaise},
    {"condition-kind", p_condition_kind, 1, 1, kPure | kMayRaise},
    {"condition-location", p_condition_location, 1, 1, kPure | kMayRaise},
    {"%condition-text", p_condition_text, 1, 1, kPure | kMayRaise},
    {"read-error?", p_read_error_p, 1, 1, kPureFold},
    {"file-error?", p_file_error_p, 1, 1, kPureFold},
    {"%make-record-type", p_make_record_type, 2, 2, kAlloc | kMayRaise},
    {"%record-constructor", p_record_constructor, 2, 2, kAlloc | kMayRaise},
    {"%record-predicate", p_record_predicate, 1, 1, kAlloc | kMayRaise},
    {"%record-accessor", p_record_accessor, 2, 3, kAlloc | kMayRaise},
    {"%record-modifier", p_record_modifier, 2, 3, kAlloc | kMayRaise},
    {"record?", p_record_p, 1, 1, kPureFold},
    {"make-promise", p_make_promise, 1, 1, kAlloc},
    {"%make-lazy-promise", p_make_lazy_promise, 1, 1, kAlloc},
    {"%make-ready-promise", p_make_ready_promise, 1, 1, kAlloc},
    {"promise?", p_promise_p, 1, 1, kPureFold},
    {"%promise-done?", p_promise_done_p, 1, 1, kMayRaise},
    {"%promise-value", p_promise_value, 1, 1, kMayRaise},
    {"%promise-update!", p_promise_update, 3, 3, kEffect},
    {"%make-parameter", p_make_parameter, 1, 2, kAlloc},
    {"%parameter-value", p_parameter_value, 1, 1, kMayRaise},
    {"%parameter-set!", p_parameter_set, 2, 2, kEffect},
    {"%parameter-converter", p_parameter_converter, 1, 1, kMayRaise},
    {"void", p_void, 0, -1, kPureFold},
    {"%procedure-name", p_procedure_name, 1, 1, kPure},
};

}  // namespace

void register_control_primitives(Environment* env) {
  install_primitives(env, kControlPrims);
  // call/cc is the same procedure, with its own cell that compiled code inlines too (kCallCC).
  Value callcc = intern("call/cc");
  env->define(callcc, env->define_cell(intern("call-with-current-continuation")).as<GlobalCell>()->value);
  env->define_cell(callcc).obj()->header |= kInlinedCell;
}

}  // namespace quasi
