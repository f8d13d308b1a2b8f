//===- ConfigureKernels.cpp - Kernel configurations for the target --------===//
//
// The decisions that shape a kernel for the target, made before the buffer
// plan and the lowering so that both follow one typed record of them
// (ag.kernel_config) and FileCheck can see them.
//
//===----------------------------------------------------------------------===//

#include "capture/Conversion/Passes.h"
#include "capture/Dialect/Ag/IR/AgOps.h"

#include "llvm/Support/MathExtras.h"

namespace capture {
#define GEN_PASS_DEF_CONFIGUREKERNELS
#include "capture/Conversion/Passes.h.inc"
} // namespace capture

using namespace mlir;
using namespace capture;
using namespace capture::ag;

namespace {
struct ConfigureKernelsPass
    : public capture::impl::ConfigureKernelsBase<ConfigureKernelsPass> {
  void runOnOperation() override;
};
} // namespace

/// Up to this many elements one serial loop is as fast as two dispatches.
static constexpr int64_t kSerialReductionLimit = 4096;
/// The most partials a first pass writes.
static constexpr int64_t kMaxPartials = 16384;
/// Elements per partial at the least: 256 (64 vec4s) keeps llvmpipe's SIMD
/// groups full (1024 gave the PPO step's 17K gradients 17 partials: three
/// groups of 8 lanes with one busy lane in the last).
static constexpr int64_t kMinChunk = 256;

/// The two-pass form of `op`, or null when it is not a full reduction of
/// more than kSerialReductionLimit elements.
static TwoPassAttr twoPassOf(Operation *op) {
  Operation *reduction = fullReductionOf(op);
  if (!reduction)
    return {};
  int64_t n = cast<RankedTensorType>(reduction->getOperand(0).getType())
                  .getNumElements();
  if (n <= kSerialReductionLimit)
    return {};
  // A multiple of 4, so that every partial but the last starts and ends on
  // a whole vec4.
  int64_t chunk = llvm::alignTo(
      std::max(kMinChunk, (n + kMaxPartials - 1) / kMaxPartials), 4);
  return TwoPassAttr::get(op->getContext(), chunk, (n + chunk - 1) / chunk);
}

void ConfigureKernelsPass::runOnOperation() {
  for (Operation &entry : getOperation().getOps()) {
    if (!isa<ForwardOp, TrainStepOp>(entry))
      continue;
    auto function = cast<FunctionOpInterface>(entry);
    if (function.isExternal())
      continue;
    // The entry's own ops: those inside a region are not kernels.
    for (Operation &op : function.front()) {
      if (op.hasAttr(kKernelConfigAttr))
        continue;
      if (TwoPassAttr config = twoPassOf(&op))
        op.setAttr(kKernelConfigAttr, config);
    }
  }
}
