//===- SharedWeightsTest.cpp - Entries of one module share weights -------===//
//
// A forward entry and a training step compiled into one module read the
// same weight memory: after a step, the next forward call sees the updated
// weights with no copy. Compiles in-process, replays on the default Vulkan
// device (lavapipe without a GPU).
//
//===----------------------------------------------------------------------===//

#include "CompileForTest.h"

#include "capture/rt/device.h"
#include "capture/rt/module.h"

#include "gtest/gtest.h"

using namespace mlir;
namespace rt = capture::rt;

namespace {

/// y = x @ w + b as a forward entry, and a training step of mse(y, target).
constexpr const char *kModule = R"mlir(
ag.weight @w trainable : tensor<3x2xf32> = dense<[[0.5, -0.25], [0.125, 1.0], [-0.75, 0.5]]>
ag.weight @b trainable : tensor<2xf32> = dense<[0.1, -0.2]>
ag.forward @predict(%x: tensor<2x3xf32> {ag.name = "x"}) -> (tensor<2x2xf32> {ag.name = "y"}) {
  %w = ag.read_weight @w : tensor<3x2xf32>
  %b = ag.read_weight @b : tensor<2xf32>
  %xw = ag.matmul %x, %w : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %y = ag.add %xw, %b : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  ag.return %y : tensor<2x2xf32>
}
ag.train_step @train(%x: tensor<2x3xf32> {ag.name = "x"}, %t: tensor<2x2xf32> {ag.name = "target"})
    -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 0.1, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %w = ag.read_weight @w : tensor<3x2xf32>
  %b = ag.read_weight @b : tensor<2xf32>
  %xw = ag.matmul %x, %w : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %y = ag.add %xw, %b : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %l = ag.mse %y, %t : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<f32>
  ag.return %l : tensor<f32>
}
)mlir";

/// x @ w + b on the host.
std::vector<float> predict(const std::vector<float> &x,
                           const std::vector<float> &w,
                           const std::vector<float> &b) {
  std::vector<float> y(4);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      float s = 0;
      for (int k = 0; k < 3; ++k)
        s += x[i * 3 + k] * w[k * 2 + j];
      y[i * 2 + j] = s + b[j];
    }
  return y;
}

TEST(SharedWeights, ForwardSeesTheTrainingUpdate) {
  std::vector<uint8_t> bytes = capture::test::compileForTest(kModule);
  ASSERT_FALSE(bytes.empty());
  rt::DeviceOptions options;
  options.selector = "vulkan";
  rt::Result<std::shared_ptr<rt::Device>> device = rt::Device::create(options);
  ASSERT_TRUE(device.isOk()) << device.message();
  rt::Result<std::unique_ptr<rt::Module>> loaded =
      rt::Module::loadBytes(device.value(), bytes.data(), bytes.size());
  ASSERT_TRUE(loaded.isOk()) << loaded.message();
  rt::Module &module = *loaded.value();

  std::vector<float> x = {1, 2, 3, -1, 0.5f, 2};
  rt::HostTensor xt = rt::HostTensor::f32({2, 3}, x);
  rt::HostTensor target = rt::HostTensor::f32({2, 2}, {1, 0, 0, 1});
  auto forward = [&]() {
    rt::Result<std::vector<rt::NamedTensor>> y =
        module.run("predict", {{"x", xt}});
    EXPECT_TRUE(y.isOk()) << y.message();
    return y.isOk() ? y.value()[0].tensor.asF32() : std::vector<float>();
  };
  auto weights = [&]() {
    return std::make_pair(module.getParam("w").value().asF32(),
                          module.getParam("b").value().asF32());
  };

  auto [w0, b0] = weights();
  std::vector<float> before = forward();
  std::vector<float> expected0 = predict(x, w0, b0);
  for (int i = 0; i < 4; ++i)
    EXPECT_NEAR(before[i], expected0[i], 1e-5);

  for (int step = 0; step < 3; ++step) {
    rt::Result<std::vector<rt::NamedTensor>> out =
        module.run("train", {{"x", xt}, {"target", target}});
    ASSERT_TRUE(out.isOk()) << out.message();
  }
  auto [w1, b1] = weights();
  EXPECT_NE(w0, w1) << "the training step did not update w";
  std::vector<float> after = forward();
  std::vector<float> expected1 = predict(x, w1, b1);
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(after[i], expected1[i], 1e-5);
    EXPECT_NE(after[i], before[i]);
  }
}

} // namespace
