//===- cpu_threads_advice.cpp - llvmpipe's thread count for a module ------===//

#include "capture/rt/cpu_threads_advice.h"

#include "capture/rt/census.h"
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
  // The census sums each entry's estimates (saturating) and checks the
  // indices it follows.
  Result<ModuleCensus> census = moduleCensus(desc);
  if (census.isError()) {
    advice.reason = census.message() + ": the submitting thread";
    return advice;
  }
  const EntryCensus *heaviest = nullptr;
  for (const EntryCensus &e : census->entries)
    if (e.dispatches && (!heaviest || e.work > heaviest->work))
      heaviest = &e;
  if (!heaviest) {
    advice.reason = "the module has no dispatches: the submitting thread";
    return advice;
  }
  uint64_t heaviestWork = heaviest->work;
  advice.entry = heaviest->name;
  if (heaviestWork == 0) {
    advice.reason = "entry '" + heaviest->name +
                    "' has no work estimates: the submitting thread";
    return advice;
  }
  advice.workPerDispatch = heaviestWork / heaviest->dispatches;
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
