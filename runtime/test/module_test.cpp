//===- module_test.cpp - Loading and replaying modules on a device --------===//

#include "capture/rt/capmod.h"
#include "capture/rt/initializer.h"
#include "capture/rt/module.h"
#include "device_fixture.h"
#include "test_util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

using namespace capture::rt;
using namespace capture::rt::test;
using ::testing::AllOf;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

namespace {

class ModuleTest : public DeviceTest {
protected:
  static std::vector<NamedTensor> predictInputs(const std::vector<float> &x,
                                                const std::vector<float> &b) {
    return {{"x", HostTensor::f32({2, 4}, x)},
            {"b", HostTensor::f32({2, 4}, b)}};
  }

  static std::string runError(Module &m, const std::string &entry,
                              const std::vector<NamedTensor> &inputs) {
    Result<std::vector<NamedTensor>> r = m.run(entry, inputs);
    EXPECT_TRUE(r.isError()) << "run succeeded";
    return r.message();
  }
};

TEST_F(ModuleTest, ReplayComputesOutputs) {
  std::unique_ptr<Module> m = load(makeTestModule());
  ASSERT_TRUE(m);
  Result<std::vector<NamedTensor>> out =
      m->run("predict", predictInputs(inputX(), inputB()));
  ASSERT_TRUE(out.isOk()) << out.message();
  ASSERT_EQ(out->size(), 2u);
  EXPECT_EQ(out.value()[0].name, "y");
  EXPECT_EQ(out.value()[0].tensor.shape, (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(out.value()[0].tensor.dtype, DType::F32);
  EXPECT_THAT(out.value()[0].tensor.asF32(),
              ElementsAreArray(expectY(inputX(), inputB(), initialWeights())));
  EXPECT_EQ(out.value()[1].name, "z");
  EXPECT_THAT(out.value()[1].tensor.asF32(),
              ElementsAreArray(expectZ(inputX(), initialWeights())));
}

TEST_F(ModuleTest, ViewsReadAndWriteTheCallersMemory) {
  std::unique_ptr<Module> m = load(makeTestModule());
  ASSERT_TRUE(m);
  std::vector<float> x = inputX(), b = inputB();
  const int64_t shape[] = {2, 4};
  std::vector<TensorView> in = {
      {"x", DType::F32, shape, 2, x.data(), x.size() * 4},
      {"b", DType::F32, shape, 2, b.data(), b.size() * 4}};
  std::vector<float> y(8, -1.0f);
  Result<RunResult> r =
      m->runViews("predict", in, {{"y", y.data(), y.size() * 4}}, {});
  ASSERT_TRUE(r.isOk()) << r.message();
  // y went into the caller's memory; z, not given, is returned.
  EXPECT_THAT(y,
              ElementsAreArray(expectY(inputX(), inputB(), initialWeights())));
  ASSERT_EQ(r->outputs.size(), 1u);
  EXPECT_EQ(r->outputs[0].name, "z");
  EXPECT_THAT(r->outputs[0].tensor.asF32(),
              ElementsAreArray(expectZ(inputX(), initialWeights())));
  // The inputs are read at the call, where the caller keeps them.
  for (float &v : x)
    v += 1.0f;
  ASSERT_TRUE(
      m->runViews("predict", in, {{"y", y.data(), y.size() * 4}}, {}).isOk());
  EXPECT_THAT(y, ElementsAreArray(expectY(x, inputB(), initialWeights())));

  // Bad views are refused before the submission, and the memory is kept.
  std::vector<float> before = y;
  auto error = [&](const std::vector<TensorView> &ins,
                   const std::vector<OutputView> &outs) {
    Result<RunResult> bad = m->runViews("predict", ins, outs, {});
    EXPECT_TRUE(bad.isError());
    EXPECT_EQ(y, before);
    return bad.message();
  };
  EXPECT_THAT(error(in, {{"w", y.data(), 32}}),
              HasSubstr("unknown output 'w'; expected outputs: 'y' [2, 4] "
                        "(f32), 'z'"));
  EXPECT_THAT(error(in, {{"y", y.data(), 16}}),
              HasSubstr("output 'y' [2, 4] (f32) needs 32 bytes of memory, "
                        "got 16"));
  EXPECT_THAT(error(in, {{"y", nullptr, 32}}),
              HasSubstr("needs 32 bytes of memory, got 0"));
  EXPECT_THAT(error(in, {{"y", y.data(), 32}, {"y", y.data(), 32}}),
              HasSubstr("output 'y' given twice"));
  std::vector<TensorView> shortX = in;
  shortX[0].bytes = 16;
  EXPECT_THAT(error(shortX, {{"y", y.data(), 32}}),
              HasSubstr("input 'x' of shape [2, 4] (f32) needs 32 bytes of "
                        "data, got 16"));
  const int64_t other[] = {4, 2};
  std::vector<TensorView> wrongShape = in;
  wrongShape[1].shape = other;
  EXPECT_THAT(error(wrongShape, {{"y", y.data(), 32}}),
              HasSubstr("input 'b' has shape [2, 4] (f32), got [4, 2] (f32)"));
}

TEST_F(ModuleTest, ReplaysManyTimesWithChangingInputs) {
  std::unique_ptr<Module> m = load(makeTestModule());
  ASSERT_TRUE(m);
  for (int k = 0; k < 20; ++k) {
    std::vector<float> x = inputX(), b = inputB();
    for (float &v : x)
      v *= static_cast<float>(k);
    b[k % 8] = -1.0f * static_cast<float>(k);
    Result<std::vector<NamedTensor>> out =
        m->run("predict", predictInputs(x, b));
    ASSERT_TRUE(out.isOk()) << out.message();
    ASSERT_THAT(out.value()[0].tensor.asF32(),
                ElementsAreArray(expectY(x, b, initialWeights())))
        << "replay " << k;
    ASSERT_THAT(out.value()[1].tensor.asF32(),
                ElementsAreArray(expectZ(x, initialWeights())))
        << "replay " << k;
  }
}

TEST_F(ModuleTest, SetParamChangesResults) {
  std::unique_ptr<Module> m = load(makeTestModule());
  ASSERT_TRUE(m);
  Result<HostTensor> w0 = m->getParam("w");
  ASSERT_TRUE(w0.isOk()) << w0.message();
  EXPECT_THAT(w0->asF32(), ElementsAreArray(initialWeights()));

  std::vector<float> w = {1, -1, 2, -2, 3, -3, 4, -4};
  ASSERT_TRUE(m->setParam("w", HostTensor::f32({2, 4}, w)).isOk());
  Result<std::vector<NamedTensor>> out =
      m->run("predict", predictInputs(inputX(), inputB()));
  ASSERT_TRUE(out.isOk()) << out.message();
  EXPECT_THAT(out.value()[0].tensor.asF32(),
              ElementsAreArray(expectY(inputX(), inputB(), w)));
  Result<HostTensor> w1 = m->getParam("w");
  ASSERT_TRUE(w1.isOk()) << w1.message();
  EXPECT_THAT(w1->asF32(), ElementsAreArray(w));

  // Weights are module-wide: the other entry sees the new value too.
  Result<std::vector<NamedTensor>> bias = m->run("bias", {});
  ASSERT_TRUE(bias.isOk()) << bias.message();
  std::vector<float> expect(8);
  for (int i = 0; i < 8; ++i)
    expect[i] = w[i] + constantValues()[i];
  EXPECT_THAT(bias.value()[0].tensor.asF32(), ElementsAreArray(expect));
}

TEST_F(ModuleTest, ProbesReadBackTheLastReplay) {
  std::unique_ptr<Module> m = load(makeTestModule());
  ASSERT_TRUE(m);
  Result<HostTensor> early = m->readProbe("predict", "h");
  ASSERT_TRUE(early.isError());
  EXPECT_THAT(early.message(), HasSubstr("no replay has run yet"));

  ASSERT_TRUE(m->run("predict", predictInputs(inputX(), inputB())).isOk());
  Result<HostTensor> h = m->readProbe("predict", "h");
  ASSERT_TRUE(h.isOk()) << h.message();
  EXPECT_EQ(h->shape, (std::vector<int64_t>{2, 4}));
  std::vector<float> expect(8);
  for (int i = 0; i < 8; ++i)
    expect[i] = inputX()[i] + initialWeights()[i];
  EXPECT_THAT(h->asF32(), ElementsAreArray(expect));

  Result<HostTensor> unknown = m->readProbe("predict", "nope");
  ASSERT_TRUE(unknown.isError());
  EXPECT_THAT(unknown.message(),
              HasSubstr("entry 'predict' has no probe 'nope'; its probes: "
                        "'h'"));
  EXPECT_THAT(m->readProbe("predict", "H").message(),
              HasSubstr("has no probe 'H' (did you mean 'h'?); its probes: "));

  ASSERT_TRUE(m->run("bias", {}).isOk());
  Result<HostTensor> stale = m->readProbe("predict", "h");
  ASSERT_TRUE(stale.isError());
  EXPECT_THAT(stale.message(), HasSubstr("the last replay was of entry "
                                         "'bias'"));
}

TEST_F(ModuleTest, EntryWithoutInputsOrOutputs) {
  ModuleDesc desc = makeTestModule();
  desc.weights[0].init.reset();
  desc.weights[0].initializer = InitializerDesc{}; // zeros
  std::unique_ptr<Module> m = load(desc);
  ASSERT_TRUE(m);
  Result<std::vector<NamedTensor>> bias = m->run("bias", {});
  ASSERT_TRUE(bias.isOk()) << bias.message();
  ASSERT_EQ(bias->size(), 1u);
  EXPECT_THAT(bias.value()[0].tensor.asF32(),
              ElementsAreArray(constantValues()));

  std::vector<float> x2 = {5, 6, 7, 8, 9, 10, 11, 12};
  Result<std::vector<NamedTensor>> side =
      m->run("side", {{"x2", HostTensor::f32({2, 4}, x2)}});
  ASSERT_TRUE(side.isOk()) << side.message();
  EXPECT_TRUE(side->empty());
  Result<HostTensor> h2 = m->readProbe("side", "h2");
  ASSERT_TRUE(h2.isOk()) << h2.message();
  EXPECT_THAT(h2->asF32(), ElementsAreArray(x2));
}

TEST_F(ModuleTest, UnsetWeightIsRefusedUntilSet) {
  ModuleDesc desc = makeTestModule();
  desc.weights[0].init.reset(); // neither bytes nor an initializer
  std::unique_ptr<Module> m = load(desc);
  ASSERT_TRUE(m);
  EXPECT_THAT(runError(*m, "bias", {}),
              AllOf(HasSubstr("entry 'bias' reads weight 'w' [2, 4] (f32) "
                              "that the module gives no initial value and "
                              "that was never set"),
                    HasSubstr("--param w=FILE.npy"), HasSubstr("#ag.init<")));
  EXPECT_EQ(m->counters().lastSubmits, 0u);
  // Refused every time until set; then every entry runs.
  EXPECT_THAT(runError(*m, "predict", predictInputs(inputX(), inputB())),
              HasSubstr("entry 'predict' reads weight 'w'"));
  ASSERT_TRUE(
      m->setParam("w", HostTensor::f32({2, 4}, initialWeights())).isOk());
  Result<std::vector<NamedTensor>> bias = m->run("bias", {});
  ASSERT_TRUE(bias.isOk()) << bias.message();

  // setParams sets it too, and a module sharing the weights sees it set.
  std::unique_ptr<Module> a = load(desc);
  ASSERT_TRUE(a);
  LoadOptions share;
  share.shareWeightsWith = a.get();
  Result<std::unique_ptr<Module>> b = Module::load(device, desc, share);
  ASSERT_TRUE(b.isOk()) << b.message();
  EXPECT_THAT(runError(*b.value(), "bias", {}), HasSubstr("never set"));
  ASSERT_TRUE(
      a->setParams({{"w", HostTensor::f32({2, 4}, initialWeights())}}).isOk());
  EXPECT_TRUE(b.value()->run("bias", {}).isOk());
}

TEST_F(ModuleTest, InitializersAreEvaluatedAtLoad) {
  ModuleDesc desc = makeTestModule();
  desc.weights[0].init.reset();
  InitializerDesc uniform{InitKind::Uniform};
  uniform.low = -0.5f;
  uniform.high = 0.25f;
  uniform.seed = 7;
  desc.weights[0].initializer = uniform;
  std::unique_ptr<Module> m = load(desc);
  ASSERT_TRUE(m);
  std::vector<float> expected(8);
  evaluateInitializer(uniform, expected.size(), expected.data());
  Result<HostTensor> w = m->getParam("w");
  ASSERT_TRUE(w.isOk()) << w.message();
  EXPECT_EQ(w->asF32(), expected);
  // The entry reads the evaluated values: o = w + c.
  Result<std::vector<NamedTensor>> bias = m->run("bias", {});
  ASSERT_TRUE(bias.isOk()) << bias.message();
  std::vector<float> c = constantValues(), o(8);
  for (size_t i = 0; i < 8; ++i)
    o[i] = expected[i] + c[i];
  EXPECT_EQ(bias.value()[0].tensor.asF32(), o);
}

TEST_F(ModuleTest, ConstantFillsAreAppliedAtLoad) {
  // c = [100, 101, 102, 103] as bytes, then four 7.0 as one fill.
  ModuleDesc desc = makeTestModule();
  desc.constants->resize(16);
  float seven = 7.0f;
  uint32_t bits;
  std::memcpy(&bits, &seven, sizeof(bits));
  desc.constantFills = {{16, 16, bits}};
  std::unique_ptr<Module> m = load(desc);
  ASSERT_TRUE(m);
  Result<std::vector<NamedTensor>> bias = m->run("bias", {}); // o = w + c
  ASSERT_TRUE(bias.isOk()) << bias.message();
  std::vector<float> w = initialWeights(), c = {100, 101, 102, 103, 7, 7, 7, 7};
  std::vector<float> o(8);
  for (size_t i = 0; i < 8; ++i)
    o[i] = w[i] + c[i];
  EXPECT_EQ(bias.value()[0].tensor.asF32(), o);
}

TEST_F(ModuleTest, ModuleKeepsItsDeviceAlive) {
  std::unique_ptr<Module> m = load(makeTestModule());
  ASSERT_TRUE(m);
  std::unique_ptr<Module> second = load(makeTestModule());
  ASSERT_TRUE(second);
  device.reset(); // the modules still hold it
  EXPECT_TRUE(m->run("predict", predictInputs(inputX(), inputB())).isOk());
  EXPECT_TRUE(second->run("bias", {}).isOk());
  SetUpTestSuite(); // for the tests that follow
}

TEST_F(ModuleTest, RunErrorsNameExpectedAndGot) {
  std::unique_ptr<Module> m = load(makeTestModule());
  ASSERT_TRUE(m);
  std::vector<NamedTensor> good = predictInputs(inputX(), inputB());

  EXPECT_THAT(runError(*m, "nope", good),
              HasSubstr("unknown entry 'nope'; the module has entries: "
                        "'predict', 'bias', 'side'"));

  std::vector<NamedTensor> unknown = good;
  unknown.push_back({"q", HostTensor::f32({2, 4}, inputX())});
  EXPECT_THAT(runError(*m, "predict", unknown),
              HasSubstr("entry 'predict': unknown input 'q'; expected inputs: "
                        "'x' [2, 4] (f32), 'b' [2, 4] (f32)"));
  // A near spelling of an expected input is suggested.
  std::vector<NamedTensor> misspelt = {good[0], good[1]};
  misspelt[0].name = "X";
  EXPECT_THAT(runError(*m, "predict", misspelt),
              HasSubstr("entry 'predict': unknown input 'X' (did you mean "
                        "'x'?); expected inputs: "));
  EXPECT_THAT(runError(*m, "predcit", good),
              HasSubstr("unknown entry 'predcit' (did you mean 'predict'?); "
                        "the module has entries: "));

  EXPECT_THAT(runError(*m, "predict", {good[0]}),
              HasSubstr("entry 'predict': missing input 'b' [2, 4] (f32) "
                        "(got 1 of 2 inputs)"));
  EXPECT_THAT(runError(*m, "predict", {}),
              HasSubstr("missing inputs 'x' [2, 4] (f32), 'b' [2, 4] (f32)"));

  std::vector<NamedTensor> shape = good;
  shape[0].tensor.shape = {4, 2};
  EXPECT_THAT(runError(*m, "predict", shape),
              HasSubstr("entry 'predict': input 'x' has shape [2, 4] (f32), "
                        "got [4, 2] (f32)"));

  std::vector<NamedTensor> dtype = good;
  dtype[1].tensor = HostTensor::i32({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  EXPECT_THAT(runError(*m, "predict", dtype),
              HasSubstr("entry 'predict': input 'b' has shape [2, 4] (f32), "
                        "got [2, 4] (i32)"));

  std::vector<NamedTensor> twice = good;
  twice.push_back(good[0]);
  EXPECT_THAT(runError(*m, "predict", twice),
              HasSubstr("input 'x' given twice"));

  std::vector<NamedTensor> bytes = good;
  bytes[0].tensor.data.resize(12);
  EXPECT_THAT(runError(*m, "predict", bytes),
              HasSubstr("input 'x' of shape [2, 4] (f32) needs 32 bytes of "
                        "data, got 12"));

  EXPECT_THAT(runError(*m, "bias", {good[0]}),
              HasSubstr("entry 'bias': unknown input 'x'; expected inputs: "
                        "none"));

  // The module still works after rejected calls.
  EXPECT_TRUE(m->run("predict", good).isOk());
}

TEST_F(ModuleTest, ParamErrors) {
  std::unique_ptr<Module> m = load(makeTestModule());
  ASSERT_TRUE(m);
  Status unknown = m->setParam("v", HostTensor::f32({2, 4}, inputX()));
  EXPECT_THAT(unknown.message(),
              HasSubstr("unknown parameter 'v'; the module's weights: 'w'"));
  EXPECT_THAT(m->setParam("W", HostTensor::f32({2, 4}, inputX())).message(),
              HasSubstr("unknown parameter 'W' (did you mean 'w'?); the "
                        "module's weights: 'w'"));
  EXPECT_THAT(
      m->setParams({{"W", HostTensor::f32({2, 4}, inputX())}}).message(),
      HasSubstr("setParams: unknown parameter 'W' (did you mean 'w'?)"));
  Status shape = m->setParam("w", HostTensor::f32({8}, inputX()));
  EXPECT_THAT(shape.message(),
              HasSubstr("parameter 'w' has shape [2, 4] (f32), got [8] (f32)"));
  Status dtype =
      m->setParam("w", HostTensor::i32({2, 4}, std::vector<int32_t>(8)));
  EXPECT_THAT(dtype.message(), HasSubstr("got [2, 4] (i32)"));
  EXPECT_THAT(m->getParam("v").message(), HasSubstr("unknown parameter 'v'"));
  // Rejected updates change nothing.
  Result<HostTensor> w = m->getParam("w");
  ASSERT_TRUE(w.isOk()) << w.message();
  EXPECT_THAT(w->asF32(), ElementsAreArray(initialWeights()));
}

TEST_F(ModuleTest, LoadErrors) {
  std::vector<uint8_t> bytes = writeCapmod(makeTestModule());
  for (size_t n : {size_t(0), size_t(7), size_t(100), bytes.size() / 2}) {
    Result<std::unique_ptr<Module>> m =
        Module::loadBytes(device, bytes.data(), n);
    ASSERT_TRUE(m.isError()) << n;
    EXPECT_THAT(m.message(), HasSubstr("capmod: "));
  }
  ModuleDesc desc = makeTestModule();
  desc.entries[0].commands[0].dispatch.groups = {1, 1, 0xffffffffu};
  Result<std::unique_ptr<Module>> big = Module::load(device, desc);
  ASSERT_TRUE(big.isError());
  EXPECT_THAT(big.message(),
              AllOf(HasSubstr("dispatch 0 of entry 'predict': groups z is "
                              "4294967295, more than the limit"),
                    HasSubstr(device->info().name)));
  Result<std::unique_ptr<Module>> missing =
      Module::loadFile(device, "/nonexistent/m.capmod");
  ASSERT_TRUE(missing.isError());
  EXPECT_THAT(missing.message(), HasSubstr("/nonexistent/m.capmod"));
  EXPECT_TRUE(Module::load(nullptr, makeTestModule()).isError());
}

TEST_F(ModuleTest, ManyWorkgroups) {
  // out[i] = a[i] + b[i] over 1000 elements with 16 workgroups of 64; the
  // last 24 invocations are cut off by the kernel's bound, which comes from
  // the size of the binding range (OpArrayLength).
  constexpr uint64_t n = 1000, bytes = n * 4;
  ModuleDesc desc = makeIoOnlyModule(8192, 4096);
  EntryDesc e;
  e.name = "big";
  e.inputBuffer = 0;
  e.outputBuffer = 1;
  e.inputs = {{"a", {1000}, DType::F32, 0, 0, bytes},
              {"b", {1000}, DType::F32, 0, 4096, bytes}};
  e.outputs = {{"out", {1000}, DType::F32, 1, 0, bytes}};
  CommandDesc add;
  add.kind = CommandDesc::Kind::Dispatch;
  add.dispatch = {
      kAdd, {16, 1, 1}, {{0, 0, bytes}, {0, 4096, bytes}, {1, 0, bytes}}, {2}};
  e.commands = {add};
  desc.entries = {e};
  std::unique_ptr<Module> m = load(desc);
  ASSERT_TRUE(m);
  std::vector<float> a(n), b(n);
  for (uint64_t i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = 0.5f * static_cast<float>(i);
  }
  Result<std::vector<NamedTensor>> out =
      m->run("big", {{"a", HostTensor::f32({1000}, a)},
                     {"b", HostTensor::f32({1000}, b)}});
  ASSERT_TRUE(out.isOk()) << out.message();
  std::vector<float> got = out.value()[0].tensor.asF32();
  ASSERT_EQ(got.size(), n);
  for (uint64_t i = 0; i < n; ++i)
    ASSERT_EQ(got[i], 1.5f * static_cast<float>(i)) << i;
}

} // namespace
