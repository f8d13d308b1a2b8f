//===- ppo.cpp - The PPO step written as C++ tensor code ------------------===//
//
// The PPO actor-critic of examples/cpp/models.h, captured: captureStep()
// traces the training step at its first call and replays it after (one
// submission per step: forward, backward, clipping, AdamW), and capture()
// traces a batch-1 prediction over the same weights, which reads what the
// step trained. With --data, the weights and the batch come from .npy
// files (examples/ppo_init.py), the ones examples/cpp/train_ppo.cpp reads
// for the hand-written module; without, from the model's nn.Linear
// initializers and a synthetic batch. --mlir writes the traced module for
// capture-aot (the AOT path); --plot writes the loss curve as a PNG.
//
//   ppo [--steps N] [--data DIR] [--mlir FILE] [--plot FILE.png]
//
//===----------------------------------------------------------------------===//

#include "example_util.h"
#include "models.h"

using namespace capture;
using namespace capture::examples;

/// A deterministic batch in [-1, 1) for shape `shape`.
static rt::HostTensor synthetic(std::vector<int64_t> shape, uint32_t seed) {
  size_t n = 1;
  for (int64_t d : shape)
    n *= static_cast<size_t>(d);
  std::vector<float> v(n);
  uint32_t x = seed * 2654435761u + 1;
  for (float &f : v) {
    x = x * 1664525u + 1013904223u;
    f = static_cast<float>((x >> 8) / double(1 << 24) * 2 - 1);
  }
  return rt::HostTensor::f32(std::move(shape), v);
}

int main(int argc, char **argv) {
  const char *prog = "ppo";
  std::optional<ExampleArgs> args = parseArgs(argc, argv, prog);
  if (!args)
    return 2;
  std::shared_ptr<rt::Device> device = exampleDevice(prog);
  if (!device)
    return 1;
  Params params(device);
  Ppo model(params);
  if (!args->data.empty() &&
      failed(loadWeights(params, args->data), prog, "weights"))
    return 1;
  std::vector<rt::NamedTensor> batch;
  if (args->data.empty()) {
    uint32_t seed = 1;
    for (const Tracer::InputSpec &in : ppoInputs(64))
      batch.push_back({in.name, synthetic(in.shape, seed++)});
  } else {
    auto loaded =
        loadInputs(args->data, {"obs", "act", "adv", "ret", "old_logp"});
    if (failed(loaded.status(), prog, "inputs"))
      return 1;
    batch = std::move(loaded).value();
  }
  // The AOT path: the same model traced into a module for capture-aot.
  if (!maybeWriteMlir(
          args->mlir, [](Tracer &t) { return tracePpo(t, 64); }, prog))
    return 1;

  CapturedStep train =
      captureStep([&](Tracer::Inputs &in) { return model.loss(in); }, params,
                  ppoAdamW(), ppoStep());
  Captured predict = capture::capture(
      [&](Tracer::Inputs &in) { return model.predict(in); }, params);

  std::optional<TrainResult> result =
      runTraining(params, train, batch, args->steps,
                  "step %d: loss=%.6f grad_norm=%.6f\n", prog);
  if (!result)
    return 1;

  // The prediction reads the weights the step just trained.
  std::vector<float> obs = batch[0].tensor.asF32();
  obs.resize(64);
  auto predicted = predict({{"obs", rt::HostTensor::f32({1, 64}, obs)}});
  if (failed(predicted.status(), prog, "predict"))
    return 1;
  std::printf("predict: mu[0] = %.6f, v = %.6f\n",
              predicted.value()[0].tensor.asF32()[0],
              predicted.value()[1].tensor.asF32()[0]);
  return maybePlot(args->plot, result->losses, prog) ? 0 : 1;
}
