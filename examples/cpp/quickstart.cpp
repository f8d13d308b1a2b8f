//===- quickstart.cpp - The README's C++ example, whole -------------------===//
//
// A linear model y = fc(x) fit to a line with the C++ tracer: the training
// step (forward, backward, clipping, AdamW) is traced once, compiled
// in-process and replayed as one queue submission per call. The install
// test (examples/link) builds this file against an installed Capture.
//
//   usage: capture-example-quickstart [STEPS (>= 2, default 100)]
//
//===----------------------------------------------------------------------===//

#include "capture/Tracer/Capture.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char **argv) {
  int steps = argc > 1 ? std::atoi(argv[1]) : 100;
  if (steps < 2) {
    std::fprintf(stderr,
                 "quickstart: STEPS must be a whole number >= 2, "
                 "got '%s'\n",
                 argv[1]);
    return 2;
  }
  // 16 points of y = 0.5 * (x0 + x1 + x2 + x3) - 1.
  std::vector<float> xs, ys;
  for (int i = 0; i < 16; ++i) {
    float sum = 0;
    for (int j = 0; j < 4; ++j) {
      float v = static_cast<float>((i * 7 + j * 3) % 11) / 11.0f - 0.5f;
      xs.push_back(v);
      sum += v;
    }
    ys.push_back(0.5f * sum - 1.0f);
  }
  capture::rt::HostTensor x = capture::rt::HostTensor::f32({16, 4}, xs);
  capture::rt::HostTensor y = capture::rt::HostTensor::f32({16, 1}, ys);

  // The README's snippet.
  capture::Params params;
  capture::Linear fc(params, "fc", 4, 1, /*seed=*/7);
  auto train = capture::captureStep(
      [&](capture::Tracer::Inputs &in) -> capture::Tracer::Outputs {
        return {{"loss", capture::mse(fc(in.at("x")), in.at("y"))}};
      },
      params, capture::AdamW{.lr = 1e-2}, {.maxGradNorm = 1.0});

  float first = 0, last = 0;
  for (int step = 0; step < steps; ++step) {
    auto out = train({{"x", x}, {"y", y}}); // traced once, then replayed
    if (out.isError()) {
      std::fprintf(stderr, "quickstart: %s\n", out.message().c_str());
      return 1;
    }
    last = out.value()[0].tensor.asF32()[0];
    if (step == 0)
      first = last;
  }
  if (!(last < first)) {
    std::fprintf(stderr, "quickstart: the loss did not fall: %.6f -> %.6f\n",
                 first, last);
    return 1;
  }
  std::printf("loss %.6f -> %.6f after %d steps, %llu recording\n", first,
              last, steps,
              static_cast<unsigned long long>(train.stats().recordings));
  return 0;
}
