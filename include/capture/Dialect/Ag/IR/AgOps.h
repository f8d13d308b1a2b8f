//===- AgOps.h - ag dialect operations --------------------------*- C++ -*-===//

#ifndef CAPTURE_DIALECT_AG_IR_AGOPS_H
#define CAPTURE_DIALECT_AG_IR_AGOPS_H

#include "capture/Dialect/Ag/IR/AgDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "capture/Dialect/Ag/IR/AgEnums.h.inc"
#include "capture/Dialect/Ag/IR/AgInterfaces.h.inc"

#define GET_OP_CLASSES
#include "capture/Dialect/Ag/IR/AgOps.h.inc"

namespace capture::ag {

/// Computes the numpy-style broadcast of two static shapes, or fails when a
/// pair of trailing dimensions differs and neither is 1.
mlir::FailureOr<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);

/// Bytes a static tensor or memref of f32/i32/i8 elements occupies.
int64_t getByteSize(mlir::ShapedType type);

/// Formats a shape as `[2, 4]` for diagnostics.
std::string formatShape(llvm::ArrayRef<int64_t> shape);

} // namespace capture::ag

#endif // CAPTURE_DIALECT_AG_IR_AGOPS_H
