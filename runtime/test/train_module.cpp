//===- train_module.cpp - A training module built without the compiler ----===//

#include "train_module.h"

#include "test_util.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace capture::rt::test {
namespace {

constexpr uint32_t kVulkan11 = (1u << 22) | (1u << 12);
constexpr uint64_t kParamBytes = kTrainParams * sizeof(float);

enum TrainKernel : uint32_t { kSub = 0, kNormClip = 1, kAdamWKernel = 2 };

std::vector<uint8_t> bytesOf(const std::vector<float> &v) {
  std::vector<uint8_t> b(v.size() * sizeof(float));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

TensorSlotDesc slot(const std::string &name, std::vector<int64_t> shape,
                    uint32_t buffer, uint64_t offset) {
  uint64_t count = 1;
  for (int64_t d : shape)
    count *= static_cast<uint64_t>(d);
  return {name, std::move(shape), DType::F32, buffer, offset, count * 4};
}

CommandDesc dispatch(uint32_t kernel, uint32_t groups,
                     std::vector<BufferRangeDesc> bindings,
                     std::vector<uint32_t> writes) {
  CommandDesc c;
  c.kind = CommandDesc::Kind::Dispatch;
  c.dispatch.kernel = kernel;
  c.dispatch.groups = {groups, 1, 1};
  c.dispatch.bindings = std::move(bindings);
  c.dispatch.writes = std::move(writes);
  return c;
}

CommandDesc barrier() {
  CommandDesc c;
  c.kind = CommandDesc::Kind::Barrier;
  return c;
}

KernelDesc kernel(const std::string &file, const std::string &name,
                  uint32_t workgroup, uint32_t bindings) {
  KernelDesc k;
  k.name = name;
  k.entryPoint = "main";
  k.spirv = loadKernel(file);
  k.workgroupSize = {workgroup, 1, 1};
  k.numBindings = bindings;
  return k;
}

} // namespace

AdamWDesc trainAdamW() { return {0.05f, 0.9f, 0.999f, 1e-8f, 0.01f}; }

std::vector<float> initialW1() {
  return {0.5f, -1.0f, 1.5f, -2.0f, 2.5f, -3.0f};
}
std::vector<float> initialW2() { return {0.25f, 0.75f, -0.5f, 1.0f}; }
std::vector<float> initialBias() { return {10.0f, 20.0f, 30.0f, 40.0f}; }

std::vector<float> trainInitialParams() {
  std::vector<float> p(kTrainParams, 0.0f);
  std::vector<float> w1 = initialW1(), w2 = initialW2();
  std::copy(w1.begin(), w1.end(), p.begin());
  std::copy(w2.begin(), w2.end(), p.begin() + 8);
  return p;
}

std::vector<float> trainInputX() {
  return {0.1f, 0.2f,  0.3f, -0.4f, 0.5f, -0.6f, 0, 0,
          0.7f, -0.8f, 0.9f, 1.1f,  0,    0,     0, 0};
}

std::vector<float> trainInputX2() {
  return {-0.3f, 0.6f, 0.2f,  0.1f,  -0.2f, 0.4f, 0, 0,
          0.5f,  0.5f, -0.5f, 0.25f, 0,     0,    0, 0};
}

ModuleDesc makeTrainModule(bool clip) {
  ModuleDesc m;
  m.producer = "capture-rt tests (training)";
  m.target.vulkanApiVersion = kVulkan11;
  m.target.bindingAlignment = 256;
  m.kernels = {kernel("sub", "sub_0", 64, 3),
               kernel("norm_clip", "norm_clip_0", 1, 4),
               kernel("adamw", "adamw_0", 64, 6)};
  m.buffers = {{BufferKind::Input, 768},   {BufferKind::Output, 768},
               {BufferKind::Weights, 512}, {BufferKind::Optimizer, 768},
               {BufferKind::Constants, 4}, {BufferKind::Output, 256},
               {BufferKind::Input, 256}};

  WeightDesc w1{"w1", {2, 3}, DType::F32,           true,
                0,    24,     bytesOf(initialW1()), {}};
  WeightDesc w2{"w2", {4}, DType::F32, true, 32, 16, bytesOf(initialW2()), {}};
  WeightDesc bias{
      "bias", {4}, DType::F32, false, 256, 16, bytesOf(initialBias()), {}};
  m.weights = {w1, w2, bias};
  m.weightsBuffer = kTrainWeights;
  m.constants = bytesOf({std::numeric_limits<float>::infinity()});
  m.constantsBuffer = kTrainConstants;

  BufferRangeDesc params{kTrainWeights, 0, kParamBytes};
  BufferRangeDesc x{kTrainInput, 0, kParamBytes};
  BufferRangeDesc hyper{kTrainInput, 256, kAdamWHyperValues * 4};
  BufferRangeDesc limit = clip ? BufferRangeDesc{kTrainInput, 512, 4}
                               : BufferRangeDesc{kTrainConstants, 0, 4};
  BufferRangeDesc loss{kTrainOutput, 0, 4}, norm{kTrainOutput, 256, 4};
  BufferRangeDesc residual{kTrainOutput, 512, kParamBytes};
  BufferRangeDesc grads{kTrainOptimizer, 0, kParamBytes};
  BufferRangeDesc m1{kTrainOptimizer, 256, kParamBytes};
  BufferRangeDesc m2{kTrainOptimizer, 512, kParamBytes};

  EntryDesc train;
  train.name = "train";
  train.kind = EntryKind::Train;
  train.inputBuffer = kTrainInput;
  train.outputBuffer = kTrainOutput;
  train.inputs = {slot("x", {16}, kTrainInput, 0),
                  slot("adamw", {kAdamWHyperValues}, kTrainInput, 256)};
  if (clip)
    train.inputs.push_back(slot("max_grad_norm", {}, kTrainInput, 512));
  train.outputs = {slot("loss", {}, kTrainOutput, 0),
                   slot("grad_norm", {}, kTrainOutput, 256),
                   slot("residual", {16}, kTrainOutput, 512)};
  train.commands = {
      dispatch(kSub, 1, {params, x, grads}, {2}),
      dispatch(kSub, 1, {params, x, residual}, {2}),
      barrier(),
      dispatch(kNormClip, 1, {grads, limit, loss, norm}, {0, 2, 3}),
      barrier(),
      dispatch(kAdamWKernel, 1, {grads, norm, hyper, params, m1, m2},
               {3, 4, 5})};
  TrainDesc t;
  t.adamw = trainAdamW();
  if (clip) {
    t.maxGradNorm = kTrainMaxGradNorm;
    t.maxGradNormInput = "max_grad_norm";
  }
  t.hyperInput = "adamw";
  t.gradNormOutput = "grad_norm";
  t.params = params;
  t.moment1 = m1;
  t.moment2 = m2;
  t.grads = grads;
  train.train = t;

  EntryDesc eval;
  eval.name = "eval";
  eval.inputBuffer = kEvalInput;
  eval.outputBuffer = kEvalOutput;
  eval.inputs = {slot("x", {16}, kEvalInput, 0)};
  eval.outputs = {slot("residual", {16}, kEvalOutput, 0)};
  eval.commands = {dispatch(
      kSub, 1,
      {params, {kEvalInput, 0, kParamBytes}, {kEvalOutput, 0, kParamBytes}},
      {2})};

  m.entries = {train, eval};
  return m;
}

StepReference referenceStep(const AdamWState &state,
                            const std::vector<float> &x, const AdamWDesc &a,
                            std::optional<float> maxGradNorm,
                            uint64_t stepsDone) {
  size_t n = state.p.size();
  std::vector<double> g(n);
  double sum = 0;
  for (size_t i = 0; i < n; ++i) {
    g[i] = static_cast<double>(state.p[i]) - static_cast<double>(x[i]);
    sum += g[i] * g[i];
  }
  StepReference r;
  r.loss = 0.5 * sum;
  r.gradNorm = std::sqrt(sum);
  double scale = 1;
  if (maxGradNorm)
    scale =
        std::min(1.0, static_cast<double>(*maxGradNorm) / (r.gradNorm + 1e-6));
  double lr = a.lr, b1 = a.beta1, b2 = a.beta2, eps = a.eps, wd = a.weightDecay;
  double t = static_cast<double>(stepsDone) + 1;
  double bc1 = 1 - std::pow(b1, t), bc2 = 1 - std::pow(b2, t);
  r.p.resize(n);
  r.m.resize(n);
  r.v.resize(n);
  for (size_t i = 0; i < n; ++i) {
    double gi = g[i] * scale;
    double p = static_cast<double>(state.p[i]) * (1 - lr * wd);
    double m = state.m[i] + (1 - b1) * (gi - state.m[i]);
    double v = b2 * state.v[i] + (1 - b2) * gi * gi;
    r.p[i] = p - (lr / bc1) * m / (std::sqrt(v) / std::sqrt(bc2) + eps);
    r.m[i] = m;
    r.v[i] = v;
  }
  return r;
}

} // namespace capture::rt::test
