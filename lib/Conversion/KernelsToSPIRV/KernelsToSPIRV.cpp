//===- KernelsToSPIRV.cpp - gpu.module kernels to spirv.module -----------===//

#include "capture/Conversion/Passes.h"

#include "mlir/Conversion/ArithToSPIRV/ArithToSPIRV.h"
#include "mlir/Conversion/FuncToSPIRV/FuncToSPIRV.h"
#include "mlir/Conversion/GPUToSPIRV/GPUToSPIRV.h"
#include "mlir/Conversion/MathToSPIRV/MathToSPIRV.h"
#include "mlir/Conversion/MemRefToSPIRV/MemRefToSPIRV.h"
#include "mlir/Conversion/SCFToSPIRV/SCFToSPIRV.h"
#include "mlir/Conversion/VectorToSPIRV/VectorToSPIRV.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/Dialect/SPIRV/Transforms/SPIRVConversion.h"
#include "mlir/Transforms/DialectConversion.h"

namespace capture {
#define GEN_PASS_DEF_KERNELSTOSPIRV
#include "capture/Conversion/Passes.h.inc"
} // namespace capture

using namespace mlir;
using namespace capture;

namespace {
struct KernelsToSPIRVPass
    : public capture::impl::KernelsToSPIRVBase<KernelsToSPIRVPass> {
  void runOnOperation() override;
};
} // namespace

/// gpu.barrier as a workgroup control barrier that also orders storage
/// buffer accesses: the workgroup-region template passes values between
/// its stages through storage buffers, which upstream's lowering (workgroup
/// memory only) does not order.
struct BarrierToSPIRV : public OpConversionPattern<gpu::BarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gpu::BarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto semantics = spirv::MemorySemantics::AcquireRelease |
                     spirv::MemorySemantics::UniformMemory |
                     spirv::MemorySemantics::WorkgroupMemory;
    rewriter.replaceOpWithNewOp<spirv::ControlBarrierOp>(
        op, spirv::Scope::Workgroup, spirv::Scope::Workgroup, semantics);
    return success();
  }
};

void capture::populateKernelsToSPIRVPatterns(
    const SPIRVTypeConverter &converter, RewritePatternSet &patterns) {
  populateGPUToSPIRVPatterns(converter, patterns);
  arith::populateArithToSPIRVPatterns(converter, patterns);
  populateMathToSPIRVPatterns(converter, patterns);
  populateMemRefToSPIRVPatterns(converter, patterns);
  populateFuncToSPIRVPatterns(converter, patterns);
  populateVectorToSPIRVPatterns(converter, patterns);
  patterns.add<BarrierToSPIRV>(converter, patterns.getContext(),
                               /*benefit=*/2);
}

/// Converts one cloned gpu.module (in place) into a spirv.module.
static LogicalResult convertModule(Operation *gpuModule) {
  MLIRContext *ctx = gpuModule->getContext();
  // Default memref memory space -> StorageBuffer, as Vulkan wants.
  spirv::MemorySpaceToStorageClassConverter storage(
      spirv::mapMemorySpaceToVulkanStorageClass);
  spirv::convertMemRefTypesAndAttrs(gpuModule, storage);
  spirv::TargetEnvAttr targetAttr = spirv::lookupTargetEnvOrDefault(gpuModule);
  std::unique_ptr<ConversionTarget> target =
      SPIRVConversionTarget::get(targetAttr);
  SPIRVTypeConverter converter(targetAttr);
  RewritePatternSet patterns(ctx);
  ScfToSPIRVContext scfContext;
  populateSCFToSPIRVPatterns(converter, scfContext, patterns);
  populateKernelsToSPIRVPatterns(converter, patterns);
  return applyFullConversion(gpuModule, *target, std::move(patterns));
}

void KernelsToSPIRVPass::runOnOperation() {
  ModuleOp module = getOperation();
  // The gpu.module stays: gpu.launch_func still refers to it.
  SmallVector<Operation *> clones;
  OpBuilder b(&getContext());
  for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
    b.setInsertionPoint(gpuModule);
    clones.push_back(b.clone(*gpuModule));
  }
  for (Operation *clone : clones)
    if (failed(convertModule(clone)))
      return signalPassFailure();
}
