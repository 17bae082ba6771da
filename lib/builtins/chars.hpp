// chars.hpp — the character case mappings of chars_strings.cpp that other builtins need (the
// case-insensitive hash of hash tables must fold exactly as string-ci=? compares).
#pragma once

#include <string>

#include "core/object.hpp"

namespace quasi {

// The full case folding of the string `s` (ß becomes "ss"), as string-ci=? compares.
std::u32string string_folded(Value s);

}  // namespace quasi
