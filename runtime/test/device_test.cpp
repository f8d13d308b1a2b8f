//===- device_test.cpp - Device selection and missing drivers -------------===//

#include "capture/rt/device.h"
#include "capture/rt/environment.h"
#include "test_env.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cctype>

using namespace capture::rt;
using namespace capture::rt::test;
using ::testing::AllOf;
using ::testing::HasSubstr;

namespace {

constexpr const char *kNoDriver = "/nonexistent/capture-no-driver.json";

/// Device creation with a selector of the test's own (the library reads
/// no CAPTURE_DEVICE that whoever runs the tests may have set).
Result<std::shared_ptr<Device>> createWith(const std::string &selector) {
  DeviceOptions options;
  options.selector = selector;
  return Device::create(options);
}

TEST(Device, ListsDevices) {
  Result<std::vector<DeviceInfo>> devices = listDevices();
  ASSERT_TRUE(devices.isOk()) << devices.message();
  ASSERT_FALSE(devices->empty());
  for (size_t i = 0; i < devices->size(); ++i) {
    EXPECT_EQ(devices.value()[i].index, i);
    EXPECT_FALSE(devices.value()[i].name.empty());
  }
}

TEST(Device, DefaultPrefersAGpuElseTheHostDevice) {
  Result<std::vector<DeviceInfo>> devices = listDevices();
  ASSERT_TRUE(devices.isOk()) << devices.message();
  bool anyGpu = false;
  for (const DeviceInfo &d : devices.value())
    anyGpu |= d.hasCompute && (d.type == DeviceType::DiscreteGpu ||
                               d.type == DeviceType::IntegratedGpu ||
                               d.type == DeviceType::VirtualGpu);
  Result<std::shared_ptr<Device>> chosen = createWith("");
  ASSERT_TRUE(chosen.isOk()) << chosen.message();
  if (anyGpu) {
    EXPECT_NE(chosen.value()->info().type, DeviceType::Host);
    EXPECT_THAT(chosen.value()->choice(), HasSubstr("default: the first "));
  } else {
    EXPECT_EQ(chosen.value()->info().type, DeviceType::Host)
        << describeDevice(chosen.value()->info());
    EXPECT_EQ(chosen.value()->choice(),
              "default: no Vulkan GPU, so the host device");
  }
  // Without the host device (what will run has no host code; validation):
  // a GPU, else lavapipe, and the choice says why.
  DeviceOptions vulkanOnly;
  vulkanOnly.hostRuledOut = "no host code here";
  Result<std::shared_ptr<Device>> device = Device::create(vulkanOnly);
  ASSERT_TRUE(device.isOk()) << device.message();
  const DeviceInfo &info = device.value()->info();
  if (anyGpu) {
    EXPECT_TRUE(info.type == DeviceType::DiscreteGpu ||
                info.type == DeviceType::IntegratedGpu ||
                info.type == DeviceType::VirtualGpu)
        << describeDevice(info);
  } else {
    EXPECT_EQ(info.type, DeviceType::Cpu) << describeDevice(info);
    EXPECT_EQ(device.value()->choice(),
              "default: no Vulkan GPU, and the host device cannot run it (no "
              "host code here)");
  }
  Result<std::shared_ptr<Device>> vulkan = createWith("Vulkan");
  ASSERT_TRUE(vulkan.isOk()) << vulkan.message();
  EXPECT_EQ(vulkan.value()->info().index, info.index);
  EXPECT_EQ(vulkan.value()->choice(), "selector 'Vulkan'");
  EXPECT_THAT(describeDevice(info), HasSubstr(info.name + " ("));
  const DeviceLimits &limits = device.value()->limits();
  EXPECT_GT(limits.maxWorkGroupInvocations, 0u);
  EXPECT_GT(limits.maxStorageBufferRange, 0u);
  EXPECT_GT(limits.maxAllocationSize, 0u);
  EXPECT_EQ(limits.deviceName, info.name);
}

TEST(Device, SelectsTheCpuDevice) {
  Result<std::vector<DeviceInfo>> devices = listDevices();
  ASSERT_TRUE(devices.isOk()) << devices.message();
  bool haveCpu = false;
  for (const DeviceInfo &d : devices.value())
    haveCpu |= d.type == DeviceType::Cpu;
  if (!haveCpu)
    GTEST_SKIP() << "no CPU Vulkan device (lavapipe) installed";
  for (const char *sel : {"cpu", "lavapipe", "LLVMPIPE"}) {
    Result<std::shared_ptr<Device>> device = createWith(sel);
    ASSERT_TRUE(device.isOk()) << sel << ": " << device.message();
    EXPECT_EQ(device.value()->info().type, DeviceType::Cpu) << sel;
    EXPECT_STREQ(deviceTypeName(device.value()->info().type), "cpu");
    // Created with robustBufferAccess, which it must offer.
    EXPECT_TRUE(device.value()->limits().robustBufferAccess) << sel;
  }
}

TEST(Device, SelectsByIndexAndByName) {
  Result<std::vector<DeviceInfo>> devices = listDevices();
  ASSERT_TRUE(devices.isOk()) << devices.message();
  const DeviceInfo &last = devices->back();
  Result<std::shared_ptr<Device>> byIndex =
      createWith(std::to_string(last.index));
  ASSERT_TRUE(byIndex.isOk()) << byIndex.message();
  EXPECT_EQ(byIndex.value()->info().index, last.index);

  // A case-changed substring of the name.
  std::string part = last.name.substr(0, std::min<size_t>(6, last.name.size()));
  for (char &c : part)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  Result<std::shared_ptr<Device>> byName = createWith(part);
  ASSERT_TRUE(byName.isOk()) << byName.message();
  EXPECT_THAT(byName.value()->info().name, HasSubstr(last.name.substr(0, 6)));
}

TEST(Device, SelectorMatchingNothingListsTheDevices) {
  Result<std::vector<DeviceInfo>> devices = listDevices();
  ASSERT_TRUE(devices.isOk()) << devices.message();
  Result<std::shared_ptr<Device>> device = createWith("no-such-device-xyz");
  ASSERT_TRUE(device.isError());
  EXPECT_THAT(device.message(),
              AllOf(HasSubstr("no usable Vulkan device matches selector "
                              "'no-such-device-xyz'"),
                    HasSubstr("devices found: [0] " + devices->at(0).name),
                    HasSubstr("Use an index, 'cpu'")));
  Result<std::shared_ptr<Device>> index = createWith("99");
  ASSERT_TRUE(index.isError());
  EXPECT_THAT(index.message(), HasSubstr("'99' (index out of range)"));
}

TEST(Device, EnvSelectorIsReadOnlyWhenAskedAndOptionWins) {
  ScopedEnv env("CAPTURE_DEVICE", "no-such-device-xyz");
  // The library itself never reads it.
  EXPECT_TRUE(Device::create().isOk());
  DeviceOptions fromEnv = deviceOptionsFromEnvironment();
  EXPECT_EQ(fromEnv.selector, "no-such-device-xyz");
  Result<std::shared_ptr<Device>> device = Device::create(fromEnv);
  ASSERT_TRUE(device.isError());
  EXPECT_THAT(device.message(),
              HasSubstr("matches CAPTURE_DEVICE 'no-such-device-xyz'"));
  DeviceOptions options;
  options.selector = "0";
  EXPECT_EQ(deviceOptionsFromEnvironment(options).selector, "0");
  EXPECT_TRUE(Device::create(deviceOptionsFromEnvironment(options)).isOk());
}

TEST(Device, NoDriverSaysHowToInstallOne) {
  // The loader reads these at vkCreateInstance, so they apply to this
  // process from here on (and are restored after).
  ScopedEnv icd("VK_ICD_FILENAMES", kNoDriver);
  ScopedEnv drivers("VK_DRIVER_FILES", kNoDriver);
  // Under validation the loader's own complaints about the missing driver
  // would reach the messenger and fail the CAPTURE_VALIDATION=1 ctest run.
  ScopedEnv validation("CAPTURE_VALIDATION", std::nullopt);
  // The default runs native code then: no Vulkan needed.
  Result<std::shared_ptr<Device>> host = Device::create();
  ASSERT_TRUE(host.isOk()) << host.message();
  EXPECT_EQ(host.value()->info().type, DeviceType::Host);
  EXPECT_EQ(host.value()->choice(),
            "default: no Vulkan driver, so the host device");
  Result<std::shared_ptr<Device>> device = createWith("vulkan");
  ASSERT_TRUE(device.isError()) << "a device was found with no driver";
  EXPECT_THAT(device.message(),
              AllOf(HasSubstr("no Vulkan driver found"),
                    HasSubstr("mesa-vulkan-drivers"), HasSubstr("lavapipe"),
                    HasSubstr(kNoDriver)));
  Result<std::vector<DeviceInfo>> devices = listDevices();
  ASSERT_TRUE(devices.isError());
  EXPECT_THAT(devices.message(), HasSubstr("mesa-vulkan-drivers"));
}

TEST(Device, ValidationEnvParsing) {
  {
    ScopedEnv env("CAPTURE_VALIDATION", "1");
    EXPECT_TRUE(validationRequestedByEnv());
  }
  {
    ScopedEnv env("CAPTURE_VALIDATION", "0");
    EXPECT_FALSE(validationRequestedByEnv());
  }
  {
    ScopedEnv env("CAPTURE_VALIDATION", std::nullopt);
    EXPECT_FALSE(validationRequestedByEnv());
    EXPECT_FALSE(deviceOptionsFromEnvironment().validation);
  }
  {
    ScopedEnv env("CAPTURE_VALIDATION", "On");
    EXPECT_TRUE(deviceOptionsFromEnvironment().validation);
  }
}

} // namespace
