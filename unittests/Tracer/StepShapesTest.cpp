//===- StepShapesTest.cpp - One optimizer across a step's recordings ------===//
//
// A training step recorded at two batch sizes over one Params (a short last
// minibatch): the optimizer moves between the recordings with
// CapturedStep::takeOptimizerFrom, on the device once both are loaded, and
// training is bit for bit what moving it through the host gives.
//
//===----------------------------------------------------------------------===//

#include "capture/Tracer/Capture.h"
#include "capture/Tracer/Layers.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

using namespace capture;
using ::testing::HasSubstr;

namespace {

rt::HostTensor values(int64_t rows, int64_t cols, int salt) {
  std::vector<float> v(static_cast<size_t>(rows * cols));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = 0.1f * static_cast<float>(static_cast<int>((i + salt) % 7) - 3);
  return rt::HostTensor::f32({rows, cols}, v);
}

struct Training {
  /// Losses of every step.
  std::vector<float> losses;
  /// The weights at the end.
  std::vector<rt::NamedTensor> weights;
  /// Submissions of each switch after the first.
  std::vector<uint64_t> switchSubmits;
};

/// Steps of batch 8, 8, 5, 8, 5, 5, 8 through two recordings, the optimizer
/// moved at each switch on the device (`device`) or through the host.
Training train(bool device) {
  Params params;
  Linear fc1(params, "fc1", 4, 8, /*seed=*/1), fc2(params, "fc2", 8, 2, 3);
  auto fn = [&](Tracer::Inputs &in) {
    Tensor h = tanh(fc1(in.at("x")));
    return Tracer::Outputs{{"loss", mse(fc2(h), in.at("target"))}};
  };
  CapturedStep full =
      captureStep(fn, params, AdamW{.lr = 0.03}, {.maxGradNorm = 0.5});
  CapturedStep last =
      captureStep(fn, params, AdamW{.lr = 0.03}, {.maxGradNorm = 0.5});
  Training run;
  CapturedStep *active = &full;
  int k = 0;
  for (int64_t batch : {8, 8, 5, 8, 5, 5, 8}) {
    CapturedStep *next = batch == 8 ? &full : &last;
    if (next != active) {
      uint64_t before = params.device().value()->submitCount();
      rt::Status moved = rt::Status::ok();
      if (device) {
        moved = next->takeOptimizerFrom(*active);
      } else {
        rt::Result<OptimizerState> s = active->optimizerState();
        moved = s.isOk() ? next->restoreOptimizer(s.value()) : s.status();
      }
      EXPECT_TRUE(moved.isOk()) << moved.message();
      if (k > 3)
        run.switchSubmits.push_back(params.device().value()->submitCount() -
                                    before);
      active = next;
    }
    auto out = (*active)(
        {{"x", values(batch, 4, k)}, {"target", values(batch, 2, 2 * k)}});
    EXPECT_TRUE(out.isOk()) << out.message();
    if (out.isError())
      break;
    run.losses.push_back(out.value()[0].tensor.asF32()[0]);
    ++k;
  }
  EXPECT_EQ(active->trainState().value().step, 7u);
  run.weights = params.values().value();
  return run;
}

TEST(StepShapes, TheOptimizerMovesOnTheDeviceBitForBit) {
  Training device = train(true), host = train(false);
  EXPECT_EQ(device.losses, host.losses);
  ASSERT_EQ(device.weights.size(), host.weights.size());
  for (size_t i = 0; i < device.weights.size(); ++i)
    EXPECT_EQ(device.weights[i].tensor.data, host.weights[i].tensor.data)
        << device.weights[i].name;
  // Once both recordings are loaded, a switch is one copy on the device.
  EXPECT_EQ(device.switchSubmits, (std::vector<uint64_t>{1, 1}));
  EXPECT_GT(host.switchSubmits.at(0), 1u);
}

TEST(StepShapes, TakingFromAStepThatNeverRanIsAnError) {
  Params params;
  Linear fc(params, "fc", 4, 2, 1);
  auto fn = [&](Tracer::Inputs &in) {
    return Tracer::Outputs{{"loss", mse(fc(in.at("x")), in.at("target"))}};
  };
  CapturedStep a = captureStep(fn, params, AdamW{});
  CapturedStep b = captureStep(fn, params, AdamW{});
  EXPECT_THAT(b.takeOptimizerFrom(a).message(),
              HasSubstr("no optimizer state yet"));
  EXPECT_TRUE(a.takeOptimizerFrom(a).isOk());
}

} // namespace
