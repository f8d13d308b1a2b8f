//===- AgDialect.h - The ag dialect -----------------------------*- C++ -*-===//

#ifndef CAPTURE_DIALECT_AG_IR_AGDIALECT_H
#define CAPTURE_DIALECT_AG_IR_AGDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpImplementation.h"

#include "capture/Dialect/Ag/IR/AgOpsDialect.h.inc"

// Enums first: attributes have enum parameters.
#include "capture/Dialect/Ag/IR/AgEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "capture/Dialect/Ag/IR/AgAttributes.h.inc"

#endif // CAPTURE_DIALECT_AG_IR_AGDIALECT_H
