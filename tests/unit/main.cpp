// The one main() of the unit tests: the collector must be initialized before anything else.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "core/gc.hpp"

int main(int argc, char* argv[]) {
  quasi::gc_init();
  return Catch::Session().run(argc, argv);
}
