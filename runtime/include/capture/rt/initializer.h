//===- initializer.h - Weight initializers evaluated at load ----*- C++ -*-===//
//
// Library capture-capmod (no Vulkan): the runtime fills a weight from its
// InitializerDesc at load, and the reference interpreter calls the same code,
// so both start from the same bits.
//
// The element stream, exactly: element i of a weight with seed s draws the
// 64-bit word bits(i) = mix(s + (i + 1) * 0x9E3779B97F4A7C15), where mix is
// SplitMix64's finalizer (z ^= z >> 30; z *= 0xBF58476D1CE4E5B9;
// z ^= z >> 27; z *= 0x94D049BB133111EB; z ^= z >> 31), and
// u(i) = (bits(i) >> 40) * 2^-24, in [0, 1). In double precision, rounded to
// float at the end:
//   Uniform   low + (high - low) * u(i)
//   Linear    Uniform with low = -1/sqrt(fan_in), high = 1/sqrt(fan_in)
//             (torch.nn.Linear's default for its weight and its bias)
//   Normal    Box-Muller on the pair (2j, 2j + 1): r = sqrt(-2 ln(1 - u(2j))),
//             t = 2 pi u(2j + 1); element 2j = mean + std r cos t, element
//             2j + 1 = mean + std r sin t (a last odd element takes the cos)
//   Constant  value;  Zeros  +0.0
// The stream is Capture's own: it does not reproduce torch's generator, only
// its distributions.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_INITIALIZER_H
#define CAPTURE_RT_INITIALIZER_H

#include "capture/rt/module_desc.h"
#include "capture/rt/status.h"

#include <cstddef>
#include <string>
#include <vector>

namespace capture::rt {

/// "uniform", "normal", ...; "unknown" for a value outside InitKind.
const char *initKindName(InitKind kind);

/// Checks the fields of `init` that its kind uses: a known kind, finite
/// values, low <= high, std >= 0, fan_in >= 1. Messages start with `where`.
Status checkInitializer(const InitializerDesc &init, const std::string &where);

/// Writes the `count` f32 elements of a weight initialized by `init` (which
/// checkInitializer accepts) to `out`, as described above.
void evaluateInitializer(const InitializerDesc &init, size_t count, float *out);

/// "uniform(low=-0.1, high=0.1, seed=7)", for --info and messages.
std::string describeInitializer(const InitializerDesc &init);

} // namespace capture::rt

#endif // CAPTURE_RT_INITIALIZER_H
