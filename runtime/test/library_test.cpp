//===- library_test.cpp - Weights at once, gradients, probes, inputs ------===//
//
// The runtime as a library: setParams/getParams, readGradients,
// resetOptimizer, probes read with a run's outputs, unchanged inputs not
// sent again, and weights shared between modules.
//
//===----------------------------------------------------------------------===//

#include "capture/rt/module.h"
#include "device_fixture.h"
#include "module_access.h"
#include "test_util.h"
#include "train_module.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

using namespace capture::rt;
using namespace capture::rt::test;
using ::testing::AllOf;
using ::testing::HasSubstr;

namespace {

class LibraryTest : public DeviceTest {};

std::vector<NamedTensor> trainX(const std::vector<float> &x) {
  return {{"x", HostTensor::f32({16}, x)}};
}

std::vector<NamedTensor> predictInputs(const std::vector<float> &x,
                                       const std::vector<float> &b) {
  return {{"x", HostTensor::f32({2, 4}, x)}, {"b", HostTensor::f32({2, 4}, b)}};
}

/// Every weight's bytes, in module order.
std::vector<std::vector<uint8_t>> paramBytes(Module &m) {
  Result<std::vector<NamedTensor>> p = m.getParams();
  EXPECT_TRUE(p.isOk()) << p.message();
  std::vector<std::vector<uint8_t>> out;
  if (p.isOk())
    for (const NamedTensor &t : p.value())
      out.push_back(t.tensor.data);
  return out;
}

std::vector<NamedTensor> newParams() {
  return {{"w1", HostTensor::f32({2, 3}, {1, 2, 3, 4, 5, 6})},
          {"w2", HostTensor::f32({4}, {7, 8, 9, 10})},
          {"bias", HostTensor::f32({4}, {-1, -2, -3, -4})}};
}

TEST_F(LibraryTest, SetParamsUploadsAllAndGetParamsReadsAll) {
  std::unique_ptr<Module> m = load(makeTrainModule(false));
  ASSERT_TRUE(m);
  Result<std::vector<NamedTensor>> before = m->getParams();
  ASSERT_TRUE(before.isOk()) << before.message();
  ASSERT_EQ(before->size(), 3u);
  EXPECT_EQ(before.value()[0].name, "w1");
  EXPECT_EQ(before.value()[0].tensor.asF32(), initialW1());
  EXPECT_EQ(before.value()[2].tensor.asF32(), initialBias());

  ASSERT_TRUE(m->setParams(newParams()).isOk());
  std::vector<NamedTensor> want = newParams();
  Result<std::vector<NamedTensor>> after = m->getParams();
  ASSERT_TRUE(after.isOk()) << after.message();
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(after.value()[i].name, want[i].name);
    EXPECT_EQ(after.value()[i].tensor.data, want[i].tensor.data);
  }
  // The replay sees them: eval's residual = params - x.
  Result<std::vector<NamedTensor>> out =
      m->run("eval", trainX(std::vector<float>(16, 0.0f)));
  ASSERT_TRUE(out.isOk()) << out.message();
  EXPECT_EQ(out.value()[0].tensor.asF32()[8], 7.0f);
}

TEST_F(LibraryTest, SetParamsChecksEverythingFirst) {
  std::unique_ptr<Module> m = load(makeTrainModule(false));
  ASSERT_TRUE(m);
  std::vector<std::vector<uint8_t>> initial = paramBytes(*m);

  std::vector<NamedTensor> unknown = newParams();
  unknown.push_back({"w3", HostTensor::f32({1}, {0})});
  EXPECT_THAT(m->setParams(unknown).message(),
              AllOf(HasSubstr("unknown parameter 'w3'"), HasSubstr("'bias'")));
  std::vector<NamedTensor> missing = newParams();
  missing.pop_back();
  EXPECT_THAT(
      m->setParams(missing).message(),
      AllOf(HasSubstr("missing parameter 'bias'"), HasSubstr("got 2 of 3")));
  // The bad tensor is last: the good ones before it must not be sent.
  std::vector<NamedTensor> shape = newParams();
  shape.back().tensor = HostTensor::f32({2, 2}, {1, 2, 3, 4});
  EXPECT_THAT(m->setParams(shape).message(),
              HasSubstr("parameter 'bias' has shape [4] (f32), got [2, 2]"));
  std::vector<NamedTensor> bytes = newParams();
  bytes.back().tensor.data.pop_back();
  EXPECT_THAT(m->setParams(bytes).message(),
              HasSubstr("'bias' of shape [4] (f32) needs 16 bytes"));
  std::vector<NamedTensor> twice = newParams();
  twice.push_back(newParams()[0]);
  EXPECT_THAT(m->setParams(twice).message(),
              HasSubstr("parameter 'w1' given twice"));
  EXPECT_EQ(paramBytes(*m), initial);

  // Partial: only the given ones change; unknown and wrong shapes still fail.
  SetParamsOptions partial;
  partial.partial = true;
  EXPECT_THAT(m->setParams({unknown.back()}, partial).message(),
              HasSubstr("unknown parameter 'w3'"));
  EXPECT_THAT(m->setParams({shape.back()}, partial).message(),
              HasSubstr("parameter 'bias' has shape [4] (f32)"));
  ASSERT_TRUE(m->setParams({newParams()[1]}, partial).isOk());
  std::vector<std::vector<uint8_t>> now = paramBytes(*m);
  ASSERT_EQ(now.size(), 3u);
  EXPECT_EQ(now[0], initial[0]);
  EXPECT_EQ(now[1], newParams()[1].tensor.data);
  EXPECT_EQ(now[2], initial[2]);
}

TEST_F(LibraryTest, ReadGradientsFlatAndPerWeight) {
  std::unique_ptr<Module> m = load(makeTrainModule(false));
  ASSERT_TRUE(m);
  EXPECT_THAT(m->readGradients("train").message(),
              HasSubstr("has not run a step since load"));
  EXPECT_THAT(m->readGradients("eval").message(),
              HasSubstr("expected a Train entry"));
  std::vector<float> x = trainInputX();
  ASSERT_TRUE(m->run("train", trainX(x)).isOk());
  Result<TrainGradients> g = m->readGradients("train");
  ASSERT_TRUE(g.isOk()) << g.message();
  // Without clipping the gradient is params - x, in float, bit for bit.
  std::vector<float> p = trainInitialParams(), want(kTrainParams);
  for (size_t i = 0; i < kTrainParams; ++i)
    want[i] = p[i] - x[i];
  EXPECT_EQ(g->flat.shape, std::vector<int64_t>{16});
  EXPECT_EQ(g->flat.asF32(), want);
  ASSERT_EQ(g->perWeight.size(), 2u);
  EXPECT_EQ(g->perWeight[0].name, "w1");
  EXPECT_EQ(g->perWeight[0].tensor.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(g->perWeight[0].tensor.asF32(),
            std::vector<float>(want.begin(), want.begin() + 6));
  EXPECT_EQ(g->perWeight[1].name, "w2");
  EXPECT_EQ(g->perWeight[1].tensor.asF32(),
            std::vector<float>(want.begin() + 8, want.begin() + 12));

  // A module that does not describe its gradient range says so.
  ModuleDesc old = makeTrainModule(false);
  old.entries[0].train->grads.reset();
  std::unique_ptr<Module> o = load(old);
  ASSERT_TRUE(o);
  ASSERT_TRUE(o->run("train", trainX(x)).isOk());
  EXPECT_THAT(o->readGradients("train").message(),
              HasSubstr("no train.grads range"));
}

/// Steps `a` and `b` `steps` times on the same batch: the losses, weights
/// and moments stay bitwise equal.
void expectSameSteps(Module &a, Module &b, int steps) {
  for (int i = 0; i < steps; ++i) {
    Result<std::vector<NamedTensor>> oa =
        a.run("train", trainX(trainInputX2()));
    Result<std::vector<NamedTensor>> ob =
        b.run("train", trainX(trainInputX2()));
    ASSERT_TRUE(oa.isOk() && ob.isOk());
    EXPECT_EQ(oa.value()[0].tensor.data, ob.value()[0].tensor.data);
  }
  EXPECT_EQ(paramBytes(a), paramBytes(b));
  Result<AdamWMoments> ma = a.readMoments("train"), mb = b.readMoments("train");
  ASSERT_TRUE(ma.isOk() && mb.isOk());
  EXPECT_EQ(ma->m.data, mb->m.data);
  EXPECT_EQ(ma->v.data, mb->v.data);
}

TEST_F(LibraryTest, ResetOptimizerMatchesAFreshModuleBitwise) {
  std::unique_ptr<Module> a = load(makeTrainModule(true));
  std::unique_ptr<Module> b = load(makeTrainModule(true));
  ASSERT_TRUE(a && b);
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(
        a->run("train", trainX(i % 2 ? trainInputX2() : trainInputX())).isOk());
  ASSERT_TRUE(a->resetOptimizer("train").isOk());
  Result<TrainState> s = a->trainState("train");
  ASSERT_TRUE(s.isOk());
  EXPECT_EQ(s->step, 0u);
  Result<AdamWMoments> zero = a->readMoments("train");
  ASSERT_TRUE(zero.isOk());
  EXPECT_EQ(zero->m.data, std::vector<uint8_t>(kTrainParams * 4, 0));
  EXPECT_EQ(zero->v.data, std::vector<uint8_t>(kTrainParams * 4, 0));
  EXPECT_THAT(a->resetOptimizer("eval").message(),
              HasSubstr("expected a Train entry"));

  // From the same weights, a reset optimizer steps as a fresh one.
  Result<std::vector<NamedTensor>> params = a->getParams();
  ASSERT_TRUE(params.isOk());
  ASSERT_TRUE(b->setParams(params.value()).isOk());
  expectSameSteps(*a, *b, 2);
  EXPECT_EQ(a->trainState("train")->step, 2u);
}

TEST_F(LibraryTest, WrittenMomentsResumeTrainingBitwise) {
  std::unique_ptr<Module> a = load(makeTrainModule(true));
  std::unique_ptr<Module> b = load(makeTrainModule(true));
  ASSERT_TRUE(a && b);
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(
        a->run("train", trainX(i % 2 ? trainInputX2() : trainInputX())).isOk());
  // b takes a's weights, moments and step counter: it resumes a's run.
  Result<AdamWMoments> saved = a->readMoments("train");
  ASSERT_TRUE(saved.isOk());
  ASSERT_TRUE(b->setParams(a->getParams().value()).isOk());

  // A bad pair is refused before anything is written.
  AdamWMoments bad = saved.value();
  bad.v.shape = {1};
  bad.v.data.resize(4);
  EXPECT_THAT(b->writeMoments("train", bad).message(),
              HasSubstr("the second moments must be [" +
                        std::to_string(kTrainParams) + "] (f32)"));
  EXPECT_EQ(b->readMoments("train")->m.data,
            std::vector<uint8_t>(kTrainParams * 4, 0));
  EXPECT_THAT(b->writeMoments("eval", saved.value()).message(),
              HasSubstr("expected a Train entry"));

  ASSERT_TRUE(b->writeMoments("train", saved.value()).isOk());
  ASSERT_TRUE(b->setTrainStep("train", 3).isOk());
  expectSameSteps(*a, *b, 2);
}

TEST_F(LibraryTest, ProbesComeWithTheOutputsOnRequest) {
  std::unique_ptr<Module> m = load(makeTestModule());
  ASSERT_TRUE(m);
  std::vector<float> x = inputX(), b = inputB(), w = initialWeights();
  ASSERT_TRUE(m->run("predict", predictInputs(x, b)).isOk());
  EXPECT_EQ(m->counters().probeStagingBuffers, 0u);
  RunOptions opts;
  opts.probes = {"h"};
  Result<RunResult> r = m->runFull("predict", predictInputs(x, b), opts);
  ASSERT_TRUE(r.isOk()) << r.message();
  EXPECT_EQ(m->counters().lastSubmits, 1u);
  EXPECT_EQ(m->counters().probeStagingBuffers, 1u);
  ASSERT_EQ(r->probes.size(), 1u);
  EXPECT_EQ(r->probes[0].name, "h");
  std::vector<float> h(8);
  for (size_t i = 0; i < 8; ++i)
    h[i] = x[i] + w[i];
  EXPECT_EQ(r->probes[0].tensor.asF32(), h);
  EXPECT_EQ(r->outputs[0].tensor.asF32(), expectY(x, b, w));
  // The staging is made once; eager runs read probes too.
  opts.eager = true;
  r = m->runFull("predict", predictInputs(b, x), opts);
  ASSERT_TRUE(r.isOk()) << r.message();
  EXPECT_EQ(m->counters().probeStagingBuffers, 1u);
  for (size_t i = 0; i < 8; ++i)
    h[i] = b[i] + w[i];
  EXPECT_EQ(r->probes[0].tensor.asF32(), h);
}

TEST_F(LibraryTest, ProbeRequestErrors) {
  std::unique_ptr<Module> m = load(makeTestModule());
  ASSERT_TRUE(m);
  RunOptions opts;
  opts.probes = {"h"};
  EXPECT_THAT(m->runFull("bias", {}, opts).message(),
              AllOf(HasSubstr("entry 'bias' has no probes"),
                    HasSubstr("ag.probe \"name\" %value")));
  opts.probes = {"nope"};
  EXPECT_THAT(
      m->runFull("predict", predictInputs(inputX(), inputB()), opts).message(),
      AllOf(HasSubstr("no probe 'nope'"), HasSubstr("'h' [2, 4]")));
  opts.probes = {"h"};
  EXPECT_THAT(
      m->run("predict", predictInputs(inputX(), inputB()), opts).message(),
      HasSubstr("expected Module::runFull"));
  EXPECT_EQ(m->counters().probeStagingBuffers, 0u);
}

TEST_F(LibraryTest, UnchangedInputsAreNotSentAgain) {
  std::unique_ptr<Module> m = load(makeTestModule());
  ASSERT_TRUE(m);
  std::vector<float> x = inputX(), b = inputB(), w = initialWeights();
  Result<std::vector<NamedTensor>> out = m->run("predict", predictInputs(x, b));
  ASSERT_TRUE(out.isOk());
  EXPECT_EQ(m->counters().lastUploadBytes, 512u); // the whole Input buffer
  out = m->run("predict", predictInputs(x, b));
  ASSERT_TRUE(out.isOk());
  EXPECT_EQ(m->counters().lastUploadBytes, 0u);
  EXPECT_EQ(m->counters().lastUploadRegions, 0u);
  EXPECT_EQ(m->counters().lastSubmits, 1u);
  EXPECT_EQ(out.value()[0].tensor.asF32(), expectY(x, b, w));
  // A changed input is sent, alone.
  b[3] = -7.0f;
  out = m->run("predict", predictInputs(x, b));
  ASSERT_TRUE(out.isOk());
  EXPECT_EQ(m->counters().lastUploadBytes, 32u);
  EXPECT_EQ(m->counters().lastUploadRegions, 1u);
  EXPECT_EQ(out.value()[0].tensor.asF32(), expectY(x, b, w));
  // ... and is then known: the same call again sends nothing.
  out = m->run("predict", predictInputs(x, b));
  ASSERT_TRUE(out.isOk());
  EXPECT_EQ(m->counters().lastUploadBytes, 0u);
  EXPECT_EQ(out.value()[0].tensor.asF32(), expectY(x, b, w));
  // After a failed replay everything is sent again.
  ModuleTestAccess::failNextReplay(*m);
  EXPECT_THAT(m->run("predict", predictInputs(x, b)).message(),
              HasSubstr("failed by the test hook"));
  out = m->run("predict", predictInputs(x, b));
  ASSERT_TRUE(out.isOk());
  EXPECT_EQ(m->counters().lastUploadBytes, 512u);
  EXPECT_EQ(out.value()[0].tensor.asF32(), expectY(x, b, w));
}

TEST_F(LibraryTest, UploadIsRecordedAgainOnlyWhenItsRangesChange) {
  std::unique_ptr<Module> m = load(makeTestModule());
  ASSERT_TRUE(m);
  std::vector<float> x = inputX(), b = inputB(), w = initialWeights();
  auto runPredict = [&]() {
    Result<std::vector<NamedTensor>> out =
        m->run("predict", predictInputs(x, b));
    ASSERT_TRUE(out.isOk()) << out.message();
    EXPECT_EQ(out.value()[0].tensor.asF32(), expectY(x, b, w));
  };
  runPredict(); // the whole buffer
  EXPECT_EQ(m->counters().uploadRecordings, 1u);
  b[0] = 3.0f;
  runPredict(); // b's range: recorded
  EXPECT_EQ(m->counters().uploadRecordings, 2u);
  b[0] = 4.0f;
  runPredict(); // b's range again: resubmitted, with b's new bytes
  EXPECT_EQ(m->counters().uploadRecordings, 2u);
  x[1] = -2.0f;
  runPredict(); // x's range: recorded again, or y would use the old x
  EXPECT_EQ(m->counters().uploadRecordings, 3u);
  // Another entry's upload in between: predict's is recorded again.
  ASSERT_TRUE(m->run("side", {{"x2", HostTensor::f32({2, 4}, x)}}).isOk());
  x[1] = -3.0f;
  runPredict();
  EXPECT_EQ(m->counters().uploadRecordings, 5u);
}

TEST_F(LibraryTest, TrainingWithAndWithoutSkippingIsBitwiseEqual) {
  std::unique_ptr<Module> skip = load(makeTrainModule(true));
  std::unique_ptr<Module> full = load(makeTrainModule(true));
  ASSERT_TRUE(skip && full);
  ModuleTestAccess::disableInputSkipping(*full);
  const std::vector<float> xs[] = {trainInputX(), trainInputX(), trainInputX(),
                                   trainInputX2(), trainInputX2()};
  for (const std::vector<float> &x : xs) {
    Result<std::vector<NamedTensor>> a = skip->run("train", trainX(x));
    uint64_t sent = skip->counters().lastUploadBytes;
    Result<std::vector<NamedTensor>> b = full->run("train", trainX(x));
    ASSERT_TRUE(a.isOk() && b.isOk()) << a.message() << b.message();
    EXPECT_EQ(full->counters().lastUploadBytes, 768u);
    for (size_t i = 0; i < a->size(); ++i)
      EXPECT_EQ(a.value()[i].tensor.data, b.value()[i].tensor.data);
    // The hyperparameters (and the clip limit) always go; x when it changed.
    EXPECT_GE(sent, 4u * (kAdamWHyperValues + 1));
  }
  // Steps 2 and 3 repeat x: only the runtime-filled inputs were sent.
  EXPECT_EQ(paramBytes(*skip), paramBytes(*full));
  Result<AdamWMoments> ma = skip->readMoments("train"),
                       mb = full->readMoments("train");
  ASSERT_TRUE(ma.isOk() && mb.isOk());
  EXPECT_EQ(ma->v.data, mb->v.data);
  ASSERT_TRUE(skip->run("train", trainX(trainInputX2())).isOk());
  EXPECT_EQ(skip->counters().lastUploadBytes, 4u * (kAdamWHyperValues + 1));
  EXPECT_EQ(skip->counters().lastUploadRegions, 2u);
}

/// The train module with only its forward entry: the same weight layout.
ModuleDesc evalOnly() {
  ModuleDesc d = makeTrainModule(false);
  d.entries.erase(d.entries.begin());
  return d;
}

TEST_F(LibraryTest, SharedWeightsSeeTheTrainingUpdate) {
  std::unique_ptr<Module> a = load(makeTrainModule(false));
  ASSERT_TRUE(a);
  LoadOptions share;
  share.shareWeightsWith = a.get();
  Result<std::unique_ptr<Module>> b = Module::load(device, evalOnly(), share);
  ASSERT_TRUE(b.isOk()) << b.message();
  ASSERT_TRUE(a->run("train", trainX(trainInputX())).isOk());
  std::vector<float> zeros(16, 0.0f);
  Result<std::vector<NamedTensor>> out = b.value()->run("eval", trainX(zeros));
  ASSERT_TRUE(out.isOk()) << out.message();
  Result<HostTensor> w1 = a->getParam("w1");
  ASSERT_TRUE(w1.isOk());
  EXPECT_NE(w1->asF32(), initialW1());
  std::vector<float> residual = out.value()[0].tensor.asF32();
  EXPECT_EQ(std::vector<float>(residual.begin(), residual.begin() + 6),
            w1->asF32());
  // Writes through B reach A; B outlives A and keeps the memory.
  ASSERT_TRUE(
      b.value()->setParam("w2", HostTensor::f32({4}, {1, 2, 3, 4})).isOk());
  EXPECT_EQ(a->getParam("w2")->asF32(), (std::vector<float>{1, 2, 3, 4}));
  a.reset();
  EXPECT_EQ(b.value()->getParam("w2")->asF32(),
            (std::vector<float>{1, 2, 3, 4}));
}

TEST_F(LibraryTest, SharedWeightsMustMatch) {
  std::unique_ptr<Module> a = load(makeTrainModule(false));
  ASSERT_TRUE(a);
  LoadOptions share;
  share.shareWeightsWith = a.get();
  ModuleDesc shape = evalOnly();
  shape.weights[0].shape = {3, 2};
  EXPECT_THAT(Module::load(device, shape, share).message(),
              AllOf(HasSubstr("weight 'w1' has shape [3, 2] (f32) here"),
                    HasSubstr("[2, 3] (f32) in the module to share with")));
  ModuleDesc name = evalOnly();
  name.weights[2].name = "gain";
  EXPECT_THAT(Module::load(device, name, share).message(),
              AllOf(HasSubstr("weight 'gain'"), HasSubstr("is not in")));
  // The bindings address weights by offset: a weight elsewhere would read
  // another's bytes.
  ModuleDesc moved = evalOnly();
  moved.weights[2].offset = 272;
  EXPECT_THAT(Module::load(device, moved, share).message(),
              HasSubstr("weight 'bias' is at byte 272 of the Weights buffer "
                        "here but at 256 in the module to share with, "
                        "expected the same layout"));
  ModuleDesc larger = evalOnly();
  larger.buffers[larger.weightsBuffer].size = 1024;
  EXPECT_THAT(Module::load(device, larger, share).message(),
              HasSubstr("this module's Weights buffer is 1024 bytes, larger "
                        "than the shared one (512 bytes)"));
}

/// A module of one entry that copies nothing and has no weights.
ModuleDesc weightless() {
  ModuleDesc d = makeIoOnlyModule(256, 256);
  d.kernels.clear();
  EntryDesc e;
  e.name = "none";
  e.inputBuffer = 0;
  e.outputBuffer = 1;
  e.inputs = {{"x", {4}, DType::F32, 0, 0, 16}};
  e.outputs = {{"y", {4}, DType::F32, 1, 0, 16}};
  d.entries = {e};
  return d;
}

TEST_F(LibraryTest, SharedWeightsNeedWeightsOnBothSidesAndOneDevice) {
  std::unique_ptr<Module> a = load(makeTrainModule(false));
  ASSERT_TRUE(a);
  std::unique_ptr<Module> none = load(weightless());
  ASSERT_TRUE(none);
  LoadOptions share;
  share.shareWeightsWith = a.get();
  EXPECT_THAT(Module::load(device, weightless(), share).message(),
              HasSubstr("LoadOptions::shareWeightsWith: this module has no "
                        "weights, expected a module with weights to share"));
  share.shareWeightsWith = none.get();
  EXPECT_THAT(Module::load(device, evalOnly(), share).message(),
              HasSubstr("LoadOptions::shareWeightsWith: the module to share "
                        "with has no weights"));
  // Another device (of the same driver) holds other memory.
  Result<std::shared_ptr<Device>> other = Device::create(vulkanTestOptions());
  ASSERT_TRUE(other.isOk()) << other.message();
  share.shareWeightsWith = a.get();
  EXPECT_THAT(Module::load(other.value(), evalOnly(), share).message(),
              AllOf(HasSubstr("the module to share with lives on device '"),
                    HasSubstr("expected the device this module is loaded on")));
}

} // namespace
