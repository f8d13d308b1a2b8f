//===- OpEval.h - Evaluation of ag compute ops ------------------*- C++ -*-===//
//
// The bridge between an ag compute op and its kernel: reads the op's
// attributes, checks what verified IR cannot guarantee (data-dependent
// indices), calls the kernel, and reports problems as diagnostics on the op.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_LIB_REFERENCE_OPEVAL_H
#define CAPTURE_LIB_REFERENCE_OPEVAL_H

#include "capture/Reference/Interpreter.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace capture::reference::detail {

/// Evaluates the compute op `op` (elementwise, matmul, reduction, shape,
/// softmax, loss or lookup op) whose operands' tensors `get` returns.
/// Emits an error on `op` and fails when the op is not a compute op the
/// interpreter supports, or its data is invalid (e.g. an out-of-range
/// label or index).
mlir::FailureOr<Tensor>
evalComputeOp(mlir::Operation *op,
              llvm::function_ref<const Tensor &(mlir::Value)> get,
              Precision precision);

} // namespace capture::reference::detail

#endif // CAPTURE_LIB_REFERENCE_OPEVAL_H
