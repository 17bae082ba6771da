// corpus.cpp — quasi_fuzz_corpus SRC OUT: writes the seed corpora of the fuzz targets to
// OUT/fuzz-corpus/<target> (and one input in eight also to OUT/fuzz-corpus-small/<target>, the
// seeds of short runs):
//
//   reader, expand, eval               each top-level form of the Scheme files of the source
//                                      tree (tests/scheme, scheme/examples, scheme/prelude,
//                                      scheme/lib), one file per form (reader also gets whole files)
//   specialize                         programs of the random generator (tests/gen) as
//                                      (define f (lambda (a b c d) ...))
//   api                                the forms above and calls of api_fuzz's host functions
// The split is lexical (strings, characters, |symbols|, comments), so it needs no engine.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common.hpp"
#include "gen/generator.hpp"

namespace fs = std::filesystem;

namespace {

std::vector<std::string> top_level_forms(const std::string& s) {
  std::vector<std::string> out;
  size_t i = 0, n = s.size(), start = 0;
  int depth = 0;
  while (i < n) {
    char c = s[i];
    if (c == ';') {
      while (i < n && s[i] != '\n') ++i;
    } else if (c == '#' && i + 1 < n && s[i + 1] == '|') {
      int nest = 1;
      i += 2;
      while (i < n && nest > 0) {
        if (s[i] == '|' && i + 1 < n && s[i + 1] == '#') nest--, i += 2;
        else if (s[i] == '#' && i + 1 < n && s[i + 1] == '|') nest++, i += 2;
        else ++i;
      }
    } else if (c == '"' || c == '|') {
      ++i;
      while (i < n && s[i] != c) i += s[i] == '\\' ? 2 : 1;
      ++i;
    } else if (c == '#' && i + 1 < n && s[i + 1] == '\\') {
      i += 3;
      while (i < n && !std::isspace(static_cast<unsigned char>(s[i])) && s[i] != '(' && s[i] != ')') ++i;
    } else if (c == '(' || c == '[') {
      if (depth == 0) {
        start = i;
        // a quote or #; prefix belongs to the form
        while (start > 0 && (s[start - 1] == '\'' || s[start - 1] == '`' || s[start - 1] == '#')) --start;
      }
      ++depth;
      ++i;
    } else if (c == ')' || c == ']') {
      ++i;
      if (depth > 0 && --depth == 0) out.push_back(s.substr(start, i - start));
    } else {
      ++i;
    }
  }
  return out;
}

// Writes OUT/fuzz-corpus/T/<hash>, and one input in eight also to OUT/fuzz-corpus-small/T (the
// seeds of the short CI run, which has no time to load them all).
fs::path g_out;
void write(const char* target, const std::string& text) {
  uint64_t h = quasi_fuzz::hash(text);
  char name[32];
  std::snprintf(name, sizeof name, "%016llx", static_cast<unsigned long long>(h));
  for (const char* corpus : {"fuzz-corpus", "fuzz-corpus-small"}) {
    if (corpus[11] == '-' && h % 8 != 0) continue;
    fs::path dir = g_out / corpus / target;
    fs::create_directories(dir);
    std::ofstream(dir / name, std::ios::binary) << text;
  }
}

const char* const kApiSeeds[] = {
    "42", "-9223372036854775808", "18446744073709551616", "2.5", "+nan.0", "-0.0", "1/3", "#\\x3bb", "\"abc\"",
    "'(1 2 3)", "'#(1 2 3)", "#u8(1 2 255)", "'((\"a\" . 1) (\"b\" . 2))", "'((1 \"x\" \"y\") (2))", "'(1 . \"x\")",
    "'(1 2.5 \"s\")", "'(1 2 3 4)", "(list 1 (vector 2 3) \"x\")", "'()", "#f", "#t", "'sym",
    "(h-int 5)", "(h-int32 4294967296)", "(h-u8 256)", "(h-double 1/3)", "(h-float 1e300)", "(h-bool 0)",
    "(h-char #\\a)", "(h-string 'sym)", "(h-vec '(1 2 3))", "(h-vec #(1 2))", "(h-strings '(\"a\" b))",
    "(h-bytes #u8(1 2))", "(h-map '((\"a\" . 1)))", "(h-umap '((1 . \"a\") (2 . \"b\")))", "(h-set '(3 1 2 1))",
    "(h-pair '(1 . \"x\"))", "(h-tuple '(1 2.0 \"x\"))", "(h-array #(1 2 3))", "(h-optional #f)",
    "(h-optional \"x\")", "(h-variant '(1 2))", "(h-variant \"s\")", "(h-fn (lambda (x) (* x 2)) 21)",
    "(h-fn (lambda (x) (raise 'boom)) 1)", "(h-value (list 1 2))", "(h-overload 1)", "(h-overload 1.5)",
    "(h-overload \"abc\")", "(guard (e (#t (error-object-message e))) (h-throw \"no\"))",
    "(h-fn h-int 3)", "(h-vec (h-vec '(1)))"};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: quasi_fuzz_corpus SOURCE-DIR OUT-DIR\n");
    return 2;
  }
  fs::path src = argv[1];
  g_out = argv[2];
  size_t forms = 0;
  for (const char* sub : {"tests/scheme", "scheme/examples", "scheme/prelude", "scheme/lib"}) {
    if (!fs::exists(src / sub)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(src / sub)) {
      fs::path p = entry.path();
      if (!entry.is_regular_file() || (p.extension() != ".scm" && p.extension() != ".sld")) continue;
      std::ifstream in(p, std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      std::string text = ss.str();
      write("reader", text.substr(0, 4096));
      for (const std::string& f : top_level_forms(text)) {
        if (f.size() > 4096) continue;
        for (const char* t : {"reader", "expand", "eval", "api"}) write(t, f);
        ++forms;
      }
    }
  }
  const std::string describe =
      "(define (gen-describe e) (if (error-object? e) (list 'error (error-object-message e) "
      "(error-object-irritants e)) (list 'raise e)))\n";
  for (uint64_t i = 0; i < 400; ++i) {
    quasi_gen::Program p = quasi_gen::generate(quasi_gen::program_seed(20261128, i));
    std::string s = describe + "(define f " + p.proc.str() + ")\n";
    if (s.size() > 4096) continue;
    write("specialize", s);
    if (i < 100) write("eval", s + "(f " + p.args[0][0] + " " + p.args[0][1] + " " + p.args[0][2] + " " + p.args[0][3] + ")");
  }
  for (const char* a : kApiSeeds) write("api", a);
  std::printf("quasi_fuzz_corpus: %zu forms from the source tree, 400 generated programs\n", forms);
  return 0;
}
