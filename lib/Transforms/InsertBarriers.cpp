//===- InsertBarriers.cpp - Barriers from the schedule's hazards ----------===//
//
// The barriers of a replay schedule are a decision in the IR (ag.barrier),
// made with the same hazard sweep the runtime's module loader checks
// schedules with: the module writer only serializes them.
//
//===----------------------------------------------------------------------===//

#include "capture/Transforms/Passes.h"

#include "capture/Conversion/AgToGPU/Schedule.h"
#include "capture/Conversion/Passes.h"
#include "capture/rt/replay_stream.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace capture {
#define GEN_PASS_DEF_INSERTBARRIERS
#include "capture/Transforms/Passes.h.inc"
} // namespace capture

using namespace mlir;
using namespace capture;

namespace {
struct InsertBarriersPass
    : public capture::impl::InsertBarriersBase<InsertBarriersPass> {
  void runOnOperation() override;
};
} // namespace

/// Places the barriers of one schedule function.
static LogicalResult insertBarriers(func::FuncOp func) {
  std::vector<rt::StreamAccess> segment;
  size_t op = 0;
  WalkResult walk = func.walk([&](gpu::LaunchFuncOp launch) {
    FailureOr<SmallVector<LaunchBinding>> bindings = getLaunchBindings(launch);
    if (failed(bindings))
      return WalkResult::interrupt();
    std::vector<rt::StreamAccess> accesses;
    for (LaunchBinding b : *bindings) {
      rt::StreamAccess access;
      // Each buffer kind is one buffer of the entry.
      access.buffer = static_cast<uint32_t>(b.binding.getBuffer());
      access.begin = static_cast<uint64_t>(b.binding.getOffset());
      access.end = access.begin + b.binding.getByteSize();
      access.write = b.write;
      access.op = op;
      accesses.push_back(access);
    }
    std::vector<rt::StreamAccess> candidate = segment;
    candidate.insert(candidate.end(), accesses.begin(), accesses.end());
    if (rt::findSegmentHazard(candidate)) {
      OpBuilder b(launch);
      ag::BarrierOp::create(b, launch.getLoc());
      segment = std::move(accesses);
    } else {
      segment = std::move(candidate);
    }
    ++op;
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

void InsertBarriersPass::runOnOperation() {
  for (auto func : getOperation().getOps<func::FuncOp>()) {
    // Only schedules: functions that launch kernels and have no barriers
    // yet (running the pass twice changes nothing).
    bool launches = false, barriers = false;
    func.walk([&](Operation *op) {
      launches |= isa<gpu::LaunchFuncOp>(op);
      barriers |= isa<ag::BarrierOp>(op);
    });
    if (!launches || barriers)
      continue;
    if (failed(insertBarriers(func)))
      return signalPassFailure();
  }
}
