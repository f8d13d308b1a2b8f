//===- InsertBarriers.cpp - Barriers from the schedule's hazards ----------===//
//
// The barriers of a replay schedule are a decision in the IR (ag.barrier),
// made with the same hazard sweep the runtime's module loader checks
// schedules with: the module writer only serializes them.
//
//===----------------------------------------------------------------------===//

#include "capture/Transforms/Passes.h"

#include "capture/Conversion/Passes.h"
#include "capture/rt/replay_stream.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/SymbolTable.h"

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

/// Bytes of a memref of a static shape (f32, i32 or vector<4xf32>
/// elements, or i8 for whole buffers).
static uint64_t byteSize(MemRefType type) {
  Type element = type.getElementType();
  uint64_t bits = 0;
  if (auto vector = dyn_cast<VectorType>(element))
    bits = vector.getNumElements() *
           vector.getElementType().getIntOrFloatBitWidth();
  else
    bits = element.getIntOrFloatBitWidth();
  return static_cast<uint64_t>(type.getNumElements()) * bits / 8;
}

/// The buffer range a kernel argument views: the schedule's arguments are
/// buffers 0 and 1 (input, output), each global viewed gets a number of its
/// own.
static FailureOr<rt::StreamAccess>
accessOf(gpu::LaunchFuncOp launch, unsigned index,
         llvm::StringMap<uint32_t> &globals) {
  Value value = launch.getKernelOperands()[index];
  auto view = value.getDefiningOp<memref::ViewOp>();
  if (!view)
    return launch.emitOpError()
           << "kernel argument #" << index
           << " is not a memref.view of a buffer: ag-insert-barriers "
              "expects the schedule of ag-lower-to-gpu";
  std::optional<int64_t> shift = getConstantIntValue(view.getByteShift());
  if (!shift || *shift < 0)
    return view.emitOpError()
           << "needs a constant, non-negative byte shift for "
              "ag-insert-barriers";
  Value source = view.getSource();
  uint32_t buffer;
  if (auto arg = dyn_cast<BlockArgument>(source)) {
    buffer = arg.getArgNumber();
  } else if (auto global = source.getDefiningOp<memref::GetGlobalOp>()) {
    auto [it, inserted] = globals.try_emplace(
        global.getName(), static_cast<uint32_t>(2 + globals.size()));
    buffer = it->second;
  } else {
    return view.emitOpError()
           << "views a value that is neither a schedule argument nor a "
              "memref.get_global";
  }
  rt::StreamAccess access;
  access.buffer = buffer;
  access.begin = static_cast<uint64_t>(*shift);
  access.end = access.begin + byteSize(view.getType());
  return access;
}

/// Places the barriers of one schedule function.
static LogicalResult insertBarriers(func::FuncOp func) {
  llvm::StringMap<uint32_t> globals;
  std::vector<rt::StreamAccess> segment;
  size_t op = 0;
  WalkResult walk = func.walk([&](gpu::LaunchFuncOp launch) {
    // (The launch's verifier guarantees the kernel exists.)
    auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
        launch, launch.getKernel());
    size_t operands = launch.getNumKernelOperands();
    SmallVector<bool> written(operands, false);
    auto list = kernel->getAttrOfType<DenseI32ArrayAttr>(kKernelWritesAttr);
    if (list) {
      for (int32_t w : list.asArrayRef())
        if (w >= 0 && static_cast<size_t>(w) < operands)
          written[w] = true;
    } else if (operands > 0) {
      written.back() = true;
    }
    std::vector<rt::StreamAccess> accesses;
    for (unsigned i = 0; i < operands; ++i) {
      FailureOr<rt::StreamAccess> access = accessOf(launch, i, globals);
      if (failed(access))
        return WalkResult::interrupt();
      access->write = written[i];
      access->op = op;
      accesses.push_back(*access);
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
