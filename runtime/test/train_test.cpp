//===- train_test.cpp - Training entries replayed on a device -------------===//
//
// The training module of train_module.h on a real device (lavapipe on a
// machine without GPU): AdamW numerics against a double-precision reference
// of torch.optim.AdamW, refused steps, hyperparameter changes without
// re-recording, and the errors of the training API.
//
//===----------------------------------------------------------------------===//

#include "capture/rt/capmod.h"
#include "capture/rt/module.h"
#include "device_fixture.h"
#include "train_module.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace capture::rt;
using namespace capture::rt::test;
using ::testing::AllOf;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

namespace {

class TrainTest : public DeviceTest {
protected:
  static std::vector<NamedTensor> inputs(const std::vector<float> &x) {
    return {{"x", HostTensor::f32({16}, x)}};
  }

  /// The flat parameters (the padding is never written: zeros) and the
  /// moments, read back from the device.
  static AdamWState readState(Module &m) {
    AdamWState s;
    s.p.assign(kTrainParams, 0.0f);
    Result<HostTensor> w1 = m.getParam("w1"), w2 = m.getParam("w2");
    EXPECT_TRUE(w1.isOk() && w2.isOk()) << w1.message() << w2.message();
    if (w1.isOk() && w2.isOk()) {
      std::vector<float> a = w1->asF32(), b = w2->asF32();
      std::copy(a.begin(), a.end(), s.p.begin());
      std::copy(b.begin(), b.end(), s.p.begin() + 8);
    }
    Result<AdamWMoments> moments = m.readMoments("train");
    EXPECT_TRUE(moments.isOk()) << moments.message();
    if (moments.isOk()) {
      s.m = moments->m.asF32();
      s.v = moments->v.asF32();
    }
    return s;
  }

  static uint64_t stepOf(const Module &m) {
    Result<TrainState> s = m.trainState("train");
    EXPECT_TRUE(s.isOk()) << s.message();
    return s.isOk() ? s->step : ~uint64_t(0);
  }
};

/// `got` within 1e-6 relative of `expected` (exact where it is 0).
void expectClose(const std::vector<float> &got,
                 const std::vector<double> &expected, const char *what) {
  ASSERT_EQ(got.size(), expected.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_LE(std::abs(static_cast<double>(got[i]) - expected[i]),
              1e-6 * std::abs(expected[i]))
        << what << "[" << i << "]: got " << got[i] << ", expected "
        << expected[i];
}

void expectClose(float got, double expected, const char *what) {
  expectClose(std::vector<float>{got}, std::vector<double>{expected}, what);
}

/// Runs one step on `m` and checks params, moments, outputs and the step
/// counter against the reference computed from the state before it.
void checkStep(Module &m, const std::vector<float> &x, const AdamWDesc &a,
               std::optional<float> maxGradNorm, uint64_t stepsDone,
               const AdamWState &before) {
  StepReference ref = referenceStep(before, x, a, maxGradNorm, stepsDone);
  Result<std::vector<NamedTensor>> out =
      m.run("train", {{"x", HostTensor::f32({16}, x)}});
  ASSERT_TRUE(out.isOk()) << out.message();
  ASSERT_EQ(out->size(), 3u);
  EXPECT_EQ(out.value()[0].name, "loss");
  EXPECT_EQ(out.value()[1].name, "grad_norm");
  EXPECT_EQ(out.value()[2].name, "residual");
  expectClose(out.value()[0].tensor.asF32()[0], ref.loss, "loss");
  expectClose(out.value()[1].tensor.asF32()[0], ref.gradNorm, "grad_norm");
  // Outputs are forward values from before the update.
  std::vector<float> residual(kTrainParams);
  for (size_t i = 0; i < kTrainParams; ++i)
    residual[i] = before.p[i] - x[i];
  EXPECT_THAT(out.value()[2].tensor.asF32(), ElementsAreArray(residual));

  Result<TrainState> state = m.trainState("train");
  ASSERT_TRUE(state.isOk()) << state.message();
  EXPECT_EQ(state->step, stepsDone + 1);
  Result<HostTensor> w1 = m.getParam("w1"), w2 = m.getParam("w2");
  ASSERT_TRUE(w1.isOk() && w2.isOk());
  expectClose(w1->asF32(), {ref.p.begin(), ref.p.begin() + 6}, "w1");
  expectClose(w2->asF32(), {ref.p.begin() + 8, ref.p.begin() + 12}, "w2");
  Result<AdamWMoments> moments = m.readMoments("train");
  ASSERT_TRUE(moments.isOk()) << moments.message();
  EXPECT_EQ(moments->m.shape, std::vector<int64_t>{int64_t(kTrainParams)});
  expectClose(moments->m.asF32(), ref.m, "m");
  expectClose(moments->v.asF32(), ref.v, "v");
}

TEST_F(TrainTest, OneStepIsAdamW) {
  for (bool clip : {false, true}) {
    SCOPED_TRACE(clip ? "clipping" : "not clipping");
    std::unique_ptr<Module> m = load(makeTrainModule(clip));
    ASSERT_TRUE(m);
    Result<TrainState> state = m->trainState("train");
    ASSERT_TRUE(state.isOk()) << state.message();
    EXPECT_EQ(state->step, 0u);
    EXPECT_EQ(state->refusedSteps, 0u);
    EXPECT_EQ(state->adamw.lr, trainAdamW().lr);
    EXPECT_EQ(state->adamw.weightDecay, trainAdamW().weightDecay);
    EXPECT_EQ(state->maxGradNorm,
              clip ? std::optional<float>(kTrainMaxGradNorm) : std::nullopt);
    AdamWState before{trainInitialParams(),
                      std::vector<float>(kTrainParams, 0.0f),
                      std::vector<float>(kTrainParams, 0.0f)};
    std::optional<float> limit;
    if (clip)
      limit = kTrainMaxGradNorm;
    checkStep(*m, trainInputX(), trainAdamW(), limit, 0, before);

    // The step clipped (norm > 1) exactly when compiled to: the first
    // moment is (1 - beta1) times the (clipped) gradient.
    StepReference ref =
        referenceStep(before, trainInputX(), trainAdamW(), limit, 0);
    ASSERT_GT(ref.gradNorm, 2.0);
    Result<AdamWMoments> moments = m->readMoments("train");
    ASSERT_TRUE(moments.isOk());
    double g0 = double(before.p[0]) - double(trainInputX()[0]);
    double scale = clip ? kTrainMaxGradNorm / (ref.gradNorm + 1e-6) : 1.0;
    expectClose(moments->m.asF32()[0], 0.1 * g0 * scale, "m[0]");

    // The frozen weight did not move; the forward entry sees the update.
    Result<HostTensor> bias = m->getParam("bias");
    ASSERT_TRUE(bias.isOk());
    EXPECT_THAT(bias->asF32(), ElementsAreArray(initialBias()));
    AdamWState after = readState(*m);
    Result<std::vector<NamedTensor>> eval =
        m->run("eval", inputs(trainInputX()));
    ASSERT_TRUE(eval.isOk()) << eval.message();
    std::vector<float> residual(kTrainParams);
    for (size_t i = 0; i < kTrainParams; ++i)
      residual[i] = after.p[i] - trainInputX()[i];
    EXPECT_THAT(eval.value()[0].tensor.asF32(), ElementsAreArray(residual));
  }
}

TEST_F(TrainTest, StepsUseTheStepCounter) {
  std::unique_ptr<Module> m = load(makeTrainModule(true));
  ASSERT_TRUE(m);
  for (uint64_t t = 0; t < 5; ++t) {
    SCOPED_TRACE("step " + std::to_string(t + 1));
    AdamWState before = readState(*m);
    checkStep(*m, t % 2 ? trainInputX2() : trainInputX(), trainAdamW(),
              kTrainMaxGradNorm, t, before);
  }
  // The padding of the parameter range has zero gradients: its moments
  // stay zero.
  AdamWState s = readState(*m);
  for (size_t i : {6, 7, 12, 13, 14, 15}) {
    EXPECT_EQ(s.m[i], 0.0f) << i;
    EXPECT_EQ(s.v[i], 0.0f) << i;
  }
}

TEST_F(TrainTest, CopyOptimizerStateContinuesAnotherRecording) {
  // a steps twice; b, a second recording over a's weights, takes a's
  // optimizer and steps once: bit for bit three steps of one module.
  std::unique_ptr<Module> a = load(makeTrainModule(false));
  std::unique_ptr<Module> one = load(makeTrainModule(false));
  ASSERT_TRUE(a && one);
  LoadOptions share;
  share.shareWeightsWith = a.get();
  std::vector<uint8_t> bytes = writeCapmod(makeTrainModule(false));
  Result<std::unique_ptr<Module>> b =
      Module::loadBytes(device, bytes.data(), bytes.size(), share);
  ASSERT_TRUE(b.isOk()) << b.message();
  for (const std::vector<float> &x : {trainInputX(), trainInputX2()}) {
    ASSERT_TRUE(a->run("train", inputs(x)).isOk());
    ASSERT_TRUE(one->run("train", inputs(x)).isOk());
  }
  uint64_t submits = device->submitCount();
  Status copied = b.value()->copyOptimizerState("train", *a, "train");
  ASSERT_TRUE(copied.isOk()) << copied.message();
  EXPECT_EQ(device->submitCount(), submits + 1); // on the device, at once
  EXPECT_EQ(stepOf(*b.value()), 2u);
  ASSERT_TRUE(b.value()->run("train", inputs(trainInputX())).isOk());
  ASSERT_TRUE(one->run("train", inputs(trainInputX())).isOk());
  EXPECT_EQ(trainStateBytes(*b.value()), trainStateBytes(*one));
  EXPECT_EQ(stepOf(*b.value()), 3u);

  // Errors change nothing.
  EXPECT_THAT(b.value()->copyOptimizerState("eval", *a, "train").message(),
              HasSubstr("'eval'"));
  EXPECT_THAT(b.value()->copyOptimizerState("train", *a, "eval").message(),
              AllOf(HasSubstr("the module to copy from"), HasSubstr("'eval'")));
  ModuleDesc smaller = makeTrainModule(false);
  for (EntryDesc &e : smaller.entries)
    if (e.train) {
      e.train->params.size = e.train->moment1.size = e.train->moment2.size = 32;
      if (e.train->grads)
        e.train->grads->size = 32;
    }
  std::unique_ptr<Module> other = load(smaller);
  ASSERT_TRUE(other);
  EXPECT_THAT(b.value()->copyOptimizerState("train", *other, "train").message(),
              HasSubstr("entry 'train' has moments of 16 floats, entry "
                        "'train' of the module to copy from 8: expected the "
                        "same parameters"));
  EXPECT_EQ(stepOf(*b.value()), 3u);
  EXPECT_EQ(trainStateBytes(*b.value()), trainStateBytes(*one));
}

TEST_F(TrainTest, NonFiniteGradNormRefusesTheStep) {
  std::vector<float> nanX = trainInputX(), infX = trainInputX();
  nanX[3] = std::numeric_limits<float>::quiet_NaN();
  // Finite gradients whose squares overflow: only the norm is infinite.
  infX[1] = 1e30f;

  std::unique_ptr<Module> m = load(makeTrainModule(true));
  ASSERT_TRUE(m);
  ASSERT_TRUE(m->run("train", inputs(trainInputX())).isOk());
  std::vector<std::vector<uint8_t>> before = trainStateBytes(*m);
  const std::pair<const std::vector<float> *, const char *> bad[] = {
      {&nanX, "nan"}, {&infX, "inf"}};
  for (auto [x, value] : bad) {
    Result<std::vector<NamedTensor>> r = m->run("train", inputs(*x));
    ASSERT_TRUE(r.isError())
        << "a step with a " << value << " gradient norm was accepted";
    EXPECT_THAT(r.message(),
                HasSubstr(std::string("entry 'train': the gradient norm "
                                      "'grad_norm' is ") +
                          value +
                          ", so the AdamW update was not applied; weights, "
                          "moments and the step counter (t = 1) are "
                          "unchanged"));
    // Callers tell a refusal from other errors by its code, not its text.
    EXPECT_EQ(r.status().code(), StatusCode::UpdateRefused);
    EXPECT_EQ(r.status().withContext("step 2").code(),
              StatusCode::UpdateRefused);
    EXPECT_EQ(stepOf(*m), 1u);
    EXPECT_EQ(trainStateBytes(*m), before) << value;
  }
  Result<TrainState> state = m->trainState("train");
  ASSERT_TRUE(state.isOk());
  EXPECT_EQ(state->refusedSteps, 2u);

  // The next step is the one that would have followed without them.
  Result<std::vector<NamedTensor>> next =
      m->run("train", inputs(trainInputX2()));
  ASSERT_TRUE(next.isOk()) << next.message();
  EXPECT_EQ(stepOf(*m), 2u);
  std::unique_ptr<Module> clean = load(makeTrainModule(true));
  ASSERT_TRUE(clean);
  ASSERT_TRUE(clean->run("train", inputs(trainInputX())).isOk());
  Result<std::vector<NamedTensor>> cleanNext =
      clean->run("train", inputs(trainInputX2()));
  ASSERT_TRUE(cleanNext.isOk()) << cleanNext.message();
  for (size_t i = 0; i < 3; ++i)
    EXPECT_EQ(next.value()[i].tensor.data, cleanNext.value()[i].tensor.data)
        << next.value()[i].name;
  EXPECT_EQ(trainStateBytes(*m), trainStateBytes(*clean));
}

TEST_F(TrainTest, HyperparametersChangeWithoutRerecording) {
  std::unique_ptr<Module> m = load(makeTrainModule(true));
  ASSERT_TRUE(m);
  // One command buffer per entry, recorded at load.
  const uint64_t recorded = m->recordCount();
  EXPECT_EQ(recorded, 2u);
  AdamWDesc a = trainAdamW();
  uint64_t t = 0;
  auto step = [&](std::optional<float> limit) {
    AdamWState before = readState(*m);
    checkStep(*m, t % 2 ? trainInputX2() : trainInputX(), a, limit, t, before);
    ++t;
  };
  step(kTrainMaxGradNorm);

  ASSERT_TRUE(m->setLearningRate("train", 0.01f).isOk());
  a.lr = 0.01f;
  step(kTrainMaxGradNorm);

  ASSERT_TRUE(m->setMaxGradNorm("train", 0.25f).isOk());
  step(0.25f);
  ASSERT_TRUE(m->setMaxGradNorm("train", 1e6f).isOk());
  step(1e6f);

  a = {0.02f, 0.5f, 0.75f, 1e-3f, 0.1f};
  ASSERT_TRUE(m->setAdamW("train", a).isOk());
  step(1e6f);

  ASSERT_TRUE(m->setTrainStep("train", 10).isOk());
  t = 10;
  step(1e6f);
  EXPECT_EQ(stepOf(*m), 11u);

  Result<TrainState> state = m->trainState("train");
  ASSERT_TRUE(state.isOk());
  EXPECT_EQ(state->adamw.beta2, 0.75f);
  EXPECT_EQ(state->maxGradNorm, std::optional<float>(1e6f));
  EXPECT_EQ(m->recordCount(), recorded);
}

TEST_F(TrainTest, SetAdamWKeepsTheCompiledWeightDecayMode) {
  const char *adamw = "decoupled = true (AdamW's decoupled weight decay)";
  const char *adam = "decoupled = false (Adam's L2 weight decay)";
  for (bool compiled : {true, false}) {
    SCOPED_TRACE(compiled ? "AdamW module" : "Adam module");
    ModuleDesc desc = makeTrainModule(true);
    desc.entries[0].train->adamw.decoupled = compiled;
    std::unique_ptr<Module> m = load(desc);
    ASSERT_TRUE(m);
    auto state = [&] {
      Result<TrainState> s = m->trainState("train");
      EXPECT_TRUE(s.isOk()) << s.message();
      return s.isOk() ? s->adamw : AdamWDesc();
    };
    EXPECT_EQ(state().decoupled, compiled);

    // The other mode is refused, naming both, and changes nothing (not
    // even the values that came with it).
    AdamWDesc a = trainAdamW();
    a.weightDecay = 0.5f;
    a.decoupled = !compiled;
    EXPECT_THAT(
        m->setAdamW("train", a).message(),
        AllOf(HasSubstr(std::string("setAdamW: entry 'train': the "
                                    "update was compiled for ") +
                        (compiled ? adamw : adam) + " and cannot switch to " +
                        (compiled ? adam : adamw)),
              HasSubstr("recompile the step to change the mode")));
    EXPECT_EQ(state().weightDecay, trainAdamW().weightDecay);
    EXPECT_EQ(state().decoupled, compiled);

    // In the compiled mode the weight decay changes; so does lr, keeping
    // the mode.
    a.decoupled = compiled;
    EXPECT_TRUE(m->setAdamW("train", a).isOk());
    EXPECT_EQ(state().weightDecay, 0.5f);
    EXPECT_TRUE(m->setLearningRate("train", 0.01f).isOk());
    EXPECT_EQ(state().lr, 0.01f);
    EXPECT_EQ(state().decoupled, compiled);
  }
}

// A learning rate of another param group than the entry has is refused,
// naming the groups there are; group 0 is setLearningRate's.
TEST_F(TrainTest, LearningRateOfAGroupTheEntryLacksIsRefused) {
  std::unique_ptr<Module> m = load(makeTrainModule(true));
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->setLearningRate("train", 0, 0.02f).isOk());
  EXPECT_EQ(m->trainState("train").value().adamw.lr, 0.02f);
  Status s = m->setLearningRate("train", 1, 0.02f);
  EXPECT_THAT(s.message(),
              HasSubstr("setLearningRate: entry 'train' has 1 param group, so "
                        "group 1 does not exist; expected 0..0"));
  EXPECT_EQ(m->trainState("train").value().adamw.lr, 0.02f);
}

TEST_F(TrainTest, OptimizerBuffersStartAtZero) {
  // Each module trains, so freed device memory holds non-zero moments that
  // the next module's allocation may reuse.
  for (int i = 0; i < 4; ++i) {
    std::unique_ptr<Module> m = load(makeTrainModule(i % 2 == 0));
    ASSERT_TRUE(m);
    Result<AdamWMoments> moments = m->readMoments("train");
    ASSERT_TRUE(moments.isOk()) << moments.message();
    EXPECT_THAT(moments->m.asF32(),
                ElementsAreArray(std::vector<float>(kTrainParams, 0.0f)));
    EXPECT_THAT(moments->v.asF32(),
                ElementsAreArray(std::vector<float>(kTrainParams, 0.0f)));
    for (int s = 0; s < 2; ++s)
      ASSERT_TRUE(m->run("train", inputs(trainInputX())).isOk());
  }
}

TEST_F(TrainTest, RuntimeFilledInputsAreRefused) {
  std::unique_ptr<Module> m = load(makeTrainModule(true));
  ASSERT_TRUE(m);
  std::vector<NamedTensor> hyper = inputs(trainInputX());
  hyper.push_back({"adamw", HostTensor::f32({7}, std::vector<float>(7))});
  Result<std::vector<NamedTensor>> r = m->run("train", hyper);
  ASSERT_TRUE(r.isError());
  EXPECT_THAT(r.message(),
              HasSubstr("entry 'train': input 'adamw' is filled by the "
                        "runtime (AdamW hyperparameters and bias "
                        "corrections); set them with setLearningRate or "
                        "setAdamW"));
  std::vector<NamedTensor> limit = inputs(trainInputX());
  limit.push_back({"max_grad_norm", HostTensor::f32({}, {1.0f})});
  r = m->run("train", limit);
  ASSERT_TRUE(r.isError());
  EXPECT_THAT(r.message(),
              HasSubstr("entry 'train': input 'max_grad_norm' is filled by "
                        "the runtime (the gradient clipping limit); set it "
                        "with setMaxGradNorm"));
  r = m->run("train", {});
  ASSERT_TRUE(r.isError());
  EXPECT_THAT(r.message(), HasSubstr("entry 'train': missing input 'x' [16] "
                                     "(f32) (got 0 of 1 inputs)"));
  std::vector<NamedTensor> unknown = inputs(trainInputX());
  unknown.push_back({"q", HostTensor::f32({}, {1.0f})});
  r = m->run("train", unknown);
  ASSERT_TRUE(r.isError());
  EXPECT_THAT(r.message(), HasSubstr("unknown input 'q'; expected inputs: "
                                     "'x' [16] (f32)"));
  // Rejected calls neither step nor break the module.
  EXPECT_EQ(stepOf(*m), 0u);
  EXPECT_TRUE(m->run("train", inputs(trainInputX())).isOk());
  EXPECT_EQ(stepOf(*m), 1u);
}

TEST_F(TrainTest, TrainingApiOnAForwardEntry) {
  std::unique_ptr<Module> m = load(makeTrainModule(true));
  ASSERT_TRUE(m);
  auto forward = [](const std::string &op) {
    return HasSubstr(op + ": entry 'eval' is a Forward entry, expected a "
                          "Train entry");
  };
  EXPECT_THAT(m->setLearningRate("eval", 0.1f).message(),
              forward("setLearningRate"));
  EXPECT_THAT(m->setMaxGradNorm("eval", 1.0f).message(),
              forward("setMaxGradNorm"));
  EXPECT_THAT(m->setAdamW("eval", trainAdamW()).message(), forward("setAdamW"));
  EXPECT_THAT(m->setTrainStep("eval", 3).message(), forward("setTrainStep"));
  EXPECT_THAT(m->trainState("eval").message(), forward("trainState"));
  EXPECT_THAT(m->readMoments("eval").message(), forward("readMoments"));
  EXPECT_THAT(m->trainState("nope").message(),
              HasSubstr("unknown entry 'nope'; the module has entries: "
                        "'train', 'eval'"));
}

TEST_F(TrainTest, BadHyperparametersAreRefused) {
  constexpr float inf = std::numeric_limits<float>::infinity();
  constexpr float nan = std::numeric_limits<float>::quiet_NaN();
  std::unique_ptr<Module> m = load(makeTrainModule(true));
  ASSERT_TRUE(m);
  const std::pair<float, const char *> badLr[] = {
      {-1.0f, "-1"}, {nan, "nan"}, {inf, "inf"}, {-inf, "-inf"}};
  for (auto [lr, text] : badLr)
    EXPECT_THAT(m->setLearningRate("train", lr).message(),
                HasSubstr(std::string("setLearningRate: entry 'train': lr "
                                      "is ") +
                          text + ", expected a finite value >= 0"));
  const std::pair<float, const char *> badNorm[] = {
      {0.0f, "0"}, {-2.0f, "-2"}, {nan, "nan"}, {inf, "inf"}};
  for (auto [norm, text] : badNorm)
    EXPECT_THAT(m->setMaxGradNorm("train", norm).message(),
                HasSubstr(std::string("setMaxGradNorm: entry 'train': "
                                      "max_grad_norm is ") +
                          text + ", expected a finite value > 0"));
  AdamWDesc a = trainAdamW();
  a.beta1 = 1.0f;
  EXPECT_THAT(m->setAdamW("train", a).message(),
              HasSubstr("setAdamW: entry 'train': beta1 is 1, expected a "
                        "value in [0, 1)"));
  a = trainAdamW();
  a.eps = 0.0f;
  EXPECT_THAT(m->setAdamW("train", a).message(),
              HasSubstr("setAdamW: entry 'train': eps is 0, expected a "
                        "finite value > 0"));
  // Nothing was changed by the refused calls.
  Result<TrainState> state = m->trainState("train");
  ASSERT_TRUE(state.isOk());
  EXPECT_EQ(state->adamw.lr, trainAdamW().lr);
  EXPECT_EQ(state->adamw.beta1, trainAdamW().beta1);
  EXPECT_EQ(state->adamw.eps, trainAdamW().eps);
  EXPECT_EQ(state->maxGradNorm, std::optional<float>(kTrainMaxGradNorm));
  // lr = 0 is allowed (a step that only updates the moments).
  EXPECT_TRUE(m->setLearningRate("train", 0.0f).isOk());

  std::unique_ptr<Module> noClip = load(makeTrainModule(false));
  ASSERT_TRUE(noClip);
  EXPECT_THAT(noClip->setMaxGradNorm("train", 1.0f).message(),
              HasSubstr("setMaxGradNorm: entry 'train' does not clip "
                        "gradients (it was compiled without max_grad_norm)"));
}

} // namespace
