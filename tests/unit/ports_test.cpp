// Ports (builtins/ports.cpp) and system procedures (builtins/system.cpp), driven through their
// primitive functions as the VM would call them.
#include <dirent.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "builtins/port.hpp"
#include "builtins/registry.hpp"
#include "builtins/system.hpp"
#include "core/error.hpp"
#include "core/numbers.hpp"
#include "eval/environment.hpp"
#include "read/printer.hpp"
#include "vm/vm.hpp"

using namespace quasi;

namespace {

Environment* port_env() {
  static Environment* env = [] {
    Environment* e = make_environment(kFalse);
    register_port_primitives(e);
    register_system_primitives(e);
    return e;
  }();
  return env;
}

Value global(const char* name) {
  Value cell = port_env()->lookup(intern(name));
  REQUIRE(has_type(cell, Type::GlobalCell));
  return cell.as<GlobalCell>()->value;
}

Value call(Vm& vm, const char* name, std::vector<Value> args = {}) {
  Value prim = global(name);
  REQUIRE(is_primitive(prim));
  Primitive* p = prim.as<Primitive>();
  int argc = static_cast<int>(args.size());
  REQUIRE(argc >= p->min_args);
  REQUIRE((p->max_args < 0 || argc <= p->max_args));
  return p->fn(vm, p, argc, args.data());
}

Value str(const char* s) { return make_string_utf8(s); }
std::string utf8(Value s) { return string_to_utf8(s); }

// Kind of the condition raised by f, or "" when nothing was raised.
template <class F>
std::string raised_kind(F&& f) {
  try {
    f();
  } catch (const SchemeError& e) {
    if (!is_condition(e.payload)) return "non-condition";
    return symbol_name(e.payload.as<Condition>()->kind);
  }
  return "";
}

std::string temp_path(const char* tag) {
  return "/tmp/quasi_ports_test_" + std::to_string(getpid()) + "_" + tag;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int count_open_fds() {
  int n = 0;
  if (DIR* d = opendir("/proc/self/fd")) {
    while (readdir(d)) n++;
    closedir(d);
  }
  return n;
}

}  // namespace

TEST_CASE("string input ports: chars, lines, strings", "[ports]") {
  gc_init();
  Vm vm;
  Value p = call(vm, "open-input-string", {str("ab\ncd\r\nef\rg\u00e9")});
  CHECK(call(vm, "input-port?", {p}) == kTrue);
  CHECK(call(vm, "output-port?", {p}) == kFalse);
  CHECK(call(vm, "textual-port?", {p}) == kTrue);
  CHECK(call(vm, "binary-port?", {p}) == kFalse);
  CHECK(call(vm, "port?", {p}) == kTrue);
  CHECK(call(vm, "port?", {str("x")}) == kFalse);
  CHECK(call(vm, "peek-char", {p}) == make_char('a'));
  CHECK(call(vm, "read-char", {p}) == make_char('a'));
  CHECK(utf8(call(vm, "read-line", {p})) == "b");
  CHECK(utf8(call(vm, "read-line", {p})) == "cd");
  CHECK(utf8(call(vm, "read-line", {p})) == "ef");
  CHECK(call(vm, "char-ready?", {p}) == kTrue);
  CHECK(utf8(call(vm, "read-string", {make_fixnum(10), p})) == "g\u00e9");
  CHECK(call(vm, "read-char", {p}) == kEof);
  CHECK(call(vm, "peek-char", {p}) == kEof);
  CHECK(call(vm, "read-line", {p}) == kEof);
  CHECK(call(vm, "read-string", {make_fixnum(3), p}) == kEof);
  CHECK(utf8(call(vm, "read-string", {make_fixnum(0), p})) == "");
  CHECK(call(vm, "eof-object?", {call(vm, "eof-object")}) == kTrue);
  CHECK(call(vm, "eof-object?", {kFalse}) == kFalse);

  Value q = call(vm, "open-input-string", {str("last line")});
  CHECK(utf8(call(vm, "read-line", {q})) == "last line");
  CHECK(call(vm, "read-line", {q}) == kEof);
}

TEST_CASE("read parses datums with port locations", "[ports]") {
  gc_init();
  Vm vm;
  Value p = make_utf8_input_port("(a b)\n  (c\n d) 42", "<test-input>");
  Value d1 = call(vm, "read", {p});
  REQUIRE(is_pair(d1));
  CHECK(write_to_string(d1) == "(a b)");
  Value d2 = call(vm, "read", {p});
  REQUIRE(is_pair(d2));
  SrcLoc loc = pair_srcloc(d2);
  CHECK(loc.line == 2);
  CHECK(loc.col == 3);
  CHECK(source_file_name(loc.file) == "<test-input>");
  CHECK(call(vm, "read", {p}) == make_fixnum(42));
  CHECK(call(vm, "read", {p}) == kEof);

  Value bad = call(vm, "open-input-string", {str("(1 2")});
  CHECK(raised_kind([&] { call(vm, "read", {bad}); }) == "read");

  // #!fold-case stays in effect for later reads from the same port.
  Value fc = call(vm, "open-input-string", {str("#!fold-case ABC Def")});
  CHECK(call(vm, "read", {fc}) == intern("abc"));
  CHECK(call(vm, "read", {fc}) == intern("def"));

  // The reader sees invalid UTF-8 as an error (read-char would give U+FFFD).
  Value inv = make_utf8_input_port("(a \xFF)", "<bad-utf8>");
  CHECK(raised_kind([&] { call(vm, "read", {inv}); }) == "read");
}

TEST_CASE("string output ports accumulate UTF-8 text", "[ports]") {
  gc_init();
  Vm vm;
  Value o = call(vm, "open-output-string");
  CHECK(call(vm, "output-port?", {o}) == kTrue);
  CHECK(call(vm, "textual-port?", {o}) == kTrue);
  call(vm, "write-char", {make_char(U'\u03bb'), o});
  call(vm, "write-string", {str("hello world"), o, make_fixnum(5)});
  call(vm, "write-string", {str("0123456789"), o, make_fixnum(2), make_fixnum(4)});
  call(vm, "newline", {o});
  call(vm, "display", {str("d\"q"), o});
  call(vm, "write", {str("w\"q"), o});
  call(vm, "display", {make_char('c'), o});
  call(vm, "write", {list({make_fixnum(1), intern("x")}), o});
  CHECK(utf8(call(vm, "get-output-string", {o})) == "\u03bb world23\nd\"q\"w\\\"q\"c(1 x)");
  // Still usable after get-output-string.
  call(vm, "write-string", {str("!"), o});
  CHECK(utf8(call(vm, "get-output-string", {o})).back() == '!');
  CHECK(raised_kind([&] { call(vm, "write-string", {str("abc"), o, make_fixnum(2), make_fixnum(1)}); }) ==
        "range");
  CHECK(raised_kind([&] { call(vm, "write-string", {str("abc"), o, make_fixnum(4)}); }) == "range");
  CHECK(raised_kind([&] { call(vm, "get-output-string", {call(vm, "open-output-bytevector")}); }) ==
        "type");
}

TEST_CASE("bytevector ports", "[ports]") {
  gc_init();
  Vm vm;
  Value bv = make_bytevector(5);
  for (int i = 0; i < 5; i++) bv.as<Bytevector>()->bytes()[i] = static_cast<uint8_t>(10 * i);
  Value in = call(vm, "open-input-bytevector", {bv});
  CHECK(call(vm, "binary-port?", {in}) == kTrue);
  CHECK(call(vm, "textual-port?", {in}) == kFalse);
  CHECK(call(vm, "u8-ready?", {in}) == kTrue);
  CHECK(call(vm, "peek-u8", {in}) == make_fixnum(0));
  CHECK(call(vm, "read-u8", {in}) == make_fixnum(0));
  Value two = call(vm, "read-bytevector", {make_fixnum(2), in});
  REQUIRE(is_bytevector(two));
  CHECK(two.as<Bytevector>()->length() == 2);
  CHECK(two.as<Bytevector>()->bytes()[1] == 20);
  Value dst = make_bytevector(4, 0xFF);
  CHECK(call(vm, "read-bytevector!", {dst, in, make_fixnum(1)}) == make_fixnum(2));
  CHECK(dst.as<Bytevector>()->bytes()[0] == 0xFF);
  CHECK(dst.as<Bytevector>()->bytes()[1] == 30);
  CHECK(dst.as<Bytevector>()->bytes()[2] == 40);
  CHECK(call(vm, "read-bytevector!", {dst, in}) == kEof);
  CHECK(call(vm, "read-bytevector", {make_fixnum(3), in}) == kEof);
  CHECK(call(vm, "read-u8", {in}) == kEof);
  CHECK(call(vm, "peek-u8", {in}) == kEof);
  // Textual operations refuse binary ports and vice versa.
  CHECK(raised_kind([&] { call(vm, "read-char", {in}); }) == "type");
  CHECK(raised_kind([&] { call(vm, "read-u8", {call(vm, "open-input-string", {str("x")})}); }) ==
        "type");

  Value out = call(vm, "open-output-bytevector");
  call(vm, "write-u8", {make_fixnum(255), out});
  call(vm, "write-bytevector", {bv, out, make_fixnum(3)});
  call(vm, "write-bytevector", {bv, out, make_fixnum(1), make_fixnum(2)});
  Value got = call(vm, "get-output-bytevector", {out});
  REQUIRE(got.as<Bytevector>()->length() == 4);
  CHECK(got.as<Bytevector>()->bytes()[0] == 255);
  CHECK(got.as<Bytevector>()->bytes()[1] == 30);
  CHECK(got.as<Bytevector>()->bytes()[2] == 40);
  CHECK(got.as<Bytevector>()->bytes()[3] == 10);
  CHECK(raised_kind([&] { call(vm, "write-u8", {make_fixnum(256), out}); }) == "type");
  CHECK(raised_kind([&] { call(vm, "write-char", {make_char('a'), out}); }) == "type");
}

TEST_CASE("closing ports", "[ports]") {
  gc_init();
  Vm vm;
  Value in = call(vm, "open-input-string", {str("abc")});
  CHECK(call(vm, "input-port-open?", {in}) == kTrue);
  call(vm, "close-input-port", {in});
  CHECK(call(vm, "input-port-open?", {in}) == kFalse);
  CHECK(raised_kind([&] { call(vm, "read-char", {in}); }) == "error");
  call(vm, "close-port", {in});  // idempotent

  Value out = call(vm, "open-output-string");
  CHECK(call(vm, "output-port-open?", {out}) == kTrue);
  CHECK(call(vm, "input-port-open?", {out}) == kFalse);
  call(vm, "write-string", {str("kept"), out});
  call(vm, "close-output-port", {out});
  CHECK(call(vm, "output-port-open?", {out}) == kFalse);
  CHECK(raised_kind([&] { call(vm, "write-char", {make_char('x'), out}); }) == "error");
  CHECK(utf8(call(vm, "get-output-string", {out})) == "kept");
  CHECK(raised_kind([&] { call(vm, "close-input-port", {out}); }) == "type");
  CHECK(raised_kind([&] { call(vm, "input-port-open?", {make_fixnum(1)}); }) == "type");
}

TEST_CASE("file ports round-trip UTF-8; invalid input becomes U+FFFD", "[ports]") {
  gc_init();
  Vm vm;
  std::string path = temp_path("utf8");
  Value name = make_string_utf8(path);
  Value out = call(vm, "open-output-file", {name});
  CHECK(call(vm, "textual-port?", {out}) == kTrue);
  call(vm, "write-string", {str("caf\u00e9 \U0001F600\n"), out});
  call(vm, "write", {list({make_fixnum(1), str("s")}), out});
  call(vm, "close-port", {out});
  CHECK(slurp(path) == "caf\u00e9 \U0001F600\n(1 \"s\")");
  CHECK(call(vm, "file-exists?", {name}) == kTrue);

  Value in = call(vm, "open-input-file", {name});
  CHECK(utf8(call(vm, "read-line", {in})) == "caf\u00e9 \U0001F600");
  Value datum = call(vm, "read", {in});
  CHECK(write_to_string(datum) == "(1 \"s\")");
  CHECK(source_file_name(pair_srcloc(datum).file) == path);
  CHECK(pair_srcloc(datum).line == 2);
  CHECK(call(vm, "read", {in}) == kEof);
  call(vm, "close-input-port", {in});

  // Invalid bytes: a stray continuation byte, a truncated 3-byte sequence, a bad lead byte.
  {
    std::ofstream f(path, std::ios::binary);
    f << "a\x80" "b\xE2\x82" "c\xFF";
  }
  in = call(vm, "open-input-file", {name});
  std::u32string got;
  for (Value c; (c = call(vm, "read-char", {in})) != kEof;) got.push_back(c.char_code());
  CHECK(got == U"a\uFFFDb\uFFFD\uFFFDc\uFFFD");
  call(vm, "close-port", {in});

  call(vm, "delete-file", {name});
  CHECK(call(vm, "file-exists?", {name}) == kFalse);
  CHECK(raised_kind([&] { call(vm, "delete-file", {name}); }) == "file");
  CHECK(raised_kind([&] { call(vm, "open-input-file", {name}); }) == "file");
  CHECK(raised_kind([&] { call(vm, "open-input-file", {str("/tmp")}); }) == "file");
  CHECK(raised_kind([&] { call(vm, "open-output-file", {str("/nonexistent-dir/x")}); }) == "file");
  try {
    call(vm, "open-input-file", {name});
  } catch (const SchemeError& e) {
    std::string text = condition_text(e.payload);
    CHECK(text.find("open-input-file: cannot open file \"" + path + "\": No such file") == 0);
  }
}

TEST_CASE("binary file ports and large buffered output", "[ports]") {
  gc_init();
  Vm vm;
  std::string path = temp_path("bin");
  Value name = make_string_utf8(path);
  Value out = call(vm, "open-binary-output-file", {name});
  CHECK(call(vm, "binary-port?", {out}) == kTrue);
  Value bv = make_bytevector(1000);
  for (int i = 0; i < 1000; i++) bv.as<Bytevector>()->bytes()[i] = static_cast<uint8_t>(i % 251);
  for (int i = 0; i < 300; i++) call(vm, "write-bytevector", {bv, out});  // 300 KB > buffer
  call(vm, "write-u8", {make_fixnum(7), out});
  call(vm, "flush-output-port", {out});
  CHECK(slurp(path).size() == 300001);
  call(vm, "close-output-port", {out});

  Value in = call(vm, "open-binary-input-file", {name});
  Value all = call(vm, "read-bytevector", {make_fixnum(400000), in});
  REQUIRE(is_bytevector(all));
  CHECK(all.as<Bytevector>()->length() == 300001);
  CHECK(all.as<Bytevector>()->bytes()[299999] == 999 % 251);
  CHECK(all.as<Bytevector>()->bytes()[300000] == 7);
  CHECK(call(vm, "read-u8", {in}) == kEof);
  call(vm, "close-port", {in});
  std::remove(path.c_str());
}

TEST_CASE("unclosed file output is flushed by flush_standard_ports", "[ports]") {
  gc_init();
  Vm vm;
  std::string path = temp_path("unclosed");
  Value out = call(vm, "open-output-file", {make_string_utf8(path)});
  call(vm, "display", {str("pending"), out});
  CHECK(slurp(path).empty());
  flush_standard_ports();
  CHECK(slurp(path) == "pending");
  call(vm, "close-port", {out});
  std::remove(path.c_str());
}

TEST_CASE("unreachable file ports are closed by the collector", "[ports]") {
  gc_init();
  Vm vm;
  std::string path = temp_path("leak");
  { std::ofstream f(path); f << "x"; }
  int before = count_open_fds();
  for (int i = 0; i < 200; i++) {
    call(vm, "open-input-file", {make_string_utf8(path)});
    if (i % 50 == 49) {
      GC_gcollect();
      GC_invoke_finalizers();
    }
  }
  GC_gcollect();
  GC_invoke_finalizers();
  CHECK(count_open_fds() < before + 50);  // conservative GC may keep a few alive
  std::remove(path.c_str());
}

TEST_CASE("current ports are parameters; default port arguments use them", "[ports]") {
  gc_init();
  Vm vm;
  Value pout = global("current-output-port");
  REQUIRE(has_type(pout, Type::Parameter));
  CHECK(pout == current_output_port_param());
  CHECK(has_type(global("current-input-port"), Type::Parameter));
  CHECK(has_type(global("current-error-port"), Type::Parameter));
  CHECK(current_output_port(vm) == stdout_port());
  CHECK(current_error_port(vm) == stderr_port());
  CHECK(current_input_port(vm) == stdin_port());
  CHECK(call(vm, "output-port?", {stdout_port()}) == kTrue);
  CHECK(call(vm, "textual-port?", {stderr_port()}) == kTrue);
  CHECK(call(vm, "input-port?", {stdin_port()}) == kTrue);

  // Simulate (parameterize ((current-output-port s) (current-input-port i)) ...).
  Value s = call(vm, "open-output-string");
  Value i = call(vm, "open-input-string", {str("xy")});
  Parameter* po = pout.as<Parameter>();
  Parameter* pi = current_input_port_param().as<Parameter>();
  Value saved_out = po->value, saved_in = pi->value;
  po->value = s;
  pi->value = i;
  call(vm, "display", {make_fixnum(42)});
  call(vm, "newline");
  call(vm, "write-char", {make_char('z')});
  call(vm, "write-string", {str("w")});
  call(vm, "flush-output-port");
  Value c = call(vm, "read-char");
  Value pc = call(vm, "peek-char");
  po->value = saved_out;
  pi->value = saved_in;
  CHECK(utf8(call(vm, "get-output-string", {s})) == "42\nzw");
  CHECK(c == make_char('x'));
  CHECK(pc == make_char('y'));
}

TEST_CASE("C++ port interface", "[ports]") {
  gc_init();
  Value in = make_string_input_port(make_string_utf8("h\u00e9"));
  CHECK(port_peek_char(in) == 'h');
  CHECK(port_read_char(in) == 'h');
  CHECK(port_read_char(in) == 0xE9);
  CHECK(port_read_char(in) == -1);
  Value out = make_string_output_port();
  port_write_utf8(out, "ab");
  port_write_char(out, U'\u00e9');
  CHECK(port_output_bytes(out) == "ab\u00e9");
  port_close(out);
  CHECK(!(as_port(out)->flags & kPortOutOpen));
  Value rp = make_utf8_input_port("foo (bar)", "<x>");
  CHECK(port_read_datum(rp) == intern("foo"));
  CHECK(is_pair(port_read_datum(rp)));
  CHECK(port_read_datum(rp) == kEof);
}

TEST_CASE("system: time, environment, features", "[ports]") {
  gc_init();
  Vm vm;
  Value t = call(vm, "current-second");
  REQUIRE(is_flonum(t));
  CHECK(flonum_value(t) > 1.6e9);
  Value j1 = call(vm, "current-jiffy");
  Value j2 = call(vm, "current-jiffy");
  REQUIRE(j1.is_fixnum());
  CHECK(j2.fixnum() >= j1.fixnum());
  CHECK(call(vm, "jiffies-per-second") == make_fixnum(1000000));

  vm.command_line.set(list({str("prog"), str("arg")}));
  CHECK(write_to_string(call(vm, "command-line")) == "(\"prog\" \"arg\")");

  setenv("QUASI_PORTS_TEST_VAR", "v\u00e9", 1);
  CHECK(utf8(call(vm, "get-environment-variable", {str("QUASI_PORTS_TEST_VAR")})) == "v\u00e9");
  CHECK(call(vm, "get-environment-variable", {str("QUASI_NO_SUCH_VAR_XYZ")}) == kFalse);
  bool found = false;
  for (Value l = call(vm, "get-environment-variables"); is_pair(l); l = cdr(l)) {
    Value entry = car(l);
    if (utf8(car(entry)) == "QUASI_PORTS_TEST_VAR") found = utf8(cdr(entry)) == "v\u00e9";
  }
  CHECK(found);

  std::string features = write_to_string(call(vm, "features"));
  CHECK(features.find("r7rs") != std::string::npos);
  CHECK(features.find("full-unicode") != std::string::npos);
  CHECK(features.find("quasi") != std::string::npos);

  Value stats = call(vm, "gc");
  (void)stats;
  Value alist = call(vm, "gc-stats");
  REQUIRE(is_pair(alist));
  CHECK(car(car(alist)) == intern("heap-size"));
  CHECK(cdr(car(alist)).is_fixnum());
}

TEST_CASE("system: exit and emergency-exit throw ExitRequest", "[ports]") {
  gc_init();
  Vm vm;
  auto status = [&](const char* name, std::vector<Value> args, bool* emergency) {
    try {
      call(vm, name, args);
    } catch (const ExitRequest& r) {
      *emergency = r.emergency;
      return r.status;
    }
    return -999;
  };
  bool em = true;
  CHECK(status("exit", {}, &em) == 0);
  CHECK(!em);
  CHECK(status("exit", {kTrue}, &em) == 0);
  CHECK(status("exit", {kFalse}, &em) == 1);
  CHECK(status("exit", {make_fixnum(3)}, &em) == 3);
  CHECK(status("emergency-exit", {make_fixnum(4)}, &em) == 4);
  CHECK(em);
}

TEST_CASE("system: random", "[ports]") {
  gc_init();
  Vm vm;
  bool seen[6] = {};
  for (int i = 0; i < 300; i++) {
    Value r = call(vm, "random", {make_fixnum(6)});
    REQUIRE(r.is_fixnum());
    REQUIRE(r.fixnum() >= 0);
    REQUIRE(r.fixnum() < 6);
    seen[r.fixnum()] = true;
  }
  for (bool s : seen) CHECK(s);
  for (int i = 0; i < 100; i++) {
    Value r = call(vm, "random", {make_flonum(2.5)});
    REQUIRE(is_flonum(r));
    CHECK(flonum_value(r) >= 0.0);
    CHECK(flonum_value(r) < 2.5);
  }
  mpz_t big;
  mpz_init_set_str(big, "100000000000000000000000000000", 10);
  Value bound = make_integer(big);
  REQUIRE(is_bignum(bound));
  bool any_big = false;
  for (int i = 0; i < 20; i++) {
    Value r = call(vm, "random", {bound});
    if (is_bignum(r)) {
      any_big = true;
      CHECK(mpz_sgn(&r.as<Bignum>()->z) >= 0);
      CHECK(mpz_cmp(&r.as<Bignum>()->z, big) < 0);
    }
  }
  CHECK(any_big);
  CHECK(call(vm, "random", {make_fixnum(1)}) == make_fixnum(0));
  CHECK(raised_kind([&] { call(vm, "random", {make_fixnum(0)}); }) == "range");
  CHECK(raised_kind([&] { call(vm, "random", {make_flonum(-1.0)}); }) == "range");
  CHECK(raised_kind([&] { call(vm, "random", {str("x")}); }) == "type");
}
