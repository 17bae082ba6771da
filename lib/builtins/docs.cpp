// docs.cpp — lookups in the table of documentation lines (docs.hpp; the data is doc_table.cpp).
#include "builtins/docs.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "core/object.hpp"

namespace quasi {

const DocEntry* find_doc(std::string_view name) {
  std::span<const DocEntry> docs = doc_table();
  auto it = std::lower_bound(docs.begin(), docs.end(), name,
                             [](const DocEntry& d, std::string_view n) { return std::string_view(d.name) < n; });
  return it != docs.end() && it->name == name ? &*it : nullptr;
}

Value doc_parameters(const DocEntry& d) {
  std::string_view sig = d.signature;
  if (sig.size() < 2 || sig.front() != '(') return kFalse;  // syntax without a call shape
  sig = sig.substr(1, sig.size() - 2);
  std::vector<std::string> tokens;
  size_t i = 0;
  while (i < sig.size()) {
    size_t j = sig.find(' ', i);
    if (j == std::string_view::npos) j = sig.size();
    if (j > i) tokens.emplace_back(sig.substr(i, j - i));
    i = j + 1;
  }
  if (tokens.empty()) return kFalse;
  tokens.erase(tokens.begin());  // the name
  Value tail = kNil;
  if (!tokens.empty() && tokens.back() == "...") {
    tokens.pop_back();
    if (tokens.empty()) return kFalse;
    std::string rest = tokens.back();
    tokens.pop_back();
    std::erase_if(rest, [](char c) { return c == '[' || c == ']'; });
    tail = intern(rest);
  }
  for (auto it = tokens.rbegin(); it != tokens.rend(); ++it) {
    std::string t = *it;
    std::erase_if(t, [](char c) { return c == '[' || c == ']'; });
    tail = cons(intern(t), tail);
  }
  return tail;
}

}  // namespace quasi
