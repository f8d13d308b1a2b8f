//===- HostLibrary.h - The cpu target's kernels as a shared object -*- C++ -*-//

#ifndef CAPTURE_TARGET_HOSTLIBRARY_H
#define CAPTURE_TARGET_HOSTLIBRARY_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <string>
#include <vector>

namespace capture {

/// The ISA level the cpu target compiles for: x86-64-v3 (AVX2, FMA, BMI2,
/// F16C, MOVBE; Intel since Haswell, AMD since Excavator/Zen).
inline constexpr const char *kHostCpuLevel = "x86-64-v3";

/// A shared object with the cpu target's kernels.
struct HostLibrary {
  /// The ELF shared object: self-contained (no libc, no libm, no undefined
  /// symbol), exporting `capture_k_<kernel>` for every kernel.
  std::vector<uint8_t> bytes;
  /// The target triple it was compiled for (x86_64-unknown-linux-gnu).
  std::string triple;
  /// The ISA level its code needs (kHostCpuLevel), which a loader checks
  /// against the machine before it runs any of it.
  std::string cpuLevel;
};

/// Compiles `host`, the `@__ag_cpu_kernels` module after
/// ag-cpu-kernels-to-llvm (LLVM dialect only), to optimized x86-64 code
/// (-O3) and links it with ld.lld into a shared object. Failure (with an
/// error on `host`) when the module does not translate, the host has no
/// x86-64 backend, or ld.lld is missing or fails (its message included).
mlir::FailureOr<HostLibrary> buildHostLibrary(mlir::ModuleOp host);

} // namespace capture

#endif // CAPTURE_TARGET_HOSTLIBRARY_H
