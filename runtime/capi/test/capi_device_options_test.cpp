//===- capi_device_options_test.cpp - Device options, llvmpipe's threads --===//
//
// capture_device_create_with_options with each cpu_threads form on the CPU
// device, the checks of every field, and the thread advice for modules in
// memory and on disk.
//
//===----------------------------------------------------------------------===//

#include "capi_fixture.h"
#include "test_util.h"

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace capture::capi::test;
namespace rt = capture::rt;
namespace rtt = capture::rt::test;

namespace {

/// A device handle destroyed on destruction.
struct DeviceDeleter {
  void operator()(capture_device *d) const { capture_device_destroy(d); }
};
using OwnedDevice = std::unique_ptr<capture_device, DeviceDeleter>;

/// The CPU device made with cpu_threads = `threads`.
OwnedDevice cpuDevice(int32_t threads) {
  capture_device_options options;
  capture_device_options_init(&options);
  options.selector = "cpu";
  options.cpu_threads = threads;
  capture_device *device = nullptr;
  capture_status s = capture_device_create_with_options(&options, &device);
  EXPECT_EQ(s, nullptr) << takeMessage(s);
  return OwnedDevice(device);
}

/// Every dispatch of the test module's entry `name` given `work`.
rt::ModuleDesc moduleWithWork(const std::string &name, uint64_t work) {
  rt::ModuleDesc m = rtt::makeTestModule();
  for (rt::EntryDesc &e : m.entries)
    if (e.name == name)
      for (rt::CommandDesc &c : e.commands)
        if (c.kind == rt::CommandDesc::Kind::Dispatch)
          c.dispatch.work = work;
  return m;
}

TEST(CapiDeviceOptions, InitSetsTheDefaults) {
  capture_device_options options;
  std::memset(&options, 0x5a, sizeof(options));
  capture_device_options_init(&options);
  EXPECT_EQ(options.struct_size, sizeof(capture_device_options));
  EXPECT_EQ(options.selector, nullptr);
  EXPECT_EQ(options.cpu_threads, CAPTURE_CPU_THREADS_UNSET);
  EXPECT_EQ(options.validation, 0);
  EXPECT_EQ(options.memory_limit, 0u);
  EXPECT_EQ(options.wait_policy, CAPTURE_WAIT_AUTO);
  capture_device_options_init(nullptr);
}

TEST(CapiDeviceOptions, TheWaitPolicyReachesTheDevice) {
  struct Case {
    int32_t option, policy;
    const char *description;
  };
  for (Case c :
       {Case{CAPTURE_WAIT_BLOCK, CAPTURE_WAIT_BLOCK, "block (DeviceOptions)"},
        Case{CAPTURE_WAIT_SPIN, CAPTURE_WAIT_SPIN, "spin (DeviceOptions)"}}) {
    SCOPED_TRACE(c.option);
    capture_device_options options;
    capture_device_options_init(&options);
    options.selector = "vulkan"; // the host device always blocks
    options.wait_policy = c.option;
    capture_device *raw = nullptr;
    CAPI_ASSERT_OK(capture_device_create_with_options(&options, &raw));
    OwnedDevice device(raw);
    int32_t policy = -1;
    const char *description = nullptr;
    CAPI_EXPECT_OK(capture_device_wait(device.get(), &policy, &description));
    EXPECT_EQ(policy, c.policy);
    EXPECT_STREQ(description, c.description);
    CAPI_EXPECT_OK(capture_device_wait(device.get(), nullptr, nullptr));
  }
  // A caller built against the header before wait_policy: its struct ends
  // before the field, whatever lies past it, and it gets auto.
  capture_device_options options;
  capture_device_options_init(&options);
  options.selector = "vulkan";
  options.struct_size = offsetof(capture_device_options, wait_policy);
  options.wait_policy = 77;
  capture_device *raw = nullptr;
  CAPI_ASSERT_OK(capture_device_create_with_options(&options, &raw));
  OwnedDevice device(raw);
  const char *description = nullptr;
  CAPI_EXPECT_OK(capture_device_wait(device.get(), nullptr, &description));
  EXPECT_THAT(description, ::testing::HasSubstr(" (auto: "));
}

TEST(CapiDeviceOptions, CpuThreadsReachTheDevice) {
  // The user's LP_NUM_THREADS always wins: the options would not show.
  if (std::getenv("LP_NUM_THREADS"))
    GTEST_SKIP() << "LP_NUM_THREADS is set";
  struct Case {
    int32_t option, threads;
    const char *description;
  };
  for (Case c : {Case{CAPTURE_CPU_THREADS_UNSET, 0, "0 (Capture default)"},
                 Case{3, 3, "3 (DeviceOptions)"},
                 Case{CAPTURE_CPU_THREADS_POOL, CAPTURE_CPU_THREADS_POOL,
                      "driver default (DeviceOptions)"}}) {
    SCOPED_TRACE(c.option);
    OwnedDevice device = cpuDevice(c.option);
    ASSERT_NE(device, nullptr);
    int32_t threads = -100;
    const char *description = nullptr;
    CAPI_EXPECT_OK(
        capture_device_cpu_threads(device.get(), &threads, &description));
    EXPECT_EQ(threads, c.threads);
    EXPECT_STREQ(description, c.description);
    // Either out-parameter may be left out.
    CAPI_EXPECT_OK(capture_device_cpu_threads(device.get(), nullptr, nullptr));
  }
}

TEST(CapiDeviceOptions, EveryFieldIsChecked) {
  capture_device_options options;
  capture_device_options_init(&options);
  capture_device *device = nullptr;
  auto create = [&] {
    return error(capture_device_create_with_options(&options, &device));
  };

  options.struct_size = 0; // a struct the caller did not initialize
  EXPECT_THAT(create(),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT,
                      {"capture_device_create_with_options: "
                       "options->struct_size is 0, expected " +
                           std::to_string(sizeof(capture_device_options)),
                       "capture_device_options_init"}));
  capture_device_options_init(&options);
  options.cpu_threads = -3;
  EXPECT_THAT(create(), isError(CAPTURE_STATUS_INVALID_ARGUMENT,
                                {"options->cpu_threads is -3, expected a "
                                 "thread count >= 0, CAPTURE_CPU_THREADS_POOL "
                                 "(-1) or CAPTURE_CPU_THREADS_UNSET (-2)"}));
  capture_device_options_init(&options);
  options.wait_policy = 3;
  EXPECT_THAT(create(), isError(CAPTURE_STATUS_INVALID_ARGUMENT,
                                {"options->wait_policy is 3, expected "
                                 "CAPTURE_WAIT_AUTO (0), CAPTURE_WAIT_BLOCK "
                                 "(1) or CAPTURE_WAIT_SPIN (2)"}));
  capture_device_options_init(&options);
  options.validation = 2;
  EXPECT_THAT(create(), isError(CAPTURE_STATUS_INVALID_ARGUMENT,
                                {"options->validation is 2, expected 0 or 1"}));
  capture_device_options_init(&options);
  options.selector = "no-such-device-x7";
  EXPECT_THAT(create(), isError(CAPTURE_STATUS_ERROR,
                                {"capture_device_create_with_options: ",
                                 "'no-such-device-x7'"}));
  EXPECT_EQ(device, nullptr);

  capture_device_options_init(&options);
  EXPECT_THAT(error(capture_device_create_with_options(nullptr, &device)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT, {"options is NULL"}));
  EXPECT_THAT(error(capture_device_create_with_options(&options, nullptr)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT, {"out_device is NULL"}));
  EXPECT_THAT(error(capture_device_cpu_threads(nullptr, nullptr, nullptr)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT,
                      {"capture_device_cpu_threads: device is NULL"}));
  EXPECT_THAT(error(capture_device_wait(nullptr, nullptr, nullptr)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT,
                      {"capture_device_wait: device is NULL"}));
}

TEST(CapiDeviceOptions, AdviceFollowsTheWorkEstimates) {
  // predict's dispatches at 2M each: the pool; at 10 each: 0.
  std::vector<uint8_t> heavy =
      rt::writeCapmod(moduleWithWork("predict", 2000000));
  int32_t threads = -100;
  char reason[128];
  CAPI_ASSERT_OK(capture_advise_cpu_threads_bytes(
      heavy.data(), heavy.size(), &threads, reason, sizeof(reason)));
  EXPECT_EQ(threads, CAPTURE_CPU_THREADS_POOL);
  EXPECT_STREQ(reason, "entry 'predict': 2.0M work per dispatch >= 1.0M: "
                       "llvmpipe's pool");

  std::string path = ::testing::TempDir() + "capi_advice.capmod";
  ASSERT_TRUE(rt::writeCapmodFile(path, moduleWithWork("predict", 10)).isOk());
  CAPI_ASSERT_OK(capture_advise_cpu_threads_file(path.c_str(), &threads, reason,
                                                 sizeof(reason)));
  EXPECT_EQ(threads, 0);
  EXPECT_THAT(std::string(reason),
              ::testing::HasSubstr(": the submitting thread"));

  // The reason is truncated to fit, NUL included, or left out.
  char shortReason[9];
  CAPI_ASSERT_OK(capture_advise_cpu_threads_bytes(
      heavy.data(), heavy.size(), &threads, shortReason, sizeof(shortReason)));
  EXPECT_STREQ(shortReason, "entry 'p");
  threads = -100;
  CAPI_ASSERT_OK(capture_advise_cpu_threads_bytes(heavy.data(), heavy.size(),
                                                  &threads, nullptr, 0));
  EXPECT_EQ(threads, CAPTURE_CPU_THREADS_POOL);
  std::remove(path.c_str());
}

TEST(CapiDeviceOptions, AdviceRefusesBadInput) {
  int32_t threads = -100;
  char reason[16] = "untouched";
  EXPECT_THAT(error(capture_advise_cpu_threads_file(
                  "/no/such/dir/x.capmod", &threads, reason, sizeof(reason))),
              isError(CAPTURE_STATUS_ERROR,
                      {"capture_advise_cpu_threads_file: ", "x.capmod"}));
  const char junk[] = "not a module";
  EXPECT_THAT(
      error(capture_advise_cpu_threads_bytes(junk, sizeof(junk), &threads,
                                             reason, sizeof(reason))),
      isError(CAPTURE_STATUS_ERROR, {"capture_advise_cpu_threads_bytes: "}));
  EXPECT_EQ(threads, -100);
  EXPECT_STREQ(reason, "untouched");

  std::vector<uint8_t> m = rt::writeCapmod(rtt::makeTestModule());
  EXPECT_THAT(error(capture_advise_cpu_threads_bytes(m.data(), m.size(),
                                                     &threads, nullptr, 4)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT,
                      {"reason is NULL but reason_size is 4, expected 0"}));
  EXPECT_THAT(
      error(capture_advise_cpu_threads_bytes(m.data(), m.size(), nullptr,
                                             reason, 4)),
      isError(CAPTURE_STATUS_INVALID_ARGUMENT, {"out_threads is NULL"}));
  EXPECT_THAT(
      error(capture_advise_cpu_threads_bytes(nullptr, 4, &threads, reason, 4)),
      isError(CAPTURE_STATUS_INVALID_ARGUMENT, {"data is NULL"}));
  EXPECT_THAT(
      error(capture_advise_cpu_threads_file(nullptr, &threads, reason, 4)),
      isError(CAPTURE_STATUS_INVALID_ARGUMENT, {"path is NULL"}));
}

TEST(CapiDevice, TheChoiceSaysWhichRuleChose) {
  for (const char *selector : {"vulkan", "host"}) {
    capture_device *raw = nullptr;
    CAPI_ASSERT_OK(capture_device_create(selector, &raw));
    OwnedDevice device(raw);
    const char *choice = nullptr;
    CAPI_ASSERT_OK(capture_device_choice(device.get(), &choice));
    EXPECT_EQ(std::string(choice), "selector '" + std::string(selector) + "'");
    EXPECT_THAT(error(capture_device_choice(device.get(), nullptr)),
                isError(CAPTURE_STATUS_INVALID_ARGUMENT,
                        {"capture_device_choice: out_choice is NULL"}));
  }
  capture_device *raw = nullptr;
  CAPI_ASSERT_OK(capture_device_create(nullptr, &raw));
  OwnedDevice device(raw);
  const char *choice = nullptr;
  CAPI_ASSERT_OK(capture_device_choice(device.get(), &choice));
  EXPECT_THAT(choice, ::testing::StartsWith("default: "));
}

} // namespace
