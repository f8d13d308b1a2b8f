//===- KernelEmitters.h - Bodies of the ag compute kernels ------*- C++ -*-===//
//
// Private to lib/Conversion/AgToGPU. KernelBuilder creates each kernel's
// skeleton (one work item per invocation, or a grid-stride loop past 65535
// workgroups) and calls one of these emitters for every work item `i`
// with the kernel's arguments `args` (KernelBuilder::kernelOperands, then
// the result, as memrefs). What a work item is depends on the op: one
// output element for the per-op kernels, 4 for elementwise regions and
// AdamW, a tile for matmuls, one row for softmax, the whole tensor for the
// scalar losses (see KernelBuilder::workItems).
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_LIB_CONVERSION_AGTOGPU_KERNELEMITTERS_H
#define CAPTURE_LIB_CONVERSION_AGTOGPU_KERNELEMITTERS_H

#include "capture/Conversion/AgToGPU/KernelBuilder.h"
#include "capture/Dialect/Ag/IR/AgOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>

namespace capture::kernels {

//===----------------------------------------------------------------------===//
// Helpers shared by the emitters (KernelHelpers.cpp)
//===----------------------------------------------------------------------===//

/// The ranked tensor type of `value`.
inline mlir::RankedTensorType tensorType(mlir::Value value) {
  return llvm::cast<mlir::RankedTensorType>(value.getType());
}

/// An `index` constant.
mlir::Value indexConst(mlir::OpBuilder &b, mlir::Location loc, int64_t value);

/// An `f32` constant.
mlir::Value f32Const(mlir::OpBuilder &b, mlir::Location loc, double value);

/// `elements` f32s as a memref of vector<4xf32>, the last vector padded:
/// how the templates bind a tensor they read or write four at a time.
mlir::MemRefType vec4Memref(mlir::MLIRContext *ctx, int64_t elements);

/// The lanes of the vector<4xf32> element `index` of `memref`: one load,
/// four extracts.
llvm::SmallVector<mlir::Value> loadLanes(mlir::OpBuilder &b, mlir::Location loc,
                                         mlir::Value memref, mlir::Value index);

/// Splits linear index `linear` into the indices of row-major `shape`.
llvm::SmallVector<mlir::Value> delinearize(mlir::OpBuilder &b,
                                           mlir::Location loc,
                                           mlir::Value linear,
                                           llvm::ArrayRef<int64_t> shape);

/// Indices into an operand of `shape` broadcast (numpy rules) to the
/// result's `indices`.
llvm::SmallVector<mlir::Value> broadcastIndices(mlir::OpBuilder &b,
                                                mlir::Location loc,
                                                mlir::ValueRange indices,
                                                llvm::ArrayRef<int64_t> shape);

/// Loads the i32 at `indices` of `memref` as an index clamped into
/// [0, bound). The interpreter reports an out-of-range label or row index as
/// an error; a kernel cannot, so it clamps rather than read out of bounds.
mlir::Value loadClampedIndex(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value memref, mlir::ValueRange indices,
                             int64_t bound);

/// Folds `count` steps of `body` (given the step index and the
/// accumulator, returns the next accumulator) into one value, starting from
/// `init`: a serial scf.for with one iter_arg.
mlir::Value
foldRange(mlir::OpBuilder &b, mlir::Location loc, int64_t count,
          mlir::Value init,
          llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                         mlir::Value, mlir::Value)>
              body);

/// Runs `body` for every step of [0, count) in order, serially.
void forRange(
    mlir::OpBuilder &b, mlir::Location loc, int64_t count,
    llvm::function_ref<void(mlir::OpBuilder &, mlir::Location, mlir::Value)>
        body);

/// Runs `body` at the insertion point when `always`, else inside an
/// scf.if on `index < bound`: a tail's stores (the caller knows whether the
/// work item can have one).
void ifBelow(mlir::OpBuilder &b, mlir::Location loc, mlir::Value index,
             int64_t bound, bool always,
             llvm::function_ref<void(mlir::OpBuilder &, mlir::Location)> body);

/// `indices` with `index` inserted at position `axis`.
llvm::SmallVector<mlir::Value> insertAt(mlir::ValueRange indices, int64_t axis,
                                        mlir::Value index);

//===----------------------------------------------------------------------===//
// Elementwise and data movement (ElementwiseKernels.cpp); one output element
// per work item.
//===----------------------------------------------------------------------===//

/// The scalar computation of an elementwise op, given its operands'
/// elements; null for an op that is not elementwise.
mlir::Value emitScalar(mlir::Operation *op, mlir::OpBuilder &b,
                       mlir::Location loc, mlir::ValueRange args);

/// Unary and binary elementwise ops (broadcasting), clamp and broadcast_to.
void emitElementwise(mlir::Operation *op, mlir::OpBuilder &b,
                     mlir::Location loc, mlir::Value i, mlir::ValueRange args);
/// Whether emitElementwise handles `op`.
bool isElementwise(mlir::Operation *op);

/// Result element [i...] is the input element at the permuted indices.
void emitTranspose(ag::TransposeOp op, mlir::OpBuilder &b, mlir::Location loc,
                   mlir::Value i, mlir::ValueRange args);
/// Loads from the one input holding the element (nested scf.if).
void emitConcat(ag::ConcatOp op, mlir::OpBuilder &b, mlir::Location loc,
                mlir::Value i, mlir::ValueRange args);
/// Loads the input element shifted by `start` along the axis.
void emitSlice(ag::SliceOp op, mlir::OpBuilder &b, mlir::Location loc,
               mlir::Value i, mlir::ValueRange args);
/// Loads table[clamp(indices[n]), d] for result element [n, d].
void emitGetRows(ag::GetRowsOp op, mlir::OpBuilder &b, mlir::Location loc,
                 mlir::Value i, mlir::ValueRange args);

/// Element `at` = [n, c] of a one-hot: 1.0 where the label of row n (in
/// the i32 memref `labels`) is class c, else 0.0.
mlir::Value oneHotElement(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value labels, mlir::ValueRange at);
/// 1.0 where the label of row n is class c, else 0.0.
void emitOneHot(ag::OneHotOp op, mlir::OpBuilder &b, mlir::Location loc,
                mlir::Value i, mlir::ValueRange args);
/// The indices `lanes` invocations of one ag.check_indices workgroup
/// cover: every invocation's loops stay under llvmpipe's 65535 iterations
/// (its share, then invocation 0's pass over the lanes).
constexpr int64_t checkedIndices(int64_t lanes) {
  return lanes * (65535 - lanes);
}
/// The most indices one ag.check_indices kernel covers.
constexpr int64_t kMaxCheckedIndices = checkedIndices(256);
/// Invocations of the one workgroup of an ag.check_indices kernel over `n`
/// indices: 64, or 256 for more than 64 lanes cover (each barrier costs
/// every invocation a re-entry on llvmpipe, so fewer is cheaper).
constexpr int64_t checkIndicesLanes(int64_t n) {
  return n <= checkedIndices(64) ? 64 : 256;
}

/// Invocation `t` of the one workgroup: the first position in its strided
/// share whose index is outside [0, bound), into workgroup memory; after a
/// barrier invocation 0 writes status [first, value] ([-1, 0] when none)
/// and poison (NaN when one is outside, else 0).
void emitCheckIndices(ag::CheckIndicesOp op, mlir::OpBuilder &b,
                      mlir::Location loc, mlir::Value t, mlir::ValueRange args);

/// Output element [v, d]: the sum of updates[n, d] over n with
/// clamp(indices[n]) == v (the gradient of get_rows' table).
void emitScatterAddRows(ag::ScatterAddRowsOp op, mlir::OpBuilder &b,
                        mlir::Location loc, mlir::Value i,
                        mlir::ValueRange args);

//===----------------------------------------------------------------------===//
// Dispatch regions (RegionKernels.cpp)
//===----------------------------------------------------------------------===//

/// The elementwise region template: work item `i` computes 4 consecutive
/// output elements (vec4 loads of the inputs that allow them; a tail is
/// masked) or, for results of fewer than 4 elements, one element.
void emitElementwiseRegion(ag::DispatchRegionOp op, mlir::OpBuilder &b,
                           mlir::Location loc, mlir::Value i,
                           mlir::ValueRange args);
/// A `reduction` dispatch region's reduction (its only sum, mean or max).
mlir::Operation *regionReduction(ag::DispatchRegionOp op);
/// The block arguments a `reduction` region's epilogue reads (single-
/// element inputs, such as the poison added to a gradient norm), in order.
llvm::SmallVector<mlir::BlockArgument>
reductionEpilogueInputs(ag::DispatchRegionOp op);
/// A `reduction` region's epilogue (its ops after the reduction) applied
/// to one reduced value; the value itself when there is none. `inputs`
/// are the memrefs of reductionEpilogueInputs(op), in its order.
mlir::Value regionEpilogue(ag::DispatchRegionOp op, mlir::OpBuilder &b,
                           mlir::Location loc, mlir::Value reduced,
                           mlir::ValueRange inputs);
/// Whether a `reduction` region's producers (its ops up to and including
/// the reduction) read block argument `arg`. One that only the epilogue
/// reads is loaded once per reduced value, by regionEpilogue.
bool producersRead(ag::DispatchRegionOp op, mlir::BlockArgument arg);
/// The element of `op`'s reduction input at `at`: its producers evaluated
/// on the inputs `args` (f32 memrefs of the region inputs, null for those
/// the producers do not read) loaded at the broadcast indices.
mlir::Value regionElement(ag::DispatchRegionOp op, mlir::OpBuilder &b,
                          mlir::Location loc, mlir::ValueRange at,
                          mlir::ValueRange args);
/// The four elements of a reduction region's reduced value at flat vec4 `v`
/// (its producers evaluated per lane), for a region whose partial pass
/// reads vec4s (partialReadsVec4); args = the inputs' memrefs (null for
/// those the producers do not read).
llvm::SmallVector<mlir::Value>
regionReductionLanes(ag::DispatchRegionOp op, mlir::OpBuilder &b,
                     mlir::Location loc, mlir::Value v, mlir::ValueRange args);

/// Evaluates the body of `op` for one element: `scalar` maps the block
/// arguments (and any value already known, such as a matmul's accumulator)
/// to their scalar element and receives every other body value's (up to,
/// not including, `stop` when given).
void evaluateBody(ag::DispatchRegionOp op, mlir::OpBuilder &b,
                  mlir::Location loc,
                  llvm::DenseMap<mlir::Value, mlir::Value> &scalar,
                  mlir::Operation *stop = nullptr);
/// The region's values for the output elements of work item `i` (4 lanes,
/// or 1 for results under 4 elements), computed from the inputs `args`
/// (bound as elementwiseRegionArgTypes says), without storing them.
llvm::SmallVector<mlir::Value>
elementwiseRegionLanes(ag::DispatchRegionOp op, mlir::OpBuilder &b,
                       mlir::Location loc, mlir::Value i, mlir::ValueRange args);
/// Work items of the elementwise region template.
int64_t elementwiseRegionWorkItems(ag::DispatchRegionOp op);
/// Kernel argument types of the elementwise region template: each input as
/// vector<4xf32> elements where its layout allows, else as its tensor's
/// f32 memref; the result as a flat f32 memref.
llvm::SmallVector<mlir::Type> elementwiseRegionArgTypes(ag::DispatchRegionOp op);

//===----------------------------------------------------------------------===//
// Workgroup regions (WorkgroupKernels.cpp): one workgroup of `lanes`
// invocations, work item `t` = invocation t.
//===----------------------------------------------------------------------===//

/// Kernel argument types: the inputs, the results, then the scratch values,
/// each as its tensor's f32 memref.
llvm::SmallVector<mlir::Type> workgroupRegionArgTypes(ag::WorkgroupRegionOp op);
/// The whole region on invocation `t` of `lanes`: its reductions as stages
/// separated by barriers, then the other results.
void emitWorkgroupRegion(ag::WorkgroupRegionOp op, int64_t lanes,
                         mlir::OpBuilder &b, mlir::Location loc, mlir::Value t,
                         mlir::ValueRange args);

//===----------------------------------------------------------------------===//
// Contractions and reductions (ReductionKernels.cpp)
//===----------------------------------------------------------------------===//

/// The register-blocked matmul template (MatmulKernels.cpp): work item `i`
/// computes one tile of the result (8x8, or 4 along a side under 8).
/// `shareLanes` (8, or 0 for none): the lanes of a group that own tiles of
/// the same rows (columns) load the shared operand once and pass it by
/// subgroup shuffles, where the shapes allow it.
void emitTiledMatmul(ag::MatmulOp op, int64_t shareLanes, mlir::OpBuilder &b,
                     mlir::Location loc, mlir::Value i, mlir::ValueRange args);
/// Work items of the matmul template: its result tiles.
int64_t matmulWorkItems(ag::MatmulOp op);
/// The matmul template for a `matmul` dispatch region: the tile's
/// accumulators go through the region's elementwise epilogue before the
/// store. Kernel arguments: A, B, every input the epilogue reads (as its
/// tensor's f32 memref), the result. `shareLanes` as for emitTiledMatmul.
void emitMatmulRegion(ag::DispatchRegionOp op, int64_t shareLanes,
                      mlir::OpBuilder &b, mlir::Location loc, mlir::Value i,
                      mlir::ValueRange args);
/// The region inputs bound to the kernel arguments of emitMatmulRegion
/// (all but the result), as indices into the region's inputs.
llvm::SmallVector<unsigned> matmulRegionBindings(ag::DispatchRegionOp op);
/// Kernel argument types of emitMatmulRegion.
llvm::SmallVector<mlir::Type> matmulRegionArgTypes(ag::DispatchRegionOp op);
/// Kernel argument types of the matmul template: A and B as memrefs of
/// vector<4xf32> where their contiguous dimension allows, else of f32; the
/// result as f32.
llvm::SmallVector<mlir::Type> matmulArgTypes(ag::MatmulOp op);
/// One output element of a sum, mean or max.
void emitReduction(mlir::Operation *op, mlir::OpBuilder &b, mlir::Location loc,
                   mlir::Value i, mlir::ValueRange args);
/// The element of a reduction's input at the given indices (a load, or a
/// dispatch region's producers evaluated there).
using ElementFn = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>;
/// A reduction's value mapped through a reduction region's epilogue.
using EpilogueFn = llvm::function_ref<mlir::Value(mlir::OpBuilder &,
                                                  mlir::Location, mlir::Value)>;
/// emitReduction with the input's elements from `element`; stores into
/// `out` (through `epilogue` when given).
void emitReductionOf(mlir::Operation *op, ElementFn element, mlir::OpBuilder &b,
                     mlir::Location loc, mlir::Value i, mlir::Value out,
                     EpilogueFn epilogue = nullptr);
/// How a full reduction (sum, mean or max of every element) of a large
/// tensor runs in two passes: `parts` invocations each reduce `chunk`
/// consecutive elements into a partial, then one invocation reduces the
/// partials (ag-configure-kernels decides it: #ag.two_pass).
struct SplitReduction {
  /// Elements per partial (the last partial may have fewer).
  int64_t chunk;
  /// Number of partials.
  int64_t parts;
};
/// The two-pass form of `op`, its #ag.two_pass kernel configuration, or
/// none when it has none (it runs as one serial loop).
std::optional<SplitReduction> splitReductionOf(mlir::Operation *op);
/// Elements per vec4 of a partial pass that reads vec4s.
constexpr int64_t kPartialLanes = 4;
/// Whether the first pass of `op` (a full reduction, or a reduction
/// region) reads its inputs as vec4s: each one has the reduced tensor's
/// shape or a single element (loaded once). Else it loads per element.
bool partialReadsVec4(mlir::Operation *op);
/// The operands of `op` (a full reduction, or a reduction region) that its
/// first pass binds: all but a region's inputs only its epilogue reads,
/// which the final pass binds.
llvm::SmallVector<mlir::Value> partialPassInputs(mlir::Operation *op);
/// Kernel argument types of the first pass: partialPassInputs (vec4s along
/// their flat elements when partialReadsVec4), then the partials.
llvm::SmallVector<mlir::Type> partialReductionArgTypes(mlir::Operation *op,
                                                       SplitReduction split);
/// The four elements of a reduction's input at flat vec4 `v` (lanes past
/// the tensor read its padding).
using LanesFn = llvm::function_ref<llvm::SmallVector<mlir::Value>(
    mlir::OpBuilder &, mlir::Location, mlir::Value)>;
/// Work item `i` of a first pass that reads vec4s: the chunk's whole vec4s,
/// then, in the last partial, the tail's lanes, combined in element order.
void emitPartialReductionLanes(mlir::Operation *op, SplitReduction split,
                               LanesFn lanes, mlir::OpBuilder &b,
                               mlir::Location loc, mlir::Value i,
                               mlir::Value partials);
/// Work item `i` of the first pass: args = input, partials.
void emitPartialReduction(mlir::Operation *op, SplitReduction split,
                          mlir::OpBuilder &b, mlir::Location loc, mlir::Value i,
                          mlir::ValueRange args);
/// emitPartialReduction with the input's elements from `element`.
void emitPartialReductionOf(mlir::Operation *op, SplitReduction split,
                            ElementFn element, mlir::OpBuilder &b,
                            mlir::Location loc, mlir::Value i,
                            mlir::Value partials);
/// The second pass (one work item): args = partials, result; the value
/// goes through `epilogue` when given.
void emitFinalReduction(mlir::Operation *op, SplitReduction split,
                        mlir::OpBuilder &b, mlir::Location loc, mlir::Value i,
                        mlir::ValueRange args, EpilogueFn epilogue = nullptr);
/// The normalized axis of a softmax or log_softmax.
int64_t softmaxAxis(mlir::Operation *op);
/// The rows of a softmax or log_softmax: the product of the other dims (0
/// when the axis is empty).
int64_t softmaxRows(mlir::Operation *op);
/// One row (all elements along the axis) of a softmax or log_softmax.
void emitSoftmaxRow(mlir::Operation *op, mlir::OpBuilder &b, mlir::Location loc,
                    mlir::Value i, mlir::ValueRange args);
/// emitSoftmaxRow with the input's elements from `element`; stores row `i`
/// into `out`.
void emitSoftmaxRowOf(mlir::Operation *op, ElementFn element,
                      mlir::OpBuilder &b, mlir::Location loc, mlir::Value i,
                      mlir::Value out);
/// The whole (rank-0) cross-entropy loss.
void emitCrossEntropy(ag::CrossEntropyOp op, mlir::OpBuilder &b,
                      mlir::Location loc, mlir::Value i, mlir::ValueRange args);
/// emitCrossEntropy with the logits from `logit` and the labels from the
/// i32 memref `labels`; stores the loss into `out`.
void emitCrossEntropyOf(ag::CrossEntropyOp op, ElementFn logit,
                        mlir::Value labels, mlir::OpBuilder &b,
                        mlir::Location loc, mlir::Value out);
/// The whole (rank-0) mean squared error.
void emitMse(ag::MseOp op, mlir::OpBuilder &b, mlir::Location loc,
             mlir::Value i, mlir::ValueRange args);

//===----------------------------------------------------------------------===//
// Optimizer (OptimizerKernels.cpp)
//===----------------------------------------------------------------------===//

/// Elements of one vector of the AdamW kernel (a vec4 read of each array).
constexpr int64_t kAdamWLanes = 4;
/// Vectors per work item of the AdamW kernel: the hyperparameters and the
/// norm check are loaded once per work item, so fewer, fuller work items
/// cost less per element.
constexpr int64_t kAdamWVectors = 4;

/// The 4 gradient lanes of AdamW vector `vi` (elements 4 vi .. 4 vi + 3):
/// loaded, or computed by a prologue region (the clip scale).
using GradLanesFn = llvm::function_ref<llvm::SmallVector<mlir::Value>(
    mlir::OpBuilder &, mlir::Location, mlir::Value vi)>;

/// Work item `i` (vectors kAdamWVectors i .. kAdamWVectors i + 3, the last
/// work item's past the pack skipped) of torch.optim.AdamW's update of a
/// pack of `size` elements (torch.optim.Adam's, weight decay as an L2 term
/// in the gradient, when not `decoupled`), with the gradients from
/// `gradLanes`. args: grad_norm, hyperparameters (7 per group; `runs`, the
/// first at 0, say which elements each group's apply to), the parameters
/// and both moments as vec4 reads, then the same three as f32 writes;
/// writes nothing when grad_norm is not finite.
void emitAdamW(int64_t size, bool decoupled, llvm::ArrayRef<GroupRun> runs,
               GradLanesFn gradLanes, mlir::OpBuilder &b, mlir::Location loc,
               mlir::Value i, mlir::ValueRange args);

} // namespace capture::kernels

#endif // CAPTURE_LIB_CONVERSION_AGTOGPU_KERNELEMITTERS_H
