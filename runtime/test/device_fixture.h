//===- device_fixture.h - A gtest fixture with one Vulkan device -*- C++
//-*-===//
//
// Test suites that load modules share one device per suite: creating the
// Vulkan instance is the slow part of a test.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_TEST_DEVICE_FIXTURE_H
#define CAPTURE_RT_TEST_DEVICE_FIXTURE_H

#include "capture/rt/capmod.h"
#include "capture/rt/device.h"
#include "capture/rt/environment.h"
#include "capture/rt/module.h"
#include "test_env.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace capture::rt::test {

/// Creates the device the environment asks for (as the tools do: the
/// validation ctest runs set CAPTURE_VALIDATION=1) once per suite; every
/// test fails with the device's error when there is none.
class DeviceTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    Result<std::shared_ptr<Device>> d = Device::create(vulkanTestOptions());
    if (d.isOk())
      device = d.value();
    else
      deviceError = d.message();
  }
  static void TearDownTestSuite() { device.reset(); }

  void SetUp() override {
    ASSERT_TRUE(device) << "no Vulkan device: " << deviceError;
  }

  /// Serializes `desc` and loads it on the suite's device (null on error,
  /// with a failed expectation naming it).
  static std::unique_ptr<Module> load(const ModuleDesc &desc) {
    std::vector<uint8_t> bytes = writeCapmod(desc);
    Result<std::unique_ptr<Module>> m =
        Module::loadBytes(device, bytes.data(), bytes.size());
    EXPECT_TRUE(m.isOk()) << m.message();
    return m.isOk() ? std::move(m).value() : nullptr;
  }

  /// The weights (w1, w2, bias) and both moments of the training test
  /// module (train_module.h), as bytes: what must stay bitwise equal.
  static std::vector<std::vector<uint8_t>> trainStateBytes(Module &m) {
    std::vector<std::vector<uint8_t>> s;
    for (const char *w : {"w1", "w2", "bias"}) {
      Result<HostTensor> t = m.getParam(w);
      EXPECT_TRUE(t.isOk()) << t.message();
      s.push_back(t.isOk() ? t->data : std::vector<uint8_t>());
    }
    Result<AdamWMoments> moments = m.readMoments("train");
    EXPECT_TRUE(moments.isOk()) << moments.message();
    if (moments.isOk()) {
      s.push_back(moments->m.data);
      s.push_back(moments->v.data);
    }
    return s;
  }

  /// The suite's device.
  inline static std::shared_ptr<Device> device;
  /// Why there is no device, when there is none.
  inline static std::string deviceError;
};

} // namespace capture::rt::test

#endif // CAPTURE_RT_TEST_DEVICE_FIXTURE_H
