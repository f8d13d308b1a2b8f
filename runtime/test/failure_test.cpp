//===- failure_test.cpp - Vulkan errors, out of memory, device loss -------===//
//
// lavapipe does not fail on demand, so the failure paths are reached by the
// runtime's own refusals: a buffer larger than the device allocates at once,
// and DeviceOptions::memoryLimit, which makes any chosen allocation of a
// load or a replay fail. Device loss cannot be provoked: its bookkeeping is
// fed the VK_ERROR_DEVICE_LOST a driver would return. Each test checks the
// message (call, object, result), that nothing stays allocated, and, under
// the validation layer when it is installed, that no object leaked.
//
//===----------------------------------------------------------------------===//

#include "capture/rt/capmod.h"
#include "capture/rt/environment.h"
#include "capture/rt/module.h"
#include "test_env.h"
#include "test_util.h"
#include "texel_module.h"
#include "train_module.h"

// Internal headers: the failing calls and the device's bookkeeping.
#include "buffer.h"
#include "device_impl.h"
#include "pipeline.h"
#include "vk_util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <regex>
#include <set>
#include <thread>

using namespace capture::rt;
using namespace capture::rt::test;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace {

/// Counts validation messages into a place that outlives the Device, so
/// that leaks reported by its destruction are seen. Without the layer the
/// tests still run, without that check.
struct Messages {
  /// Guards `all` (layers may call back from several threads).
  std::mutex mutex;
  /// Every message.
  std::vector<std::string> all;

  DeviceOptions options() {
    DeviceOptions o = vulkanTestOptions();
    o.validation = validationLayerAvailable();
    o.onValidationMessage = [this](const std::string &m) {
      std::lock_guard<std::mutex> lock(mutex);
      all.push_back(m);
    };
    return o;
  }
  std::string text() {
    std::lock_guard<std::mutex> lock(mutex);
    std::string s;
    for (const std::string &m : all)
      s += m + "\n";
    return s;
  }
  size_t count() {
    std::lock_guard<std::mutex> lock(mutex);
    return all.size();
  }
};

/// Ends the process with a message when a test runs longer than `seconds`:
/// destroying objects after a failure must not wait forever (a fence that
/// was never submitted is never signalled), and a hang would block the
/// whole test run instead of failing this test.
class Watchdog {
public:
  Watchdog(const char *what, int seconds)
      : thread([this, what, seconds] {
          std::unique_lock<std::mutex> lock(mutex);
          if (!done.wait_for(lock, std::chrono::seconds(seconds),
                             [this] { return finished; })) {
            std::fprintf(stderr,
                         "failure_test: %s still runs after %d s: a "
                         "destructor probably waits for a fence that was "
                         "never submitted\n",
                         what, seconds);
            std::_Exit(3);
          }
        }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      finished = true;
    }
    done.notify_one();
    thread.join();
  }
  Watchdog(const Watchdog &) = delete;
  Watchdog &operator=(const Watchdog &) = delete;

private:
  /// Guards `finished`.
  std::mutex mutex;
  /// Signalled when the test ends.
  std::condition_variable done;
  /// Whether the test ended.
  bool finished = false;
  /// Waits for the end or the deadline; declared last so that it starts
  /// after the members it uses.
  std::thread thread;
};

std::vector<NamedTensor> predictInputs() {
  return {{"x", HostTensor::f32({2, 4}, inputX())},
          {"b", HostTensor::f32({2, 4}, inputB())}};
}

Result<std::unique_ptr<Module>> loadDesc(const std::shared_ptr<Device> &device,
                                         const ModuleDesc &desc) {
  std::vector<uint8_t> bytes = writeCapmod(desc);
  return Module::loadBytes(device, bytes.data(), bytes.size());
}

TEST(VkErrors, NameTheCallTheObjectAndTheResult) {
  EXPECT_TRUE(vkCheck(VK_SUCCESS, "vkQueueSubmit", "x").isOk());
  EXPECT_EQ(vkResultName(VK_ERROR_DEVICE_LOST), "VK_ERROR_DEVICE_LOST");
  EXPECT_EQ(vkResultName(static_cast<VkResult>(-12345)), "VkResult(-12345)");

  Status lost = vkCheck(VK_ERROR_DEVICE_LOST, "vkQueueSubmit",
                        "replay of entry 'predict'");
  ASSERT_TRUE(lost.isError());
  EXPECT_THAT(lost.message(),
              AllOf(StartsWith("vkQueueSubmit failed for replay of entry "
                               "'predict': VK_ERROR_DEVICE_LOST (the device "
                               "was lost"),
                    HasSubstr("destroy its modules and the Device")));

  Status oom = vkCheck(VK_ERROR_OUT_OF_DEVICE_MEMORY, "vkAllocateMemory",
                       "buffer 'weights' (69392 bytes, device-local)");
  EXPECT_THAT(oom.message(),
              StartsWith("vkAllocateMemory failed for buffer 'weights' (69392 "
                         "bytes, device-local): VK_ERROR_OUT_OF_DEVICE_MEMORY "
                         "(out of device memory"));
  // No hint to add: the result alone.
  EXPECT_EQ(
      vkCheck(VK_ERROR_FRAGMENTED_POOL, "vkAllocateDescriptorSets", "entry 'e'")
          .message(),
      "vkAllocateDescriptorSets failed for entry 'e': "
      "VK_ERROR_FRAGMENTED_POOL");
}

TEST(VkErrors, FailedCreationLeavesANullHandle) {
  // Vulkan leaves a failed call's outputs undefined; a destructor must
  // then see VK_NULL_HANDLE, not garbage.
  VkFence fence = reinterpret_cast<VkFence>(uintptr_t(0xdead));
  Status s = vkCheckHandle(VK_ERROR_OUT_OF_HOST_MEMORY, fence, "vkCreateFence",
                           "the module");
  EXPECT_EQ(fence, VkFence(VK_NULL_HANDLE));
  EXPECT_THAT(s.message(), StartsWith("vkCreateFence failed for the module: "
                                      "VK_ERROR_OUT_OF_HOST_MEMORY"));
  VkFence kept = reinterpret_cast<VkFence>(uintptr_t(0xbeef));
  EXPECT_TRUE(vkCheckHandle(VK_SUCCESS, kept, "vkCreateFence", "x").isOk());
  EXPECT_EQ(kept, reinterpret_cast<VkFence>(uintptr_t(0xbeef)));
}

TEST(OutOfMemory, BufferLargerThanTheDeviceAllocatesIsRefused) {
  Watchdog watchdog("BufferLargerThanTheDeviceAllocatesIsRefused", 60);
  Messages messages;
  {
    Result<std::shared_ptr<Device>> device = Device::create(messages.options());
    ASSERT_TRUE(device.isOk()) << device.message();
    Device::Impl &impl = device.value()->impl();
    uint64_t largest = device.value()->limits().maxAllocationSize;
    ASSERT_GT(largest, 0u);
    for (uint64_t size : {largest + 1, uint64_t(1) << 62}) {
      Result<Buffer> huge =
          Buffer::create(impl, size, Buffer::Usage::Device, "buffer 'weights'");
      ASSERT_TRUE(huge.isError()) << size << " bytes were allocated";
      EXPECT_THAT(
          huge.message(),
          AllOf(StartsWith("vkAllocateMemory failed for buffer "
                           "'weights' (" +
                           std::to_string(size) +
                           " bytes, device-local): refused"),
                HasSubstr("more than device '" + device.value()->info().name +
                          "' allocates at once (" + std::to_string(largest) +
                          " bytes"),
                HasSubstr("VK_ERROR_OUT_OF_DEVICE_MEMORY")));
    }
    Result<Buffer> staging =
        Buffer::create(impl, largest + 1, Buffer::Usage::Readback, "staging");
    ASSERT_TRUE(staging.isError());
    EXPECT_THAT(staging.message(), HasSubstr("bytes, host-visible, read-back"));
    EXPECT_EQ(device.value()->memoryInUse(), 0u);

    // The device is still usable: a buffer, a module, a replay.
    Result<Buffer> small =
        Buffer::create(impl, 256, Buffer::Usage::Device, "small");
    ASSERT_TRUE(small.isOk()) << small.message();
    EXPECT_GE(device.value()->memoryInUse(), 256u);
    Result<std::unique_ptr<Module>> m =
        loadDesc(device.value(), makeTestModule());
    ASSERT_TRUE(m.isOk()) << m.message();
    Result<std::vector<NamedTensor>> out =
        m.value()->run("predict", predictInputs());
    ASSERT_TRUE(out.isOk()) << out.message();
    EXPECT_THAT(out.value()[0].tensor.asF32(),
                ::testing::ElementsAreArray(
                    expectY(inputX(), inputB(), initialWeights())));
  }
  // Asking for more than a heap holds would have been a validation error.
  EXPECT_EQ(messages.count(), 0u) << messages.text();
}

/// Loads `desc` under a memory limit raised one allocation at a time, from
/// 1 byte until the load succeeds: every allocation that raises the peak
/// fails once (a temporary staging buffer no larger than one freed before
/// it then fits). Returns the objects named by the failures and leaves the
/// limit at the first one that loads.
std::set<std::string> failEveryAllocation(const std::shared_ptr<Device> &device,
                                          const ModuleDesc &desc,
                                          std::unique_ptr<Module> &loaded) {
  Device::Impl &impl = device->impl();
  std::regex refusal("vkAllocateMemory failed for (.*) \\(\\d+ bytes, "
                     "[^)]*\\): refused before the call: (\\d+) more bytes "
                     "would pass the memory limit .* (\\d+) in use\\)");
  std::set<std::string> objects;
  impl.memoryLimit = 1; // 0 would mean no limit
  for (int attempt = 0; attempt < 100; ++attempt) {
    Result<std::unique_ptr<Module>> m = loadDesc(device, desc);
    if (m.isOk()) {
      loaded = std::move(m).value();
      return objects;
    }
    EXPECT_EQ(device->memoryInUse(), 0u) << "after failed load " << attempt;
    std::smatch match;
    if (!std::regex_search(m.message(), match, refusal)) {
      ADD_FAILURE() << "not a memory-limit refusal: " << m.message();
      return objects;
    }
    objects.insert(match[1]);
    // Exactly enough for this allocation: the next one fails.
    impl.memoryLimit = std::stoull(match[3]) + std::stoull(match[2]);
  }
  ADD_FAILURE() << "the module never loaded";
  return objects;
}

TEST(OutOfMemory, EveryAllocationOfALoadFailsCleanly) {
  Watchdog watchdog("EveryAllocationOfALoadFailsCleanly", 60);
  Messages messages;
  {
    Result<std::shared_ptr<Device>> device = Device::create(messages.options());
    ASSERT_TRUE(device.isOk()) << device.message();
    std::unique_ptr<Module> module;
    std::set<std::string> objects =
        failEveryAllocation(device.value(), makeTestModule(), module);
    ASSERT_TRUE(module);
    // Device buffers, per-entry staging and the temporary staging of the
    // initial weights all failed once.
    for (const char *object :
         {"buffer 0 (Input)", "buffer 3 (Constants)",
          "input staging of entry 'predict'",
          "output staging of entry 'predict'", "staging of initial weights"})
      EXPECT_EQ(objects.count(object), 1u)
          << object << " never failed; failures: " << objects.size();

    // The loaded module runs, then, with no memory left, fails to allocate
    // the staging of a parameter upload and read-back, and works again
    // with more memory.
    ASSERT_TRUE(module->run("predict", predictInputs()).isOk());
    device.value()->impl().memoryLimit = device.value()->memoryInUse();
    Status set = module->setParam("w", HostTensor::f32({2, 4}, inputB()));
    ASSERT_TRUE(set.isError());
    EXPECT_THAT(set.message(),
                AllOf(HasSubstr("vkAllocateMemory failed for staging of "
                                "parameter 'w' (32 bytes, host-visible"),
                      HasSubstr("VK_ERROR_OUT_OF_DEVICE_MEMORY")));
    ASSERT_TRUE(module->getParam("w").isError());
    device.value()->impl().memoryLimit = 0;
    ASSERT_TRUE(
        module->setParam("w", HostTensor::f32({2, 4}, inputB())).isOk());
    Result<std::vector<NamedTensor>> out =
        module->run("predict", predictInputs());
    ASSERT_TRUE(out.isOk()) << out.message();
    EXPECT_THAT(
        out.value()[0].tensor.asF32(),
        ::testing::ElementsAreArray(expectY(inputX(), inputB(), inputB())));
    module.reset();
    EXPECT_EQ(device.value()->memoryInUse(), 0u);
  }
  // Leaks of the failed loads are reported at vkDestroyDevice.
  EXPECT_EQ(messages.count(), 0u) << messages.text();
}

TEST(OutOfMemory, TrainingModuleLoadsFailCleanly) {
  Watchdog watchdog("TrainingModuleLoadsFailCleanly", 60);
  Messages messages;
  {
    Result<std::shared_ptr<Device>> device = Device::create(messages.options());
    ASSERT_TRUE(device.isOk()) << device.message();
    std::unique_ptr<Module> module;
    std::set<std::string> objects =
        failEveryAllocation(device.value(), makeTrainModule(true), module);
    ASSERT_TRUE(module);
    EXPECT_EQ(objects.count("buffer 3 (Optimizer)"), 1u);
    device.value()->impl().memoryLimit = 0;
    Result<std::vector<NamedTensor>> out =
        module->run("train", {{"x", HostTensor::f32({16}, trainInputX())}});
    ASSERT_TRUE(out.isOk()) << out.message();
    EXPECT_EQ(module->trainState("train")->step, 1u);
  }
  EXPECT_EQ(messages.count(), 0u) << messages.text();
}

TEST(OutOfMemory, TexelModuleLoadsFailCleanly) {
  // The initial weights' staging is allocated after the buffer views: its
  // failure must free them too (a leak is reported at vkDestroyDevice).
  Watchdog watchdog("TexelModuleLoadsFailCleanly", 60);
  Messages messages;
  {
    Result<std::shared_ptr<Device>> device = Device::create(messages.options());
    ASSERT_TRUE(device.isOk()) << device.message();
    std::unique_ptr<Module> module;
    std::set<std::string> objects =
        failEveryAllocation(device.value(), makeTexelModule(), module);
    ASSERT_TRUE(module);
    EXPECT_EQ(objects.count("staging of initial weights"), 1u);
    device.value()->impl().memoryLimit = 0;
    Result<std::vector<NamedTensor>> out =
        module->run("predict", {{"x", HostTensor::f32({6}, texelInputX())}});
    ASSERT_TRUE(out.isOk()) << out.message();
    EXPECT_THAT(out.value()[0].tensor.asF32(),
                ::testing::ElementsAreArray(doubled(texelInputX())));
  }
  EXPECT_EQ(messages.count(), 0u) << messages.text();
}

TEST(OutOfMemory, MemoryLimitOptionApplies) {
  DeviceOptions options = vulkanTestOptions();
  options.memoryLimit = 1024;
  Result<std::shared_ptr<Device>> device = Device::create(options);
  ASSERT_TRUE(device.isOk()) << device.message();
  Result<Buffer> b = Buffer::create(device.value()->impl(), 4096,
                                    Buffer::Usage::Device, "buffer 'big'");
  ASSERT_TRUE(b.isError());
  EXPECT_THAT(b.message(),
              HasSubstr("(DeviceOptions::memoryLimit = 1024 bytes, 0 in use)"));
  EXPECT_EQ(b.status().code(), StatusCode::OutOfMemory);
  // Other failures keep the generic code; a success has none.
  EXPECT_EQ(Status::error("x").code(), StatusCode::Error);
  EXPECT_EQ(Status::ok().code(), StatusCode::Ok);
  EXPECT_EQ(Status::error("x", StatusCode::Ok).code(), StatusCode::Error);
}

TEST(DeviceLoss, LaterSubmissionsFailAndEverythingIsDestroyable) {
  Watchdog watchdog("LaterSubmissionsFailAndEverythingIsDestroyable", 60);
  Messages messages;
  {
    Result<std::shared_ptr<Device>> device = Device::create(messages.options());
    ASSERT_TRUE(device.isOk()) << device.message();
    Result<std::unique_ptr<Module>> m =
        loadDesc(device.value(), makeTestModule());
    ASSERT_TRUE(m.isOk()) << m.message();
    Module &module = *m.value();
    ASSERT_TRUE(module.run("predict", predictInputs()).isOk());
    EXPECT_FALSE(device.value()->isLost());

    // What Device::Impl::wait does with a driver's VK_ERROR_DEVICE_LOST.
    Status lost = device.value()->impl().check(
        VK_ERROR_DEVICE_LOST, "vkWaitForFences", "replay of entry 'predict'");
    ASSERT_TRUE(lost.isError());
    EXPECT_TRUE(device.value()->isLost());
    std::string first = "vkWaitForFences failed for replay of entry "
                        "'predict': VK_ERROR_DEVICE_LOST (the device was lost";
    EXPECT_THAT(lost.message(), StartsWith(first));

    // Every later submission fails at once, naming the first loss; a
    // second loss does not replace it.
    (void)device.value()->impl().check(VK_ERROR_DEVICE_LOST, "vkQueueSubmit",
                                       "something else");
    RunOptions eager;
    eager.eager = true;
    std::string refusal = "device '" + device.value()->info().name +
                          "' was lost earlier (" + first;
    Result<std::vector<NamedTensor>> replay =
        module.run("predict", predictInputs());
    ASSERT_TRUE(replay.isError());
    EXPECT_THAT(replay.message(),
                AllOf(StartsWith("cannot run replay of entry 'predict': "),
                      HasSubstr(refusal)));
    Result<std::vector<NamedTensor>> eagerRun =
        module.run("predict", predictInputs(), eager);
    ASSERT_TRUE(eagerRun.isError());
    EXPECT_THAT(eagerRun.message(), HasSubstr(refusal));
    Status set = module.setParam("w", HostTensor::f32({2, 4}, inputB()));
    EXPECT_THAT(set.message(), HasSubstr(refusal));
    EXPECT_TRUE(module.getParam("w").isError());
    EXPECT_TRUE(module.readProbe("predict", "h").isError());
    // A new module on the lost device fails at its first upload.
    Result<std::unique_ptr<Module>> again =
        loadDesc(device.value(), makeTestModule());
    ASSERT_TRUE(again.isError());
    EXPECT_THAT(again.message(), HasSubstr(refusal));
  }
  // Destroying the module and device after the loss: no wait, no leak.
  EXPECT_EQ(messages.count(), 0u) << messages.text();
}

TEST(Destruction, AfterFailedCreations) {
  Watchdog watchdog("AfterFailedCreations", 60);
  {
    ScopedEnv env("CAPTURE_DEVICE", std::nullopt);
    DeviceOptions bad;
    bad.selector = "no-such-device-xyz";
    ASSERT_TRUE(Device::create(bad).isError());
  }
  Messages messages;
  {
    Result<std::shared_ptr<Device>> device = Device::create(messages.options());
    ASSERT_TRUE(device.isOk()) << device.message();
    Device::Impl &impl = device.value()->impl();
    // Empty, moved-from and failed objects all destroy cleanly.
    Buffer empty;
    KernelPipeline noPipeline;
    Result<Buffer> failed =
        Buffer::create(impl, 0, Buffer::Usage::Upload, "empty buffer");
    ASSERT_TRUE(failed.isError());
    EXPECT_THAT(failed.message(),
                StartsWith("vkCreateBuffer failed for empty buffer (0 bytes"));
    Result<Buffer> made = Buffer::create(impl, 64, Buffer::Usage::Upload, "b");
    ASSERT_TRUE(made.isOk()) << made.message();
    Buffer moved = std::move(made).value();
    Buffer target;
    target = std::move(moved);
    EXPECT_EQ(moved.handle(), VkBuffer(VK_NULL_HANDLE));
    EXPECT_NE(target.handle(), VkBuffer(VK_NULL_HANDLE));
    // A module the verifier refuses creates nothing.
    ModuleDesc broken = makeTestModule();
    broken.kernels[0].workgroupSize[0] = 0;
    ASSERT_TRUE(loadDesc(device.value(), broken).isError());
  }
  EXPECT_EQ(messages.count(), 0u) << messages.text();
}

} // namespace
