//===- models.h - The benchmark workloads, written with the tracer --*- C++
//-*-===//
//
// The PPO actor-critic and the MLP classifier of bench/ (the math of
// bench/ppo_torch.py and bench/mlp_torch.py), as a user writes them: one
// model definition serves the training step and a batch-1 prediction that
// shares its weights. Used by examples/cpp/ppo.cpp and by
// unittests/Tracer/WorkloadsTest.cpp, which checks that they train like the
// hand-written examples/ppo_train.mlir and examples/mlp_train.mlir.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_EXAMPLES_CPP_MODELS_H
#define CAPTURE_EXAMPLES_CPP_MODELS_H

#include "capture/Tracer/Tracer.h"

namespace capture::examples {

/// The PPO actor-critic: a training step `train` at `batch` (inputs obs,
/// act, adv, ret, old_logp; output loss) and `predict` at batch 1 (outputs
/// mu and v). Weights use PyTorch's names (actor.0.weight, ..., log_std).
inline rt::Status tracePpo(Tracer &t, int64_t batch) {
  Linear a0(t, "actor.0", 64, 64, 1), a2(t, "actor.2", 64, 64, 3),
      a4(t, "actor.4", 64, 8, 5);
  Linear c0(t, "critic.0", 64, 64, 7), c2(t, "critic.2", 64, 64, 9),
      c4(t, "critic.4", 64, 1, 11);
  Weight logStd = t.weight("log_std", {8}, Init::zeros());
  auto actor = [&](const Tensor &obs) { return a4(tanh(a2(tanh(a0(obs))))); };
  auto critic = [&](const Tensor &obs) { return c4(tanh(c2(tanh(c0(obs))))); };
  rt::Status s = t.trainStep(
      "train",
      {{"obs", {batch, 64}},
       {"act", {batch, 8}},
       {"adv", {batch}},
       {"ret", {batch}},
       {"old_logp", {batch}}},
      [&](Tracer::Inputs &in) {
        // One op per statement: C++ leaves the order in which a call's
        // operands are evaluated open, and the op order decides how the
        // backward pass sums a value's gradients (so its last bits).
        const Tensor &obs = in.at("obs"), &adv = in.at("adv");
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
        return Tracer::Outputs{{"loss", l2 - l3}};
      },
      AdamW{.lr = 3e-4, .weightDecay = 0.01}, StepOptions{.maxGradNorm = 0.5});
  if (s.isError())
    return s;
  return t.forward("predict", {{"obs", {1, 64}}}, [&](Tracer::Inputs &in) {
    return Tracer::Outputs{{"mu", actor(in.at("obs"))},
                           {"v", critic(in.at("obs"))}};
  });
}

/// The MLP classifier 784-256-256-10 with ReLU: `train` at batch 128
/// (inputs x, labels; output loss) and `predict` at batch 1 (logits).
inline rt::Status traceMlp(Tracer &t) {
  Linear fc1(t, "fc1", 784, 256, 1), fc2(t, "fc2", 256, 256, 3),
      fc3(t, "fc3", 256, 10, 5);
  auto model = [&](const Tensor &x) { return fc3(relu(fc2(relu(fc1(x))))); };
  rt::Status s = t.trainStep(
      "train", {{"x", {128, 784}}, {"labels", {128}, ElemType::I32}},
      [&](Tracer::Inputs &in) {
        return Tracer::Outputs{
            {"loss", crossEntropy(model(in.at("x")), in.at("labels"))}};
      },
      AdamW{.lr = 1e-3, .weightDecay = 0.01}, StepOptions{.maxGradNorm = 1.0});
  if (s.isError())
    return s;
  return t.forward("predict", {{"x", {1, 784}}}, [&](Tracer::Inputs &in) {
    return Tracer::Outputs{{"logits", model(in.at("x"))}};
  });
}

} // namespace capture::examples

#endif // CAPTURE_EXAMPLES_CPP_MODELS_H
