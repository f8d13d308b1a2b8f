//===- BoundKernelLoops.cpp - Loop iterations under the target's limit ----===//
//
// llvmpipe (lavapipe) counts every loop iteration an invocation runs, all
// its loops together, and after 65535 it leaves the loops as if they had
// ended: a row sum over 70000 elements returns the sum of the first 65535,
// with no error. This pass bounds each kernel's iterations from its loops'
// bounds and its launches' grids and, past the target's limit, unrolls the
// loops that run the most iterations until the kernel fits. Unrolling keeps
// the order of every operation, so the results are the same to the bit.
//
//===----------------------------------------------------------------------===//

#include "capture/Transforms/Passes.h"

#include "capture/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <limits>

namespace capture {
#define GEN_PASS_DEF_BOUNDKERNELLOOPS
#include "capture/Transforms/Passes.h.inc"
} // namespace capture

using namespace mlir;
using namespace capture;

namespace {
struct BoundKernelLoopsPass
    : public capture::impl::BoundKernelLoopsBase<BoundKernelLoopsPass> {
  using Base::Base;
  void runOnOperation() override;
};

/// Saturating arithmetic on iteration counts: a bound past 2^64 is as bad
/// as one at it.
constexpr uint64_t kMany = std::numeric_limits<uint64_t>::max();
uint64_t satAdd(uint64_t a, uint64_t b) {
  return a > kMany - b ? kMany : a + b;
}
uint64_t satMul(uint64_t a, uint64_t b) {
  return a != 0 && b > kMany / a ? kMany : a * b;
}
uint64_t ceilDiv(uint64_t n, uint64_t d) { return n / d + (n % d != 0); }

/// What bounds one kernel's loops.
struct KernelBounds {
  /// The smallest x grid any launch of the kernel uses (the stride of a
  /// grid-stride loop), or none when a launch's grid is not a constant.
  std::optional<int64_t> gridX;
  /// The largest x workgroup size of its launches, which bounds
  /// `gpu.num_subgroups`, or none when one is not a constant.
  std::optional<int64_t> blockX;
  /// The loop whose trip count could not be bounded, if any.
  scf::ForOp unbounded;
};

/// One loop and the iterations it runs itself (not its nested loops').
struct Charge {
  /// The loop.
  scf::ForOp loop;
  /// Its trip count.
  uint64_t trips;
  /// trips times the trip counts of the loops around it.
  uint64_t iterations;
};
} // namespace

/// `value` when it is `gpu.grid_dim x` times a constant: that constant.
static std::optional<int64_t> gridStrideFactor(Value value) {
  auto mul = value.getDefiningOp<arith::MulIOp>();
  if (!mul)
    return std::nullopt;
  for (auto [grid, factor] : {std::pair(mul.getLhs(), mul.getRhs()),
                              std::pair(mul.getRhs(), mul.getLhs())}) {
    auto dim = grid.getDefiningOp<gpu::GridDimOp>();
    if (dim && dim.getDimension() == gpu::Dimension::x)
      if (std::optional<int64_t> c = getConstantIntValue(factor))
        return c;
  }
  return std::nullopt;
}

/// An upper bound on `loop`'s trip count, or none. The kernels' lower
/// bounds are work-item, thread or chunk indices, never negative, so an
/// unknown lower bound counts as 0.
static std::optional<uint64_t> tripBound(scf::ForOp loop,
                                         const KernelBounds &bounds) {
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!step && bounds.gridX)
    if (std::optional<int64_t> f = gridStrideFactor(loop.getStep()))
      step = *f * *bounds.gridX;
  if (!step || *step <= 0)
    return std::nullopt;
  int64_t from = getConstantIntValue(loop.getLowerBound()).value_or(0);
  auto fromTo = [&](int64_t to) -> uint64_t {
    return to <= from ? 0 : ceilDiv(to - from, *step);
  };
  Value ub = loop.getUpperBound();
  if (std::optional<int64_t> to = getConstantIntValue(ub))
    return fromTo(*to);
  // One iteration per subgroup: at most one per invocation.
  if (ub.getDefiningOp<gpu::NumSubgroupsOp>() && bounds.blockX)
    return fromTo(*bounds.blockX);
  // A chunk: [lo, min(lo + c, n)) runs at most c / step times.
  Operation *min = ub.getDefiningOp();
  if (!isa_and_nonnull<arith::MinSIOp, arith::MinUIOp>(min))
    return std::nullopt;
  std::optional<uint64_t> best;
  auto tighten = [&](uint64_t b) { best = best ? std::min(*best, b) : b; };
  for (Value side : min->getOperands()) {
    if (std::optional<int64_t> to = getConstantIntValue(side))
      tighten(fromTo(*to));
    if (auto add = side.getDefiningOp<arith::AddIOp>())
      for (auto [base, size] : {std::pair(add.getLhs(), add.getRhs()),
                                std::pair(add.getRhs(), add.getLhs())})
        if (base == loop.getLowerBound())
          if (std::optional<int64_t> c = getConstantIntValue(size))
            tighten(*c <= 0 ? 0 : ceilDiv(*c, *step));
  }
  return best;
}

static uint64_t regionIterations(Region &region, KernelBounds &bounds);

/// The loop iterations `op` runs at most: each iteration of a loop counts
/// once, plus those of the loops inside it; an `if` runs one of its
/// branches.
static uint64_t opIterations(Operation *op, KernelBounds &bounds) {
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    std::optional<uint64_t> trips = tripBound(loop, bounds);
    if (!trips) {
      if (!bounds.unbounded)
        bounds.unbounded = loop;
      return kMany;
    }
    return satMul(*trips,
                  satAdd(1, regionIterations(loop.getRegion(), bounds)));
  }
  uint64_t total = 0;
  for (Region &region : op->getRegions()) {
    uint64_t n = regionIterations(region, bounds);
    total = isa<scf::IfOp>(op) ? std::max(total, n) : satAdd(total, n);
  }
  return total;
}

static uint64_t regionIterations(Region &region, KernelBounds &bounds) {
  uint64_t total = 0;
  for (Block &block : region)
    for (Operation &op : block)
      total = satAdd(total, opIterations(&op, bounds));
  return total;
}

/// The loops of `region` that could be unrolled (constant bounds, so that
/// the unrolled loop's are constant too), with the iterations each runs.
static void collectCharges(Region &region, uint64_t around,
                           SmallVectorImpl<Charge> &charges) {
  for (Block &block : region)
    for (Operation &op : block) {
      auto loop = dyn_cast<scf::ForOp>(op);
      if (!loop) {
        for (Region &inner : op.getRegions())
          collectCharges(inner, around, charges);
        continue;
      }
      std::optional<APInt> trips = loop.getStaticTripCount();
      if (!trips) {
        // Not unrollable here; its nested loops still may be, each run at
        // least once per iteration of the ones around.
        collectCharges(loop.getRegion(), around, charges);
        continue;
      }
      uint64_t n = trips->getZExtValue();
      uint64_t iterations = satMul(n, around);
      if (n >= 2)
        charges.push_back({loop, n, iterations});
      collectCharges(loop.getRegion(), iterations, charges);
    }
}

/// Operations in `func`, to cap what unrolling may grow a kernel to.
static int64_t opCount(gpu::GPUFuncOp func) {
  int64_t n = 0;
  func.walk([&](Operation *) { ++n; });
  return n;
}

void BoundKernelLoopsPass::runOnOperation() {
  ModuleOp module = getOperation();
  auto target = module->getAttrOfType<ag::TargetAttr>(kTargetAttr);
  if (!target)
    return;
  // 0: no limit; the bounds are still recorded, for the loader to check a
  // module compiled for another target against llvmpipe.
  uint64_t limit = static_cast<uint64_t>(target.getMaxLoopIterations());
  MLIRContext *ctx = module.getContext();

  // Each kernel's launches: their smallest grid, and where to report.
  llvm::DenseMap<gpu::GPUFuncOp, KernelBounds> kernels;
  llvm::DenseMap<gpu::GPUFuncOp, gpu::LaunchFuncOp> firstLaunch;
  SymbolTableCollection symbols;
  module.walk([&](gpu::LaunchFuncOp launch) {
    auto func = symbols.lookupNearestSymbolFrom<gpu::GPUFuncOp>(
        launch, launch.getKernel());
    if (!func)
      return;
    KernelBounds &bounds = kernels[func];
    std::optional<int64_t> x =
        getConstantIntValue(launch.getGridSizeOperandValues().x);
    std::optional<int64_t> w =
        getConstantIntValue(launch.getBlockSizeOperandValues().x);
    if (firstLaunch.try_emplace(func, launch).second) {
      bounds.gridX = x;
      bounds.blockX = w;
      return;
    }
    bounds.gridX = x && bounds.gridX
                       ? std::optional(std::min(*bounds.gridX, *x))
                       : std::nullopt;
    bounds.blockX = w && bounds.blockX
                        ? std::optional(std::max(*bounds.blockX, *w))
                        : std::nullopt;
  });

  for (gpu::GPUModuleOp gpuModule : module.getOps<gpu::GPUModuleOp>()) {
    for (gpu::GPUFuncOp func : gpuModule.getOps<gpu::GPUFuncOp>()) {
      if (!func.isKernel())
        continue;
      KernelBounds base = kernels.lookup(func);
      Operation *report = firstLaunch.lookup(func);
      if (!report)
        report = func;
      auto iterations = [&]() -> FailureOr<uint64_t> {
        KernelBounds bounds = base;
        uint64_t n = regionIterations(func.getBody(), bounds);
        if (bounds.unbounded && limit == 0)
          return kMany;
        if (bounds.unbounded) {
          report->emitError()
              << "kernel '" << func.getName()
              << "' has a loop whose trip count the compiler cannot bound, "
                 "so it cannot keep the kernel under the target's "
              << limit
              << " loop iterations per invocation (llvmpipe ends an "
                 "invocation's loops there, silently)";
          return failure();
        }
        return n;
      };
      FailureOr<uint64_t> before = iterations();
      if (failed(before))
        return signalPassFailure();
      if (*before == kMany)
        continue; // Unbounded, on a target without a limit: nothing said.
      uint64_t now = *before;
      while (limit != 0 && now > limit) {
        SmallVector<Charge> charges;
        collectCharges(func.getBody(), 1, charges);
        auto most =
            llvm::max_element(charges, [](const Charge &a, const Charge &b) {
              return a.iterations < b.iterations;
            });
        // Twice the overshoot per round, at most 64 copies of a body: a
        // loop a little past the limit doubles, a long one is cut in few
        // rounds.
        uint64_t factor = 0;
        if (most != charges.end())
          factor = std::min<uint64_t>(
              most->trips,
              std::clamp<uint64_t>(2 * ceilDiv(now, limit), 2, 64));
        bool unrolled =
            factor >= 2 && succeeded(loopUnrollByFactor(most->loop, factor));
        if (!unrolled || opCount(func) > static_cast<int64_t>(maxOps)) {
          InFlightDiagnostic diag = report->emitError();
          diag << "kernel '" << func.getName() << "' runs up to " << *before
               << " loop iterations in one invocation, more than the "
                  "target's "
               << limit
               << " (llvmpipe ends an invocation's loops there, silently), ";
          if (unrolled)
            diag << "and unrolling its loops to fit would grow it past "
                 << static_cast<int64_t>(maxOps) << " operations (max-ops)";
          else
            diag << "and none of its loops has constant bounds to unroll";
          return signalPassFailure();
        }
        FailureOr<uint64_t> after = iterations();
        if (failed(after))
          return signalPassFailure();
        now = *after;
      }
      if (*before != 0)
        func->setAttr(
            kLoopIterationsAttr,
            DenseI64ArrayAttr::get(ctx, {static_cast<int64_t>(*before),
                                         static_cast<int64_t>(now)}));
    }
  }
}
