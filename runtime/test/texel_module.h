//===- texel_module.h - A test module with texel bindings ------*- C++ -*-===//
//
// Two kernels built from kernels/texel_scale.spvasm (out = 2 * in, `in`
// read through an RGBA32F storage texel buffer at binding 0, `out` a
// storage buffer at binding 1), one per tensor shape:
//
//   entry "predict": input x [6] (24 bytes: the texel binding covers
//       [0, 32), two texels, the last half padding); weight w [5] at byte
//       256 of the Weights buffer (a view at a non-zero offset)
//       y = 2 * x    (output "y", [6])
//       z = 2 * w    (output "z", [5])
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_TEST_TEXEL_MODULE_H
#define CAPTURE_RT_TEST_TEXEL_MODULE_H

#include "capture/rt/module_desc.h"

#include <vector>

namespace capture::rt::test {

/// Buffer indices of the texel module.
enum TexelBuffer : uint32_t {
  kTexelInput = 0,   ///< x at 0
  kTexelOutput = 1,  ///< y at 0, z at 256
  kTexelWeights = 2, ///< w at 256
};

/// The module described above; valid, so each test breaks one thing.
ModuleDesc makeTexelModule();

/// Default x: x[i] = i + 0.5.
std::vector<float> texelInputX();
/// Initial w: w[i] = 10 - i.
std::vector<float> texelWeights();
/// 2 * v, elementwise: what both dispatches compute.
std::vector<float> doubled(const std::vector<float> &v);

} // namespace capture::rt::test

#endif // CAPTURE_RT_TEST_TEXEL_MODULE_H
