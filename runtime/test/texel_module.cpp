//===- texel_module.cpp - A test module with texel-buffer bindings --------===//

#include "texel_module.h"
#include "test_util.h"

#include <cstring>

namespace capture::rt::test {
namespace {

constexpr uint32_t kVulkan11 = (1u << 22) | (1u << 12);

/// A texel_scale kernel binding tensors of shape `shape`.
KernelDesc scaleKernel(const std::string &name, int64_t elements) {
  KernelDesc k;
  k.name = name;
  k.entryPoint = "main";
  k.spirv = loadKernel("texel_scale");
  k.workgroupSize = {64, 1, 1};
  k.numBindings = 2;
  k.bindingShapes = {{elements}, {elements}};
  k.bindingKinds = {BindingKind::TexelBufferRgba32f,
                    BindingKind::StorageBuffer};
  return k;
}

/// `in` (a whole number of texels) -> `out`, through kernel `kernel`.
CommandDesc scale(uint32_t kernel, BufferRangeDesc in, BufferRangeDesc out) {
  CommandDesc c;
  c.kind = CommandDesc::Kind::Dispatch;
  c.dispatch.kernel = kernel;
  c.dispatch.groups = {1, 1, 1};
  c.dispatch.bindings = {in, out};
  c.dispatch.writes = {1};
  return c;
}

} // namespace

std::vector<float> texelInputX() {
  std::vector<float> x(6);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(i) + 0.5f;
  return x;
}

std::vector<float> texelWeights() {
  std::vector<float> w(5);
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = 10.0f - static_cast<float>(i);
  return w;
}

std::vector<float> doubled(const std::vector<float> &v) {
  std::vector<float> out;
  for (float f : v)
    out.push_back(2.0f * f);
  return out;
}

ModuleDesc makeTexelModule() {
  ModuleDesc m;
  m.producer = "capture-rt tests";
  m.target.vulkanApiVersion = kVulkan11;
  m.target.bindingAlignment = 256;
  m.kernels = {scaleKernel("scale_x", 6), scaleKernel("scale_w", 5)};
  m.buffers = {{BufferKind::Input, 256},
               {BufferKind::Output, 512},
               {BufferKind::Weights, 512}};

  WeightDesc w;
  w.name = "w";
  w.shape = {5};
  w.trainable = true;
  w.offset = 256;
  w.size = 5 * sizeof(float);
  std::vector<float> init = texelWeights();
  w.init = std::vector<uint8_t>(w.size);
  std::memcpy(w.init->data(), init.data(), w.size);
  m.weights = {w};
  m.weightsBuffer = kTexelWeights;

  EntryDesc predict;
  predict.name = "predict";
  predict.inputBuffer = kTexelInput;
  predict.outputBuffer = kTexelOutput;
  predict.inputs = {{"x", {6}, DType::F32, kTexelInput, 0, 24}};
  predict.outputs = {{"y", {6}, DType::F32, kTexelOutput, 0, 24},
                     {"z", {5}, DType::F32, kTexelOutput, 256, 20}};
  // Texel ranges are whole texels: 24 -> 32 and 20 -> 32 bytes.
  predict.commands = {
      scale(0, {kTexelInput, 0, 32}, {kTexelOutput, 0, 24}),
      scale(1, {kTexelWeights, 256, 32}, {kTexelOutput, 256, 20})};
  m.entries = {predict};
  return m;
}

} // namespace capture::rt::test
