//===- host_pool.cpp - Workgroups split across host threads ---------------===//

#include "host_pool.h"

#include <algorithm>
#include <immintrin.h>

namespace capture::rt {

/// How long a worker polls for the next job before it sleeps: a few tens of
/// microseconds, longer than the gap between two launches of a step.
constexpr int kSpinRounds = 20000;

HostPool::HostPool(unsigned threads) {
  for (unsigned i = 1; i < std::max(threads, 1u); ++i)
    workers.emplace_back([this, i] { workerLoop(i); });
}

HostPool::~HostPool() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stop.store(true, std::memory_order_release);
  }
  wake.notify_all();
  for (std::thread &t : workers)
    t.join();
}

void HostPool::workerLoop(unsigned index) {
  // The kernels run with denormals flushed on every thread (MXCSR is per
  // thread); workers run nothing else.
  _mm_setcsr(_mm_getcsr() | kFlushDenormals);
  uint64_t seen = 0;
  for (;;) {
    uint64_t now = generation.load(std::memory_order_acquire);
    for (int spin = 0; now == seen && spin < kSpinRounds; ++spin) {
      if (stop.load(std::memory_order_acquire))
        return;
      _mm_pause();
      now = generation.load(std::memory_order_acquire);
    }
    if (now == seen) {
      std::unique_lock<std::mutex> lock(mutex);
      sleeping.fetch_add(1, std::memory_order_acq_rel);
      wake.wait(lock, [&] {
        return stop.load(std::memory_order_acquire) ||
               generation.load(std::memory_order_acquire) != seen;
      });
      sleeping.fetch_sub(1, std::memory_order_acq_rel);
      if (stop.load(std::memory_order_acquire))
        return;
      now = generation.load(std::memory_order_acquire);
    }
    seen = now;
    int64_t begin, end;
    hostPartRange(jobCount, threads(), index, begin, end);
    if (begin < end)
      jobPart(jobContext, begin, end);
    pending.fetch_sub(1, std::memory_order_acq_rel);
  }
}

void HostPool::parallelFor(int64_t count, HostPart part, const void *context) {
  if (workers.empty() || count < 2) {
    part(context, 0, count);
    return;
  }
  jobPart = part;
  jobContext = context;
  jobCount = count;
  pending.store(static_cast<unsigned>(workers.size()),
                std::memory_order_relaxed);
  {
    // Under the lock, so that a worker between its last poll and its wait
    // cannot miss the new generation.
    std::lock_guard<std::mutex> lock(mutex);
    generation.fetch_add(1, std::memory_order_acq_rel);
  }
  if (sleeping.load(std::memory_order_acquire))
    wake.notify_all();
  int64_t begin, end;
  hostPartRange(count, threads(), 0, begin, end);
  part(context, begin, end);
  while (pending.load(std::memory_order_acquire))
    _mm_pause();
}

} // namespace capture::rt
