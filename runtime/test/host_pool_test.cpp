//===- host_pool_test.cpp - The cpu driver's threads ----------------------===//
//
// HostPool splits a launch's workgroups into contiguous parts, one per
// thread, and returns only when every part is done; every thread runs its
// part with denormals flushed to zero.
//
//===----------------------------------------------------------------------===//

#include "cpu/host_pool.h"

#include "gtest/gtest.h"

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>
#include <xmmintrin.h>

namespace {

using namespace capture::rt;

/// What the parts of one parallelFor saw.
struct Seen {
  /// How many times each index ran.
  std::vector<std::atomic<int>> runs;
  /// Indices whose thread did not flush denormals.
  std::atomic<int> unflushed{0};
  /// Parts run on a thread other than the caller's.
  std::atomic<int> elsewhere{0};
  /// The caller's thread.
  std::thread::id caller = std::this_thread::get_id();
  explicit Seen(int64_t n) : runs(static_cast<size_t>(n)) {}
};

void record(const void *context, int64_t begin, int64_t end) {
  auto &seen = *static_cast<Seen *>(const_cast<void *>(context));
  if (std::this_thread::get_id() != seen.caller)
    seen.elsewhere.fetch_add(1);
  for (int64_t i = begin; i < end; ++i) {
    seen.runs[static_cast<size_t>(i)].fetch_add(1);
    if ((_mm_getcsr() & kFlushDenormals) != kFlushDenormals &&
        std::this_thread::get_id() != seen.caller)
      seen.unflushed.fetch_add(1);
  }
}

TEST(HostPool, EveryWorkgroupRunsOnceAcrossTheThreads) {
  for (unsigned threads : {1u, 2u, 3u, 5u}) {
    HostPool pool(threads);
    EXPECT_EQ(pool.threads(), threads);
    for (int64_t count : {0, 1, 2, 3, 7, 64, 1000}) {
      // Many jobs in a row: the workers see each one exactly once.
      for (int job = 0; job < 50; ++job) {
        Seen seen(count);
        pool.parallelFor(count, record, &seen);
        for (int64_t i = 0; i < count; ++i)
          ASSERT_EQ(seen.runs[static_cast<size_t>(i)].load(), 1)
              << threads << " threads, " << count << " workgroups, index " << i;
        EXPECT_EQ(seen.unflushed.load(), 0);
        if (threads == 1 || count < 2)
          EXPECT_EQ(seen.elsewhere.load(), 0);
        else
          EXPECT_GT(seen.elsewhere.load(), 0);
      }
    }
  }
}

TEST(HostPool, AJobAfterTheWorkersSleptIsStillSeen) {
  HostPool pool(2);
  Seen first(10);
  pool.parallelFor(10, record, &first);
  // Longer than the workers poll: they sleep, and the next job wakes them.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  Seen second(10);
  pool.parallelFor(10, record, &second);
  for (int64_t i = 0; i < 10; ++i)
    EXPECT_EQ(second.runs[static_cast<size_t>(i)].load(), 1);
  EXPECT_GT(second.elsewhere.load(), 0);
}

TEST(HostPool, PartsAreContiguousAndBalanced) {
  int64_t begin, end, next = 0;
  for (unsigned i = 0; i < 3; ++i) {
    hostPartRange(10, 3, i, begin, end);
    EXPECT_EQ(begin, next);
    EXPECT_GE(end - begin, 3);
    EXPECT_LE(end - begin, 4);
    next = end;
  }
  EXPECT_EQ(next, 10);
  hostPartRange(1, 2, 1, begin, end);
  EXPECT_EQ(begin, end);
}

} // namespace
