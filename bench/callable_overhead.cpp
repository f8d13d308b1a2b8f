//===- callable_overhead.cpp - What capture() adds to a replay ------------===//
//
// The host time a captured callable adds to Module::run: the same traced
// forward (five small inputs, like the PPO step's) replayed through
// capture() and through a Module loaded from the same compiled bytes,
// alternating call by call so that machine noise hits both alike. Prints
// the medians and their difference.
//
//   capture-bench-callable [CALLS]
//
//===----------------------------------------------------------------------===//

#include "capture/Tracer/Capture.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

using namespace capture;

int main(int argc, char **argv) {
  int calls = argc > 1 ? std::atoi(argv[1]) : 3000;
  if (calls < 1) {
    std::fprintf(stderr, "usage: capture-bench-callable [CALLS >= 1]\n");
    return 2;
  }
  Params params;
  Weight w = params.weight("w", {4}, Init::constant(2));
  auto fn = [&](Tracer::Inputs &in) {
    Tensor y = in.at("a") * w + in.at("b");
    return Tracer::Outputs{{"y", y + in.at("c") + in.at("d") + in.at("e")}};
  };
  Captured captured = capture::capture(fn, params);
  std::vector<rt::NamedTensor> inputs;
  std::vector<Tracer::InputSpec> specs;
  for (const char *name : {"a", "b", "c", "d", "e"}) {
    inputs.push_back({name, rt::HostTensor::f32({4}, {1, 2, 3, 4})});
    specs.push_back({name, {4}});
  }
  if (auto first = captured(inputs); first.isError()) {
    std::fprintf(stderr, "capture: %s\n", first.message().c_str());
    return 1;
  }
  Tracer tracer(params);
  rt::Status traced = tracer.forward("forward", specs, fn);
  auto bytes = traced.isOk() ? tracer.compile()
                             : rt::Result<std::vector<uint8_t>>(traced);
  auto device = params.device();
  if (bytes.isError() || device.isError())
    return 1;
  auto module = rt::Module::loadBytes(device.value(), bytes.value().data(),
                                      bytes.value().size());
  if (module.isError())
    return 1;
  std::vector<double> viaCapture, viaModule;
  for (int i = 0; i < calls; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    bool ok = captured(inputs).isOk();
    auto t1 = std::chrono::steady_clock::now();
    ok = module.value()->run("forward", inputs).isOk() && ok;
    auto t2 = std::chrono::steady_clock::now();
    if (!ok)
      return 1;
    viaCapture.push_back(
        std::chrono::duration<double, std::micro>(t1 - t0).count());
    viaModule.push_back(
        std::chrono::duration<double, std::micro>(t2 - t1).count());
  }
  auto median = [](std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
  };
  double c = median(viaCapture), m = median(viaModule);
  std::printf("%d calls alternated: captured callable median %.2f us, "
              "Module::run median %.2f us, the callable adds %.2f us\n",
              calls, c, m, c - m);
  return 0;
}
