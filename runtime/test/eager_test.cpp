//===- eager_test.cpp - Eager runs give the replay's results --------------===//
//
// Eager mode (RunOptions::eager) runs the same kernels one submission per
// dispatch. The test kernels are deterministic, so its results must equal
// the replay's bit for bit, for forward entries and for training steps
// (applied and refused), with the same errors and the same step counter.
//
//===----------------------------------------------------------------------===//

#include "capture/rt/capmod.h"
#include "capture/rt/module.h"
#include "device_fixture.h"
#include "test_util.h"
#include "train_module.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

using namespace capture::rt;
using namespace capture::rt::test;
using ::testing::ElementsAreArray;

namespace {

class EagerTest : public DeviceTest {
protected:
  static RunOptions eager() {
    RunOptions o;
    o.eager = true;
    return o;
  }

  /// Names and bytes of `outputs`, for bitwise comparison.
  static std::vector<std::pair<std::string, std::vector<uint8_t>>>
  bytesOf(const std::vector<NamedTensor> &outputs) {
    std::vector<std::pair<std::string, std::vector<uint8_t>>> b;
    for (const NamedTensor &t : outputs)
      b.emplace_back(t.name, t.tensor.data);
    return b;
  }
};

TEST_F(EagerTest, ForwardMatchesReplayBitwise) {
  // Two modules, so that nothing the replay leaves in a buffer (outputs,
  // scratch) can stand in for what the eager run should have written.
  std::unique_ptr<Module> replayed = load(makeTestModule());
  std::unique_ptr<Module> m = load(makeTestModule());
  ASSERT_TRUE(replayed && m);
  for (int k = 0; k < 4; ++k) {
    SCOPED_TRACE("inputs " + std::to_string(k));
    std::vector<float> x = inputX(), b = inputB();
    for (float &v : x)
      v *= 0.37f * static_cast<float>(k + 1);
    b[k] = -3.5f;
    std::vector<NamedTensor> in = {{"x", HostTensor::f32({2, 4}, x)},
                                   {"b", HostTensor::f32({2, 4}, b)}};
    Result<std::vector<NamedTensor>> replay = replayed->run("predict", in);
    ASSERT_TRUE(replay.isOk()) << replay.message();
    Result<HostTensor> replayProbe = replayed->readProbe("predict", "h");
    ASSERT_TRUE(replayProbe.isOk()) << replayProbe.message();
    Result<std::vector<NamedTensor>> eagerOut = m->run("predict", in, eager());
    ASSERT_TRUE(eagerOut.isOk()) << eagerOut.message();
    EXPECT_EQ(bytesOf(eagerOut.value()), bytesOf(replay.value()));
    EXPECT_THAT(eagerOut.value()[0].tensor.asF32(),
                ElementsAreArray(expectY(x, b, initialWeights())));
    // Probes read what the eager run left in scratch.
    Result<HostTensor> eagerProbe = m->readProbe("predict", "h");
    ASSERT_TRUE(eagerProbe.isOk()) << eagerProbe.message();
    EXPECT_EQ(eagerProbe->data, replayProbe->data);
  }

  // An entry without inputs (copy-out only) and one without outputs.
  Result<std::vector<NamedTensor>> bias = replayed->run("bias", {});
  Result<std::vector<NamedTensor>> biasEager = m->run("bias", {}, eager());
  ASSERT_TRUE(bias.isOk() && biasEager.isOk()) << biasEager.message();
  EXPECT_EQ(bytesOf(biasEager.value()), bytesOf(bias.value()));
  std::vector<NamedTensor> x2 = {{"x2", HostTensor::f32({2, 4}, inputX())}};
  ASSERT_TRUE(m->run("side", x2, eager()).isOk());
  Result<HostTensor> h2 = m->readProbe("side", "h2");
  ASSERT_TRUE(h2.isOk()) << h2.message();
  std::vector<float> expect(8);
  for (int i = 0; i < 8; ++i)
    expect[i] = inputX()[i] + initialWeights()[i];
  EXPECT_THAT(h2->asF32(), ElementsAreArray(expect));

  // Eager runs record no entry command buffer.
  EXPECT_EQ(m->recordCount(), 3u);
}

TEST_F(EagerTest, SeesParameterUpdates) {
  std::unique_ptr<Module> m = load(makeTestModule());
  ASSERT_TRUE(m);
  std::vector<float> w = {1, -1, 2, -2, 3, -3, 4, -4};
  ASSERT_TRUE(m->setParam("w", HostTensor::f32({2, 4}, w)).isOk());
  Result<std::vector<NamedTensor>> out =
      m->run("predict",
             {{"x", HostTensor::f32({2, 4}, inputX())},
              {"b", HostTensor::f32({2, 4}, inputB())}},
             eager());
  ASSERT_TRUE(out.isOk()) << out.message();
  EXPECT_THAT(out.value()[0].tensor.asF32(),
              ElementsAreArray(expectY(inputX(), inputB(), w)));
  EXPECT_THAT(out.value()[1].tensor.asF32(),
              ElementsAreArray(expectZ(inputX(), w)));
}

TEST_F(EagerTest, ErrorsAreTheReplays) {
  std::unique_ptr<Module> m = load(makeTestModule());
  ASSERT_TRUE(m);
  std::vector<std::vector<NamedTensor>> bad = {
      {{"x", HostTensor::f32({4, 2}, inputX())},
       {"b", HostTensor::f32({2, 4}, inputB())}},
      {{"x", HostTensor::f32({2, 4}, inputX())}},
      {{"q", HostTensor::f32({2, 4}, inputX())}}};
  for (const std::vector<NamedTensor> &in : bad) {
    Result<std::vector<NamedTensor>> replay = m->run("predict", in);
    Result<std::vector<NamedTensor>> eagerOut = m->run("predict", in, eager());
    ASSERT_TRUE(replay.isError() && eagerOut.isError());
    EXPECT_EQ(eagerOut.message(), replay.message());
  }
  Result<std::vector<NamedTensor>> unknown = m->run("nope", {}, eager());
  ASSERT_TRUE(unknown.isError());
  EXPECT_EQ(unknown.message(), m->run("nope", {}).message());
}

TEST_F(EagerTest, TrainingMatchesReplayBitwise) {
  // Two modules from the same file: one steps by replay, one eagerly.
  std::unique_ptr<Module> replayed = load(makeTrainModule(true));
  std::unique_ptr<Module> eagerly = load(makeTrainModule(true));
  ASSERT_TRUE(replayed && eagerly);
  std::vector<float> nanX = trainInputX();
  nanX[5] = std::numeric_limits<float>::quiet_NaN();
  struct Step {
    std::vector<float> x;
    float lr;
  };
  std::vector<Step> steps = {{trainInputX(), 0},  {trainInputX2(), 0},
                             {nanX, 0},           {trainInputX(), 0.01f},
                             {trainInputX2(), 0}, {trainInputX(), 0}};
  for (size_t k = 0; k < steps.size(); ++k) {
    SCOPED_TRACE("step " + std::to_string(k + 1));
    if (steps[k].lr > 0) {
      ASSERT_TRUE(replayed->setLearningRate("train", steps[k].lr).isOk());
      ASSERT_TRUE(eagerly->setLearningRate("train", steps[k].lr).isOk());
    }
    std::vector<NamedTensor> in = {{"x", HostTensor::f32({16}, steps[k].x)}};
    Result<std::vector<NamedTensor>> a = replayed->run("train", in);
    Result<std::vector<NamedTensor>> b = eagerly->run("train", in, eager());
    ASSERT_EQ(a.isOk(), b.isOk()) << a.message() << " / " << b.message();
    if (a.isOk())
      EXPECT_EQ(bytesOf(b.value()), bytesOf(a.value()));
    else
      EXPECT_EQ(b.message(), a.message()); // the refusal, t included
    Result<TrainState> sa = replayed->trainState("train");
    Result<TrainState> sb = eagerly->trainState("train");
    ASSERT_TRUE(sa.isOk() && sb.isOk());
    EXPECT_EQ(sb->step, sa->step);
    EXPECT_EQ(sb->refusedSteps, sa->refusedSteps);
    EXPECT_EQ(trainStateBytes(*eagerly), trainStateBytes(*replayed));
  }
  Result<TrainState> s = eagerly->trainState("train");
  ASSERT_TRUE(s.isOk());
  EXPECT_EQ(s->step, 5u);
  EXPECT_EQ(s->refusedSteps, 1u);

  // The runtime fills the hyperparameter inputs in eager mode too.
  Result<std::vector<NamedTensor>> given = eagerly->run(
      "train",
      {{"x", HostTensor::f32({16}, trainInputX())},
       {"adamw", HostTensor::f32({7}, std::vector<float>(7, 0.5f))}},
      eager());
  ASSERT_TRUE(given.isError());
  EXPECT_THAT(given.message(),
              ::testing::HasSubstr("input 'adamw' is filled by the runtime"));

  // A forward entry of the trained module, eagerly: the updated weights.
  std::vector<NamedTensor> in = {{"x", HostTensor::f32({16}, trainInputX())}};
  Result<std::vector<NamedTensor>> ea = replayed->run("eval", in);
  Result<std::vector<NamedTensor>> eb = eagerly->run("eval", in, eager());
  ASSERT_TRUE(ea.isOk() && eb.isOk()) << eb.message();
  EXPECT_EQ(bytesOf(eb.value()), bytesOf(ea.value()));
}

} // namespace
