//===- host_isa.h - Does this machine run a host library's code? -*- C++
//-*-===//
//
// The cpu target compiles its kernels for an x86-64 ISA level (the psABI's
// x86-64-v2/v3/v4) and records it; code with an instruction the machine
// lacks dies of SIGILL somewhere in a step, so the loader asks first, here,
// and names what is missing. The answer comes from cpuid and, for the AVX
// registers, from whether the OS saves them (xgetbv).
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_HOST_ISA_H
#define CAPTURE_RT_HOST_ISA_H

#include "capture/rt/status.h"

#include <string>
#include <string_view>
#include <vector>

namespace capture::rt {

/// The ISA levels a host library may name, lowest first.
inline constexpr std::string_view kHostIsaLevels[] = {"x86-64", "x86-64-v2",
                                                      "x86-64-v3", "x86-64-v4"};

/// The features of `level` (their names as in the psABI and GCC's
/// __builtin_cpu_supports, such as "avx2" or "fma") that this machine
/// lacks, in the level's order; empty when it can run the level's code. An
/// error names an unknown level (with a suggestion for a near miss).
Result<std::vector<std::string>> missingHostFeatures(std::string_view level);

/// Ok when this machine runs code for `level`, else an error naming the
/// level and the missing features.
Status checkHostIsa(std::string_view level);

} // namespace capture::rt

#endif // CAPTURE_RT_HOST_ISA_H
