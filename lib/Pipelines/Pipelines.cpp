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

void capture::buildForwardPipeline(OpPassManager &pm,
                                   const PipelineOptions &options) {
  pm.addPass(createVerifyCapture());
  // Drops computations nothing reads (probes keep theirs alive).
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createPackIO(PackIOOptions{options.alignment}));
  pm.addPass(createLowerToGPU(
      LowerToGPUOptions{options.alignment, options.workgroupSize}));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createKernelsToSPIRV());
  OpPassManager &spv = pm.nest<spirv::ModuleOp>();
  spv.addPass(spirv::createSPIRVLowerABIAttributesPass());
  spv.addPass(spirv::createSPIRVUpdateVCEPass());
}

void capture::registerPipelines() {
  PassPipelineRegistration<PipelineOptions>(
      "ag-forward-pipeline",
      "The capture guard and the lowering of ag entries to SPIR-V kernels "
      "and replay schedules (what capture-aot runs)",
      buildForwardPipeline);
}
