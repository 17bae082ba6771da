#include "core/gc_pacing.hpp"

#include "core/gc.hpp"

#include <algorithm>
#include <cstdlib>
#include <ctime>

namespace quasi {

uint64_t GcPacing::after_collection(double collection, double cycle, size_t in_use) {
  if (cycle <= 0) return divisor;
  // Smoothed, so that one collection at an unlucky moment does not move the divisor.
  share = 0.5 * share + 0.5 * (collection / cycle);
  if (share > kHighGcShare && divisor > kMinFreeSpaceDivisor) divisor--;
  else if (share < kLowGcShare && divisor < kMaxFreeSpaceDivisor) divisor++;
  // A heap in use of half the window or more paces itself (and its window would only add to
  // its peak RSS): the window goes back towards its floor, as it does when collections are cheap.
  bool small_heap = in_use < window / 2;
  if (share > kHighGcShare && small_heap) window = std::min(2 * window, kMaxWindowBytes);
  else if (share < kLowGcShare || !small_heap) window = std::max(window / 2, kMinWindowBytes);
  return divisor;
}

namespace {

// Process CPU time: the marker threads' work counts.
double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

// Touched only by the collection-event hook, which the collector calls holding its lock.
GcPacing g_pacing;
double g_collection_start = 0, g_last_end = 0;

void GC_CALLBACK on_collection_event(GC_EventType event) {
  if (event == GC_EVENT_START) {
    g_collection_start = cpu_seconds();
  } else if (event == GC_EVENT_END) {
    double now = cpu_seconds();
    // The unsynchronized form: the collector holds its lock while it calls this hook. Blocks
    // left empty by the collection are free blocks by now (the sweep of the others is lazy).
    GC_prof_stats_s stats;
    GC_get_prof_stats_unsafe(&stats, sizeof stats);
    size_t in_use = stats.heapsize_full - stats.free_bytes_full;
    uint64_t before = g_pacing.divisor;
    size_t window_before = g_pacing.window;
    uint64_t after = g_pacing.after_collection(now - g_collection_start, now - g_last_end, in_use);
    g_last_end = now;
    if (after != before) GC_set_free_space_divisor(after);
    if (g_pacing.window != window_before) GC_set_min_bytes_allocd(g_pacing.window);
  }
}

}  // namespace

void gc_start_pacing() {
  if (getenv("GC_FREE_SPACE_DIVISOR")) return;
  g_last_end = cpu_seconds();
  GC_set_free_space_divisor(g_pacing.divisor);
  GC_set_min_bytes_allocd(g_pacing.window);
  GC_set_on_collection_event(on_collection_event);
}

}  // namespace quasi
