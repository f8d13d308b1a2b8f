//===- cpu_threads_advice.cpp - llvmpipe's thread count for a module ------===//

#include "capture/rt/cpu_threads_advice.h"

#include "capture/rt/device.h"

#include <cstdio>

namespace capture::rt {
namespace {

/// `n` with a metric suffix and one decimal: "950", "5.0M", "1.2G".
std::string metric(uint64_t n) {
  char text[32];
  if (n < 1000)
    std::snprintf(text, sizeof(text), "%llu",
                  static_cast<unsigned long long>(n));
  else if (n < 1000000)
    std::snprintf(text, sizeof(text), "%.1fK", n / 1e3);
  else if (n < 1000000000)
    std::snprintf(text, sizeof(text), "%.1fM", n / 1e6);
  else
    std::snprintf(text, sizeof(text), "%.1fG", n / 1e9);
  return text;
}

} // namespace

CpuThreadsAdvice adviseCpuThreads(const ModuleDesc &desc) {
  CpuThreadsAdvice advice;
  const EntryDesc *heaviest = nullptr;
  uint64_t heaviestWork = 0, heaviestDispatches = 0;
  for (const EntryDesc &e : desc.entries) {
    uint64_t work = 0, dispatches = 0;
    for (const CommandDesc &c : e.commands) {
      if (c.kind != CommandDesc::Kind::Dispatch)
        continue;
      ++dispatches;
      // A hint from the file: saturated, never an overflow.
      if (__builtin_add_overflow(work, c.dispatch.work, &work))
        work = UINT64_MAX;
    }
    if (dispatches && (!heaviest || work > heaviestWork)) {
      heaviest = &e;
      heaviestWork = work;
      heaviestDispatches = dispatches;
    }
  }
  if (!heaviest) {
    advice.reason = "the module has no dispatches: the submitting thread";
    return advice;
  }
  advice.entry = heaviest->name;
  if (heaviestWork == 0) {
    advice.reason = "entry '" + heaviest->name +
                    "' has no work estimates: the submitting thread";
    return advice;
  }
  advice.workPerDispatch = heaviestWork / heaviestDispatches;
  bool pool = advice.workPerDispatch >= kPoolWorkPerDispatch;
  advice.threads = pool ? kCpuThreadsDriverDefault : 0;
  advice.reason = "entry '" + heaviest->name +
                  "': " + metric(advice.workPerDispatch) +
                  " work per dispatch " + (pool ? ">= " : "< ") +
                  metric(kPoolWorkPerDispatch) +
                  (pool ? ": llvmpipe's pool" : ": the submitting thread");
  return advice;
}

} // namespace capture::rt
