//===- cpu_threads_test.cpp - llvmpipe's thread count (LP_NUM_THREADS) ----===//
//
// Device::cpuThreadsSetting reports what llvmpipe was given and why: the
// user's LP_NUM_THREADS always wins, else DeviceOptions::cpuThreads, else
// Capture's default of 0. The variable the runtime sets lives only during
// Device::create. The ctests rt.cpu_threads_env.* run
// CpuThreads.FollowsTheEnvironment with LP_NUM_THREADS set and unset by
// ctest, naming what to expect in CAPTURE_RT_TEST_EXPECT_CPU_THREADS.
//
//===----------------------------------------------------------------------===//

#include "capture/rt/device.h"
#include "capture/rt/environment.h"
#include "test_env.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>

using namespace capture::rt;
using namespace capture::rt::test;
using ::testing::HasSubstr;

namespace {

/// LP_NUM_THREADS now, or nullopt.
std::optional<std::string> lpNumThreads() {
  const char *v = std::getenv("LP_NUM_THREADS");
  return v ? std::optional<std::string>(v) : std::nullopt;
}

/// Creates a device with `cpuThreads`; the setting it reports.
CpuThreadsSetting settingFor(std::optional<int> cpuThreads) {
  DeviceOptions options = vulkanTestOptions();
  options.cpuThreads = cpuThreads;
  Result<std::shared_ptr<Device>> device = Device::create(options);
  EXPECT_TRUE(device.isOk()) << device.message();
  return device.isOk() ? device.value()->cpuThreadsSetting()
                       : CpuThreadsSetting();
}

TEST(CpuThreads, FollowsTheEnvironment) {
  // As the process was started: by ctest with or without LP_NUM_THREADS.
  std::optional<std::string> before = lpNumThreads();
  CpuThreadsSetting s = settingFor(std::nullopt);
  EXPECT_EQ(lpNumThreads(), before) << "the environment changed";
  if (before) {
    EXPECT_EQ(s.source, CpuThreadsSource::Environment);
    EXPECT_EQ(s.environmentValue, *before);
  } else {
    EXPECT_EQ(s.source, CpuThreadsSource::CaptureDefault);
    EXPECT_EQ(s.threads, 0);
  }
  std::printf("llvmpipe threads: %s\n", describeCpuThreads(s).c_str());
  // What the ctest that set (or unset) the variable expects.
  if (const char *expect = std::getenv("CAPTURE_RT_TEST_EXPECT_CPU_THREADS")) {
    EXPECT_EQ(describeCpuThreads(s), expect);
  }
}

TEST(CpuThreads, OptionsAndTheDefault) {
  ScopedEnv env("LP_NUM_THREADS", std::nullopt);
  CpuThreadsSetting s = settingFor(std::nullopt);
  EXPECT_EQ(s.source, CpuThreadsSource::CaptureDefault);
  EXPECT_EQ(s.threads, 0);
  EXPECT_EQ(describeCpuThreads(s), "0 (Capture default)");
  // The runtime's own value does not outlive Device::create, so the next
  // device does not take it for the user's.
  EXPECT_EQ(lpNumThreads(), std::nullopt);

  s = settingFor(3);
  EXPECT_EQ(s.source, CpuThreadsSource::Options);
  EXPECT_EQ(s.threads, 3);
  EXPECT_EQ(describeCpuThreads(s), "3 (DeviceOptions)");
  EXPECT_EQ(lpNumThreads(), std::nullopt);

  s = settingFor(kCpuThreadsDriverDefault);
  EXPECT_EQ(s.source, CpuThreadsSource::Options);
  EXPECT_EQ(s.threads, std::nullopt);
  EXPECT_EQ(describeCpuThreads(s), "driver default (DeviceOptions)");
}

TEST(CpuThreads, TheEnvironmentAlwaysWins) {
  ScopedEnv env("LP_NUM_THREADS", "2");
  CpuThreadsSetting s = settingFor(0);
  EXPECT_EQ(s.source, CpuThreadsSource::Environment);
  EXPECT_EQ(s.threads, 2);
  EXPECT_EQ(s.overriddenOption, 0);
  EXPECT_EQ(describeCpuThreads(s), "2 (LP_NUM_THREADS from the environment)");
  EXPECT_EQ(lpNumThreads(), "2");

  ScopedEnv junk("LP_NUM_THREADS", "many");
  s = settingFor(std::nullopt);
  EXPECT_EQ(s.source, CpuThreadsSource::Environment);
  EXPECT_EQ(s.threads, std::nullopt);
  EXPECT_EQ(s.overriddenOption, std::nullopt);
  EXPECT_EQ(describeCpuThreads(s), "driver default (LP_NUM_THREADS='many' "
                                   "from the environment, not a count)");
}

TEST(CpuThreads, NegativeCountIsRefused) {
  DeviceOptions options;
  options.cpuThreads = -2;
  Result<std::shared_ptr<Device>> device = Device::create(options);
  ASSERT_TRUE(device.isError());
  EXPECT_EQ(device.message(),
            "DeviceOptions::cpuThreads is -2, expected a thread count >= 0, "
            "or kCpuThreadsDriverDefault (-1) to leave llvmpipe's own "
            "default");
}

} // namespace
