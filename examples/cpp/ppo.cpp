//===- ppo.cpp - The PPO step written as C++ tensor code ------------------===//
//
// Traces the PPO actor-critic of examples/cpp/models.h (the training step
// and a batch-1 prediction sharing its weights), compiles it in-process,
// and trains it on the device (lavapipe without a GPU), printing the loss
// curve; then predicts one action with the trained weights. With --data,
// weights and the batch come from .npy files (examples/ppo_init.py), the
// same ones examples/cpp/train_ppo.cpp reads for the hand-written module;
// without, from the model's nn.Linear initializers and a synthetic batch.
// --mlir writes the traced module for capture-aot (the AOT path).
//
//   ppo [--steps N] [--data DIR] [--mlir FILE]
//
//===----------------------------------------------------------------------===//

#include "models.h"

#include "capture/rt/device.h"
#include "capture/rt/module.h"
#include "capture/rt/npy.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

using namespace capture;

/// Prints `status`'s message and returns true when it is an error.
static bool failed(const rt::Status &status, const char *what) {
  if (status.isOk())
    return false;
  std::fprintf(stderr, "ppo: %s: %s\n", what, status.message().c_str());
  return true;
}

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
  int steps = 50;
  std::string data, mlirPath;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (i + 1 < argc && arg == "--steps") {
      std::string value = argv[++i];
      char *end = nullptr;
      long n = std::strtol(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || n < 1 || n > 1000000) {
        std::fprintf(stderr,
                     "ppo: --steps expects a whole number in 1..1000000, "
                     "got '%s'\n",
                     value.c_str());
        return 2;
      }
      steps = static_cast<int>(n);
    } else if (i + 1 < argc && arg == "--data")
      data = argv[++i];
    else if (i + 1 < argc && arg == "--mlir")
      mlirPath = argv[++i];
    else {
      std::fprintf(stderr,
                   "ppo: unknown argument '%s'\nusage: ppo [--steps "
                   "N] [--data DIR] [--mlir FILE]\n",
                   arg.c_str());
      return 2;
    }
  }

  // Trace once: the step and the prediction, from one model definition.
  Tracer tracer;
  if (failed(examples::tracePpo(tracer, 64), "trace"))
    return 1;
  if (!mlirPath.empty()) {
    rt::Result<std::string> text = tracer.toMlir();
    std::ofstream out(mlirPath);
    if (failed(text.status(), "toMlir") || !(out << text.value())) {
      std::fprintf(stderr, "ppo: cannot write %s\n", mlirPath.c_str());
      return 1;
    }
  }
  rt::Result<std::vector<uint8_t>> bytes = tracer.compile();
  if (failed(bytes.status(), "compile"))
    return 1;
  rt::Result<std::shared_ptr<rt::Device>> device = rt::Device::create();
  if (failed(device.status(), "device"))
    return 1;
  auto loaded = rt::Module::loadBytes(device.value(), bytes.value().data(),
                                      bytes.value().size());
  if (failed(loaded.status(), "load"))
    return 1;
  rt::Module &module = *loaded.value();
  std::printf("device: %s\n", device.value()->info().name.c_str());

  std::vector<rt::NamedTensor> inputs;
  const char *names[] = {"obs", "act", "adv", "ret", "old_logp"};
  std::vector<std::vector<int64_t>> shapes = {
      {64, 64}, {64, 8}, {64}, {64}, {64}};
  for (int i = 0; i < 5; ++i) {
    if (data.empty()) {
      inputs.push_back({names[i], synthetic(shapes[i], i + 1)});
      continue;
    }
    rt::Result<rt::HostTensor> value =
        rt::readNpyFile(data + "/input." + names[i] + ".npy");
    if (failed(value.status(), names[i]))
      return 1;
    inputs.push_back({names[i], std::move(value).value()});
  }
  if (!data.empty())
    for (const rt::WeightDesc &weight : module.desc().weights) {
      rt::Result<rt::HostTensor> value =
          rt::readNpyFile(data + "/init." + weight.name + ".npy");
      if (failed(value.status(), weight.name.c_str()) ||
          failed(module.setParam(weight.name, value.value()), "setParam"))
        return 1;
    }

  for (int step = 1; step <= steps; ++step) {
    rt::Result<std::vector<rt::NamedTensor>> out = module.run("train", inputs);
    if (failed(out.status(), "step"))
      return 1;
    float loss = out.value()[0].tensor.asF32()[0], norm = 0;
    for (const rt::NamedTensor &o : out.value())
      if (o.name == "grad_norm")
        norm = o.tensor.asF32()[0];
    if (step == 1 || step % 10 == 0 || step == steps)
      std::printf("step %d: loss=%.6f grad_norm=%.6f\n", step, loss, norm);
  }

  // The prediction entry reads the weights the step just trained.
  std::vector<float> obs = inputs[0].tensor.asF32();
  obs.resize(64);
  auto predicted =
      module.run("predict", {{"obs", rt::HostTensor::f32({1, 64}, obs)}});
  if (failed(predicted.status(), "predict"))
    return 1;
  std::printf("predict: mu[0] = %.6f, v = %.6f\n",
              predicted.value()[0].tensor.asF32()[0],
              predicted.value()[1].tensor.asF32()[0]);
  return 0;
}
