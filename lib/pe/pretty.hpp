// pretty.hpp — indented text for a datum of code (residual procedures).
#pragma once

#include <string>

#include "core/value.hpp"

namespace quasi::pe {

// `v` written with line breaks and indentation; `indent` is the column it starts at.
std::string pretty_datum(Value v, int indent = 0);

}  // namespace quasi::pe
