//===- Layers.h - Linear and Sequential over a Params -----------*- C++ -*-===//
//
// A small module layer over the tracer, in PyTorch's naming: Linear
// declares `<name>.weight` [out, in] and `<name>.bias` [out] with
// nn.Linear's initialization; Sequential applies layers in order and names
// its Linear layers by position (`actor.0`, `actor.2` around a Tanh), as
// torch.nn.Sequential does.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_TRACER_LAYERS_H
#define CAPTURE_TRACER_LAYERS_H

#include "capture/Tracer/Tracer.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace capture {

/// torch.nn.Linear: weight [out, in] and bias [out], named
/// `<name>.weight` and `<name>.bias`, with nn.Linear's default
/// initialization (seeds `seed` and `seed + 1`).
class Linear {
public:
  /// Declares the layer's weights in `params`.
  Linear(Params &params, const std::string &name, int64_t in, int64_t out,
         uint64_t seed, bool bias = true, SourceLoc loc = SourceLoc::current());
  /// Declares the layer's weights in `tracer`'s parameters.
  Linear(Tracer &tracer, const std::string &name, int64_t in, int64_t out,
         uint64_t seed, bool bias = true, SourceLoc loc = SourceLoc::current())
      : Linear(tracer.params(), name, in, out, seed, bias, loc) {}
  /// x @ weight.T + bias.
  Tensor operator()(At x) const;
  /// The weight [out, in].
  const Weight &weight() const { return weight_; }
  /// The bias [out] (absent without bias).
  const std::optional<Weight> &bias() const { return bias_; }

private:
  /// [out, in].
  Weight weight_;
  /// [out].
  std::optional<Weight> bias_;
};

/// One layer of a Sequential: a Linear it declares, or a function.
struct Layer {
  /// A Linear(in, out) with nn.Linear's initialization (seeds `seed` and
  /// `seed + 1`).
  static Layer linear(int64_t in, int64_t out, uint64_t seed,
                      bool bias = true) {
    return {in, out, seed, bias, nullptr};
  }
  /// Any tensor function (an activation, a reshape...); its operand
  /// carries the Sequential's call site, for the ops it builds.
  static Layer fn(std::function<Tensor(At)> f) {
    return {0, 0, 0, false, std::move(f)};
  }
  /// torch.nn.Tanh, ReLU and Sigmoid.
  static Layer tanh();
  static Layer relu();
  static Layer sigmoid();

  /// linear: input features.
  int64_t in = 0;
  /// linear: output features.
  int64_t out = 0;
  /// linear: the initializers' seed.
  uint64_t seed = 0;
  /// linear: whether it has a bias.
  bool bias = true;
  /// The function, for a function layer.
  std::function<Tensor(At)> f;
};

/// torch.nn.Sequential: layers applied in order. The Linear layers'
/// weights are named as PyTorch names them, by position:
/// `<name>.<index>.weight` (so `actor.0`, `actor.2` around a Tanh).
class Sequential {
public:
  /// Declares the Linear layers' weights in `params`.
  Sequential(Params &params, const std::string &name, std::vector<Layer> layers,
             SourceLoc loc = SourceLoc::current());
  /// Every layer in turn, located at this call.
  Tensor operator()(At x) const;
  /// The Linear at position `index`, or null.
  const Linear *linear(size_t index) const;

private:
  /// The layers.
  std::vector<Layer> layers_;
  /// One per layer: the Linear of a linear layer.
  std::vector<std::optional<Linear>> linears_;
};

} // namespace capture

#endif // CAPTURE_TRACER_LAYERS_H
