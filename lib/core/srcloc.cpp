#include "core/srcloc.hpp"

#include <algorithm>
#include <deque>
#include <mutex>
#include <unordered_map>

namespace quasi {
namespace {
constexpr uint64_t kColBits = 14, kLineBits = 22, kFileBits = 12;
constexpr uint64_t kColMax = (1u << kColBits) - 1, kLineMax = (1u << kLineBits) - 1,
                   kFileMax = (1u << kFileBits) - 1;

struct FileTable {
  std::mutex mu;
  std::deque<std::string> names{"<unknown>"};  // deque: references stay valid as it grows
  std::unordered_map<std::string, uint32_t> ids;
};
FileTable& files() {
  static FileTable* t = new FileTable;  // never destroyed: used from atexit paths too
  return *t;
}
}  // namespace

uint64_t SrcLoc::pack() const {
  if (file == 0 || file > kFileMax) return 0;
  uint64_t l = std::min<uint64_t>(line, kLineMax), c = std::min<uint64_t>(col, kColMax);
  return c | (l << kColBits) | (uint64_t(file) << (kColBits + kLineBits));
}

SrcLoc SrcLoc::unpack(uint64_t p) {
  SrcLoc s;
  s.col = p & kColMax;
  s.line = (p >> kColBits) & kLineMax;
  s.file = (p >> (kColBits + kLineBits)) & kFileMax;
  return s;
}

std::string SrcLoc::to_string() const {
  if (!known()) return "";
  return source_file_name(file) + ":" + std::to_string(line) + ":" + std::to_string(col);
}

uint32_t intern_source_file(const std::string& name) {
  FileTable& t = files();
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.ids.find(name);
  if (it != t.ids.end()) return it->second;
  uint32_t id = static_cast<uint32_t>(t.names.size());
  t.names.push_back(name);
  t.ids.emplace(name, id);
  return id;
}

const std::string& source_file_name(uint32_t id) {
  FileTable& t = files();
  std::lock_guard<std::mutex> lock(t.mu);
  return id < t.names.size() ? t.names[id] : t.names[0];
}

}  // namespace quasi
