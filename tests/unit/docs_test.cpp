// The documentation table (builtins/docs.hpp) against a fresh engine: every name user code can
// reach in the core environment (its non-% bindings: primitives, prelude procedures, parameters,
// syntactic keywords) has exactly one line, the table is sorted for find_doc's bisection, and no
// line names something that is not bound.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <string_view>

#include "builtins/docs.hpp"
#include "engine/engine_bridge.hpp"
#include "eval/environment.hpp"
#include "read/printer.hpp"
#include "vm/vm.hpp"

using namespace quasi;

namespace {

bridge::Engine* engine() {
  static bridge::Engine* e = bridge::create_engine(bridge::EngineConfig{});
  return e;
}

// The names a user can reach: the core environment's bindings without the % internals.
std::set<std::string> reachable_names() {
  std::set<std::string> names;
  Environment* core = bridge::vm_of(engine()).core_env;
  for (const auto& [sym, binding] : *core->table) {
    if (is_internal_name(sym)) continue;
    // A cell a deferred prelude file defines (engine/autoload.hpp) is bound as soon as it is used.
    if (has_type(binding, Type::GlobalCell) && binding.as<GlobalCell>()->value == kUnbound &&
        !(binding.obj()->header & kAutoloadCell))
      continue;
    names.insert(symbol_name(sym));
  }
  return names;
}

}  // namespace

TEST_CASE("docs: the table is sorted by name, without duplicates", "[docs]") {
  std::span<const DocEntry> docs = doc_table();
  REQUIRE(docs.size() > 1);
  for (size_t i = 1; i < docs.size(); i++) {
    INFO(docs[i - 1].name << " comes before " << docs[i].name);
    CHECK(std::string_view(docs[i - 1].name) < std::string_view(docs[i].name));
  }
}

TEST_CASE("docs: every entry has a signature naming it and a one-line summary", "[docs]") {
  for (const DocEntry& d : doc_table()) {
    INFO(d.name);
    std::string_view sig = d.signature, summary = d.summary, name = d.name;
    // "(name ...)", or just the name for a keyword used alone (else, =>) or a non-procedure value.
    bool call_shape = sig.size() > name.size() + 1 && sig[0] == '(' && sig.substr(1, name.size()) == name &&
                      (sig[name.size() + 1] == ' ' || sig[name.size() + 1] == ')');
    CHECK((call_shape || sig == name));
    CHECK(!summary.empty());
    CHECK(summary.find('\n') == std::string_view::npos);
    CHECK(summary.back() == '.');
    CHECK(find_doc(name) == &d);
  }
  CHECK(find_doc("no-such-name") == nullptr);
  CHECK(find_doc("") == nullptr);
}

TEST_CASE("docs: every reachable built-in has a line", "[docs]") {
  std::set<std::string> names = reachable_names();
  REQUIRE(names.size() > 300);
  REQUIRE(names.count("car"));
  REQUIRE(names.count("define"));  // keywords are bindings too
  for (const std::string& name : names) {
    INFO("no documentation line for " << name << " (add it to lib/builtins/doc_table.cpp)");
    CHECK(find_doc(name) != nullptr);
  }
  // What the REPL lists (the interaction environment) is documented as well.
  for (const std::string& name : bridge::global_names(engine(), "")) {
    INFO("no documentation line for " << name);
    CHECK(find_doc(name) != nullptr);
  }
}

TEST_CASE("docs: every line names a reachable binding", "[docs]") {
  std::set<std::string> names = reachable_names();
  for (const DocEntry& d : doc_table()) {
    INFO(d.name << " is documented but not bound in the core environment (or is internal)");
    CHECK(names.count(d.name) == 1);
  }
}

TEST_CASE("docs: parameters from the signature", "[docs]") {
  auto params = [](const char* name) {
    const DocEntry* d = find_doc(name);
    REQUIRE(d);
    return write_to_string(doc_parameters(*d));
  };
  CHECK(params("car") == "(pair)");
  CHECK(params("make-vector") == "(k fill)");
  CHECK(params("+") == "z");
  CHECK(params("-") == "(z . w)");
  CHECK(params("string-copy") == "(string start end)");
  CHECK(params("current-jiffy") == "()");
}
