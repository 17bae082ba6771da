// The API tests' main: Catch2's own. The engine needs no initialization call from the host.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
