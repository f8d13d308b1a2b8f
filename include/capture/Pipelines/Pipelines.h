//===- Pipelines.h - Capture's compilation pipelines ------------*- C++ -*-===//

#ifndef CAPTURE_PIPELINES_PIPELINES_H
#define CAPTURE_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace capture {

/// Options of the whole pipeline (`--ag-pipeline="alignment=..."`).
struct PipelineOptions : public mlir::PassPipelineOptions<PipelineOptions> {
  Option<int64_t> alignment{
      *this, "alignment",
      llvm::cl::desc("Byte alignment of every buffer range a kernel binds"),
      llvm::cl::init(256)};
  Option<unsigned> workgroupSize{
      *this, "workgroup-size",
      llvm::cl::desc("Invocations per workgroup of every kernel (1 to 1024)"),
      llvm::cl::init(64)};
  Option<std::string> target{
      *this, "target",
      llvm::cl::desc("Device preset the kernels are shaped for: lavapipe "
                     "(CPU Vulkan, texel-buffer reads) or gpu"),
      llvm::cl::init("lavapipe")};
  Option<bool> fuse{
      *this, "fuse",
      llvm::cl::desc("Group elementwise chains into dispatch regions (one "
                     "kernel each); off: one kernel per op"),
      llvm::cl::init(true)};
  Option<bool> tileShuffles{
      *this, "tile-shuffles",
      llvm::cl::desc("Matmul tiles of a subgroup share one operand's loads "
                     "through shuffles (lavapipe); off: each lane loads its "
                     "own"),
      llvm::cl::init(true)};
  Option<unsigned> minMatmulWorkgroups{
      *this, "min-matmul-workgroups",
      llvm::cl::desc("A matmul kernel whose tiles would fill fewer "
                     "workgroups than this runs smaller ones (0: never)"),
      llvm::cl::init(8)};
};

/// The guard, the training-step passes (autodiff, param packing, clipping,
/// the AdamW split), then everything from a traced `ag` module down to
/// spirv.module kernels plus func.func replay schedules, ready for
/// writeCapmod. Forward entries and training steps alike.
void buildCapturePipeline(mlir::OpPassManager &pm,
                          const PipelineOptions &options);

/// Registers `ag-pipeline` with the global pass registry.
void registerPipelines();

} // namespace capture

#endif // CAPTURE_PIPELINES_PIPELINES_H
