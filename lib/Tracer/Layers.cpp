//===- Layers.cpp - Linear and Sequential ---------------------------------===//

#include "capture/Tracer/Layers.h"

#include "llvm/ADT/STLExtras.h"

using namespace capture;

//===----------------------------------------------------------------------===//
// Linear
//===----------------------------------------------------------------------===//

Linear::Linear(Params &params, const std::string &name, int64_t in, int64_t out,
               uint64_t seed, bool bias, SourceLoc loc)
    : weight_(params.weight(name + ".weight", {out, in}, Init::linear(in, seed),
                            true, loc)) {
  if (bias)
    bias_ = params.weight(name + ".bias", {out}, Init::linear(in, seed + 1),
                          true, loc);
}

Tensor Linear::operator()(At x) const {
  if (!bias_)
    return matmul(x, At(weight_, x.loc), {.transposeB = true});
  At b(*bias_, x.loc);
  return linear(x, At(weight_, x.loc), &b);
}

//===----------------------------------------------------------------------===//
// Sequential
//===----------------------------------------------------------------------===//

Layer Layer::tanh() {
  return fn([](At x) { return capture::tanh(x); });
}
Layer Layer::relu() {
  return fn([](At x) { return capture::relu(x); });
}
Layer Layer::sigmoid() {
  return fn([](At x) { return capture::sigmoid(x); });
}

Sequential::Sequential(Params &params, const std::string &name,
                       std::vector<Layer> layers, SourceLoc loc)
    : layers_(std::move(layers)) {
  for (auto [i, layer] : llvm::enumerate(layers_)) {
    linears_.emplace_back();
    if (!layer.f)
      linears_.back().emplace(params, name + "." + std::to_string(i), layer.in,
                              layer.out, layer.seed, layer.bias, loc);
  }
}

Tensor Sequential::operator()(At x) const {
  // Every layer's ops are located at this call, the user's line.
  Tensor t;
  for (size_t i = 0; i < layers_.size(); ++i) {
    At in = i == 0 ? x : At(t, x.loc);
    t = linears_[i] ? (*linears_[i])(in) : layers_[i].f(in);
  }
  return t;
}

const Linear *Sequential::linear(size_t index) const {
  return index < linears_.size() && linears_[index] ? &*linears_[index]
                                                    : nullptr;
}
