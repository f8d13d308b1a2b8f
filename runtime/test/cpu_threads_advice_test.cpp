//===- cpu_threads_advice_test.cpp - llvmpipe's threads for a module ------===//
//
// Vulkan-free: the advice reads the ModuleDesc's work estimates alone.
//
//===----------------------------------------------------------------------===//

#include "capture/rt/cpu_threads_advice.h"
#include "capture/rt/device.h"
#include "test_util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace capture::rt;
using namespace capture::rt::test;
using ::testing::HasSubstr;

namespace {

/// Sets every dispatch of entry `name` to `work`.
void setWork(ModuleDesc &m, const std::string &name, uint64_t work) {
  for (EntryDesc &e : m.entries)
    if (e.name == name)
      for (CommandDesc &c : e.commands)
        if (c.kind == CommandDesc::Kind::Dispatch)
          c.dispatch.work = work;
}

TEST(CpuThreadsAdvice, WithoutEstimatesTheSubmittingThread) {
  CpuThreadsAdvice a = adviseCpuThreads(makeTestModule());
  EXPECT_EQ(a.threads, 0);
  EXPECT_EQ(a.workPerDispatch, 0u);
  EXPECT_EQ(a.entry, "predict");
  EXPECT_EQ(a.reason,
            "entry 'predict' has no work estimates: the submitting thread");
}

TEST(CpuThreadsAdvice, ThePoolFromTheThresholdOn) {
  ModuleDesc m = makeTestModule();
  setWork(m, "predict", kPoolWorkPerDispatch - 1);
  CpuThreadsAdvice below = adviseCpuThreads(m);
  EXPECT_EQ(below.threads, 0);
  EXPECT_EQ(below.workPerDispatch, kPoolWorkPerDispatch - 1);
  EXPECT_THAT(below.reason, HasSubstr("< 1.0M: the submitting thread"));

  setWork(m, "predict", kPoolWorkPerDispatch);
  CpuThreadsAdvice at = adviseCpuThreads(m);
  EXPECT_EQ(at.threads, kCpuThreadsDriverDefault);
  EXPECT_EQ(at.reason, "entry 'predict': 1.0M work per dispatch >= 1.0M: "
                       "llvmpipe's pool");
}

TEST(CpuThreadsAdvice, FollowsTheEntryWithTheMostWork) {
  // predict has 3 dispatches, bias 1: bias's 2M in one dispatch is less
  // work than predict's 3 x 900K, so predict's mean (< 1M) decides.
  ModuleDesc m = makeTestModule();
  setWork(m, "predict", 900000);
  setWork(m, "bias", 2000000);
  CpuThreadsAdvice a = adviseCpuThreads(m);
  EXPECT_EQ(a.entry, "predict");
  EXPECT_EQ(a.threads, 0);
  setWork(m, "bias", 3000000);
  a = adviseCpuThreads(m);
  EXPECT_EQ(a.entry, "bias");
  EXPECT_EQ(a.threads, kCpuThreadsDriverDefault);
}

TEST(CpuThreadsAdvice, SaturatesHugeEstimates) {
  // The estimates come from the file: a sum past 2^64 saturates instead of
  // wrapping to a small mean.
  ModuleDesc m = makeTestModule();
  setWork(m, "predict", UINT64_MAX / 2);
  CpuThreadsAdvice a = adviseCpuThreads(m);
  EXPECT_EQ(a.threads, kCpuThreadsDriverDefault);
  EXPECT_EQ(a.workPerDispatch, UINT64_MAX / 3);
}

TEST(CpuThreadsAdvice, WithoutDispatchesTheSubmittingThread) {
  ModuleDesc m = makeTestModule();
  for (EntryDesc &e : m.entries)
    e.commands.clear();
  CpuThreadsAdvice a = adviseCpuThreads(m);
  EXPECT_EQ(a.threads, 0);
  EXPECT_TRUE(a.entry.empty());
  EXPECT_EQ(a.reason, "the module has no dispatches: the submitting thread");
}

} // namespace
