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

namespace capture::ag {

/// Attributes ag-plan-buffers sets (the dialect verifies their types).
/// On the builtin.module: the #ag.buffer_plan.
inline constexpr llvm::StringLiteral kBufferPlanAttr = "ag.buffer_plan";
/// On an ag.weight or an ag.param_pack (its flat parameters): its #ag.place.
inline constexpr llvm::StringLiteral kPlaceAttr = "ag.place";
/// On an ag.param_pack: the #ag.place of its flat gradients and moments.
inline constexpr llvm::StringLiteral kGradsPlaceAttr = "ag.grads_place";
inline constexpr llvm::StringLiteral kMoment1PlaceAttr = "ag.moment1_place";
inline constexpr llvm::StringLiteral kMoment2PlaceAttr = "ag.moment2_place";
/// On an op of an entry: one #ag.place per result.
inline constexpr llvm::StringLiteral kPlacesAttr = "ag.places";
/// On a two-pass reduction: the #ag.place of its partials.
inline constexpr llvm::StringLiteral kPartialsAttr = "ag.partials";
/// On an ag.workgroup_region: one #ag.place per unyielded reduction stage.
inline constexpr llvm::StringLiteral kStagesAttr = "ag.stages";
/// On a compute op (ag-configure-kernels): how its kernel is shaped for the
/// target, a kernel configuration attribute (#ag.two_pass).
inline constexpr llvm::StringLiteral kKernelConfigAttr = "ag.kernel_config";
/// On an entry: the bytes of its scratch buffer.
inline constexpr llvm::StringLiteral kScratchBytesAttr = "ag.scratch_bytes";
/// On an entry (ag-insert-index-checks): one #ag.index_check per index
/// status output, which the runtime checks.
inline constexpr llvm::StringLiteral kIndexChecksAttr = "ag.index_checks";
/// On a lowered training entry (ag-lower-to-gpu): its #ag.train.
inline constexpr llvm::StringLiteral kTrainAttr = "ag.train";
/// On a lowered entry: one #ag.probe per probed tensor.
inline constexpr llvm::StringLiteral kProbesAttr = "ag.probes";
/// The plan's attributes on the ops of an entry: where their tensors go,
/// not what they compute.
inline constexpr llvm::StringLiteral kOpPlanAttrs[] = {
    kPlacesAttr, kPartialsAttr, kStagesAttr};

/// " (did you mean 'X'?)" when one of `known` is a near miss of `name`,
/// else "": the runtime's rule (capture/rt/suggest.h), for LLVM strings.
std::string suggestName(llvm::StringRef name,
                        llvm::ArrayRef<llvm::StringRef> known);

} // namespace capture::ag

#endif // CAPTURE_DIALECT_AG_IR_AGDIALECT_H
