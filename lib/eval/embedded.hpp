// embedded.hpp — Scheme source compiled into the binary at build time (lib/embed_files.cmake), so
// a `quasi` built anywhere runs from any directory without files beside it.
#pragma once

#include <string>
#include <string_view>

namespace quasi {

struct EmbeddedFile {
  const char* name;  // path relative to the embedded tree, e.g. "00-core.scm", "scheme/base.sld"
  const char* text;
};

// scheme/prelude/*.scm in file-name order, loaded into the core environment of every engine.
// Terminated by {nullptr, nullptr}.
extern const EmbeddedFile kPreludeFiles[];
extern const int kPreludeFileCount;

// Every file under scheme/lib/ (.sld libraries and the .scm files they include), sorted by path.
// The library search path ends with this tree (engine/library.cpp). Terminated by {nullptr, nullptr}.
extern const EmbeddedFile kLibraryFiles[];
extern const int kLibraryFileCount;

// scheme/rules/*.scm: rule sets kept as data (the eqsat pass reads eqsat-arith.scm).
extern const EmbeddedFile kRuleFiles[];
extern const int kRuleFileCount;

// Source names of embedded library files start with this prefix ("<quasi>/scheme/base.sld"), so
// error locations say where the text came from and `include` beside an embedded .sld finds the
// embedded .scm.
inline constexpr std::string_view kEmbeddedPrefix = "<quasi>/";
inline bool is_embedded_name(std::string_view path) { return path.substr(0, kEmbeddedPrefix.size()) == kEmbeddedPrefix; }
// The embedded library file `name` (relative to scheme/lib, "srfi/1.sld"), or null.
const char* embedded_library_file(std::string_view name);
// Reads a source file: an embedded one when `path` starts with kEmbeddedPrefix, else from disk
// (only when `allow_disk`). False when there is no such file or it cannot be read.
bool read_source_text(const std::string& path, bool allow_disk, std::string* out);
// "dir/" of a path ("" when it has no directory part); "<quasi>/srfi/" for embedded files.
std::string directory_of(const std::string& path);

}  // namespace quasi
