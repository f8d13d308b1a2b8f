//===- test_util.cpp - Building test modules without the compiler ---------===//

#include "test_util.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#ifndef CAPTURE_RT_TEST_KERNEL_DIR
#error "CAPTURE_RT_TEST_KERNEL_DIR must name the folder of the .spv files"
#endif

namespace capture::rt::test {
namespace {

constexpr uint32_t kVulkan11 = (1u << 22) | (1u << 12);
constexpr uint64_t kF32x8 = 8 * sizeof(float);

std::vector<uint8_t> bytesOf(const std::vector<float> &v) {
  std::vector<uint8_t> b(v.size() * sizeof(float));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

TensorSlotDesc slot(const std::string &name, uint32_t buffer, uint64_t offset) {
  return {name, {2, 4}, DType::F32, buffer, offset, kF32x8};
}

CommandDesc dispatch(uint32_t kernel, BufferRangeDesc a, BufferRangeDesc b,
                     BufferRangeDesc out) {
  CommandDesc c;
  c.kind = CommandDesc::Kind::Dispatch;
  c.dispatch.kernel = kernel;
  c.dispatch.groups = {1, 1, 1};
  c.dispatch.bindings = {a, b, out};
  c.dispatch.writes = {2};
  return c;
}

CommandDesc barrier() {
  CommandDesc c;
  c.kind = CommandDesc::Kind::Barrier;
  return c;
}

} // namespace

std::vector<uint32_t> loadKernel(const std::string &name) {
  std::string path =
      std::string(CAPTURE_RT_TEST_KERNEL_DIR) + "/" + name + ".spv";
  std::ifstream in(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
  if (bytes.empty() || bytes.size() % 4) {
    std::fprintf(stderr, "test kernel '%s' is missing or malformed\n",
                 path.c_str());
    std::abort();
  }
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  return words;
}

std::vector<float> initialWeights() {
  std::vector<float> w(8);
  for (int i = 0; i < 8; ++i)
    w[i] = 0.25f * static_cast<float>(i);
  return w;
}

std::vector<float> constantValues() {
  std::vector<float> c(8);
  for (int i = 0; i < 8; ++i)
    c[i] = 100.0f + static_cast<float>(i);
  return c;
}

std::vector<float> inputX() {
  std::vector<float> x(8);
  for (int i = 0; i < 8; ++i)
    x[i] = static_cast<float>(i) + 1.0f;
  return x;
}

std::vector<float> inputB() { return std::vector<float>(8, 2.0f); }

std::vector<float> expectY(const std::vector<float> &x,
                           const std::vector<float> &b,
                           const std::vector<float> &w) {
  std::vector<float> y(8);
  for (int i = 0; i < 8; ++i)
    y[i] = (x[i] + w[i]) * b[i];
  return y;
}

std::vector<float> expectZ(const std::vector<float> &x,
                           const std::vector<float> &w) {
  std::vector<float> z(8);
  std::vector<float> c = constantValues();
  for (int i = 0; i < 8; ++i)
    z[i] = (x[i] + w[i]) + c[i];
  return z;
}

ModuleDesc makeTestModule() {
  ModuleDesc m;
  m.producer = "capture-rt tests";
  m.target.vulkanApiVersion = kVulkan11;
  m.target.bindingAlignment = 256;
  for (const char *name : {"add", "mul"}) {
    KernelDesc k;
    k.name = std::string(name) + "_0";
    k.entryPoint = "main";
    k.spirv = loadKernel(name);
    k.workgroupSize = {64, 1, 1};
    k.numBindings = 3;
    m.kernels.push_back(std::move(k));
  }
  m.buffers = {{BufferKind::Input, 512},   {BufferKind::Output, 512},
               {BufferKind::Weights, 256}, {BufferKind::Constants, kF32x8},
               {BufferKind::Scratch, 512}, {BufferKind::Output, 256},
               {BufferKind::Input, 256}};

  WeightDesc w;
  w.name = "w";
  w.shape = {2, 4};
  w.trainable = true;
  w.size = kF32x8;
  w.init = bytesOf(initialWeights());
  m.weights.push_back(w);
  m.weightsBuffer = kWeights;
  m.constants = bytesOf(constantValues());
  m.constantsBuffer = kConstants;

  BufferRangeDesc x{kInput, 0, kF32x8}, b{kInput, 256, kF32x8};
  BufferRangeDesc wr{kWeights, 0, kF32x8}, c{kConstants, 0, kF32x8};
  BufferRangeDesc h{kScratch, 0, kF32x8}, h2{kScratch, 256, kF32x8};
  BufferRangeDesc y{kOutput, 0, kF32x8}, z{kOutput, 256, kF32x8};

  EntryDesc predict;
  predict.name = "predict";
  predict.inputBuffer = kInput;
  predict.outputBuffer = kOutput;
  predict.inputs = {slot("x", kInput, 0), slot("b", kInput, 256)};
  predict.outputs = {slot("y", kOutput, 0), slot("z", kOutput, 256)};
  predict.probes = {slot("h", kScratch, 0)};
  predict.commands = {dispatch(kAdd, x, wr, h), barrier(),
                      dispatch(kMul, h, b, y), dispatch(kAdd, h, c, z)};

  EntryDesc bias;
  bias.name = "bias";
  bias.outputBuffer = kBiasOutput;
  bias.outputs = {slot("o", kBiasOutput, 0)};
  bias.commands = {dispatch(kAdd, wr, c, {kBiasOutput, 0, kF32x8})};

  EntryDesc side;
  side.name = "side";
  side.inputBuffer = kSideInput;
  side.inputs = {slot("x2", kSideInput, 0)};
  side.probes = {slot("h2", kScratch, 256)};
  side.commands = {dispatch(kAdd, {kSideInput, 0, kF32x8}, wr, h2)};

  m.entries = {predict, bias, side};
  return m;
}

ModuleDesc makeIoOnlyModule(uint64_t inputBytes, uint64_t outputBytes) {
  ModuleDesc m = makeTestModule();
  m.buffers = {{BufferKind::Input, inputBytes},
               {BufferKind::Output, outputBytes}};
  m.weights.clear();
  m.weightsBuffer = -1;
  m.constants.reset();
  m.constantsBuffer = -1;
  m.entries.clear();
  return m;
}

DeviceLimits lavapipeLikeLimits() {
  DeviceLimits l;
  l.deviceName = "test-device";
  l.apiVersion = (1u << 22) | (3u << 12);
  for (int i = 0; i < 3; ++i) {
    l.maxWorkGroupCount[i] = 65535;
    l.maxWorkGroupSize[i] = 1024;
  }
  l.maxWorkGroupSize[2] = 64;
  l.maxWorkGroupInvocations = 1024;
  l.minStorageBufferOffsetAlignment = 16;
  l.maxStorageBufferRange = 1u << 27;
  l.maxStorageBuffersPerSet = 64;
  l.maxAllocationSize = 1ull << 31;
  l.minTexelBufferOffsetAlignment = 16;
  l.maxTexelBufferElements = 1u << 27;
  l.maxStorageImagesPerSet = 64;
  l.rgba32fStorageTexelBuffer = true;
  l.subgroupArithmetic = true;
  l.subgroupShuffle = true;
  l.subgroupSize = 8;
  l.robustBufferAccess = true;
  return l;
}

} // namespace capture::rt::test
