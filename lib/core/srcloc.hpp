// srcloc.hpp — source locations (file:line:col) and the table of source file names.
//
// A location packs into 48 bits so it fits in the header payload (a pair read from source keeps
// it in its PairInfo's header-shaped word, core/object.hpp):
//   bits 0..13 column (1-based, clamped), bits 14..35 line (1-based, clamped), bits 36..47 file id.
// File id 0 means "no location". Ids are process-wide and never reused.
#pragma once

#include <cstdint>
#include <string>

namespace quasi {

struct SrcLoc {
  uint32_t file = 0;  // 0: unknown
  uint32_t line = 0;
  uint32_t col = 0;

  bool known() const { return file != 0; }
  uint64_t pack() const;
  static SrcLoc unpack(uint64_t packed);
  // "file:line:col", or "" when unknown.
  std::string to_string() const;
};

// Registers a source name ("foo.scm", "<repl>", "<string>") and returns its id (>= 1).
uint32_t intern_source_file(const std::string& name);
const std::string& source_file_name(uint32_t id);

}  // namespace quasi
