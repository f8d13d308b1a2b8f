//===- AgOpsVerify.h - Verifier helpers shared by the op files --*- C++ -*-===//
//
// Private to lib/Dialect/Ag/IR.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_DIALECT_AG_IR_AGOPSVERIFY_H
#define LIB_DIALECT_AG_IR_AGOPSVERIFY_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

namespace capture::ag::detail {

/// Fails, naming the operand or result, unless every tensor `op` touches
/// has a static shape.
mlir::LogicalResult verifyStatic(mlir::Operation *op);

/// The ranked tensor type of `value`.
mlir::RankedTensorType tensorOf(mlir::Value value);

/// Checks `axis` against `rank` (negative counts from the end, as in
/// PyTorch) and returns it in [0, rank).
mlir::FailureOr<int64_t> checkAxis(mlir::Operation *op, int64_t axis,
                                   int64_t rank);

/// `axis` in [0, rank) for an op that verified it with checkAxis.
int64_t normalize(int64_t axis, mlir::Value input);

/// Fails, naming both shapes, unless `op`'s result 0 has shape `expected`.
mlir::LogicalResult verifyResultShape(mlir::Operation *op,
                                      llvm::ArrayRef<int64_t> expected);

/// Verifier of binary ops with numpy broadcasting (operands 0 and 1).
mlir::LogicalResult verifyBroadcastBinary(mlir::Operation *op);

} // namespace capture::ag::detail

#endif // LIB_DIALECT_AG_IR_AGOPSVERIFY_H
