//===- test_util.h - Building test modules without the compiler -*- C++ -*-===//
//
// The test module (see makeTestModule) uses two kernels assembled from
// kernels/binary_op.spvasm.in at build time ("add" and "mul"):
//
//   entry "predict": inputs x [2,4], b [2,4]; weight w [2,4]; constants c[8]
//       h = x + w          (scratch, probe "h")
//       barrier
//       y = h * b          (output "y")
//       z = h + c          (output "z")
//   entry "bias": no inputs;  o = w + c  (output "o")
//   entry "side": input x2 [2,4], no outputs;  h2 = x2 + w (probe "h2")
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_TEST_UTIL_H
#define CAPTURE_RT_TEST_UTIL_H

#include "capture/rt/capmod.h"
#include "capture/rt/module_desc.h"
#include "capture/rt/tensor.h"

#include <string>
#include <vector>

namespace capture::rt::test {

/// Buffer indices of the test module.
enum TestBuffer : uint32_t {
  kInput = 0,      ///< predict's inputs: x at 0, b at 256
  kOutput = 1,     ///< predict's outputs: y at 0, z at 256
  kWeights = 2,    ///< w at 0
  kConstants = 3,  ///< c (8 floats)
  kScratch = 4,    ///< h at 0, h2 at 256
  kBiasOutput = 5, ///< bias's output o at 0
  kSideInput = 6,  ///< side's input x2 at 0
};

/// Kernel indices of the test module.
enum TestKernel : uint32_t { kAdd = 0, kMul = 1 };

/// The SPIR-V words of test kernel `name` ("add" or "mul"), assembled at
/// build time; aborts the test binary if the file is missing.
std::vector<uint32_t> loadKernel(const std::string &name);

/// The module described above; valid, so each test breaks one thing.
ModuleDesc makeTestModule();

/// The test module's kernels with only an Input and an Output buffer of
/// the given sizes: no weights, no constants and no entries yet.
ModuleDesc makeIoOnlyModule(uint64_t inputBytes, uint64_t outputBytes);

/// Device limits like lavapipe's (roughly), texel buffers included, that
/// the test modules pass; tests lower one limit at a time.
DeviceLimits lavapipeLikeLimits();

/// Initial value of w: w[i] = 0.25 * i.
std::vector<float> initialWeights();
/// Constants: c[i] = 100 + i.
std::vector<float> constantValues();
/// Default x: x[i] = i + 1.
std::vector<float> inputX();
/// Default b: b[i] = 2.
std::vector<float> inputB();

/// What predict computes on the host, for comparison: y and z.
std::vector<float> expectY(const std::vector<float> &x,
                           const std::vector<float> &b,
                           const std::vector<float> &w);
std::vector<float> expectZ(const std::vector<float> &x,
                           const std::vector<float> &w);

} // namespace capture::rt::test

#endif // CAPTURE_RT_TEST_UTIL_H
