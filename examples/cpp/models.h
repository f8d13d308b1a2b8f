//===- models.h - The benchmark workloads, written with the tracer --*- C++
//-*-===//
//
// The PPO actor-critic and the MLP classifier of bench/ (the math of
// bench/ppo_torch.py and bench/mlp_torch.py), as a user writes them: a model
// declares its weights in a Params (PyTorch's names), and its loss and its
// prediction are ordinary functions of the inputs. The same definition
// serves captureStep() and capture() (examples/cpp/ppo.cpp, mlp.cpp) and a
// Tracer writing `.mlir` for capture-aot (tracePpo, traceMlp), which
// unittests/Tracer/WorkloadsTest.cpp checks against the hand-written
// examples/ppo_train.mlir and examples/mlp_train.mlir.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_EXAMPLES_CPP_MODELS_H
#define CAPTURE_EXAMPLES_CPP_MODELS_H

#include "capture/Tracer/Layers.h"

namespace capture::examples {

/// The PPO actor-critic over 64 observations and 8 actions. Weights:
/// actor.{0,2,4}.{weight,bias}, critic.{0,2,4}.{weight,bias}, log_std.
struct Ppo {
  explicit Ppo(Params &p)
      : actor(p, "actor",
              {Layer::linear(64, 64, 1), Layer::tanh(),
               Layer::linear(64, 64, 3), Layer::tanh(),
               Layer::linear(64, 8, 5)}),
        critic(p, "critic",
               {Layer::linear(64, 64, 7), Layer::tanh(),
                Layer::linear(64, 64, 9), Layer::tanh(),
                Layer::linear(64, 1, 11)}),
        logStd(p.weight("log_std", {8}, Init::zeros())) {}

  /// The clipped PPO loss of a batch (inputs obs, act, adv, ret, old_logp).
  Tracer::Outputs loss(Tracer::Inputs &in) const {
    // One op per statement: C++ leaves the order in which a call's operands
    // are evaluated open, and the op order decides how the backward pass
    // sums a value's gradients (so its last bits).
    const Tensor &obs = in.at("obs"), &adv = in.at("adv");
    int64_t batch = obs.shape().empty() ? 0 : obs.shape()[0];
    // log N(act; mu, exp(log_std)), summed over the actions.
    Tensor mu = actor(obs);
    Tensor d = in.at("act") - mu;
    Tensor std = exp(logStd);
    Tensor z = d / std;
    Tensor t1 = square(z) * -0.5f;
    Tensor t2 = t1 - logStd;
    Tensor logp = sum(t2 - 0.9189385f, 1);
    Tensor ratio = exp(logp - in.at("old_logp"));
    Tensor s1 = ratio * adv;
    Tensor s2 = clamp(ratio, 0.8f, 1.2f) * adv;
    Tensor pg = -mean(minimum(s1, s2));
    Tensor v = reshape(critic(obs), {batch});
    Tensor vl = mse(v, in.at("ret")) * 0.5f;
    Tensor ent = sum(logStd + 1.4189385f);
    Tensor l2 = pg + vl * 0.5f;
    Tensor l3 = ent * 0.01f;
    return {{"loss", l2 - l3}};
  }

  /// The policy mean and the value of observations `obs`.
  Tracer::Outputs predict(Tracer::Inputs &in) const {
    return {{"mu", actor(in.at("obs"))}, {"v", critic(in.at("obs"))}};
  }

  /// The actor and the critic.
  Sequential actor, critic;
  /// The policy's log standard deviations.
  Weight logStd;
};

/// AdamW and clipping of the PPO step (bench/ppo_torch.py's).
inline AdamW ppoAdamW() { return {.lr = 3e-4, .weightDecay = 0.01}; }
inline StepOptions ppoStep() { return {.maxGradNorm = 0.5}; }

/// The inputs of a PPO step at `batch`.
inline std::vector<Tracer::InputSpec> ppoInputs(int64_t batch) {
  return {{"obs", {batch, 64}},
          {"act", {batch, 8}},
          {"adv", {batch}},
          {"ret", {batch}},
          {"old_logp", {batch}}};
}

/// The PPO module for capture-aot: `train` at `batch` and `predict` at
/// batch 1, sharing the weights.
inline rt::Status tracePpo(Tracer &t, int64_t batch) {
  Ppo model(t.params());
  rt::Status s = t.trainStep(
      "train", ppoInputs(batch),
      [&](Tracer::Inputs &in) { return model.loss(in); }, ppoAdamW(),
      ppoStep());
  if (s.isError())
    return s;
  return t.forward("predict", {{"obs", {1, 64}}},
                   [&](Tracer::Inputs &in) { return model.predict(in); });
}

/// The MLP classifier 784-256-256-10 with ReLU. Weights fc{1,2,3}.*.
struct Mlp {
  explicit Mlp(Params &p)
      : fc1(p, "fc1", 784, 256, 1), fc2(p, "fc2", 256, 256, 3),
        fc3(p, "fc3", 256, 10, 5) {}

  /// The logits of images `x` [N, 784].
  Tensor logits(const Tensor &x) const { return fc3(relu(fc2(relu(fc1(x))))); }
  /// The mean cross-entropy of a batch (inputs x, labels).
  Tracer::Outputs loss(Tracer::Inputs &in) const {
    return {{"loss", crossEntropy(logits(in.at("x")), in.at("labels"))}};
  }
  /// The logits, as an entry's outputs.
  Tracer::Outputs predict(Tracer::Inputs &in) const {
    return {{"logits", logits(in.at("x"))}};
  }

  /// The layers.
  Linear fc1, fc2, fc3;
};

/// AdamW and clipping of the MLP step (bench/mlp_torch.py's).
inline AdamW mlpAdamW() { return {.lr = 1e-3, .weightDecay = 0.01}; }
inline StepOptions mlpStep() { return {.maxGradNorm = 1.0}; }

/// The MLP module for capture-aot: `train` at batch 128 and `predict` at
/// batch 1.
inline rt::Status traceMlp(Tracer &t) {
  Mlp model(t.params());
  rt::Status s = t.trainStep(
      "train", {{"x", {128, 784}}, {"labels", {128}, ElemType::I32}},
      [&](Tracer::Inputs &in) { return model.loss(in); }, mlpAdamW(),
      mlpStep());
  if (s.isError())
    return s;
  return t.forward("predict", {{"x", {1, 784}}},
                   [&](Tracer::Inputs &in) { return model.predict(in); });
}

} // namespace capture::examples

#endif // CAPTURE_EXAMPLES_CPP_MODELS_H
