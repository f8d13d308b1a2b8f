//===- CaptureTest.cpp - capture(fn), captureStep(fn) and Params ----------===//

#include "capture/Tracer/Capture.h"
#include "test_env.h"

#include "llvm/Support/FileSystem.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <stdexcept>

using namespace capture;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

/// "CaptureTest.cpp:<line>": how an error names a line of this file.
std::string here(int line) { return "CaptureTest.cpp:" + std::to_string(line); }

/// x [rows, cols] with distinct values.
rt::HostTensor input(int64_t rows, int64_t cols, float scale = 0.1f) {
  std::vector<float> v(static_cast<size_t>(rows * cols));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = scale * static_cast<float>(static_cast<int>(i % 7) - 3);
  return rt::HostTensor::f32({rows, cols}, v);
}

/// The value of `name` in `values`.
std::vector<float> valueOf(const std::vector<rt::NamedTensor> &values,
                           const std::string &name) {
  for (const rt::NamedTensor &v : values)
    if (v.name == name)
      return v.tensor.asF32();
  ADD_FAILURE() << "no " << name;
  return {};
}

/// x @ W.T + b on the host, from the Params' current values.
std::vector<float> linearOnHost(Params &params, const rt::HostTensor &x,
                                const std::string &layer) {
  rt::Result<std::vector<rt::NamedTensor>> values = params.values();
  EXPECT_TRUE(values.isOk()) << values.message();
  std::vector<float> w = valueOf(values.value(), layer + ".weight");
  std::vector<float> b = valueOf(values.value(), layer + ".bias");
  std::vector<float> xs = x.asF32();
  int64_t rows = x.shape[0], in = x.shape[1];
  int64_t out = static_cast<int64_t>(b.size());
  std::vector<float> y(static_cast<size_t>(rows * out));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t o = 0; o < out; ++o) {
      float acc = 0;
      for (int64_t k = 0; k < in; ++k)
        acc += xs[r * in + k] * w[o * in + k];
      y[r * out + o] = acc + b[o];
    }
  return y;
}

void expectNear(const std::vector<float> &got, const std::vector<float> &want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-5) << i;
}

/// The loss of `fc` against a target of zeros: mean((fc(x) - 0)^2).
Tracer::Fn mseLoss(const Linear &fc) {
  return [&fc](Tracer::Inputs &in) {
    return Tracer::Outputs{{"loss", mse(fc(in.at("x")), in.at("target"))}};
  };
}

TEST(Capture, RecordsOncePerSignatureAndReplays) {
  Params params;
  Linear fc(params, "fc", 3, 2, /*seed=*/1);
  int traced = 0;
  Captured predict = capture::capture(
      [&](Tracer::Inputs &in) {
        ++traced;
        return Tracer::Outputs{{"y", fc(in.at("x"))}};
      },
      params);
  rt::HostTensor x4 = input(4, 3), x5 = input(5, 3);
  auto y = predict({{"x", x4}});
  ASSERT_TRUE(y.isOk()) << y.message();
  EXPECT_EQ(predict.whyRecorded(), "first call, with inputs x: f32 [4, 3]");
  expectNear(y.value()[0].tensor.asF32(), linearOnHost(params, x4, "fc"));
  ASSERT_TRUE(predict({{"x", x4}}).isOk());
  EXPECT_EQ(predict.whyRecorded(), "");
  EXPECT_EQ(traced, 1); // no warm-up run, no second trace

  y = predict({{"x", x5}});
  ASSERT_TRUE(y.isOk()) << y.message();
  EXPECT_EQ(predict.whyRecorded(), "new input signature x: f32 [5, 3]; "
                                   "recorded: {x: f32 [4, 3]}");
  expectNear(y.value()[0].tensor.asF32(), linearOnHost(params, x5, "fc"));
  ASSERT_TRUE(predict({{"x", x4}}).isOk());
  EXPECT_EQ(traced, 2);
  CaptureStats s = predict.stats();
  EXPECT_EQ(s.calls, 4u);
  EXPECT_EQ(s.recordings, 2u);
  EXPECT_EQ(s.replays, 2u);
  EXPECT_EQ(s.cached, 2u);
}

TEST(Capture, TheCacheBoundEvictsTheLeastRecentlyUsed) {
  Params params;
  Linear fc(params, "fc", 3, 2, /*seed=*/1);
  Captured predict = capture::capture(
      [&](Tracer::Inputs &in) {
        return Tracer::Outputs{{"y", fc(in.at("x"))}};
      },
      params, {.maxRecordings = 2});
  for (int64_t rows : {1, 2, 1, 3}) // 2 is the least recently used at 3
    ASSERT_TRUE(predict({{"x", input(rows, 3)}}).isOk());
  EXPECT_EQ(predict.stats().evictions, 1u);
  EXPECT_EQ(predict.stats().cached, 2u);
  ASSERT_TRUE(predict({{"x", input(1, 3)}}).isOk());
  EXPECT_EQ(predict.whyRecorded(), "");
  ASSERT_TRUE(predict({{"x", input(2, 3)}}).isOk());
  EXPECT_EQ(predict.whyRecorded(),
            "inputs x: f32 [2, 3] were recorded before and freed by the "
            "cache limit (maxRecordings = 2)");
  EXPECT_EQ(predict.stats().recordings, 4u);
}

/// A training step and a forward recorded over the same Params on
/// `device` (the default Vulkan device when null) read the same weights.
void stepAndForwardShareTheWeights(std::shared_ptr<rt::Device> device) {
  Params params(std::move(device));
  // Declared before, read after the layer: the recordings lay weights out
  // in declaration order, whatever order the step reads them in.
  Weight gain = params.weight("gain", {2}, Init::constant(1));
  Linear fc(params, "fc", 4, 2, /*seed=*/3);
  CapturedStep train = captureStep(
      [&](Tracer::Inputs &in) {
        Tensor y = fc(in.at("x")) * gain;
        return Tracer::Outputs{{"loss", mse(y, in.at("target"))}};
      },
      params, AdamW{.lr = 0.05}, {.maxGradNorm = 1});
  Captured predict = capture::capture(
      [&](Tracer::Inputs &in) {
        return Tracer::Outputs{{"y", fc(in.at("x"))}};
      },
      params);
  rt::HostTensor x1 = input(1, 4, 0.5f);
  auto before = predict({{"x", x1}});
  ASSERT_TRUE(before.isOk()) << before.message();
  rt::HostTensor x = input(8, 4),
                 target =
                     rt::HostTensor::f32({8, 2}, std::vector<float>(16, 0.0f));
  float firstLoss = 0, lastLoss = 0;
  for (int i = 0; i < 5; ++i) {
    auto out = train({{"x", x}, {"target", target}});
    ASSERT_TRUE(out.isOk()) << out.message();
    EXPECT_EQ(out.value()[0].name, "loss");
    (i == 0 ? firstLoss : lastLoss) = out.value()[0].tensor.asF32()[0];
  }
  EXPECT_LT(lastLoss, firstLoss);
  auto after = predict({{"x", x1}});
  ASSERT_TRUE(after.isOk()) << after.message();
  // The forward recording reads what the step trained, with no re-record.
  EXPECT_NE(after.value()[0].tensor.asF32(), before.value()[0].tensor.asF32());
  expectNear(after.value()[0].tensor.asF32(), linearOnHost(params, x1, "fc"));
  EXPECT_EQ(predict.stats().recordings, 1u);
  EXPECT_EQ(train.stats().recordings, 1u);
  EXPECT_EQ(train.trainState().value().step, 5u);
}

TEST(Capture, ATrainingStepAndAForwardShareTheWeights) {
  stepAndForwardShareTheWeights(nullptr);
}

// On the host device the recordings are compiled for the cpu target (the
// host code is all it runs) and share one host Weights buffer.
TEST(Capture, OnTheHostDeviceTooWithHostCode) {
  rt::DeviceOptions options;
  options.selector = "host";
  rt::Result<std::shared_ptr<rt::Device>> device = rt::Device::create(options);
  ASSERT_TRUE(device.isOk()) << device.message();
  stepAndForwardShareTheWeights(device.value());
}

// Params pick their device as the tools do: CAPTURE_DEVICE, else the
// default (a GPU, else the host device, whose recordings are host code).
TEST(Capture, ParamsPickTheirDeviceAsTheToolsDo) {
  auto deviceOf = [](std::optional<std::string> env) {
    rt::test::ScopedEnv scoped("CAPTURE_DEVICE", std::move(env));
    Params params;
    rt::Result<std::shared_ptr<rt::Device>> device = params.device();
    EXPECT_TRUE(device.isOk()) << device.message();
    return device.isOk() ? device.value() : nullptr;
  };
  std::shared_ptr<rt::Device> host = deviceOf("host");
  ASSERT_TRUE(host);
  EXPECT_EQ(host->info().type, rt::DeviceType::Host);
  EXPECT_EQ(host->choice(), "CAPTURE_DEVICE 'host'");
  std::shared_ptr<rt::Device> vulkan = deviceOf("vulkan");
  ASSERT_TRUE(vulkan);
  EXPECT_NE(vulkan->info().type, rt::DeviceType::Host);
  std::shared_ptr<rt::Device> chosen = deviceOf(std::nullopt);
  ASSERT_TRUE(chosen);
  rt::Result<std::shared_ptr<rt::Device>> libraryDefault = rt::Device::create();
  ASSERT_TRUE(libraryDefault.isOk()) << libraryDefault.message();
  EXPECT_EQ(chosen->info().type, libraryDefault.value()->info().type);
  EXPECT_EQ(chosen->choice(), libraryDefault.value()->choice());
  EXPECT_THAT(chosen->choice(), ::testing::StartsWith("default: "));
}

/// The trained weights after 3 steps of a fresh Params on `cache`, and
/// what the captured step's stats say.
static std::pair<std::vector<rt::NamedTensor>, CaptureStats>
threeSteps(const CompileCache &cache, bool fuse = true) {
  Params params;
  Linear fc(params, "fc", 4, 2, /*seed=*/3);
  CaptureOptions options;
  options.cache = cache;
  options.compile.fuse = fuse;
  CapturedStep train =
      captureStep(mseLoss(fc), params, AdamW{}, StepOptions(), options);
  rt::HostTensor t = rt::HostTensor::f32({8, 2}, std::vector<float>(16, 0.5f));
  for (int i = 0; i < 3; ++i)
    if (!train({{"x", input(8, 4)}, {"target", t}}).isOk())
      return {};
  return {params.values().value(), train.stats()};
}

TEST(CaptureStep, ARecordingComesFromTheCompileCacheTheSecondTime) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("capture-cache", dir));
  CompileCache cache{std::string(dir)};
  auto [first, firstStats] = threeSteps(cache);
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(firstStats.recordings, 1u);
  EXPECT_EQ(firstStats.cacheHits, 0u);
  // Another process would see the same: a fresh Params, the same code.
  auto [second, secondStats] = threeSteps(cache);
  EXPECT_EQ(secondStats.recordings, 1u);
  EXPECT_EQ(secondStats.cacheHits, 1u);
  ASSERT_EQ(second.size(), first.size());
  for (size_t i = 0; i < first.size(); ++i)
    EXPECT_EQ(second[i].tensor.asF32(), first[i].tensor.asF32())
        << first[i].name;
  // Another option is another module; no cache compiles every time.
  EXPECT_EQ(threeSteps(cache, /*fuse=*/false).second.cacheHits, 0u);
  EXPECT_EQ(threeSteps(cache, /*fuse=*/false).second.cacheHits, 1u);
  EXPECT_EQ(threeSteps(CompileCache()).second.cacheHits, 0u);
  llvm::sys::fs::remove_directories(dir);
}

TEST(CaptureStep, OtherShapesAreAnErrorNamingBoth) {
  Params params;
  Linear fc(params, "fc", 4, 2, /*seed=*/3);
  CapturedStep train = captureStep(mseLoss(fc), params, AdamW{});
  rt::HostTensor t8 = rt::HostTensor::f32({8, 2}, std::vector<float>(16, 0.0f));
  rt::HostTensor t6 = rt::HostTensor::f32({6, 2}, std::vector<float>(12, 0.0f));
  ASSERT_TRUE(train({{"x", input(8, 4)}, {"target", t8}}).isOk());
  auto bad = train({{"x", input(6, 4)}, {"target", t6}});
  ASSERT_TRUE(bad.isError());
  EXPECT_THAT(bad.message(),
              HasSubstr("inputs target: f32 [6, 2], x: f32 [6, 4] differ from "
                        "the recording's target: f32 [8, 2], x: f32 [8, 4]"));
  EXPECT_THAT(bad.message(), HasSubstr("pad the batch"));
  EXPECT_THAT(bad.message(), HasSubstr("buckets"));
  // Only the bad call failed.
  ASSERT_TRUE(train({{"x", input(8, 4)}, {"target", t8}}).isOk());
  EXPECT_EQ(train.stats().recordings, 1u);
  EXPECT_EQ(train.trainState().value().step, 2u);
}

TEST(CaptureStep, ARefusedStepIsItsOwnCodeAndChangesNothing) {
  Params params;
  Linear fc(params, "fc", 4, 2, /*seed=*/3);
  CapturedStep train = captureStep(mseLoss(fc), params, AdamW{});
  rt::HostTensor t = rt::HostTensor::f32({8, 2}, std::vector<float>(16, 0.f));
  ASSERT_TRUE(train({{"x", input(8, 4)}, {"target", t}}).isOk());
  std::vector<rt::NamedTensor> before = params.values().value();
  rt::HostTensor bad = input(8, 4);
  std::vector<float> v = bad.asF32();
  v[5] = std::nanf("");
  auto r = train({{"x", rt::HostTensor::f32({8, 4}, v)}, {"target", t}});
  ASSERT_TRUE(r.isError());
  EXPECT_EQ(r.status().code(), rt::StatusCode::UpdateRefused);
  EXPECT_EQ(train.trainState().value().step, 1u);
  std::vector<rt::NamedTensor> after = params.values().value();
  for (size_t i = 0; i < before.size(); ++i)
    EXPECT_EQ(before[i].tensor.data, after[i].tensor.data) << before[i].name;
  ASSERT_TRUE(train({{"x", input(8, 4)}, {"target", t}}).isOk());
  EXPECT_EQ(train.trainState().value().step, 2u);
}

TEST(CaptureStep, HyperparametersNeverRecord) {
  Params params;
  Linear fc(params, "fc", 4, 2, /*seed=*/3);
  CapturedStep train =
      captureStep(mseLoss(fc), params, AdamW{.lr = 0.01}, {.maxGradNorm = 2});
  rt::HostTensor t = rt::HostTensor::f32({8, 2}, std::vector<float>(16, 0.f));
  // Set before the first call: the recording starts with them.
  ASSERT_TRUE(train.setLearningRate(0.02).isOk());
  ASSERT_TRUE(train({{"x", input(8, 4)}, {"target", t}}).isOk());
  EXPECT_FLOAT_EQ(train.trainState().value().adamw.lr, 0.02f);
  ASSERT_TRUE(train.setLearningRate(0.005).isOk());
  ASSERT_TRUE(train.setMaxGradNorm(0.25).isOk());
  ASSERT_TRUE(train({{"x", input(8, 4)}, {"target", t}}).isOk());
  EXPECT_EQ(train.whyRecorded(), "");
  EXPECT_EQ(train.stats().recordings, 1u);
  rt::TrainState state = train.trainState().value();
  EXPECT_FLOAT_EQ(state.adamw.lr, 0.005f);
  EXPECT_FLOAT_EQ(state.maxGradNorm.value(), 0.25f);

  EXPECT_THAT(train.setLearningRate(-1).message(), HasSubstr(">= 0, got -1"));
  CapturedStep unclipped = captureStep(mseLoss(fc), params, AdamW{});
  EXPECT_THAT(unclipped.setMaxGradNorm(1).message(),
              HasSubstr("created without clipping"));
}

TEST(Capture, ARecreatedWeightRecordsAgainAndKeepsTheOthers) {
  Params params;
  Weight w = params.weight("w", {3}, Init::uniform(-1, 1, 5));
  Weight b = params.weight("b", {3}, Init::zeros());
  int traced = 0;
  Captured f = capture::capture(
      [&](Tracer::Inputs &in) {
        ++traced;
        return Tracer::Outputs{{"y", in.at("x") * w + b}};
      },
      params);
  rt::HostTensor x = rt::HostTensor::f32({3}, {1, 2, 3});
  ASSERT_TRUE(f({{"x", x}}).isOk());
  ASSERT_TRUE(
      params.setValues({{"b", rt::HostTensor::f32({3}, {7, 8, 9})}}).isOk());
  int line = __LINE__ + 1;
  w = params.recreate("w", {3}, Init::constant(2));
  auto y = f({{"x", x}});
  ASSERT_TRUE(y.isOk()) << y.message();
  EXPECT_EQ(traced, 2);
  EXPECT_THAT(f.whyRecorded(), HasSubstr("the recording of x: f32 [3] was "
                                         "dropped: weight 'w' was re-created "
                                         "at"));
  EXPECT_THAT(f.whyRecorded(), HasSubstr(here(line)));
  // The new weight's initializer, and the value set for b before.
  EXPECT_EQ(y.value()[0].tensor.asF32(), (std::vector<float>{9, 12, 15}));

  // A handle from before the re-creation is refused by name.
  Weight old = w;
  w = params.recreate("w", {3}, Init::zeros());
  Captured g = capture::capture(
      [&](Tracer::Inputs &in) {
        return Tracer::Outputs{{"y", in.at("x") * old}};
      },
      params);
  auto refused = g({{"x", x}});
  ASSERT_TRUE(refused.isError());
  EXPECT_THAT(refused.message(), HasSubstr("weight 'w': this handle is from "
                                           "before the weight was re-created"));
}

/// Trains `steps` steps of a fresh two-layer model on a fixed batch,
/// calling free() after each step listed in `freeAfter`; returns every
/// loss and the final weights.
std::pair<std::vector<float>, std::vector<rt::NamedTensor>>
trainWithFrees(int steps, std::vector<int> freeAfter) {
  Params params;
  Linear fc1(params, "fc1", 4, 8, /*seed=*/1), fc2(params, "fc2", 8, 2, 3);
  CapturedStep train = captureStep(
      [&](Tracer::Inputs &in) {
        Tensor h = tanh(fc1(in.at("x")));
        return Tracer::Outputs{{"loss", mse(fc2(h), in.at("target"))}};
      },
      params, AdamW{.lr = 0.03}, {.maxGradNorm = 0.5});
  std::vector<float> target(16);
  for (size_t i = 0; i < target.size(); ++i)
    target[i] = static_cast<float>(i % 3) - 1;
  std::vector<float> losses;
  for (int i = 1; i <= steps; ++i) {
    auto out = train(
        {{"x", input(8, 4)}, {"target", rt::HostTensor::f32({8, 2}, target)}});
    EXPECT_TRUE(out.isOk()) << out.message();
    if (out.isError())
      break;
    losses.push_back(out.value()[0].tensor.asF32()[0]);
    bool resumed =
        std::find(freeAfter.begin(), freeAfter.end(), i - 1) != freeAfter.end();
    EXPECT_EQ(train.whyRecorded(),
              resumed ? "free() released the recordings; inputs target: f32 "
                        "[8, 2], x: f32 [8, 4]"
                      : (i == 1 ? "first call, with inputs target: f32 [8, "
                                  "2], x: f32 [8, 4]"
                                : ""));
    if (std::find(freeAfter.begin(), freeAfter.end(), i) != freeAfter.end()) {
      EXPECT_TRUE(train.free().isOk());
      EXPECT_EQ(train.stats().cached, 0u);
      // Between recordings the step counter is the saved one.
      EXPECT_EQ(train.trainState().value().step, static_cast<uint64_t>(i));
    }
  }
  EXPECT_EQ(train.stats().recordings, 1 + freeAfter.size());
  return {losses, params.values().value()};
}

TEST(CaptureStep, FreeKeepsWeightsAndOptimizerStateBitwise) {
  auto [losses, weights] = trainWithFrees(6, {});
  auto [resumedLosses, resumedWeights] = trainWithFrees(6, {2, 3});
  EXPECT_EQ(losses, resumedLosses);
  ASSERT_EQ(weights.size(), resumedWeights.size());
  for (size_t i = 0; i < weights.size(); ++i) {
    EXPECT_EQ(weights[i].name, resumedWeights[i].name);
    EXPECT_EQ(weights[i].tensor.data, resumedWeights[i].tensor.data)
        << weights[i].name;
  }
}

TEST(Capture, AFailedTraceLeavesNoStateAndTheNextCallWorks) {
  Params params;
  Weight w = params.weight("w", {2}, Init::constant(3));
  int traced = 0;
  bool throwNow = true, readBack = false;
  int readLine = 0;
  Captured f = capture::capture(
      [&](Tracer::Inputs &in) {
        ++traced;
        Tensor y = in.at("x") * w;
        if (throwNow)
          throw std::runtime_error("boom");
        readLine = __LINE__ + 1;
        if (readBack && y.item() > 0)
          y = y * 2.0f;
        return Tracer::Outputs{{"y", y}};
      },
      params);
  rt::HostTensor x = rt::HostTensor::f32({2}, {1, -1});
  auto r = f({{"x", x}});
  ASSERT_TRUE(r.isError());
  EXPECT_THAT(r.message(), HasSubstr("the traced function threw: boom"));
  EXPECT_THAT(r.message(), HasSubstr("first call"));
  EXPECT_EQ(f.stats().cached, 0u);
  throwNow = false;
  readBack = true;
  r = f({{"x", x}});
  ASSERT_TRUE(r.isError());
  EXPECT_THAT(r.message(), HasSubstr(here(readLine)));
  EXPECT_THAT(r.message(), HasSubstr("download"));
  readBack = false;
  r = f({{"x", x}});
  ASSERT_TRUE(r.isOk()) << r.message();
  EXPECT_EQ(r.value()[0].tensor.asF32(), (std::vector<float>{3, -3}));
  EXPECT_EQ(traced, 3);
  EXPECT_EQ(f.stats().cached, 1u);
}

TEST(Capture, BadCallsAreErrors) {
  std::optional<Captured> f;
  {
    Params params;
    Weight w = params.weight("w", {2}, Init::constant(3));
    f = capture::capture(
        [w](Tracer::Inputs &in) {
          return Tracer::Outputs{{"y", in.at("x") * w}};
        },
        params);
    rt::HostTensor x = rt::HostTensor::f32({2}, {1, 2});
    EXPECT_THAT((*f)({{"x", x}, {"x", x}}).message(),
                HasSubstr("input 'x' is given twice"));
    rt::HostTensor shortX = x;
    shortX.data.resize(4);
    EXPECT_THAT((*f)({{"x", shortX}}).message(),
                HasSubstr("input 'x' [2] (f32) needs 8 bytes of data, got 4"));
    EXPECT_EQ(f->stats().recordings, 0u);
    // An input the function reads but the call lacks: the trace names it.
    EXPECT_THAT((*f)({{"y", x}}).message(),
                HasSubstr("no input 'x' (the inputs: 'y')"));
  }
  EXPECT_THAT((*f)({{"x", rt::HostTensor::f32({2}, {1, 2})}}).message(),
              HasSubstr("its Params was destroyed"));
}

TEST(CaptureStep, EveryTrainableWeightMustBeTrained) {
  Params params;
  Linear fc(params, "fc", 4, 2, /*seed=*/3);
  params.weight("unused", {2}, Init::zeros());
  CapturedStep train = captureStep(mseLoss(fc), params, AdamW{});
  rt::HostTensor t = rt::HostTensor::f32({8, 2}, std::vector<float>(16, 0.f));
  auto r = train({{"x", input(8, 4)}, {"target", t}});
  ASSERT_TRUE(r.isError());
  EXPECT_THAT(r.message(),
              HasSubstr("the loss does not depend on the trainable weight(s) "
                        "'unused'"));
  EXPECT_EQ(train.stats().cached, 0u);
}

TEST(CaptureStep, StepsOverOneParamsTrainWhatTheirOptionsList) {
  // SAC's critics and actor: two steps over one Params, each training its
  // own weights and reading the other's through stopGradient; their
  // modules lay the weights out alike and share one Weights buffer.
  Params params;
  Linear fc(params, "fc", 4, 2, /*seed=*/3);
  Weight scale = params.weight("scale", {2}, Init::constant(0.5));
  rt::HostTensor t = rt::HostTensor::f32({8, 2}, std::vector<float>(16, 1.f));
  auto fcLoss = [&](Tracer::Inputs &in) {
    return Tracer::Outputs{
        {"loss", mse(fc(in.at("x")) * stopGradient(scale), in.at("target"))}};
  };
  auto scaleLoss = [&](Tracer::Inputs &in) {
    return Tracer::Outputs{
        {"loss", mse(stopGradient(fc(in.at("x"))) * scale, in.at("target"))}};
  };
  StepOptions fcOnly, scaleOnly;
  fcOnly.trains = std::vector<std::string>{"fc.weight", "fc.bias"};
  scaleOnly.trains = std::vector<std::string>{"scale"};
  CapturedStep trainFc = captureStep(fcLoss, params, AdamW{}, fcOnly);
  CapturedStep trainScale = captureStep(scaleLoss, params, AdamW{}, scaleOnly);
  std::vector<rt::NamedTensor> v0 = params.values().value();
  ASSERT_TRUE(trainFc({{"x", input(8, 4)}, {"target", t}}).isOk());
  std::vector<rt::NamedTensor> v1 = params.values().value();
  EXPECT_EQ(valueOf(v1, "scale"), valueOf(v0, "scale"));
  EXPECT_NE(valueOf(v1, "fc.weight"), valueOf(v0, "fc.weight"));
  ASSERT_TRUE(trainScale({{"x", input(8, 4)}, {"target", t}}).isOk());
  std::vector<rt::NamedTensor> v2 = params.values().value();
  EXPECT_EQ(valueOf(v2, "fc.weight"), valueOf(v1, "fc.weight"));
  EXPECT_NE(valueOf(v2, "scale"), valueOf(v1, "scale"));
  // The second step read what the first trained, with no copy: once
  // more, each moves its own weights from where the other left them.
  ASSERT_TRUE(trainFc({{"x", input(8, 4)}, {"target", t}}).isOk());
  EXPECT_EQ(valueOf(params.values().value(), "scale"), valueOf(v2, "scale"));

  // A step that would train another's weight, or not its own: errors.
  CapturedStep greedy = captureStep(
      [&](Tracer::Inputs &in) {
        return Tracer::Outputs{
            {"loss", mse(fc(in.at("x")) * scale, in.at("target"))}};
      },
      params, AdamW{}, fcOnly);
  EXPECT_THAT(greedy({{"x", input(8, 4)}, {"target", t}}).message(),
              HasSubstr("the step trains 'scale', which its options do not "
                        "list (StepOptions::trains)"));
  StepOptions both = scaleOnly;
  both.trains->push_back("fc.bias");
  CapturedStep idle = captureStep(scaleLoss, params, AdamW{}, both);
  EXPECT_THAT(idle({{"x", input(8, 4)}, {"target", t}}).message(),
              HasSubstr("the loss does not depend on the trainable weight(s) "
                        "'fc.bias': the step's options say it trains them"));
}

TEST(Params, ValuesBeforeTheFirstLoadAreTheDevicesBits) {
  Params params;
  Linear fc(params, "fc", 5, 3, /*seed=*/11);
  params.weight("s", {4}, Init::normal(0.5, 2, 9), /*trainable=*/false);
  rt::Result<std::vector<rt::NamedTensor>> host = params.values();
  ASSERT_TRUE(host.isOk()) << host.message();
  Captured f = capture::capture(
      [&](Tracer::Inputs &in) {
        return Tracer::Outputs{{"y", fc(in.at("x"))}};
      },
      params);
  ASSERT_TRUE(f({{"x", input(1, 5)}}).isOk());
  rt::Result<std::vector<rt::NamedTensor>> device = params.values();
  ASSERT_TRUE(device.isOk()) << device.message();
  ASSERT_EQ(host.value().size(), 3u);
  ASSERT_EQ(device.value().size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(host.value()[i].name, device.value()[i].name);
    EXPECT_EQ(host.value()[i].tensor.data, device.value()[i].tensor.data);
  }
  EXPECT_EQ(params.names(),
            (std::vector<std::string>{"fc.weight", "fc.bias", "s"}));
}

TEST(Params, DeclarationAndValueErrorsAreNamed) {
  Params params;
  params.weight("w", {2}, Init::zeros());
  EXPECT_THAT(
      params.setValues({{"v", rt::HostTensor::f32({2}, {1, 2})}}).message(),
      HasSubstr("no weight 'v'; the weights: 'w'"));
  EXPECT_THAT(
      params.setValues({{"w", rt::HostTensor::f32({3}, {1, 2, 3})}}).message(),
      HasSubstr("weight 'w' is [2] (f32), got [3] (f32)"));
  Params other;
  other.recreate("nope", {2}, Init::zeros());
  EXPECT_THAT(other.values().message(),
              HasSubstr("no weight 'nope' is declared"));
  Params twice;
  twice.weight("w", {2}, Init::zeros());
  int line = __LINE__ + 1;
  twice.weight("w", {2}, Init::zeros());
  EXPECT_THAT(twice.values().message(), HasSubstr(here(line)));
  EXPECT_THAT(twice.values().message(), HasSubstr("use Params::recreate"));
}

} // namespace

namespace {

TEST(Capture, SequentialConcatAndOneHot) {
  Params params;
  Sequential net(params, "net",
                 {Layer::linear(3, 4, /*seed=*/1), Layer::tanh(),
                  Layer::linear(4, 2, /*seed=*/3)});
  EXPECT_EQ(params.names(),
            (std::vector<std::string>{"net.0.weight", "net.0.bias",
                                      "net.2.weight", "net.2.bias"}));
  ASSERT_NE(net.linear(2), nullptr);
  EXPECT_EQ(net.linear(1), nullptr);
  Captured f = capture::capture(
      [&](Tracer::Inputs &in) {
        Tensor y = net(in.at("x"));
        return Tracer::Outputs{{"joined", concat({in.at("x"), y}, -1)},
                               {"hot", oneHot(in.at("labels"), 3)}};
      },
      params);
  rt::HostTensor x = input(2, 3);
  auto out = f({{"x", x}, {"labels", rt::HostTensor::i32({2}, {2, 0})}});
  ASSERT_TRUE(out.isOk()) << out.message();
  // net(x) on the host: tanh(x W0^T + b0) W2^T + b2.
  std::vector<rt::NamedTensor> values = params.values().value();
  std::vector<float> xs = x.asF32(), w0 = valueOf(values, "net.0.weight"),
                     b0 = valueOf(values, "net.0.bias"),
                     w2 = valueOf(values, "net.2.weight"),
                     b2 = valueOf(values, "net.2.bias");
  std::vector<float> want;
  for (int r = 0; r < 2; ++r) {
    std::vector<float> h(4);
    for (int o = 0; o < 4; ++o) {
      float acc = b0[o];
      for (int k = 0; k < 3; ++k)
        acc += xs[r * 3 + k] * w0[o * 3 + k];
      h[o] = std::tanh(acc);
    }
    for (int k = 0; k < 3; ++k)
      want.push_back(xs[r * 3 + k]);
    for (int o = 0; o < 2; ++o) {
      float acc = b2[o];
      for (int k = 0; k < 4; ++k)
        acc += h[k] * w2[o * 4 + k];
      want.push_back(acc);
    }
  }
  EXPECT_EQ(out.value()[0].tensor.shape, (std::vector<int64_t>{2, 5}));
  expectNear(out.value()[0].tensor.asF32(), want);
  EXPECT_EQ(out.value()[1].tensor.asF32(),
            (std::vector<float>{0, 0, 1, 1, 0, 0}));
}

TEST(Capture, ParamsWithoutWeightsRecordPerSignatureToo) {
  Params none;
  Captured f = capture::capture(
      [](Tracer::Inputs &in) {
        return Tracer::Outputs{{"y", exp(in.at("x"))}};
      },
      none);
  ASSERT_TRUE(f({{"x", input(1, 2)}}).isOk());
  auto y = f({{"x", rt::HostTensor::f32({3}, {0, 0, 0})}});
  ASSERT_TRUE(y.isOk()) << y.message();
  EXPECT_EQ(y.value()[0].tensor.asF32(), (std::vector<float>{1, 1, 1}));
  EXPECT_EQ(f.stats().cached, 2u);
}

TEST(Capture, ACapturedCallInsideATraceIsAnEagerLaunch) {
  Params params;
  Weight w = params.weight("w", {2}, Init::constant(3));
  Captured inner = capture::capture(
      [&](Tracer::Inputs &in) {
        return Tracer::Outputs{{"y", in.at("x") * w}};
      },
      params);
  rt::HostTensor x = rt::HostTensor::f32({2}, {1, 2});
  bool nested = true;
  int line = 0;
  rt::Status innerStatus;
  bool tracing = false;
  Captured outer = capture::capture(
      [&](Tracer::Inputs &in) {
        if (nested) {
          tracing = inner.tracing();
          line = __LINE__ + 1;
          innerStatus = inner({{"x", x}}).status();
        }
        return Tracer::Outputs{{"y", in.at("x") + w}};
      },
      params);
  auto r = outer({{"x", x}});
  ASSERT_TRUE(r.isError());
  EXPECT_THAT(innerStatus.message(), HasSubstr("recorded there as an eager "
                                               "launch"));
  EXPECT_THAT(r.message(), HasSubstr(here(line)));
  EXPECT_THAT(r.message(), HasSubstr("eager launch of 'capture made at"));
  EXPECT_EQ(inner.stats().recordings, 0u);
  EXPECT_TRUE(tracing);
  EXPECT_FALSE(inner.tracing());
  // Outside a trace both work.
  nested = false;
  ASSERT_TRUE(outer({{"x", x}}).isOk());
  ASSERT_TRUE(inner({{"x", x}}).isOk());
}

TEST(Capture, ConcatAndOneHotErrorsNameTheLine) {
  Params params;
  int line = 0;
  Captured axis = capture::capture(
      [&](Tracer::Inputs &in) {
        line = __LINE__ + 1;
        return Tracer::Outputs{{"y", concat({in.at("x"), in.at("x")}, 2)}};
      },
      params);
  auto r = axis({{"x", input(2, 3)}});
  EXPECT_THAT(r.message(), HasSubstr(here(line)));
  EXPECT_THAT(r.message(), HasSubstr("concat: axis 2 of a rank-2 tensor"));
  Captured rank = capture::capture(
      [&](Tracer::Inputs &in) {
        Tensor flat = reshape(in.at("x"), {6});
        line = __LINE__ + 1;
        return Tracer::Outputs{{"y", concat({in.at("x"), flat}, 0)}};
      },
      params);
  r = rank({{"x", input(2, 3)}});
  EXPECT_THAT(r.message(), HasSubstr(here(line)));
  EXPECT_THAT(r.message(), HasSubstr("part 1 is [6], of another rank"));
  Captured hot = capture::capture(
      [&](Tracer::Inputs &in) {
        line = __LINE__ + 1;
        return Tracer::Outputs{{"y", oneHot(in.at("labels"), 0)}};
      },
      params);
  r = hot({{"labels", rt::HostTensor::i32({2}, {0, 1})}});
  EXPECT_THAT(r.message(), HasSubstr(here(line)));
  EXPECT_THAT(r.message(), HasSubstr("classes >= 1, got [2] and 0"));
}

TEST(Capture, ARecordingAfterAFailedOneSaysThePreviousFailed) {
  // The signature is the one of the failed call, not a new one: the
  // retry says it records again because the previous recording failed.
  Params params;
  Weight w = params.weight("w", {2}, Init::constant(3));
  int failures = 2;
  Captured f = capture::capture(
      [&](Tracer::Inputs &in) {
        if (failures > 0) {
          --failures;
          throw std::runtime_error("boom");
        }
        return Tracer::Outputs{{"y", in.at("x") * w}};
      },
      params);
  rt::HostTensor x = rt::HostTensor::f32({2}, {1, -1});
  auto r = f({{"x", x}});
  ASSERT_TRUE(r.isError());
  EXPECT_EQ(f.whyRecorded(), "first call, with inputs x: f32 [2]");
  const std::string retry = "the previous call's recording of inputs x: f32 "
                            "[2] failed, so this call records again";
  r = f({{"x", x}});
  ASSERT_TRUE(r.isError());
  EXPECT_EQ(f.whyRecorded(), retry);
  EXPECT_THAT(r.message(), HasSubstr("recording failed (" + retry + ")"));
  EXPECT_THAT(r.message(), Not(HasSubstr("new input signature")));
  r = f({{"x", x}});
  ASSERT_TRUE(r.isOk()) << r.message();
  EXPECT_EQ(f.whyRecorded(), retry);
  EXPECT_EQ(r.value()[0].tensor.asF32(), (std::vector<float>{3, -3}));
  // Once a recording succeeded, other shapes are a new signature again.
  r = f({{"x", rt::HostTensor::f32({2, 2}, {1, 2, 3, 4})}});
  ASSERT_TRUE(r.isOk()) << r.message();
  EXPECT_EQ(f.whyRecorded(),
            "new input signature x: f32 [2, 2]; recorded: {x: f32 [2]}");
}

} // namespace
