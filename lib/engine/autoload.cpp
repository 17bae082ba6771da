#include "engine/autoload.hpp"

#include <cstring>
#include <ctime>
#include <string>

#include "engine/toplevel.hpp"
#include "engine/warnings.hpp"
#include "eval/environment.hpp"
#include "vm/vm.hpp"
#include "vm/vm_impl.hpp"

namespace quasi {

namespace {

int64_t now_ns() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

std::string source_name(const LazyPrelude::File& f) { return std::string("prelude/") + f.name; }

void flag_cells(Vm& vm, const LazyPrelude::File& f) {
  for (Value sym : f.names) {
    Value cell = vm.core_env->cell_for(sym);
    if (cell.as<GlobalCell>()->value == kUnbound) cell.obj()->header |= kAutoloadCell;
  }
}

void load(Vm& vm, LazyPrelude::File& f) {
  f.loaded = true;
  for (Value sym : f.names) {
    Value b = vm.core_env->lookup(sym);
    if (has_type(b, Type::GlobalCell)) b.obj()->header &= ~kAutoloadCell;
  }
  // As at start-up: no limits, no warnings, the core environment as the interaction environment.
  // The work is the engine's, so the evaluation's steps, allocations and time do not count it.
  uint64_t steps = vm.steps, step_limit = vm.step_limit, alloc_limit = vm.alloc_limit;
  int64_t deadline = vm.deadline_ns;
  uint64_t allocated = tl_allocated_bytes, alloc_base = vm.alloc_base;
  int64_t start = now_ns();
  Environment* interaction = vm.interaction_env;
  unsigned warning_kinds = vm.warning_kinds;
  vm.step_limit = 0;
  vm.alloc_limit = 0;
  vm.deadline_ns = 0;
  vm.warning_kinds = 0;
  vm.interaction_env = vm.core_env;
  auto restore = [&] {
    vm.steps = steps;
    vm.step_limit = step_limit;
    vm.alloc_limit = alloc_limit;
    // Set, not added to: a load nested in this one (a file that uses another deferred file) has
    // already moved alloc_base by its own part of this delta, which would then count twice and
    // push the base past what the thread has allocated.
    vm.alloc_base = alloc_base + (tl_allocated_bytes - allocated);
    vm.deadline_ns = deadline ? deadline + (now_ns() - start) : 0;
    vm.warning_kinds = warning_kinds;
    vm.interaction_env = interaction;
    if (vm.impl) vm.impl->rearm_poll();
  };
  try {
    WarningsSuspended quiet(vm);
    eval_source(vm, f.text, source_name(f), vm.core_env);
  } catch (...) {
    // Interrupted part-way: what is still unbound loads with the file again next time.
    restore();
    f.loaded = false;
    flag_cells(vm, f);
    throw;
  }
  restore();
}

}  // namespace

bool defer_prelude_file(Vm& vm, const char* name, std::string_view text) {
  LazyPrelude* lazy = vm.lazy_prelude;
  if (!lazy) return false;
  const char* const* names = nullptr;
  for (const PreludeDefinitions* d = kDeferrablePrelude; d->file; d++)
    if (std::strcmp(d->file, name) == 0) names = d->names;
  if (!names) return false;
  LazyPrelude::File f{name, text, {}, false};
  for (; *names; names++) {
    Value sym = intern(*names);
    // A name something already binds or refers to (an earlier file's compiled code holds its
    // cell) would be read before the file loads.
    if (vm.core_env->lookup(sym) != kUnbound) return false;
    f.names.push_back(sym);
  }
  flag_cells(vm, f);
  lazy->files.push_back(std::move(f));
  return true;
}

void autoload_cell(Vm& vm, Value cell) {
  if (!(cell.obj()->header & kAutoloadCell)) return;
  Value sym = cell.as<GlobalCell>()->name;
  if (LazyPrelude* lazy = vm.lazy_prelude)
    for (LazyPrelude::File& f : lazy->files)
      if (!f.loaded)
        for (Value n : f.names)
          if (n == sym && vm.core_env->lookup(sym) == cell) return load(vm, f);
  cell.obj()->header &= ~kAutoloadCell;  // not a deferred file's (a stale flag): nothing to load
}

}  // namespace quasi
