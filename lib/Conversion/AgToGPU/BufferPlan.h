//===- BufferPlan.h - What ag-plan-buffers and the lowering share -*- C++
//-*-===//

#ifndef CAPTURE_LIB_CONVERSION_AGTOGPU_BUFFERPLAN_H
#define CAPTURE_LIB_CONVERSION_AGTOGPU_BUFFERPLAN_H

#include "capture/Dialect/Ag/IR/AgOps.h"

namespace capture {

/// Whether `op` is a compute op: one that gets a kernel of its own.
/// `ag.reshape` is not: the lowering aliases its input's bytes instead.
bool isCompute(mlir::Operation *op);

/// The value whose bytes `value` aliases through probes and reshapes. A
/// reshape of a row-major tensor is the same bytes in the same order, so it
/// gets no kernel and no placement of its own: users view the root's range
/// with the reshaped type, and the root's liveness covers the reshape's
/// users.
mlir::Value aliasRoot(mlir::Value value);

/// The ag.read_weight `value` is (through reshapes), when it is an
/// uncomputed weight, else null.
ag::ReadWeightOp weightSource(mlir::Value value);

/// Whether `op` is an elementwise region that runs inside the AdamW kernel
/// (kUpdatePrologueAttr): its result is never stored.
bool isUpdatePrologue(mlir::Operation *op);

/// The constant value of an ag.constant or a constant ag.upload, if any.
mlir::ElementsAttr constantValue(mlir::Operation *op);

/// Whether `op` of an entry body stores its results somewhere: not
/// terminators, probes and reshapes (aliases), AdamW (it updates module
/// state) or an update prologue (it runs inside the AdamW kernel).
bool needsPlace(mlir::Operation *op);

/// Fails with a diagnostic on `op` when no buffer or kernel can hold its
/// results (host interaction, ops without a GPU kernel).
mlir::LogicalResult checkPlaceable(mlir::Operation *op);

/// The param pack whose gradients `grads` packs, or that `update` updates.
ag::ParamPackOp paramPackOf(ag::PackGradsOp grads);
ag::ParamPackOp paramPackOf(ag::ApplyAdamWOp update);

/// The planned place of gradient `i` of `grads` in its pack's flat
/// gradients (needs the pack's kGradsPlaceAttr).
ag::PlaceAttr gradSlot(ag::PackGradsOp grads, unsigned i);

} // namespace capture

#endif // CAPTURE_LIB_CONVERSION_AGTOGPU_BUFFERPLAN_H
