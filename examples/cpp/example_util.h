//===- example_util.h - What the traced examples share --------------*- C++
//-*-===//
//
// The command line of examples/cpp/ppo.cpp and mlp.cpp, and their training
// loop: one captured step per iteration, the loss curve printed (and a
// progress line on a terminal), the median time per step, and the curve
// as a PNG on request.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_EXAMPLES_CPP_EXAMPLE_UTIL_H
#define CAPTURE_EXAMPLES_CPP_EXAMPLE_UTIL_H

#include "plot.h"

#include "capture/Tracer/Capture.h"
#include "capture/rt/environment.h"
#include "capture/rt/npy.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

namespace capture::examples {

/// The examples' options.
struct ExampleArgs {
  /// Training steps.
  int steps = 50;
  /// A directory of init.<weight>.npy and input.<name>.npy files, or "".
  std::string data;
  /// Where to write the traced module as .mlir, or "".
  std::string mlir;
  /// Where to write the loss curve as a PNG, or "".
  std::string plot;
};

/// Parses `argv`; a bad argument prints a usage error naming it and
/// returns nothing.
inline std::optional<ExampleArgs> parseArgs(int argc, char **argv,
                                            const char *prog) {
  ExampleArgs args;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    bool hasValue = i + 1 < argc;
    if (hasValue && arg == "--steps") {
      std::string value = argv[++i];
      char *end = nullptr;
      long n = std::strtol(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || n < 1 || n > 1000000) {
        std::fprintf(stderr,
                     "%s: --steps expects a whole number in 1..1000000, "
                     "got '%s'\n",
                     prog, value.c_str());
        return std::nullopt;
      }
      args.steps = static_cast<int>(n);
    } else if (hasValue && arg == "--data") {
      args.data = argv[++i];
    } else if (hasValue && arg == "--mlir") {
      args.mlir = argv[++i];
    } else if (hasValue && arg == "--plot") {
      args.plot = argv[++i];
    } else {
      std::fprintf(stderr,
                   "%s: unknown argument '%s'\nusage: %s [--steps N] [--data "
                   "DIR] [--mlir FILE] [--plot FILE.png]\n",
                   prog, arg.c_str(), prog);
      return std::nullopt;
    }
  }
  return args;
}

/// Prints `status`'s message and returns true when it is an error.
inline bool failed(const rt::Status &status, const char *prog,
                   const std::string &what) {
  if (status.isOk())
    return false;
  std::fprintf(stderr, "%s: %s: %s\n", prog, what.c_str(),
               status.message().c_str());
  return true;
}

/// The device the environment asks for (CAPTURE_DEVICE, CAPTURE_VALIDATION),
/// chosen as the tools choose one (the library reads no environment; else
/// a GPU, else the host device); null after printing why when there is
/// none.
inline std::shared_ptr<rt::Device> exampleDevice(const char *prog) {
  rt::Result<std::shared_ptr<rt::Device>> d =
      rt::Device::create(rt::deviceOptionsFromEnvironment());
  if (d.isError()) {
    std::fprintf(stderr, "%s: device: %s\n", prog, d.message().c_str());
    return nullptr;
  }
  return d.value();
}

/// Replaces the values of every weight of `params` by `dir`/init.<name>.npy.
inline rt::Status loadWeights(Params &params, const std::string &dir) {
  std::vector<rt::NamedTensor> values;
  for (const std::string &name : params.names()) {
    rt::Result<rt::HostTensor> v =
        rt::readNpyFile(dir + "/init." + name + ".npy");
    if (v.isError())
      return v.status();
    values.push_back({name, std::move(v).value()});
  }
  return params.setValues(values);
}

/// Reads `dir`/input.<name>.npy for each of `names`.
inline rt::Result<std::vector<rt::NamedTensor>>
loadInputs(const std::string &dir, const std::vector<std::string> &names) {
  std::vector<rt::NamedTensor> inputs;
  for (const std::string &name : names) {
    rt::Result<rt::HostTensor> v =
        rt::readNpyFile(dir + "/input." + name + ".npy");
    if (v.isError())
      return v.status();
    inputs.push_back({name, std::move(v).value()});
  }
  return inputs;
}

/// What the training loop measured.
struct TrainResult {
  /// The loss of every step.
  std::vector<float> losses;
  /// The median wall time of a step, recording excluded, in microseconds.
  double medianUs = 0;
};

/// Runs `steps` steps of `train` on `inputs`, printing `format` (with the
/// step, its loss and its gradient norm) at step 1, every `every` steps and
/// the last, and a progress line on stderr when it is a terminal.
inline rt::Result<TrainResult>
trainLoop(CapturedStep &train, const std::vector<rt::NamedTensor> &inputs,
          int steps, int every, const char *format) {
  TrainResult result;
  std::vector<double> us;
  bool terminal = isatty(STDERR_FILENO);
  for (int step = 1; step <= steps; ++step) {
    uint64_t before = train.stats().recordings;
    auto t0 = std::chrono::steady_clock::now();
    rt::Result<std::vector<rt::NamedTensor>> out = train(inputs);
    auto t1 = std::chrono::steady_clock::now();
    if (out.isError())
      return out.status().withContext("step " + std::to_string(step));
    if (train.stats().recordings == before)
      us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    float loss = out.value()[0].tensor.asF32()[0], norm = 0;
    for (const rt::NamedTensor &o : out.value())
      if (o.name == "grad_norm")
        norm = o.tensor.asF32()[0];
    result.losses.push_back(loss);
    if (terminal)
      std::fprintf(stderr, "\r[%d/%d] loss %.6f", step, steps, loss);
    if (step == 1 || step % every == 0 || step == steps) {
      if (terminal)
        std::fprintf(stderr, "\r\033[K");
      std::printf(format, step, loss, norm);
    }
  }
  if (!us.empty()) {
    std::nth_element(us.begin(), us.begin() + us.size() / 2, us.end());
    result.medianUs = us[us.size() / 2];
  }
  return result;
}

/// Writes the module `trace` records to `path` (the AOT path: capture-aot
/// reads it) when `path` is set; false, after saying why, on failure.
inline bool maybeWriteMlir(const std::string &path,
                           const std::function<rt::Status(Tracer &)> &trace,
                           const char *prog) {
  if (path.empty())
    return true;
  Tracer tracer;
  rt::Status traced = trace(tracer);
  rt::Result<std::string> text =
      traced.isOk() ? tracer.toMlir() : rt::Result<std::string>(traced);
  if (failed(text.status(), prog, "toMlir"))
    return false;
  std::ofstream out(path);
  if (!(out << text.value())) {
    std::fprintf(stderr, "%s: cannot write %s\n", prog, path.c_str());
    return false;
  }
  return true;
}

/// Prints the device `params` live on, then trains `steps` steps of
/// `train` on `batch` (trainLoop) and prints the median time per step;
/// nothing, after saying why, on failure.
inline std::optional<TrainResult>
runTraining(Params &params, CapturedStep &train,
            const std::vector<rt::NamedTensor> &batch, int steps,
            const char *format, const char *prog) {
  rt::Result<std::shared_ptr<rt::Device>> device = params.device();
  if (failed(device.status(), prog, "device"))
    return std::nullopt;
  std::printf("device: %s (%s)\n", device.value()->info().name.c_str(),
              device.value()->choice().c_str());
  rt::Result<TrainResult> result = trainLoop(train, batch, steps, 10, format);
  if (failed(result.status(), prog, "train"))
    return std::nullopt;
  std::printf("train: %d steps, median %.1f us/step (recorded once: %s)\n",
              steps, result.value().medianUs,
              train.stats().recordings == 1 ? "yes" : "no");
  return std::move(result).value();
}

/// Writes the curve to `path` when it is set, saying so; false on failure.
inline bool maybePlot(const std::string &path, const std::vector<float> &losses,
                      const char *prog) {
  if (path.empty() || losses.empty())
    return true;
  if (!writeCurvePng(path, losses)) {
    std::fprintf(stderr, "%s: cannot write %s\n", prog, path.c_str());
    return false;
  }
  auto [lo, hi] = std::minmax_element(losses.begin(), losses.end());
  std::printf("plot: %s (loss per step, %zu steps, from %.6f to %.6f; the "
              "grid at fifths of [%.6f, %.6f])\n",
              path.c_str(), losses.size(), losses.front(), losses.back(), *lo,
              *hi);
  return true;
}

} // namespace capture::examples

#endif // CAPTURE_EXAMPLES_CPP_EXAMPLE_UTIL_H
