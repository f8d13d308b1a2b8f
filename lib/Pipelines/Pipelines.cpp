//===- Pipelines.cpp - Capture's compilation pipelines --------------------===//

#include "capture/Pipelines/Pipelines.h"

#include "capture/Conversion/Passes.h"
#include "capture/Transforms/Passes.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

capture::CompileOptions capture::PipelineOptions::toCompileOptions() const {
  CompileOptions options;
#define CAPTURE_COMPILE_OPTION(TYPE, FIELD, FLAG, DEFAULT, HELP)               \
  options.FIELD = FIELD;
#include "capture/Pipelines/CompileOptions.def"
  return options;
}

void capture::buildCapturePipeline(OpPassManager &pm,
                                   const CompileOptions &options) {
  pm.addPass(createVerifyCapture());
  // Training steps: the backward pass, the flat parameter layout, clipping
  // and the AdamW update; no-ops on modules without ag.train_step.
  pm.addPass(createAutodiff());
  pm.addPass(createPackParams(PackParamsOptions{options.alignment}));
  pm.addPass(createInsertClipScale());
  pm.addPass(createInsertIndexChecks());
  pm.addPass(createSplitUpdate());
  // Drops computations nothing reads (probes keep theirs alive).
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createPackIO(PackIOOptions{options.alignment}));
  if (options.fuse)
    pm.addPass(createFormDispatchRegions());
  pm.addPass(createConfigureKernels());
  pm.addPass(createPlanBuffers(PlanBuffersOptions{options.alignment}));
  pm.addPass(createLowerToGPU(
      LowerToGPUOptions{options.workgroupSize, options.target,
                        options.tileShuffles, options.minMatmulWorkgroups}));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createBoundKernelLoops());
  pm.addPass(createInsertBarriers());
  // The cpu target's kernels as host code too (the module writer links
  // them); their SPIR-V, shaped for one-invocation subgroups, still runs on
  // any Vulkan device.
  if (options.target == "cpu") {
    pm.addPass(createKernelsToCPU());
    pm.addPass(createCPUKernelsToLLVM());
  }
  pm.addPass(createKernelsToSPIRV());
  OpPassManager &spv = pm.nest<spirv::ModuleOp>();
  spv.addPass(spirv::createSPIRVLowerABIAttributesPass());
  spv.addPass(createSPIRVTexelReads());
  spv.addPass(spirv::createSPIRVUpdateVCEPass());
}

void capture::registerPipelines() {
  PassPipelineRegistration<PipelineOptions>(
      "ag-pipeline",
      "The capture guard, the training-step passes and the lowering of ag "
      "entries to SPIR-V kernels and replay schedules (what capture-aot "
      "runs)",
      [](OpPassManager &pm, const PipelineOptions &options) {
        buildCapturePipeline(pm, options.toCompileOptions());
      });
}
