//===- Schedule.h - The typed contract of a lowered schedule ----*- C++ -*-===//
//
// A lowered entry is a func.func of gpu.launch_funcs whose arguments are
// ag.bindings (typed buffer ranges) and ag.barriers between them. The passes
// after the lowering and the module writer read a launch's ranges here, in
// one place.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_CONVERSION_AGTOGPU_SCHEDULE_H
#define CAPTURE_CONVERSION_AGTOGPU_SCHEDULE_H

#include "capture/Dialect/Ag/IR/AgOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace capture {

/// One kernel argument of a launch: a range of one buffer.
struct LaunchBinding {
  /// The range (buffer, offset, size).
  ag::BindingOp binding;
  /// Whether the kernel writes the range (else it only reads it).
  bool write;
};

/// The ranges `launch` binds, in argument order, with what its kernel writes
/// (the gpu.func's `ag.writes`, else its last argument). Fails on the launch
/// when an argument is not an ag.binding or its kernel is missing.
mlir::FailureOr<llvm::SmallVector<LaunchBinding>>
getLaunchBindings(mlir::gpu::LaunchFuncOp launch);

} // namespace capture

#endif // CAPTURE_CONVERSION_AGTOGPU_SCHEDULE_H
