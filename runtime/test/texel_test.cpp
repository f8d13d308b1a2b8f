//===- texel_test.cpp - Replays of kernels with texel-buffer bindings -----===//
//
// The texel module (texel_module.h) on the device: values read through
// RGBA32F buffer views (a tensor that is not a whole number of texels, a
// view at a non-zero offset), in replays, eager and profiled runs, with
// weights shared between modules, and the device checks that refuse a
// module before anything is created.
//
//===----------------------------------------------------------------------===//

#include "device_fixture.h"
#include "texel_module.h"

// Internal header: the device's limits, to make the device checks fail.
#include "device_impl.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace capture::rt;
using namespace capture::rt::test;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

namespace {

class TexelTest : public DeviceTest {};

std::vector<NamedTensor> inputs(const std::vector<float> &x) {
  return {{"x", HostTensor::f32({6}, x)}};
}

/// Runs predict on `x` and checks y = 2x and z = 2w.
void expectPredict(Module &m, const std::vector<float> &x,
                   const std::vector<float> &w,
                   const RunOptions &options = RunOptions()) {
  Result<std::vector<NamedTensor>> out = m.run("predict", inputs(x), options);
  ASSERT_TRUE(out.isOk()) << out.message();
  ASSERT_EQ(out->size(), 2u);
  EXPECT_THAT(out.value()[0].tensor.asF32(), ElementsAreArray(doubled(x)));
  EXPECT_THAT(out.value()[1].tensor.asF32(), ElementsAreArray(doubled(w)));
}

TEST_F(TexelTest, ReplayReadsThroughBufferViews) {
  ASSERT_TRUE(device->limits().rgba32fStorageTexelBuffer)
      << "the test device cannot bind RGBA32F storage texel buffers";
  std::unique_ptr<Module> m = load(makeTexelModule());
  ASSERT_TRUE(m);
  expectPredict(*m, texelInputX(), texelWeights());
  // New inputs and weights go through the same views.
  std::vector<float> x = {-1, 2.25f, 1e6f, -0.0f, 7, 3};
  std::vector<float> w = {1, 2, 3, 4, 5};
  ASSERT_TRUE(m->setParam("w", HostTensor::f32({5}, w)).isOk());
  expectPredict(*m, x, w);
  expectPredict(*m, x, w); // unchanged inputs, not sent again
  EXPECT_EQ(m->counters().lastUploadBytes, 0u);
}

TEST_F(TexelTest, EagerAndProfiledRunsUseTheSameViews) {
  std::unique_ptr<Module> m = load(makeTexelModule());
  ASSERT_TRUE(m);
  Profile profile;
  RunOptions eager, profiled;
  eager.eager = true;
  profiled.profile = &profile;
  expectPredict(*m, texelInputX(), texelWeights(), eager);
  expectPredict(*m, texelInputX(), texelWeights(), profiled);
  EXPECT_EQ(profile.dispatchUs.size(), 2u);
  expectPredict(*m, {6, 5, 4, 3, 2, 1}, texelWeights(), eager);
}

TEST_F(TexelTest, SharedWeightsAreBoundThroughViewsOfTheSharedBuffer) {
  std::unique_ptr<Module> a = load(makeTexelModule());
  ASSERT_TRUE(a);
  std::vector<uint8_t> bytes = writeCapmod(makeTexelModule());
  LoadOptions share;
  share.shareWeightsWith = a.get();
  Result<std::unique_ptr<Module>> b =
      Module::loadBytes(device, bytes.data(), bytes.size(), share);
  ASSERT_TRUE(b.isOk()) << b.message();
  std::vector<float> w = {0.5f, 1.5f, 2.5f, 3.5f, 4.5f};
  ASSERT_TRUE(a->setParam("w", HostTensor::f32({5}, w)).isOk());
  expectPredict(*b.value(), texelInputX(), w);
  // The buffer outlives the module that made it; b's views still see it.
  a.reset();
  expectPredict(*b.value(), texelInputX(), w);
}

TEST_F(TexelTest, DeviceChecksRefuseBeforeAnythingIsCreated) {
  DeviceLimits &limits = device->impl().limits;
  const DeviceLimits saved = limits;
  uint64_t before = device->memoryInUse();
  limits.rgba32fStorageTexelBuffer = false;
  std::vector<uint8_t> bytes = writeCapmod(makeTexelModule());
  Result<std::unique_ptr<Module>> m =
      Module::loadBytes(device, bytes.data(), bytes.size());
  limits = saved;
  ASSERT_TRUE(m.isError());
  EXPECT_THAT(m.message(),
              HasSubstr("kernel 0 ('scale_x') has TexelBufferRgba32f "
                        "bindings, but VK_FORMAT_R32G32B32A32_SFLOAT has no "
                        "VK_FORMAT_FEATURE_STORAGE_TEXEL_BUFFER_BIT"));
  EXPECT_EQ(device->memoryInUse(), before);

  limits.minTexelBufferOffsetAlignment = 512;
  m = Module::loadBytes(device, bytes.data(), bytes.size());
  limits = saved;
  ASSERT_TRUE(m.isError());
  EXPECT_THAT(m.message(),
              HasSubstr("dispatch 1 of entry 'predict': binding 0 "
                        "(TexelBufferRgba32f of kernel 'scale_w') offset 256 "
                        "is not a multiple of minTexelBufferOffsetAlignment "
                        "512 on device '" +
                        device->info().name + "'"));
  EXPECT_EQ(device->memoryInUse(), before);
}

} // namespace
