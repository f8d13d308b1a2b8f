//===- HostDeviceTest.cpp - The host driver against the Vulkan replay ----===//
//
// A module compiled for the cpu target carries its kernels twice: SPIR-V,
// which the Vulkan driver replays (lavapipe without a GPU), and host code,
// which the host driver calls when the module is loaded on the host device
// (selector "host"). Both runs of one module, through the same rt::Module
// API, must agree: the forward outputs and probes, every training step's
// loss and the weights after them, a refused step leaving every byte of
// state as it was, and the same errors for the same bad calls.
//
//===----------------------------------------------------------------------===//

#include "CompileForTest.h"

#include "capture/rt/deferred.h"
#include "capture/rt/device.h"
#include "capture/rt/module.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <xmmintrin.h>

namespace rt = capture::rt;

namespace {

/// A classifier over 64 rows (several workgroups per kernel, a row-wise
/// reduction, an index-checked cross-entropy, clipping) with a forward
/// entry that probes its hidden layer.
constexpr const char *kClassifier = R"mlir(
ag.weight @fc1.weight trainable : tensor<32x24xf32> = #ag.init<linear, fan_in = 24, seed = 1>
ag.weight @fc1.bias trainable : tensor<32xf32> = #ag.init<linear, fan_in = 24, seed = 2>
ag.weight @fc2.weight trainable : tensor<5x32xf32> = #ag.init<linear, fan_in = 32, seed = 3>
ag.weight @fc2.bias trainable : tensor<5xf32> = #ag.init<linear, fan_in = 32, seed = 4>

ag.forward @predict(%x: tensor<64x24xf32> {ag.name = "x"}) -> (tensor<64x5xf32> {ag.name = "logits"}) {
  %w1 = ag.read_weight @fc1.weight : tensor<32x24xf32>
  %b1 = ag.read_weight @fc1.bias : tensor<32xf32>
  %w2 = ag.read_weight @fc2.weight : tensor<5x32xf32>
  %b2 = ag.read_weight @fc2.bias : tensor<5xf32>
  %xw = ag.matmul %x, %w1 {transpose_b} : (tensor<64x24xf32>, tensor<32x24xf32>) -> tensor<64x32xf32>
  %z = ag.add %xw, %b1 : (tensor<64x32xf32>, tensor<32xf32>) -> tensor<64x32xf32>
  %h = ag.tanh %z : tensor<64x32xf32>
  %hp = ag.probe "h" %h : tensor<64x32xf32>
  %hw = ag.matmul %hp, %w2 {transpose_b} : (tensor<64x32xf32>, tensor<5x32xf32>) -> tensor<64x5xf32>
  %y = ag.add %hw, %b2 : (tensor<64x5xf32>, tensor<5xf32>) -> tensor<64x5xf32>
  ag.return %y : tensor<64x5xf32>
}

ag.train_step @train(%x: tensor<64x24xf32> {ag.name = "x"}, %labels: tensor<64xi32> {ag.name = "labels"})
    -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.01>, max_grad_norm = 1.0 : f32} {
  %w1 = ag.read_weight @fc1.weight : tensor<32x24xf32>
  %b1 = ag.read_weight @fc1.bias : tensor<32xf32>
  %w2 = ag.read_weight @fc2.weight : tensor<5x32xf32>
  %b2 = ag.read_weight @fc2.bias : tensor<5xf32>
  %xw = ag.matmul %x, %w1 {transpose_b} : (tensor<64x24xf32>, tensor<32x24xf32>) -> tensor<64x32xf32>
  %z = ag.add %xw, %b1 : (tensor<64x32xf32>, tensor<32xf32>) -> tensor<64x32xf32>
  %h = ag.tanh %z : tensor<64x32xf32>
  %hw = ag.matmul %h, %w2 {transpose_b} : (tensor<64x32xf32>, tensor<5x32xf32>) -> tensor<64x5xf32>
  %y = ag.add %hw, %b2 : (tensor<64x5xf32>, tensor<5xf32>) -> tensor<64x5xf32>
  %l = ag.cross_entropy %y, %labels : (tensor<64x5xf32>, tensor<64xi32>) -> tensor<f32>
  ag.return %l : tensor<f32>
}
)mlir";

/// `n` values in [-1, 1) from a fixed stream.
std::vector<float> values(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  for (float &x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<float>(seed >> 8) / static_cast<float>(1u << 23) - 1.0f;
  }
  return v;
}

/// Whether `a` and `b` agree within `tol`, relative to max(1, |b|).
::testing::AssertionResult near(const std::vector<float> &a,
                                const std::vector<float> &b, float tol,
                                const std::string &what) {
  if (a.size() != b.size())
    return ::testing::AssertionFailure()
           << what << ": " << a.size() << " vs " << b.size() << " values";
  for (size_t i = 0; i < a.size(); ++i)
    if (!(std::fabs(a[i] - b[i]) <= tol * std::max(1.0f, std::fabs(b[i]))))
      return ::testing::AssertionFailure()
             << what << "[" << i << "]: cpu " << a[i] << ", vulkan " << b[i];
  return ::testing::AssertionSuccess();
}

/// The host device with `threads` threads (0: one per core).
std::shared_ptr<rt::Device> hostDevice(int threads = 0) {
  rt::DeviceOptions options;
  options.selector = "host";
  if (threads)
    options.cpuThreads = threads;
  rt::Result<std::shared_ptr<rt::Device>> device = rt::Device::create(options);
  EXPECT_TRUE(device.isOk()) << device.message();
  return device.isOk() ? device.value() : nullptr;
}

/// One module compiled for the cpu target, loaded on both devices.
class HostDeviceTest : public ::testing::Test {
protected:
  void load(const char *source) {
    capture::CompileOptions options;
    options.target = "cpu";
    bytes = capture::test::compileForTest(source, options);
    ASSERT_FALSE(bytes.empty());
    std::shared_ptr<rt::Device> hostDev = hostDevice();
    ASSERT_TRUE(hostDev);
    rt::Result<std::unique_ptr<rt::Module>> h =
        rt::Module::loadBytes(hostDev, bytes.data(), bytes.size());
    ASSERT_TRUE(h.isOk()) << h.message();
    host = std::move(h).value();
    rt::DeviceOptions vulkanOptions;
    vulkanOptions.selector = "vulkan";
    rt::Result<std::shared_ptr<rt::Device>> device =
        rt::Device::create(vulkanOptions);
    ASSERT_TRUE(device.isOk()) << device.message();
    rt::Result<std::unique_ptr<rt::Module>> v =
        rt::Module::loadBytes(device.value(), bytes.data(), bytes.size());
    ASSERT_TRUE(v.isOk()) << v.message();
    vulkan = std::move(v).value();
  }

  /// Every weight of one of the modules, as f32, in module order.
  std::vector<float> weights(bool onHost) {
    std::vector<float> all;
    for (const rt::WeightDesc &w : host->desc().weights) {
      rt::Result<rt::HostTensor> t =
          onHost ? host->getParam(w.name) : vulkan->getParam(w.name);
      EXPECT_TRUE(t.isOk()) << t.message();
      std::vector<float> v = t.value().asF32();
      all.insert(all.end(), v.begin(), v.end());
    }
    return all;
  }

  std::vector<uint8_t> bytes;
  std::unique_ptr<rt::Module> host;
  std::unique_ptr<rt::Module> vulkan;
};

TEST_F(HostDeviceTest, ForwardAndProbeMatchVulkan) {
  ASSERT_NO_FATAL_FAILURE(load(kClassifier));
  EXPECT_EQ(host->device().info().type, rt::DeviceType::Host);
  EXPECT_NE(host->device().info().name.find("host CPU"), std::string::npos);
  rt::NamedTensor x{"x", rt::HostTensor::f32({64, 24}, values(64 * 24, 7))};
  rt::RunOptions options;
  options.probes = {"h"};
  rt::Result<rt::RunResult> h = host->runFull("predict", {x}, options);
  ASSERT_TRUE(h.isOk()) << h.message();
  rt::Result<rt::RunResult> v = vulkan->runFull("predict", {x}, options);
  ASSERT_TRUE(v.isOk()) << v.message();
  ASSERT_EQ(h.value().outputs.size(), 1u);
  ASSERT_EQ(h.value().probes.size(), 1u);
  EXPECT_EQ(h.value().outputs[0].name, "logits");
  EXPECT_EQ(h.value().outputs[0].tensor.shape, (std::vector<int64_t>{64, 5}));
  EXPECT_TRUE(near(h.value().outputs[0].tensor.asF32(),
                   v.value().outputs[0].tensor.asF32(), 1e-5f, "logits"));
  EXPECT_TRUE(near(h.value().probes[0].tensor.asF32(),
                   v.value().probes[0].tensor.asF32(), 1e-5f, "probe h"));
  // readProbe after the run, as on Vulkan.
  rt::Result<rt::HostTensor> probe = host->readProbe("predict", "h");
  ASSERT_TRUE(probe.isOk()) << probe.message();
  EXPECT_EQ(probe.value().asF32(), h.value().probes[0].tensor.asF32());

  // Into the caller's memory, as on Vulkan.
  std::vector<float> into(64 * 5, 0.0f);
  rt::OutputView view{"logits", into.data(), into.size() * sizeof(float)};
  rt::Result<rt::RunResult> viewed =
      host->runViews("predict", {rt::TensorView::of(x)}, {view}, {});
  ASSERT_TRUE(viewed.isOk()) << viewed.message();
  EXPECT_TRUE(viewed.value().outputs.empty());
  EXPECT_EQ(into, h.value().outputs[0].tensor.asF32());
}

TEST_F(HostDeviceTest, TrainingStepsMatchVulkanAndARefusedStepChangesNothing) {
  ASSERT_NO_FATAL_FAILURE(load(kClassifier));
  std::vector<float> initial = weights(true);
  EXPECT_TRUE(near(initial, weights(false), 0.0f, "initial weights"));
  rt::NamedTensor x{"x", rt::HostTensor::f32({64, 24}, values(64 * 24, 3))};
  std::vector<int32_t> labelValues(64);
  for (size_t i = 0; i < labelValues.size(); ++i)
    labelValues[i] = static_cast<int32_t>((i * 7) % 5);
  rt::NamedTensor labels{"labels", rt::HostTensor::i32({64}, labelValues)};
  for (int step = 0; step < 5; ++step) {
    rt::Result<std::vector<rt::NamedTensor>> h =
        host->run("train", {x, labels});
    ASSERT_TRUE(h.isOk()) << h.message();
    rt::Result<std::vector<rt::NamedTensor>> v =
        vulkan->run("train", {x, labels});
    ASSERT_TRUE(v.isOk()) << v.message();
    EXPECT_TRUE(near(h.value()[0].tensor.asF32(), v.value()[0].tensor.asF32(),
                     1e-5f, "loss of step " + std::to_string(step)));
  }
  EXPECT_EQ(host->trainState("train").value().step, 5u);
  std::vector<float> trained = weights(true);
  EXPECT_TRUE(near(trained, weights(false), 1e-5f, "weights after 5 steps"));
  EXPECT_FALSE(near(trained, initial, 1e-4f, ""))
      << "the steps trained nothing";
  rt::Result<rt::AdamWMoments> hm = host->readMoments("train");
  rt::Result<rt::AdamWMoments> vm = vulkan->readMoments("train");
  ASSERT_TRUE(hm.isOk() && vm.isOk());
  EXPECT_TRUE(near(hm.value().v.asF32(), vm.value().v.asF32(), 1e-5f,
                   "second moments"));

  // A label out of range: refused, with the Vulkan driver's message, and no
  // byte of the weights (nor the step counter) moves.
  labelValues[9] = 5;
  rt::NamedTensor bad{"labels", rt::HostTensor::i32({64}, labelValues)};
  rt::Result<std::vector<rt::NamedTensor>> refused =
      host->run("train", {x, bad});
  ASSERT_TRUE(refused.isError());
  EXPECT_EQ(refused.status().code(), rt::StatusCode::UpdateRefused);
  rt::Result<std::vector<rt::NamedTensor>> refusedVulkan =
      vulkan->run("train", {x, bad});
  ASSERT_TRUE(refusedVulkan.isError());
  EXPECT_EQ(refused.message(), refusedVulkan.message());
  std::vector<float> after = weights(true);
  EXPECT_EQ(
      std::memcmp(after.data(), trained.data(), trained.size() * sizeof(float)),
      0);
  EXPECT_EQ(host->trainState("train").value().step, 5u);

  // A non-finite input: refused for the norm; then training goes on.
  std::vector<float> nan = values(64 * 24, 3);
  nan[100] = std::numeric_limits<float>::quiet_NaN();
  rt::NamedTensor xnan{"x", rt::HostTensor::f32({64, 24}, nan)};
  refused = host->run("train", {xnan, labels});
  ASSERT_TRUE(refused.isError());
  EXPECT_EQ(refused.status().code(), rt::StatusCode::UpdateRefused);
  after = weights(true);
  EXPECT_EQ(
      std::memcmp(after.data(), trained.data(), trained.size() * sizeof(float)),
      0);
  EXPECT_EQ(host->trainState("train").value().refusedSteps, 2u);
  ASSERT_TRUE(host->run("train", {x, labels}).isOk());
  EXPECT_EQ(host->trainState("train").value().step, 6u);

  // The optimizer state round-trips and resets through the same API.
  ASSERT_TRUE(host->resetOptimizer("train").isOk());
  EXPECT_EQ(host->trainState("train").value().step, 0u);
  rt::Result<rt::AdamWMoments> zero = host->readMoments("train");
  ASSERT_TRUE(zero.isOk());
  for (float m : zero.value().m.asF32())
    ASSERT_EQ(m, 0.0f);
}

/// The PPO actor-critic step of the benchmarks (examples/ppo_train.mlir):
/// Gaussian log-probabilities, the clipped surrogate, clipping, weight
/// decay; weights set by the caller on both devices.
TEST_F(HostDeviceTest, PPOStepsMatchVulkan) {
  std::ifstream file(CAPTURE_SOURCE_DIR "/examples/ppo_train.mlir");
  ASSERT_TRUE(file.good());
  std::stringstream text;
  text << file.rdbuf();
  std::string source = text.str();
  ASSERT_NO_FATAL_FAILURE(load(source.c_str()));

  const rt::EntryDesc &train = *host->findEntry("train").value();
  std::vector<rt::NamedTensor> batch;
  uint32_t seed = 11;
  for (const rt::TensorSlotDesc &in : train.inputs) {
    if (in.name == train.train->hyperInput ||
        in.name == train.train->maxGradNormInput)
      continue;
    std::vector<float> v = values(in.size / sizeof(float), ++seed);
    if (in.name == "old_logp")
      for (float &x : v)
        x = -8.0f + x;
    batch.push_back({in.name, rt::HostTensor::f32(in.shape, v)});
  }
  // Unset weights are refused by the core on both devices, alike.
  rt::Result<std::vector<rt::NamedTensor>> unset = host->run("train", batch);
  ASSERT_TRUE(unset.isError());
  rt::Result<std::vector<rt::NamedTensor>> unsetVulkan =
      vulkan->run("train", batch);
  ASSERT_TRUE(unsetVulkan.isError());
  EXPECT_EQ(unset.message(), unsetVulkan.message());

  std::vector<rt::NamedTensor> params;
  for (const rt::WeightDesc &w : host->desc().weights) {
    std::vector<float> v = values(w.size / sizeof(float), ++seed);
    for (float &x : v)
      x *= 0.2f;
    params.push_back({w.name, rt::HostTensor::f32(w.shape, v)});
  }
  ASSERT_TRUE(host->setParams(params).isOk());
  ASSERT_TRUE(vulkan->setParams(params).isOk());
  for (int step = 0; step < 5; ++step) {
    rt::Result<std::vector<rt::NamedTensor>> h = host->run("train", batch);
    ASSERT_TRUE(h.isOk()) << h.message();
    rt::Result<std::vector<rt::NamedTensor>> v = vulkan->run("train", batch);
    ASSERT_TRUE(v.isOk()) << v.message();
    EXPECT_TRUE(near(h.value()[0].tensor.asF32(), v.value()[0].tensor.asF32(),
                     1e-4f, "loss of step " + std::to_string(step)));
  }
  EXPECT_TRUE(near(weights(true), weights(false), 1e-5f, "weights"));

  // A profiled step: each launch timed on the host's clock, tallied per
  // kernel as on Vulkan; the step itself is a plain one (a sixth step on
  // both devices, still alike).
  rt::Profile profile;
  rt::RunOptions profiled;
  profiled.profile = &profile;
  rt::Result<std::vector<rt::NamedTensor>> hp =
      host->run("train", batch, profiled);
  ASSERT_TRUE(hp.isOk()) << hp.message();
  rt::Result<std::vector<rt::NamedTensor>> vp = vulkan->run("train", batch);
  ASSERT_TRUE(vp.isOk()) << vp.message();
  EXPECT_TRUE(near(hp.value()[0].tensor.asF32(), vp.value()[0].tensor.asF32(),
                   1e-4f, "loss of the profiled step"));
  size_t dispatches = 0;
  for (const rt::CommandDesc &c : train.commands)
    dispatches += c.kind == rt::CommandDesc::Kind::Dispatch;
  EXPECT_EQ(profile.entry, "train");
  EXPECT_FALSE(profile.eager);
  EXPECT_EQ(profile.submissions, 0u);
  EXPECT_TRUE(profile.hasDeviceTimes);
  EXPECT_TRUE(profile.hostClock);
  ASSERT_EQ(profile.dispatchUs.size(), dispatches);
  double sum = 0;
  for (double us : profile.dispatchUs) {
    EXPECT_GE(us, 0.0);
    sum += us;
  }
  EXPECT_GT(sum, 0.0);
  EXPECT_DOUBLE_EQ(profile.submissionUs, sum);
  uint64_t tallied = 0;
  double kernelSum = 0;
  for (const rt::KernelProfile &k : profile.kernels) {
    EXPECT_EQ(k.name, host->desc().kernels[k.kernel].name);
    tallied += k.dispatches;
    kernelSum += k.deviceUs;
  }
  EXPECT_EQ(tallied, dispatches);
  EXPECT_NEAR(kernelSum, sum, 1e-6 * sum);
  EXPECT_LT(profile.kernels.size(), dispatches) << "a kernel runs twice";
  EXPECT_GT(profile.host.packUs, 0.0);
  EXPECT_EQ(profile.host.submitUs, 0.0);

  rt::Result<rt::TrainGradients> hg = host->readGradients("train");
  rt::Result<rt::TrainGradients> vg = vulkan->readGradients("train");
  ASSERT_TRUE(hg.isOk() && vg.isOk());
  EXPECT_TRUE(near(hg.value().flat.asF32(), vg.value().flat.asF32(), 1e-4f,
                   "gradients"));
}

TEST_F(HostDeviceTest, BadCallsGetTheVulkanDriversErrors) {
  ASSERT_NO_FATAL_FAILURE(load(kClassifier));
  rt::NamedTensor wrong{"x", rt::HostTensor::f32({24, 64}, values(64 * 24, 1))};
  rt::Result<std::vector<rt::NamedTensor>> h = host->run("predict", {wrong});
  ASSERT_TRUE(h.isError());
  rt::Result<std::vector<rt::NamedTensor>> v = vulkan->run("predict", {wrong});
  ASSERT_TRUE(v.isError());
  EXPECT_EQ(h.message(), v.message());

  rt::Result<std::vector<rt::NamedTensor>> typo = host->run("predcit", {});
  ASSERT_TRUE(typo.isError());
  EXPECT_NE(typo.message().find("did you mean 'predict'"), std::string::npos)
      << typo.message();
  rt::Result<rt::TrainState> notTrain = host->trainState("predict");
  ASSERT_TRUE(notTrain.isError());
  EXPECT_NE(notTrain.message().find("expected a Train entry"),
            std::string::npos);

  // An eager run, a Vulkan baseline, is refused, named (a profiled run the
  // host driver does: PPOStepsMatchVulkan).
  rt::NamedTensor x{"x", rt::HostTensor::f32({64, 24}, values(64 * 24, 1))};
  rt::RunOptions eager;
  eager.eager = true;
  rt::Result<std::vector<rt::NamedTensor>> e = host->run("predict", {x}, eager);
  ASSERT_TRUE(e.isError());
  EXPECT_NE(e.message().find("an eager run (one submission per dispatch"),
            std::string::npos)
      << e.message();
}

/// Defers entry `entry` of `m`; the deferring call itself must succeed.
static rt::DeferredRun defer(rt::Module &m, const char *entry,
                             const std::vector<rt::NamedTensor> &inputs) {
  rt::DeferredRun run;
  rt::RunOptions options;
  options.deferred = &run;
  rt::Result<std::vector<rt::NamedTensor>> r = m.run(entry, inputs, options);
  EXPECT_TRUE(r.isOk()) << r.message();
  return run;
}

TEST_F(HostDeviceTest, DeferredRunsRunAtOnceInOrderAndTakeAsOnVulkan) {
  ASSERT_NO_FATAL_FAILURE(load(kClassifier));
  rt::NamedTensor x{"x", rt::HostTensor::f32({64, 24}, values(64 * 24, 3))};
  std::vector<int32_t> labelValues(64);
  for (size_t i = 0; i < labelValues.size(); ++i)
    labelValues[i] = static_cast<int32_t>((i * 7) % 5);
  rt::NamedTensor labels{"labels", rt::HostTensor::i32({64}, labelValues)};
  labelValues[9] = 5;
  rt::NamedTensor bad{"labels", rt::HostTensor::i32({64}, labelValues)};
  // Two steps, a refused one, a prediction of the twice-trained weights:
  // deferred on both devices, taken after all four were deferred.
  std::vector<rt::DeferredRun> h, v;
  for (rt::Module *m : {host.get(), vulkan.get()}) {
    std::vector<rt::DeferredRun> &runs = m == host.get() ? h : v;
    runs.push_back(defer(*m, "train", {x, labels}));
    runs.push_back(defer(*m, "train", {x, labels}));
    runs.push_back(defer(*m, "train", {x, bad}));
    runs.push_back(defer(*m, "predict", {x}));
  }
  // The host ran them already: nothing waits, every result is there.
  EXPECT_EQ(host->device().deferredCount(), 0u);
  for (const rt::DeferredRun &run : h)
    EXPECT_TRUE(run.done());
  for (size_t i = 0; i < h.size(); ++i) {
    rt::Result<rt::RunResult> hr = h[i].take();
    rt::Result<rt::RunResult> vr = v[i].take();
    ASSERT_EQ(hr.isOk(), vr.isOk())
        << "run " << i << ": " << hr.message() << " / " << vr.message();
    if (hr.isError()) {
      EXPECT_EQ(hr.status().code(), rt::StatusCode::UpdateRefused);
      EXPECT_EQ(hr.message(), vr.message());
      continue;
    }
    EXPECT_TRUE(near(hr.value().outputs[0].tensor.asF32(),
                     vr.value().outputs[0].tensor.asF32(), 1e-5f,
                     "run " + std::to_string(i)));
  }
  EXPECT_EQ(host->trainState("train").value().step, 2u);
  EXPECT_TRUE(h[0].take().isError()) << "a result is taken once";
  EXPECT_TRUE(near(weights(true), weights(false), 1e-5f, "weights"));
}

/// 256x256 by 256x64: 4M multiply-adds, enough for the driver to split
/// the matmul's workgroups across its threads (kParallelWork).
constexpr const char *kLarge = R"mlir(
ag.weight @w trainable : tensor<64x256xf32> = #ag.init<linear, fan_in = 256, seed = 5>
ag.forward @f(%x: tensor<256x256xf32> {ag.name = "x"}) -> (tensor<256x64xf32> {ag.name = "y"}) {
  %w = ag.read_weight @w : tensor<64x256xf32>
  %xw = ag.matmul %x, %w {transpose_b} : (tensor<256x256xf32>, tensor<64x256xf32>) -> tensor<256x64xf32>
  %y = ag.tanh %xw : tensor<256x64xf32>
  ag.return %y : tensor<256x64xf32>
}
)mlir";

TEST(HostDevice, ThreadsSplitWorkgroupsWithoutChangingABit) {
  capture::CompileOptions options;
  options.target = "cpu";
  std::vector<uint8_t> bytes = capture::test::compileForTest(kLarge, options);
  ASSERT_FALSE(bytes.empty());
  rt::NamedTensor x{"x", rt::HostTensor::f32({256, 256}, values(65536, 9))};
  std::vector<float> y[2];
  for (int threads : {1, 2}) {
    std::shared_ptr<rt::Device> device = hostDevice(threads);
    ASSERT_TRUE(device);
    EXPECT_NE(device->info().name.find(std::to_string(threads) + " thread"),
              std::string::npos)
        << device->info().name;
    rt::Result<std::unique_ptr<rt::Module>> m =
        rt::Module::loadBytes(device, bytes.data(), bytes.size());
    ASSERT_TRUE(m.isOk()) << m.message();
    rt::Result<std::vector<rt::NamedTensor>> r = m.value()->run("f", {x});
    ASSERT_TRUE(r.isOk()) << r.message();
    y[threads - 1] = r.value()[0].tensor.asF32();
  }
  ASSERT_EQ(y[0].size(), 256u * 64u);
  EXPECT_EQ(std::memcmp(y[0].data(), y[1].data(), y[0].size() * 4), 0);
  // Not all zeros (a skipped workgroup would leave zeros).
  EXPECT_EQ(std::count(y[1].begin(), y[1].end(), 0.0f), 0);
}

TEST(HostDevice, DenormalsAreFlushedWhileTheKernelsRunOnly) {
  constexpr const char *kDouble = R"mlir(
ag.forward @f(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<4xf32> {ag.name = "y"}) {
  %y = ag.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  ag.return %y : tensor<4xf32>
}
)mlir";
  capture::CompileOptions options;
  options.target = "cpu";
  std::vector<uint8_t> bytes = capture::test::compileForTest(kDouble, options);
  ASSERT_FALSE(bytes.empty());
  rt::Result<std::unique_ptr<rt::Module>> m =
      rt::Module::loadBytes(hostDevice(), bytes.data(), bytes.size());
  ASSERT_TRUE(m.isOk()) << m.message();
  // 1e-39 is denormal in f32: PyTorch doubles it, the kernels see zero.
  float tiny = 1e-39f;
  rt::NamedTensor x{"x", rt::HostTensor::f32({4}, {tiny, 1.0f, -tiny, 3.0f})};
  unsigned before = _mm_getcsr();
  rt::Result<std::vector<rt::NamedTensor>> r = m.value()->run("f", {x});
  EXPECT_EQ(_mm_getcsr(), before) << "the caller's MXCSR was not restored";
  ASSERT_TRUE(r.isOk()) << r.message();
  EXPECT_EQ(r.value()[0].tensor.asF32(),
            (std::vector<float>{0.0f, 2.0f, -0.0f, 6.0f}));
  // The caller's own arithmetic keeps denormals.
  volatile float v = tiny;
  EXPECT_NE(v + v, 0.0f);
}

TEST(HostDevice, RefusesAModuleWithoutHostCode) {
  constexpr const char *kTiny = R"mlir(
ag.forward @f(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<4xf32> {ag.name = "y"}) {
  %y = ag.tanh %x : tensor<4xf32>
  ag.return %y : tensor<4xf32>
}
)mlir";
  std::vector<uint8_t> bytes = capture::test::compileForTest(kTiny);
  ASSERT_FALSE(bytes.empty());
  rt::Result<std::unique_ptr<rt::Module>> m =
      rt::Module::loadBytes(hostDevice(), bytes.data(), bytes.size());
  ASSERT_TRUE(m.isError());
  EXPECT_NE(m.message().find("capture-aot --target=cpu"), std::string::npos)
      << m.message();
}

TEST(HostDevice, ValidationIsRefusedOnTheHostDevice) {
  rt::DeviceOptions options;
  options.selector = "host";
  options.validation = true;
  rt::Result<std::shared_ptr<rt::Device>> device = rt::Device::create(options);
  ASSERT_TRUE(device.isError());
  EXPECT_NE(device.message().find("no Vulkan validation layer"),
            std::string::npos)
      << device.message();
}

} // namespace
