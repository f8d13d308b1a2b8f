//===- drivers.cpp - One training step on the Vulkan and the cpu driver ---===//
//
// A module compiled for the cpu target carries SPIR-V and host code: this
// runs its training entry through rt::Module on the default Vulkan device
// and on the host device (the host driver, on one thread and on one per
// core), on the same inputs and starting weights, round by round (STEPS
// steps on each in turn) so that machine noise hits all alike, and prints
// the median step times; --json prints one object instead (bench/run.py's
// "cpu" rows).
//
//   capture-bench-drivers MODULE.capmod DATA_DIR [STEPS [ROUNDS]] [--json]
//
// DATA_DIR holds what bench/run.py's workloads write: input.NAME.npy per
// input and init.NAME.npy per weight (bench/step_data.py).
//
//===----------------------------------------------------------------------===//

#include "capture/rt/device.h"
#include "capture/rt/module.h"
#include "capture/rt/npy.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <string>
#include <vector>

namespace rt = capture::rt;

namespace {

/// The `q`-quantile (0..1) of `v` (not empty), as the nearest sample.
double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

/// `{"median": ..., "p10": ..., "p90": ...}` of `v`.
std::string figures(const std::vector<double> &v) {
  char text[128];
  std::snprintf(text, sizeof(text),
                "{\"median\": %.2f, \"p10\": %.2f, \"p90\": %.2f}",
                quantile(v, 0.5), quantile(v, 0.1), quantile(v, 0.9));
  return text;
}

/// Fails with `what` and the status's message.
[[noreturn]] void fail(const std::string &what, const rt::Status &status) {
  std::fprintf(stderr, "capture-bench-drivers: %s: %s\n", what.c_str(),
               status.message().c_str());
  std::exit(1);
}

/// The inputs and weights of DATA_DIR.
struct StepData {
  /// input.NAME.npy, as NAME.
  std::vector<rt::NamedTensor> inputs;
  /// init.NAME.npy, as NAME.
  std::vector<rt::NamedTensor> params;
};

StepData readData(const std::string &dir) {
  StepData data;
  DIR *d = opendir(dir.c_str());
  if (!d)
    fail("data folder '" + dir + "'", rt::Status::error("cannot be opened"));
  std::vector<std::string> files;
  while (dirent *e = readdir(d))
    files.push_back(e->d_name);
  closedir(d);
  std::sort(files.begin(), files.end());
  for (const std::string &f : files) {
    size_t dot = f.find('.');
    if (dot == std::string::npos || f.size() < 4 ||
        f.compare(f.size() - 4, 4, ".npy") != 0)
      continue;
    std::string kind = f.substr(0, dot);
    std::string name = f.substr(dot + 1, f.size() - 4 - dot - 1);
    rt::Result<rt::HostTensor> t = rt::readNpyFile(dir + "/" + f);
    if (t.isError())
      fail(f, t.status());
    (kind == "input" ? data.inputs : data.params)
        .push_back({name, std::move(t).value()});
  }
  return data;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0)
      json = true;
    else
      args.push_back(argv[i]);
  }
  int steps = args.size() > 2 ? std::atoi(args[2].c_str()) : 100;
  int rounds = args.size() > 3 ? std::atoi(args[3].c_str()) : 3;
  if (args.size() < 2 || args.size() > 4 || steps < 1 || rounds < 1) {
    std::fprintf(stderr, "usage: capture-bench-drivers MODULE.capmod DATA_DIR "
                         "[STEPS >= 1 [ROUNDS >= 1]] [--json]\n");
    return 2;
  }
  StepData data = readData(args[1]);
  // [0]: the Vulkan device (a GPU, else lavapipe), [1]: the host device with
  // one thread, [2]: with one per core.
  std::unique_ptr<rt::Module> modules[3];
  std::string names[3];
  for (int d = 0; d < 3; ++d) {
    rt::DeviceOptions options;
    options.selector = d > 0 ? "host" : "vulkan";
    if (d == 1)
      options.cpuThreads = 1;
    rt::Result<std::shared_ptr<rt::Device>> device =
        rt::Device::create(options);
    if (device.isError())
      fail("device", device.status());
    names[d] = device.value()->info().name;
    rt::Result<std::unique_ptr<rt::Module>> module =
        rt::Module::loadFile(device.value(), args[0]);
    if (module.isError())
      fail(names[d], module.status());
    modules[d] = std::move(module).value();
    for (const rt::NamedTensor &p : data.params)
      if (rt::Status set = modules[d]->setParam(p.name, p.tensor);
          set.isError())
        fail("weight '" + p.name + "'", set);
  }

  std::vector<double> times[3];
  using Clock = std::chrono::steady_clock;
  for (int r = 0; r < rounds; ++r) {
    for (int d = 0; d < 3; ++d) {
      for (int s = 0; s < steps; ++s) {
        auto t0 = Clock::now();
        auto out = modules[d]->run("train", data.inputs);
        times[d].push_back(
            std::chrono::duration<double, std::micro>(Clock::now() - t0)
                .count());
        // A refused step ran whole: it is timed like the others.
        if (out.isError() &&
            out.status().code() != rt::StatusCode::UpdateRefused)
          fail(names[d], out.status());
      }
    }
  }
  const std::string &name = names[0];
  unsigned threads = static_cast<unsigned>(
      modules[2]->device().cpuThreadsSetting().threads.value_or(1));
  if (json) {
    std::printf("{\"vulkan_device\": \"%s\", \"vulkan_us\": %s, "
                "\"cpu1_us\": %s, \"cpu_us\": %s, \"cpu_threads\": %u, "
                "\"steps\": %d, \"rounds\": %d}\n",
                name.c_str(), figures(times[0]).c_str(),
                figures(times[1]).c_str(), figures(times[2]).c_str(), threads,
                steps, rounds);
    return 0;
  }
  double v = quantile(times[0], 0.5), c1 = quantile(times[1], 0.5),
         c = quantile(times[2], 0.5);
  std::printf("Vulkan (%s) %.1f us/step; cpu driver, 1 thread %.1f us/step, "
              "%u threads %.1f us/step; Vulkan / cpu = %.2f\n",
              name.c_str(), v, c1, threads, c, v / c);
  return 0;
}
