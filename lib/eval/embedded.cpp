#include "eval/embedded.hpp"

#include <fstream>
#include <sstream>

namespace quasi {

const char* embedded_library_file(std::string_view name) {
  for (int i = 0; kLibraryFiles[i].name; i++)
    if (name == kLibraryFiles[i].name) return kLibraryFiles[i].text;
  return nullptr;
}

bool read_source_text(const std::string& path, bool allow_disk, std::string* out) {
  if (is_embedded_name(path)) {
    const char* text = embedded_library_file(std::string_view(path).substr(kEmbeddedPrefix.size()));
    if (!text) return false;
    *out = text;
    return true;
  }
  if (!allow_disk) return false;
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return false;
  *out = ss.str();
  return true;
}

std::string directory_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

}  // namespace quasi
