//===- Pipelines.h - Capture's compilation pipelines ------------*- C++ -*-===//

#ifndef CAPTURE_PIPELINES_PIPELINES_H
#define CAPTURE_PIPELINES_PIPELINES_H

#include "capture/Pipelines/CompileOptions.h"

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace capture {

/// The pipeline's textual options (`--ag-pipeline="alignment=..."`):
/// CompileOptions' fields under the same flags.
struct PipelineOptions : public mlir::PassPipelineOptions<PipelineOptions> {
#define CAPTURE_COMPILE_OPTION(TYPE, FIELD, FLAG, DEFAULT, HELP)               \
  Option<TYPE> FIELD{*this, FLAG, llvm::cl::desc(HELP),                        \
                     llvm::cl::init(CompileOptions().FIELD)};
#include "capture/Pipelines/CompileOptions.def"

  /// The options as CompileOptions.
  CompileOptions toCompileOptions() const;
};

/// The guard, the training-step passes (autodiff, param packing, clipping,
/// the AdamW split), then everything from a traced `ag` module down to
/// spirv.module kernels plus func.func replay schedules, ready for
/// writeCapmod. Forward entries and training steps alike.
void buildCapturePipeline(mlir::OpPassManager &pm,
                          const CompileOptions &options);

/// Registers `ag-pipeline` with the global pass registry.
void registerPipelines();

} // namespace capture

#endif // CAPTURE_PIPELINES_PIPELINES_H
