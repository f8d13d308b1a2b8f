//===- wait_test.cpp - How a Device waits for its submissions -------------===//
//
// DeviceOptions::waitPolicy: the names and their errors, what Auto chooses
// and why, the history that times a spinning wait, and that every path of
// a spinning wait (sleep, poll, block) ends with the same results as a
// blocking one.
//
//===----------------------------------------------------------------------===//

#include "capture/rt/device.h"
#include "capture/rt/environment.h"
#include "capture/rt/module.h"
#include "device_impl.h"
#include "module_access.h"
#include "raw_commands.h"
#include "test_env.h"
#include "test_util.h"
#include "wait.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

using namespace capture::rt;
using namespace capture::rt::test;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

TEST(WaitPolicy, NamesParseAndMisspellingsAreSuggested) {
  for (WaitPolicy p : {WaitPolicy::Auto, WaitPolicy::Block, WaitPolicy::Spin}) {
    Result<WaitPolicy> parsed = parseWaitPolicy(waitPolicyName(p), "policy");
    ASSERT_TRUE(parsed.isOk()) << parsed.message();
    EXPECT_EQ(parsed.value(), p);
  }
  EXPECT_STREQ(waitPolicyName(WaitPolicy::Spin), "spin");
  Result<WaitPolicy> typo = parseWaitPolicy("spn", "option --wait");
  ASSERT_TRUE(typo.isError());
  EXPECT_EQ(typo.message(), "option --wait is 'spn', expected 'auto', "
                            "'block' or 'spin' (did you mean 'spin'?)");
  // Names are exact: a capital is an error, with the spelling to use.
  Result<WaitPolicy> capital = parseWaitPolicy("Block", "policy");
  ASSERT_TRUE(capital.isError());
  EXPECT_THAT(capital.message(), HasSubstr("(did you mean 'block'?)"));
  Result<WaitPolicy> far = parseWaitPolicy("sleep", "policy");
  ASSERT_TRUE(far.isError());
  EXPECT_THAT(far.message(), Not(HasSubstr("did you mean")));
}

/// A DeviceInfo of `type`.
DeviceInfo infoOf(DeviceType type) {
  DeviceInfo info;
  info.name = "test device";
  info.type = type;
  return info;
}

/// llvmpipe's thread setting with `threads` (absent: the driver default).
CpuThreadsSetting threadsOf(std::optional<int> threads) {
  CpuThreadsSetting s;
  s.threads = threads;
  return s;
}

TEST(WaitPolicy, AutoSpinsOnlyBesideLlvmpipeWithoutItsPool) {
  auto choose = [](DeviceType type, std::optional<int> threads, unsigned cpus) {
    Result<WaitSetting> s =
        chooseWait(WaitPolicy::Auto, infoOf(type), threadsOf(threads), cpus);
    EXPECT_TRUE(s.isOk()) << s.message();
    return s.isOk() ? s.value() : WaitSetting();
  };
  WaitSetting spin = choose(DeviceType::Cpu, 0, 4);
  EXPECT_EQ(spin.policy, WaitPolicy::Spin);
  EXPECT_EQ(spin.requested, WaitPolicy::Auto);
  EXPECT_EQ(describeWait(spin), "spin (auto: llvmpipe runs without its pool "
                                "and this process may use 4 CPUs)");
  WaitSetting oneCpu = choose(DeviceType::Cpu, 0, 1);
  EXPECT_EQ(oneCpu.policy, WaitPolicy::Block);
  EXPECT_THAT(oneCpu.reason, HasSubstr("may use 1 CPU"));
  for (std::optional<int> pool :
       {std::optional<int>(4), std::optional<int>()}) {
    WaitSetting beside = choose(DeviceType::Cpu, pool, 16);
    EXPECT_EQ(beside.policy, WaitPolicy::Block);
    EXPECT_THAT(beside.reason, HasSubstr("runs its pool"));
  }
  WaitSetting gpu = choose(DeviceType::DiscreteGpu, 0, 16);
  EXPECT_EQ(gpu.policy, WaitPolicy::Block);
  EXPECT_EQ(describeWait(gpu),
            "block (auto: the device is not the CPU device)");
  // Given outright, a policy holds on any device.
  Result<WaitSetting> given = chooseWait(
      WaitPolicy::Spin, infoOf(DeviceType::DiscreteGpu), threadsOf(4), 1);
  ASSERT_TRUE(given.isOk());
  EXPECT_EQ(given->policy, WaitPolicy::Spin);
  EXPECT_EQ(describeWait(given.value()), "spin (DeviceOptions)");
}

TEST(WaitPolicy, AValueOutsideTheEnumIsAnError) {
  DeviceOptions options = vulkanTestOptions();
  options.waitPolicy = static_cast<WaitPolicy>(7);
  Result<std::shared_ptr<Device>> device = Device::create(options);
  ASSERT_TRUE(device.isError());
  EXPECT_EQ(device.message(),
            "DeviceOptions::waitPolicy is 7, expected WaitPolicy::Auto (0), "
            "WaitPolicy::Block (1) or WaitPolicy::Spin (2)");
}

TEST(WaitHistory, PredictsTheLeastOfTheLastEightWaits) {
  WaitHistory h;
  EXPECT_EQ(h.expectedNs(), std::nullopt);
  h.add(500);
  EXPECT_EQ(h.expectedNs(), 500u);
  h.add(900);
  h.add(300);
  EXPECT_EQ(h.expectedNs(), 300u);
  // Eight later waits push the 300 out.
  for (uint64_t ns = 1000; ns < 1008; ++ns)
    h.add(ns);
  EXPECT_EQ(h.expectedNs(), 1000u);
}

/// A device with `policy`, as the environment asks otherwise.
std::shared_ptr<Device> deviceWith(WaitPolicy policy) {
  DeviceOptions options = vulkanTestOptions();
  options.waitPolicy = policy;
  Result<std::shared_ptr<Device>> device = Device::create(options);
  EXPECT_TRUE(device.isOk()) << device.message();
  return device.isOk() ? device.value() : nullptr;
}

/// Replays the test module's predict entry `calls` times on `device`; the
/// outputs of each call.
std::vector<std::vector<float>> replays(const std::shared_ptr<Device> &device,
                                        int calls) {
  std::vector<uint8_t> bytes = writeCapmod(makeTestModule());
  Result<std::unique_ptr<Module>> m =
      Module::loadBytes(device, bytes.data(), bytes.size());
  EXPECT_TRUE(m.isOk()) << m.message();
  std::vector<std::vector<float>> outs;
  if (m.isError())
    return outs;
  for (int k = 0; k < calls; ++k) {
    std::vector<float> x = inputX();
    x[k % x.size()] += static_cast<float>(k);
    Result<std::vector<NamedTensor>> out =
        m.value()->run("predict", {{"x", HostTensor::f32({2, 4}, x)},
                                   {"b", HostTensor::f32({2, 4}, inputB())}});
    EXPECT_TRUE(out.isOk()) << out.message();
    if (out.isError())
      return outs;
    EXPECT_THAT(out.value()[0].tensor.asF32(),
                ElementsAreArray(expectY(x, inputB(), initialWeights())));
    outs.push_back(out.value()[0].tensor.asF32());
  }
  return outs;
}

/// Sum of the counts.
uint64_t total(const WaitCounts &c) { return c.blocked + c.slept + c.polled; }

TEST(WaitPolicy, TheDefaultIsWhatAutoChoosesForTheDevice) {
  std::shared_ptr<Device> device = deviceWith(WaitPolicy::Auto);
  ASSERT_TRUE(device);
  Result<WaitSetting> expected =
      chooseWait(WaitPolicy::Auto, device->info(), device->cpuThreadsSetting(),
                 allowedCpus());
  ASSERT_TRUE(expected.isOk());
  EXPECT_EQ(device->waitSetting().policy, expected->policy);
  EXPECT_EQ(device->waitSetting().reason, expected->reason);
  EXPECT_EQ(DeviceOptions().waitPolicy, WaitPolicy::Auto);
  std::printf("wait: %s\n", describeWait(device->waitSetting()).c_str());
}

TEST(WaitPolicy, BlockAndSpinGiveTheSameResults) {
  std::shared_ptr<Device> block = deviceWith(WaitPolicy::Block);
  std::shared_ptr<Device> spin = deviceWith(WaitPolicy::Spin);
  ASSERT_TRUE(block && spin);
  const int calls = 20;
  std::vector<std::vector<float>> blocked = replays(block, calls);
  std::vector<std::vector<float>> spun = replays(spin, calls);
  EXPECT_EQ(blocked.size(), static_cast<size_t>(calls));
  EXPECT_EQ(blocked, spun);
  // Every wait is counted, once; a blocking device never polls.
  WaitCounts b = block->waitCounts();
  EXPECT_EQ(b.polled + b.slept, 0u);
  EXPECT_GE(b.blocked, static_cast<uint64_t>(calls));
  EXPECT_GE(total(spin->waitCounts()), static_cast<uint64_t>(calls));
  EXPECT_EQ(total(spin->waitCounts()), total(b));
}

/// The test module loaded on `device`, and its predict entry's history.
struct Loaded {
  /// The module.
  std::unique_ptr<Module> module;
  /// The history of its predict entry.
  WaitHistory *history = nullptr;
};
Loaded loadTestModule(const std::shared_ptr<Device> &device) {
  std::vector<uint8_t> bytes = writeCapmod(makeTestModule());
  Result<std::unique_ptr<Module>> m =
      Module::loadBytes(device, bytes.data(), bytes.size());
  EXPECT_TRUE(m.isOk()) << m.message();
  if (m.isError())
    return {};
  Loaded out;
  out.module = std::move(m).value();
  out.history = ModuleTestAccess::waitHistory(*out.module, "predict");
  EXPECT_TRUE(out.history);
  return out;
}

/// One replay of predict; whether it gave the expected y.
bool predictOnce(Module &m) {
  Result<std::vector<NamedTensor>> out =
      m.run("predict", {{"x", HostTensor::f32({2, 4}, inputX())},
                        {"b", HostTensor::f32({2, 4}, inputB())}});
  EXPECT_TRUE(out.isOk()) << out.message();
  return out.isOk() && out.value()[0].tensor.asF32() ==
                           expectY(inputX(), inputB(), initialWeights());
}

/// A submission on a device's queue that cannot end before the host sets
/// its event: it is one vkCmdWaitEvents.
class HeldSubmission {
public:
  explicit HeldSubmission(Device::Impl &impl) : impl_(impl), raw_(impl) {
    VkEventCreateInfo eventInfo{};
    eventInfo.sType = VK_STRUCTURE_TYPE_EVENT_CREATE_INFO;
    EXPECT_EQ(vkCreateEvent(impl.device, &eventInfo, nullptr, &event_),
              VK_SUCCESS);
    VkFenceCreateInfo fenceInfo{};
    fenceInfo.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    EXPECT_EQ(vkCreateFence(impl.device, &fenceInfo, nullptr, &fence_),
              VK_SUCCESS);
    vkCmdWaitEvents(raw_.cmd(), 1, &event_, VK_PIPELINE_STAGE_HOST_BIT,
                    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, nullptr, 0,
                    nullptr, 0, nullptr);
    raw_.end();
  }
  ~HeldSubmission() {
    impl_.waitBeforeDestroy(fence_);
    vkDestroyFence(impl_.device, fence_, nullptr);
    vkDestroyEvent(impl_.device, event_, nullptr);
  }
  /// Submits it; it then runs until release().
  Status submit() {
    return impl_.submit(raw_.cmd(), fence_, "the held submission");
  }
  /// Lets it end.
  void release() { EXPECT_EQ(vkSetEvent(impl_.device, event_), VK_SUCCESS); }
  /// The fence it signals.
  VkFence fence() const { return fence_; }

private:
  /// The device it runs on.
  Device::Impl &impl_;
  /// Its one command.
  RawCommands raw_;
  /// What the host sets to let it end.
  VkEvent event_ = VK_NULL_HANDLE;
  /// What it signals.
  VkFence fence_ = VK_NULL_HANDLE;
};

TEST(WaitPolicy, ASpinningWaitBlocksOnceItsPollingWindowIsOver) {
  // No history and no first spin: the window closes at the first poll. A
  // submission the host holds back for 200 ms is not done then, so the
  // wait blocks until it ends, and the history learns how long it took.
  std::shared_ptr<Device> spin = deviceWith(WaitPolicy::Spin);
  ASSERT_TRUE(spin);
  Device::Impl &impl = spin->impl();
  impl.spinTimes = SpinTimes{UINT64_MAX, 0, 0};
  HeldSubmission held(impl);
  WaitHistory history;
  WaitCounts before = spin->waitCounts();
  ASSERT_TRUE(held.submit().isOk());
  std::thread releaser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    held.release();
  });
  Status waited = impl.wait(held.fence(), "the held submission", &history);
  releaser.join();
  ASSERT_TRUE(waited.isOk()) << waited.message();
  WaitCounts after = spin->waitCounts();
  EXPECT_EQ(after.blocked, before.blocked + 1);
  EXPECT_EQ(after.polled, before.polled);
  EXPECT_EQ(after.slept, before.slept);
  ASSERT_TRUE(history.expectedNs());
  EXPECT_GE(*history.expectedNs(), 100'000'000u);
  // Replays that do go down the same path still give their results.
  Loaded m = loadTestModule(spin);
  ASSERT_TRUE(m.history);
  WaitCounts loaded = spin->waitCounts();
  for (int k = 0; k < 5; ++k) {
    m.history->add(1);
    EXPECT_TRUE(predictOnce(*m.module));
  }
  EXPECT_EQ(total(spin->waitCounts()) - total(loaded), 5u);
  EXPECT_EQ(spin->waitCounts().slept, before.slept);
}

TEST(WaitPolicy, ASpinningWaitSleepsThroughAStepTheHistoryCallsLong) {
  // A history that predicts far more than the margin: the wait sleeps in
  // vkWaitForFences first, where a short step then ends.
  std::shared_ptr<Device> spin = deviceWith(WaitPolicy::Spin);
  ASSERT_TRUE(spin);
  spin->impl().spinTimes.sleepMarginNs = 1000;
  Loaded m = loadTestModule(spin);
  ASSERT_TRUE(m.history);
  WaitCounts before = spin->waitCounts();
  // Two seconds predicted: the step ends long before, during the sleep.
  m.history->add(2'000'000'000);
  EXPECT_TRUE(predictOnce(*m.module));
  EXPECT_EQ(spin->waitCounts().slept, before.slept + 1);
  EXPECT_EQ(total(spin->waitCounts()), total(before) + 1);
}

} // namespace
