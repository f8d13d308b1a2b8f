//===- mlp.cpp - The MLP classifier step written as C++ tensor code -------===//
//
// The MLP 784-256-256-10 of examples/cpp/models.h, captured like ppo.cpp:
// captureStep() for the training step at batch 128, capture() for a batch-1
// prediction over the same weights. With --data, the batch comes from
// input.x.npy (f32 [128, 784]) and input.labels.npy (i32 [128]) and any
// init.<weight>.npy replaces an initializer; without, the weights keep the
// model's nn.Linear initializers (those of examples/mlp_train.mlir) and the
// batch is synthetic. --mlir writes the traced module for capture-aot;
// --plot writes the loss curve as a PNG.
//
//   mlp [--steps N] [--data DIR] [--mlir FILE] [--plot FILE.png]
//
//===----------------------------------------------------------------------===//

#include "example_util.h"
#include "models.h"

#include <sys/stat.h>

using namespace capture;
using namespace capture::examples;

/// A synthetic batch: x in [0, 1), labels i % 10.
static std::vector<rt::NamedTensor> syntheticBatch() {
  std::vector<float> x(128 * 784);
  uint32_t s = 12345;
  for (float &f : x) {
    s = s * 1664525u + 1013904223u;
    f = static_cast<float>((s >> 8) / double(1 << 24));
  }
  std::vector<int32_t> labels(128);
  for (size_t i = 0; i < labels.size(); ++i)
    labels[i] = static_cast<int32_t>(i % 10);
  return {{"x", rt::HostTensor::f32({128, 784}, x)},
          {"labels", rt::HostTensor::i32({128}, labels)}};
}

int main(int argc, char **argv) {
  const char *prog = "mlp";
  std::optional<ExampleArgs> args = parseArgs(argc, argv, prog);
  if (!args)
    return 2;
  std::shared_ptr<rt::Device> device = exampleDevice(prog);
  if (!device)
    return 1;
  Params params(device);
  Mlp model(params);
  std::vector<rt::NamedTensor> batch = syntheticBatch();
  if (!args->data.empty()) {
    auto loaded = loadInputs(args->data, {"x", "labels"});
    if (failed(loaded.status(), prog, "inputs"))
      return 1;
    batch = std::move(loaded).value();
    // Weights given as files replace their initializers.
    std::vector<rt::NamedTensor> given;
    for (const std::string &name : params.names()) {
      std::string path = args->data + "/init." + name + ".npy";
      struct stat st;
      if (stat(path.c_str(), &st) != 0)
        continue;
      rt::Result<rt::HostTensor> v = rt::readNpyFile(path);
      if (failed(v.status(), prog, name))
        return 1;
      given.push_back({name, std::move(v).value()});
    }
    if (failed(params.setValues(given), prog, "weights"))
      return 1;
  }
  if (!maybeWriteMlir(args->mlir, traceMlp, prog))
    return 1;

  CapturedStep train =
      captureStep([&](Tracer::Inputs &in) { return model.loss(in); }, params,
                  mlpAdamW(), mlpStep());
  Captured predict = capture::capture(
      [&](Tracer::Inputs &in) { return model.predict(in); }, params);

  // capture-run's step format, so that a test compares the two as text.
  std::optional<TrainResult> result =
      runTraining(params, train, batch, args->steps,
                  "step %d: loss=%.9g grad_norm=%.9g\n", prog);
  if (!result)
    return 1;

  // Classify the first image with the trained weights.
  std::vector<float> x = batch[0].tensor.asF32();
  x.resize(784);
  auto logits = predict({{"x", rt::HostTensor::f32({1, 784}, x)}});
  if (failed(logits.status(), prog, "predict"))
    return 1;
  std::vector<float> l = logits.value()[0].tensor.asF32();
  std::printf(
      "predict: class %ld for the first image (label %d)\n",
      static_cast<long>(std::max_element(l.begin(), l.end()) - l.begin()),
      batch[1].tensor.asI32().empty() ? -1 : batch[1].tensor.asI32()[0]);
  return maybePlot(args->plot, result->losses, prog) ? 0 : 1;
}
