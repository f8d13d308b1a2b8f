//===- AgOps.h - ag dialect operations --------------------------*- C++ -*-===//

#ifndef CAPTURE_DIALECT_AG_IR_AGOPS_H
#define CAPTURE_DIALECT_AG_IR_AGOPS_H

#include "capture/Dialect/Ag/IR/AgDialect.h"
#include "capture/rt/module_desc.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "capture/Dialect/Ag/IR/AgInterfaces.h.inc"

namespace capture::ag {
/// The module's resident state: its weights and their optimizer moments.
/// ag.read_weight reads it and ag.apply_adamw writes it, so that no rewrite
/// merges or moves a read across an update.
struct WeightsResource
    : public mlir::SideEffects::Resource::Base<WeightsResource> {
  llvm::StringRef getName() final { return "<ag.weights>"; }
};

/// Fails, naming the attribute and the nearest valid name, when `op` (an ag
/// op) carries an attribute it does not define: one that is neither
/// inherent nor one of the dialect's own discardable attributes (which
/// AgDialect::verifyOperationAttribute checks), so that a typo such as
/// `{tranpose_b}` never compiles into a different computation.
mlir::LogicalResult verifyKnownAttributes(mlir::Operation *op);

/// The most bytes one tensor may have: it must fit one storage-buffer
/// binding, and Vulkan's maxStorageBufferRange is a 32-bit count (devices
/// with less are checked when a module is loaded).
inline constexpr uint64_t kMaxTensorBytes = 0xffffffffull;

/// Fails, naming the type, its element count and the limit, when a tensor
/// type of `op` (operands, results, an entry's signature, a weight's type)
/// has more than kMaxTensorBytes bytes; counted without overflow, so that
/// shapes whose product overflows 64 bits are refused too. Element types
/// without a bit width (index, complex) are skipped, never asked for one:
/// the element type checks refuse them.
mlir::LogicalResult verifyTensorSizes(mlir::Operation *op);

/// Whether an ag tensor may hold elements of `type`: f32 (values), i32
/// (labels, row indices) or i8 (packed I/O bytes).
bool isAgElementType(mlir::Type type);

/// Fails, naming the operand or result, its type and the element types ag
/// supports, when a tensor operand or result of `op` holds any other
/// element type (index, complex, f16, i64, ...), which no kernel, layout or
/// byte count handles. Entries check their signatures in their own
/// verifiers, and a weight's type is an f32 tensor by its definition.
mlir::LogicalResult verifyElementTypes(mlir::Operation *op);

namespace OpTrait {
/// Every ag op: verifyKnownAttributes, verifyElementTypes and
/// verifyTensorSizes.
template <typename ConcreteType>
class KnownAttributes
    : public mlir::OpTrait::TraitBase<ConcreteType, KnownAttributes> {
public:
  static mlir::LogicalResult verifyTrait(mlir::Operation *op) {
    return mlir::failure(mlir::failed(verifyKnownAttributes(op)) ||
                         mlir::failed(verifyElementTypes(op)) ||
                         mlir::failed(verifyTensorSizes(op)));
  }
};

/// Ops made by the compiler's passes (training, layout, dispatch regions,
/// barriers), never by a tracer: ag-verify-capture refuses them in the
/// pipeline's input, whose later passes would otherwise meet them twice.
template <typename ConcreteType>
class CompilerMade
    : public mlir::OpTrait::TraitBase<ConcreteType, CompilerMade> {};
} // namespace OpTrait
} // namespace capture::ag

#define GET_OP_CLASSES
#include "capture/Dialect/Ag/IR/AgOps.h.inc"

namespace capture::ag {

/// Computes the numpy-style broadcast of two static shapes, or fails when a
/// pair of trailing dimensions differs and neither is 1.
mlir::FailureOr<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);

/// Whether `op` is an elementwise compute op (unary, binary with
/// broadcasting, clamp, compare, broadcast_to): each result element depends
/// only on the operands' elements at the broadcast indices.
bool isElementwiseOp(mlir::Operation *op);

/// Whether `op` is an ag.constant with a splat value.
bool isSplatConstant(mlir::Operation *op);

/// The reduction of `op` when it reduces a whole tensor to one value: `op`
/// itself (an ag.sum, ag.mean or ag.max without an axis) or the reduction
/// of a reduction dispatch region; else null.
mlir::Operation *fullReductionOf(mlir::Operation *op);

/// Bytes a static tensor or memref of f32/i32/i8 elements occupies.
int64_t getByteSize(mlir::ShapedType type);

/// Formats a shape as `[2, 4]` for diagnostics.
std::string formatShape(llvm::ArrayRef<int64_t> shape);

/// Values per param group in `ag.apply_adamw`'s hyperparameter operand, laid
/// out as rt::AdamWHyper says (lr, beta1, beta2, eps, weight_decay, the two
/// bias corrections).
constexpr int64_t kAdamWHyperValues = rt::kAdamWHyperValues;

// Attributes and names the training passes put on a train step's inputs and
// outputs (ag-autodiff, ag-pack-params, ag-insert-clip-scale,
// ag-split-update); later passes and the lowering find them by these.

/// Unit attribute on an elementwise ag.dispatch_region whose only user is
/// an ag.apply_adamw (its gradients, e.g. clipped): the region gets no
/// kernel of its own and runs as the update kernel's prologue.
inline constexpr llvm::StringLiteral kUpdatePrologueAttr = "ag.update_prologue";

/// Output attribute: the weight (`@w`) a `grad/<w>` output is the gradient of.
inline constexpr llvm::StringLiteral kGradOfAttr = "ag.grad_of";
/// Output attribute: the param pack the flat gradient output belongs to.
inline constexpr llvm::StringLiteral kPackedGradsAttr = "ag.packed_grads";
/// Name of the flat gradient output (internal until ag-split-update).
inline constexpr llvm::StringLiteral kPackedGradsName = "grads";
/// Output attribute marking the pre-clip gradient norm.
inline constexpr llvm::StringLiteral kGradNormAttr = "ag.grad_norm";
/// Name of the gradient norm output.
inline constexpr llvm::StringLiteral kGradNormName = "grad_norm";
/// Input attribute marking an input the runtime fills (hyperparameters).
inline constexpr llvm::StringLiteral kHyperAttr = "ag.hyper";
/// Name of the runtime clip-limit input.
inline constexpr llvm::StringLiteral kMaxGradNormName = "max_grad_norm";
/// Name of the runtime AdamW hyperparameter input (kAdamWHyperValues f32).
inline constexpr llvm::StringLiteral kAdamWInputName = "adamw";
/// Names of index status outputs: this prefix and a number.
inline constexpr llvm::StringLiteral kIndexCheckPrefix = "index_check.";

} // namespace capture::ag

#endif // CAPTURE_DIALECT_AG_IR_AGOPS_H
