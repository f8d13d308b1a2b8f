//===- train_ppo.cpp - The C++ runtime API, end to end --------------------===//
//
// Loads a compiled PPO training step (capture-aot examples/ppo_train.mlir),
// sets its weights from .npy files (examples/ppo_init.py, or
// ppo_torch.py --dump), trains on one batch, lowers the learning rate
// half-way, and reads back a weight and the AdamW moments. Only
// libcapture-rt: no MLIR at run time.
//
//   train_ppo ppo.capmod DATA_DIR [STEPS]
//
//===----------------------------------------------------------------------===//

#include "capture/rt/capmod.h"
#include "capture/rt/device.h"
#include "capture/rt/environment.h"
#include "capture/rt/module.h"
#include "capture/rt/npy.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace capture::rt;

/// Prints `status`'s message and returns true when it is an error.
static bool failed(const Status &status, const char *what) {
  if (status.isOk())
    return false;
  std::fprintf(stderr, "train_ppo: %s: %s\n", what, status.message().c_str());
  return true;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: train_ppo MODULE.capmod DATA_DIR [STEPS]\n");
    return 2;
  }
  std::string data = argv[2];
  int steps = argc > 3 ? std::atoi(argv[3]) : 50;

  // The module file (read and verified), a device that can run it
  // (CAPTURE_DEVICE, read here as a tool reads it; else a GPU; else the
  // host device when the module has host code, capture-aot --target=cpu;
  // else lavapipe) and the module on it: loading creates the pipelines and
  // records each entry once.
  Result<ModuleDesc> desc = readCapmodFile(argv[1]);
  if (failed(desc.status(), "load"))
    return 1;
  Result<std::shared_ptr<Device>> device = Device::create(
      deviceOptionsFor(desc.value(), deviceOptionsFromEnvironment()));
  if (failed(device.status(), "device"))
    return 1;
  Result<std::unique_ptr<Module>> loaded =
      Module::load(device.value(), std::move(desc).value());
  if (failed(loaded.status(), "load"))
    return 1;
  Module &module = *loaded.value();
  std::printf("device: %s (%s)\n", device.value()->info().name.c_str(),
              device.value()->choice().c_str());

  // Weights live on the device; set each from DATA_DIR/init.<name>.npy.
  for (const WeightDesc &weight : module.desc().weights) {
    Result<HostTensor> value =
        readNpyFile(data + "/init." + weight.name + ".npy");
    if (failed(value.status(), weight.name.c_str()) ||
        failed(module.setParam(weight.name, value.value()), "setParam"))
      return 1;
  }

  // The step's own inputs; the runtime fills the hyperparameter inputs.
  Result<const EntryDesc *> entry = module.findEntry("train");
  if (failed(entry.status(), "entry"))
    return 1;
  std::vector<NamedTensor> inputs;
  for (const TensorSlotDesc &slot : entry.value()->inputs) {
    if (slot.name == entry.value()->train->hyperInput ||
        slot.name == entry.value()->train->maxGradNormInput)
      continue;
    Result<HostTensor> value =
        readNpyFile(data + "/input." + slot.name + ".npy");
    if (failed(value.status(), slot.name.c_str()))
      return 1;
    inputs.push_back({slot.name, std::move(value).value()});
  }

  // One submission per step: forward, backward, clipping, AdamW.
  float lastNorm = 0;
  for (int step = 1; step <= steps; ++step) {
    if (step == steps / 2 + 1 &&
        failed(module.setLearningRate("train", 1e-4f), "setLearningRate"))
      return 1;
    Result<std::vector<NamedTensor>> outputs = module.run("train", inputs);
    if (failed(outputs.status(), "step")) // e.g. a NaN gradient norm
      return 1;
    // Outputs come in declaration order: the loss first.
    float loss = outputs.value()[0].tensor.asF32()[0], norm = 0;
    for (const NamedTensor &output : outputs.value())
      if (output.name == entry.value()->train->gradNormOutput)
        norm = output.tensor.asF32()[0];
    lastNorm = norm;
    if (step == 1 || step % 10 == 0)
      std::printf("step %d: loss=%.6f grad_norm=%.6f\n", step, loss, norm);
  }

  // The last step's gradients (before clipping): their 2-norm is the
  // grad_norm the step reported.
  Result<TrainGradients> grads = module.readGradients("train");
  if (failed(grads.status(), "readGradients"))
    return 1;
  double sum = 0;
  for (float g : grads.value().flat.asF32())
    sum += double(g) * g;
  if (std::fabs(std::sqrt(sum) - lastNorm) > 1e-4 * lastNorm) {
    std::fprintf(stderr, "train_ppo: gradient norm %g, but the step said %g\n",
                 std::sqrt(sum), lastNorm);
    return 1;
  }
  std::printf("gradients: %zu weights, norm %.6f as reported\n",
              grads.value().perWeight.size(), std::sqrt(sum));

  Result<TrainState> state = module.trainState("train");
  Result<HostTensor> logStd = module.getParam("log_std");
  Result<AdamWMoments> moments = module.readMoments("train");
  if (failed(state.status(), "trainState") ||
      failed(logStd.status(), "getParam") ||
      failed(moments.status(), "readMoments"))
    return 1;
  std::printf("t = %llu, lr = %g, log_std[0] = %.6f, %zu moments each\n",
              static_cast<unsigned long long>(state.value().step),
              state.value().adamw.lr, logStd.value().asF32()[0],
              moments.value().m.numElements());
  std::printf("command buffers recorded: %llu\n",
              static_cast<unsigned long long>(module.recordCount()));
  return 0;
}
