// reader_fuzz.cpp — the reader on arbitrary bytes (read/reader.hpp).
//
// Any input may be a read error (SchemeError); nothing may crash. Every datum read is written
// back, and the written text must read back to a datum that writes the same (write/read round
// trip: what `write` prints is valid syntax for the same value).
#include <string>
#include <vector>

#include "common.hpp"
#include "core/error.hpp"
#include "core/gc.hpp"
#include "core/object.hpp"
#include "read/printer.hpp"
#include "read/reader.hpp"

using namespace quasi;

namespace {
uint32_t file_id() {
  static uint32_t id = intern_source_file("<fuzz>");
  return id;
}
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  gc_init();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> written;
  try {
    StringSource src(text, file_id());
    Reader r(src);
    for (int n = 0; n < 1000; ++n) {
      Value v = r.read();
      if (v == kEof) break;
      written.push_back(write_to_string(v, 1 << 20));
    }
  } catch (SchemeError&) {
    // A read error: fine, as long as the data read before it round-trip.
  }
  for (const std::string& w : written) {
    if (w.size() + 16 >= (1 << 20) || w.find("#<") != std::string::npos) continue;  // cut short, or unreadable by design
    std::string again;
    try {
      StringSource src(w, file_id());
      Reader r(src);
      again = write_to_string(r.read(), 1 << 20);
    } catch (SchemeError& e) {
      quasi_fuzz::fail("written datum does not read back: " + w, text);
    }
    if (again != w) quasi_fuzz::fail("write/read/write differs: " + w + " vs " + again, text);
  }
  return 0;
}
