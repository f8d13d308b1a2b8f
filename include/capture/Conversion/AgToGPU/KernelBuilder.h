//===- KernelBuilder.h - gpu.func kernels for ag compute ops ----*- C++ -*-===//

#ifndef CAPTURE_CONVERSION_AGTOGPU_KERNELBUILDER_H
#define CAPTURE_CONVERSION_AGTOGPU_KERNELBUILDER_H

#include "capture/Dialect/Ag/IR/AgOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"

#include <optional>

namespace capture {

namespace kernels {
/// A run of a param pack's elements in one param group: from element
/// `start` (a multiple of 4, one update vector) to the next run's start.
struct GroupRun {
  /// First element.
  int64_t start;
  /// The group: its hyperparameters are hyper[7 group .. 7 group + 6].
  int64_t group;
};
} // namespace kernels

/// Builds one `gpu.func` kernel per distinct ag compute op or dispatch
/// region (same op, shapes and attributes, or the same region body, share a
/// kernel), each in a `gpu.module` of its own so that it becomes one SPIR-V
/// module. A kernel's arguments bind `kernelOperands` then the result (the
/// last argument is the one written, unless `ag.writes` says otherwise), as
/// memrefs of the tensors or, where a template reads vectors, of
/// vector<4xf32> (`ag.binding_shapes` then records the tensor shapes);
/// launched with groupsFor(items) workgroups, every invocation runs at most
/// one work item (or, past 65535 workgroups, those of a grid-stride loop).
/// What a work item is, `workItems` says.
class KernelBuilder {
public:
  /// Kernels are created at the end of `module`; workgroup regions run on
  /// one workgroup of `subgroupSize` invocations (the target's), so that
  /// their barriers cost next to nothing. `matmulShareLanes` (8, or 0 for
  /// none): matmul tiles of a group of that many lanes share one operand's
  /// loads through subgroup shuffles where the shapes allow it.
  /// `minMatmulWorkgroups` (0: none): a matmul kernel whose work items
  /// would fill fewer workgroups than that runs smaller ones (see
  /// matmulLocalSize).
  KernelBuilder(mlir::ModuleOp module, unsigned workgroupSize,
                unsigned subgroupSize, unsigned matmulShareLanes = 0,
                unsigned minMatmulWorkgroups = 0);

  /// Returns the kernel computing `op`, or fails with a diagnostic on `op`
  /// when its kind has no kernel.
  mlir::FailureOr<mlir::gpu::GPUFuncOp> getOrCreate(mlir::Operation *op);

  /// Returns the kernel copying a tensor of `type` (argument 0 to 1).
  mlir::gpu::GPUFuncOp getOrCreateCopy(mlir::RankedTensorType type);

  /// For a full reduction of a large tensor, its two-pass form: the first
  /// pass (input -> `parts` partials, `parts` work items) and the second
  /// (partials -> result, one work item), with the number of partials;
  /// none when `op` runs as one kernel.
  struct TwoPass {
    /// input -> partials.
    mlir::gpu::GPUFuncOp partial;
    /// partials -> result.
    mlir::gpu::GPUFuncOp final;
    /// Number of partials (f32).
    int64_t parts;
  };
  std::optional<TwoPass> getOrCreateTwoPass(mlir::Operation *op);

  /// Returns the AdamW kernel of a pack of `size` elements (Adam's, with
  /// weight decay as an L2 term in the gradient, when not `decoupled`).
  /// Arguments: the flat gradients (or, with `prologue`, an elementwise
  /// region of the pack's shape computing them, its inputs), grad_norm, the
  /// 7 hyperparameters of each param group (`runs`: which elements are in
  /// which group; empty, one group), read views of the parameters and both
  /// moments, then the same three ranges again, which it updates in place
  /// (kKernelWritesAttr says so).
  mlir::gpu::GPUFuncOp
  getOrCreateAdamW(int64_t size, bool decoupled,
                   llvm::ArrayRef<kernels::GroupRun> runs,
                   capture::ag::DispatchRegionOp prologue = nullptr);

  /// Returns the kernel of a workgroup region: one workgroup of
  /// `getSubgroupSize()` invocations; arguments: the inputs, the results,
  /// then scratch for the reductions it does not yield (all written but
  /// the inputs).
  mlir::gpu::GPUFuncOp getOrCreateWorkgroup(capture::ag::WorkgroupRegionOp op);

  /// Invocations of a workgroup region's kernel.
  unsigned getSubgroupSize() const { return subgroupSize; }

  /// Work items of the AdamW kernel of a pack of `size` elements.
  static int64_t adamWWorkItems(int64_t size);

  /// The values `op`'s kernel binds, in argument order, before the result:
  /// its operands, except for a matmul dispatch region (its matmul's
  /// operands, then the inputs its epilogue reads).
  static llvm::SmallVector<mlir::Value> kernelOperands(mlir::Operation *op);

  /// Workgroups to launch for a kernel running `items` work items in
  /// workgroups of `localSize` invocations (0: the builder's size).
  int64_t groupsFor(int64_t items, unsigned localSize = 0) const;

  /// The workgroup size of a matmul kernel of `items` work items and
  /// `multiplyAdds` (0 for any other kernel): the builder's, unless that
  /// leaves fewer than
  /// minMatmulWorkgroups workgroups for at least kSplitMatmulMultiplyAdds;
  /// then the largest multiple of the subgroup size that gives at least
  /// that many (one subgroup at the least). A CPU driver runs each
  /// workgroup on one of its threads, so a weight gradient of 64 tiles in
  /// one workgroup of 64 would keep every thread but one idle.
  unsigned matmulLocalSize(int64_t items, int64_t multiplyAdds) const;

  /// The multiply-adds of `op`'s matmul (a matmul or a matmul region),
  /// else 0.
  static int64_t multiplyAdds(mlir::Operation *op);

  /// Work items of the kernel computing `op`:
  /// its output elements, except one per row for softmax and log_softmax and
  /// a single one for the scalar losses (cross_entropy, mse).
  static int64_t workItems(mlir::Operation *op);

  /// Invocations per workgroup of every kernel.
  unsigned getWorkgroupSize() const { return workgroupSize; }

private:
  /// Creates a kernel named after `stem` with the given arguments that runs
  /// `items` work items when launched with groupsFor(items) workgroups: one
  /// per invocation (under an `if` when the last workgroup has spare
  /// invocations), or a grid-stride loop when there are more items than
  /// invocations. `emitItem` fills the body of one, given its index and the
  /// kernel's arguments. `localSize` (0: the builder's workgroup size) is
  /// the kernel's workgroup size.
  mlir::gpu::GPUFuncOp
  createKernel(llvm::StringRef stem, mlir::TypeRange argTypes, int64_t items,
               llvm::function_ref<void(mlir::OpBuilder &, mlir::Location,
                                       mlir::Value, mlir::ValueRange)>
                   emitItem,
               unsigned localSize = 0);

  /// The module that receives the kernels.
  mlir::ModuleOp module;
  /// Invocations per workgroup (x only).
  unsigned workgroupSize;
  /// Invocations of a workgroup region's single workgroup.
  unsigned subgroupSize;
  /// Lanes whose matmul tiles share an operand's loads (0: none).
  unsigned matmulShareLanes;
  /// The fewest workgroups a matmul kernel is split into (0: no split).
  unsigned minMatmulWorkgroups;
  /// Kernels built so far, by a key of op name, attributes and types.
  llvm::StringMap<mlir::gpu::GPUFuncOp> cache;
  /// Counter making kernel names unique.
  unsigned nextId = 0;
};

} // namespace capture

#endif // CAPTURE_CONVERSION_AGTOGPU_KERNELBUILDER_H
