//===- TrainingOps.h - Evaluation of the training-state ops -----*- C++ -*-===//
//
// `ag.pack_grads` and `ag.apply_adamw`: the ops of a split training step
// that read `ag.param_pack` layouts and, for the update, write the training
// state instead of producing a value.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_LIB_REFERENCE_TRAININGOPS_H
#define CAPTURE_LIB_REFERENCE_TRAININGOPS_H

#include "capture/Dialect/Ag/IR/AgOps.h"
#include "capture/Reference/Interpreter.h"

namespace capture::reference::detail {

/// The `ag.param_pack` `op` refers to, or an error on `op`.
mlir::FailureOr<ag::ParamPackOp> lookupParamPack(mlir::Operation *op,
                                                 mlir::FlatSymbolRefAttr ref);

/// The flat gradient array of `op`: gradient i (row-major) at element
/// offsets[i] of the pack, zeros elsewhere. Exact in both precisions.
mlir::FailureOr<Tensor> evalPackGrads(ag::PackGradsOp op,
                                      llvm::ArrayRef<const Tensor *> grads);

/// Applies `op` to `state` from the flat `grads`, the scalar `gradNorm`
/// and the 7 `hyper` values, rounding every operation as `precision` says
/// (in the order of the device kernel); the weight decay is decoupled or an
/// L2 term as `op.isDecoupled()` says. `state.weights` must hold every
/// weight of the pack. Changes nothing when the norm is NaN or infinite.
/// Fails with an error on `op` when the state's moments of the pack do not
/// have the pack's size.
mlir::FailureOr<AdamWUpdate>
applyAdamW(ag::ApplyAdamWOp op, ag::ParamPackOp pack, const Tensor &grads,
           const Tensor &gradNorm, const Tensor &hyper, TrainingState &state,
           Precision precision);

} // namespace capture::reference::detail

#endif // CAPTURE_LIB_REFERENCE_TRAININGOPS_H
