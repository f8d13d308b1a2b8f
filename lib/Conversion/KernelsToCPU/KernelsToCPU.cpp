//===- KernelsToCPU.cpp - gpu.module kernels to host workgroup functions --===//
//
// A workgroup of a kernel runs on one host thread: its invocations one after
// another, as a loop over the local id per barrier-separated segment.
//
//===----------------------------------------------------------------------===//

#include "capture/Conversion/Passes.h"
#include "capture/Dialect/Ag/IR/AgDialect.h"

#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"

namespace capture {
#define GEN_PASS_DEF_KERNELSTOCPU
#include "capture/Conversion/Passes.h.inc"
} // namespace capture

using namespace mlir;
using namespace capture;

namespace {
struct KernelsToCPUPass
    : public capture::impl::KernelsToCPUBase<KernelsToCPUPass> {
  void runOnOperation() override;
};
} // namespace

/// The kernel's invocations per workgroup: N of its [N, 1, 1], or failure
/// (with an error) for a kernel without one or with a 2-D or 3-D workgroup.
static FailureOr<int64_t> workgroupSizeOf(gpu::GPUFuncOp kernel) {
  SmallVector<int64_t, 3> size;
  if (spirv::EntryPointABIAttr abi = spirv::lookupEntryPointABI(kernel))
    if (DenseI32ArrayAttr sizes = abi.getWorkgroupSize())
      llvm::append_range(size, sizes.asArrayRef());
  if (size.empty())
    if (std::optional<ArrayRef<int32_t>> known = kernel.getKnownBlockSize())
      llvm::append_range(size, *known);
  if (size.empty())
    return kernel.emitError()
           << "ag-kernels-to-cpu: kernel '" << kernel.getName()
           << "' has no workgroup size (expected a spirv.entry_point_abi or "
              "known_block_size)";
  size.resize(3, 1);
  if (size[0] < 1 || size[1] != 1 || size[2] != 1)
    return kernel.emitError()
           << "ag-kernels-to-cpu: kernel '" << kernel.getName()
           << "' must have a 1-D workgroup [N, 1, 1] with N >= 1, got ["
           << size[0] << ", " << size[1] << ", " << size[2] << "]";
  return size[0];
}

/// Replaces the gpu ops of `func` (a clone of a kernel) that have a host
/// value: ids and sizes, and the subgroup ops of one-invocation subgroups.
/// The local id stays (each segment's loop gives it later).
static LogicalResult replaceGPUOps(func::FuncOp func, int64_t workgroupSize,
                                   Value group, Value groups) {
  Block &entry = func.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  Location loc = func.getLoc();
  auto index = [&](int64_t v) -> Value {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&entry);
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto along = [&](gpu::Dimension dim, Value x, int64_t other) -> Value {
    return dim == gpu::Dimension::x ? x : index(other);
  };
  SmallVector<Operation *> replaced;
  WalkResult walk = func.walk([&](Operation *op) -> WalkResult {
    Value value;
    if (auto id = dyn_cast<gpu::BlockIdOp>(op))
      value = along(id.getDimension(), group, 0);
    else if (auto dim = dyn_cast<gpu::GridDimOp>(op))
      value = along(dim.getDimension(), groups, 1);
    else if (auto dim = dyn_cast<gpu::BlockDimOp>(op))
      value = along(dim.getDimension(), index(workgroupSize), 1);
    else if (auto id = dyn_cast<gpu::ThreadIdOp>(op)) {
      if (id.getDimension() == gpu::Dimension::x)
        return WalkResult::advance();
      value = index(0);
    } else if (isa<gpu::SubgroupIdOp>(op)) {
      // One invocation per subgroup: the subgroup id is the local id.
      b.setInsertionPoint(op);
      value = gpu::ThreadIdOp::create(b, op->getLoc(), gpu::Dimension::x);
    } else if (isa<gpu::LaneIdOp>(op))
      value = index(0);
    else if (isa<gpu::SubgroupSizeOp>(op))
      value = index(1);
    else if (isa<gpu::NumSubgroupsOp>(op))
      value = index(workgroupSize);
    else if (auto reduce = dyn_cast<gpu::SubgroupReduceOp>(op))
      value = reduce.getValue();
    else if (isa<gpu::BarrierOp, gpu::ReturnOp>(op) ||
             !isa_and_nonnull<gpu::GPUDialect>(op->getDialect()))
      return WalkResult::advance();
    else
      return op->emitOpError()
             << "has no host form in ag-kernels-to-cpu (expected the kernels "
                "of the cpu target: ids, sizes, barriers and reductions over "
                "one-invocation subgroups)";
    op->getResult(0).replaceAllUsesWith(value);
    replaced.push_back(op);
    return WalkResult::advance();
  });
  for (Operation *op : replaced)
    op->erase();
  return failure(walk.wasInterrupted());
}

/// Moves the workgroup-memory allocations of `func` to its entry as
/// function-local allocas (one per workgroup, shared by its invocations).
static LogicalResult hoistWorkgroupMemory(func::FuncOp func) {
  Block &entry = func.getBody().front();
  SmallVector<memref::AllocOp> allocs;
  func.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
  for (memref::AllocOp alloc : allocs) {
    MemRefType type = alloc.getType();
    auto space =
        dyn_cast_or_null<spirv::StorageClassAttr>(type.getMemorySpace());
    if (!space || space.getValue() != spirv::StorageClass::Workgroup ||
        alloc->getBlock() != &entry || !alloc.getDynamicSizes().empty())
      return alloc.emitOpError()
             << "in ag-kernels-to-cpu must be static workgroup memory "
                "(#spirv.storage_class<Workgroup>) at the kernel's top level, "
                "got "
             << type;
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    auto local = memref::AllocaOp::create(b, alloc.getLoc(),
                                          MemRefType::get(type.getShape(),
                                                          type.getElementType(),
                                                          type.getLayout()),
                                          alloc.getAlignmentAttr());
    alloc.getResult().replaceAllUsesWith(local.getResult());
    alloc.erase();
  }
  return success();
}

/// Whether `op` (at the top level of `entry`) computes the same value in
/// every invocation and may run once before the loops: pure, no regions,
/// not the local id, and only such values or arguments as operands.
static bool isUniform(Operation *op, Block &entry,
                      const DenseSet<Operation *> &uniform) {
  if (op->getNumRegions() != 0 || isa<gpu::ThreadIdOp>(op) ||
      (!isa<memref::AllocaOp>(op) && !isMemoryEffectFree(op)))
    return false;
  return llvm::all_of(op->getOperands(), [&](Value v) {
    Operation *def = v.getDefiningOp();
    return def ? uniform.contains(def) : v.getParentBlock() == &entry;
  });
}

/// The most ops recomputed for one value that crosses a barrier; longer
/// chains are kept in memory instead.
static constexpr unsigned kMaxRecomputedOps = 8;

/// Whether `value` (computed in `loop`) can be computed again in another
/// segment's loop: a chain of at most kMaxRecomputedOps pure ops without
/// regions whose leaves are the local id or values from before the loops.
static bool isRecomputable(Value value, scf::ForOp loop, unsigned &budget) {
  if (value == loop.getInductionVar())
    return true;
  Operation *def = value.getDefiningOp();
  if (!def || !loop->isProperAncestor(def))
    return !loop->isAncestor(value.getParentBlock()->getParentOp());
  if (def->getBlock() != loop.getBody() || def->getNumRegions() != 0 ||
      !isMemoryEffectFree(def) || budget-- == 0)
    return false;
  return llvm::all_of(def->getOperands(), [&](Value operand) {
    return isRecomputable(operand, loop, budget);
  });
}

static bool isRecomputable(Value value, scf::ForOp loop) {
  unsigned budget = kMaxRecomputedOps;
  return isRecomputable(value, loop, budget);
}

/// `value` of loop `from`, computed again at `b` in loop `to` (see
/// isRecomputable); `map` holds what was already computed there.
static Value recompute(Value value, scf::ForOp from, scf::ForOp to,
                       OpBuilder &b, IRMapping &map) {
  if (value == from.getInductionVar())
    return to.getInductionVar();
  if (Value known = map.lookupOrNull(value))
    return known;
  Operation *def = value.getDefiningOp();
  if (!def || !from->isProperAncestor(def))
    return value;
  for (Value operand : def->getOperands())
    map.map(operand, recompute(operand, from, to, b, map));
  Operation *again = b.clone(*def, map);
  return again->getResult(cast<OpResult>(value).getResultNumber());
}

/// Splits the body of `func` at its barriers into loops over the local id
/// [0, workgroupSize), keeping values that cross a barrier per invocation.
static LogicalResult splitAtBarriers(func::FuncOp func, StringRef kernel,
                                     int64_t workgroupSize) {
  Block &entry = func.getBody().front();
  WalkResult nested = func.walk([&](gpu::BarrierOp barrier) {
    if (barrier->getBlock() == &entry)
      return WalkResult::advance();
    barrier.emitOpError() << "inside '" << barrier->getParentOp()->getName()
                          << "' cannot be split into workgroup loops in "
                             "ag-kernels-to-cpu (kernel '"
                          << kernel
                          << "'): barriers must be at the kernel's top level";
    return WalkResult::interrupt();
  });
  if (nested.wasInterrupted())
    return failure();

  // Segments of the top-level ops that run per invocation; the local ids
  // become each loop's induction variable.
  DenseSet<Operation *> uniform;
  SmallVector<gpu::ThreadIdOp> localIds;
  SmallVector<SmallVector<Operation *>> segments(1);
  for (Operation &op : entry.without_terminator()) {
    if (isa<gpu::BarrierOp>(op))
      segments.emplace_back();
    else if (auto id = dyn_cast<gpu::ThreadIdOp>(op))
      localIds.push_back(id);
    else if (isUniform(&op, entry, uniform))
      uniform.insert(&op);
    else
      segments.back().push_back(&op);
  }

  Location loc = func.getLoc();
  OpBuilder b(entry.getTerminator());
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value size = arith::ConstantIndexOp::create(b, loc, workgroupSize);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  // The loop of each segment (null for an empty one).
  SmallVector<scf::ForOp> loops;
  for (ArrayRef<Operation *> ops : segments) {
    if (ops.empty()) {
      loops.push_back(nullptr);
      continue;
    }
    auto loop = scf::ForOp::create(b, loc, zero, size, one);
    Operation *yield = loop.getBody()->getTerminator();
    for (Operation *op : ops)
      op->moveBefore(yield);
    loop.walk([&](gpu::ThreadIdOp id) {
      id.replaceAllUsesWith(loop.getInductionVar());
      id.erase();
    });
    loops.push_back(loop);
  }
  // The segment whose loop holds `op`.
  auto segmentOf = [&](Operation *op) -> unsigned {
    Operation *top = entry.findAncestorOpInBlock(*op);
    auto loop = llvm::find_if(
        loops, [&](scf::ForOp l) { return l && l.getOperation() == top; });
    assert(loop != loops.end() && "a per-invocation value used outside the "
                                  "segment loops");
    return loop - loops.begin();
  };
  for (gpu::ThreadIdOp id : localIds) {
    for (OpOperand &use : llvm::make_early_inc_range(id->getUses()))
      use.set(loops[segmentOf(use.getOwner())].getInductionVar());
    id.erase();
  }

  // Values used by a later segment than their own: recomputed there when
  // cheap (pure ops of the local id and uniform values), else kept in a
  // slot per invocation.
  OpBuilder slots = OpBuilder::atBlockBegin(&entry);
  DenseMap<unsigned, std::pair<OpBuilder, IRMapping>> into;
  auto builderFor = [&](unsigned j) -> std::pair<OpBuilder, IRMapping> & {
    auto it = into.find(j);
    if (it == into.end())
      it = into.try_emplace(j, OpBuilder::atBlockBegin(loops[j].getBody()),
                            IRMapping())
               .first;
    return it->second;
  };
  for (auto [i, ops] : llvm::enumerate(segments)) {
    for (Operation *op : ops) {
      for (Value value : op->getResults()) {
        llvm::MapVector<unsigned, SmallVector<OpOperand *>> later;
        for (OpOperand &use : value.getUses())
          if (unsigned j = segmentOf(use.getOwner()); j != i)
            later[j].push_back(&use);
        if (later.empty())
          continue;
        if (isRecomputable(value, loops[i])) {
          for (auto &[j, uses] : later) {
            auto &[builder, map] = builderFor(j);
            Value again = recompute(value, loops[i], loops[j], builder, map);
            for (OpOperand *use : uses)
              use->set(again);
          }
          continue;
        }
        Type type = value.getType();
        if (!type.isIntOrIndexOrFloat() && !isa<VectorType>(type))
          return op->emitOpError()
                 << "result is used after a barrier, and ag-kernels-to-cpu "
                    "keeps such values per invocation only as scalars or "
                    "vectors, got "
                 << type << " (kernel '" << kernel << "')";
        Value slot = memref::AllocaOp::create(
            slots, loc, MemRefType::get({workgroupSize}, type));
        OpBuilder store(loops[i].getBody()->getTerminator());
        memref::StoreOp::create(store, loc, value, slot,
                                loops[i].getInductionVar());
        for (auto &[j, uses] : later) {
          auto &[builder, map] = builderFor(j);
          Value reloaded = memref::LoadOp::create(builder, loc, slot,
                                                  loops[j].getInductionVar());
          for (OpOperand *use : uses)
            use->set(reloaded);
        }
      }
    }
  }
  for (Operation &op : llvm::make_early_inc_range(entry.without_terminator()))
    if (isa<gpu::BarrierOp>(op))
      op.erase();
  return success();
}

/// The host function of `kernel` in `host`, or failure with an error.
static LogicalResult convertKernel(gpu::GPUFuncOp kernel, ModuleOp host) {
  StringRef name = kernel.getName();
  FailureOr<int64_t> workgroupSize = workgroupSizeOf(kernel);
  if (failed(workgroupSize))
    return failure();
  if (!kernel.getBody().hasOneBlock())
    return kernel.emitError() << "ag-kernels-to-cpu: kernel '" << name
                              << "' must have one block (structured control "
                                 "flow), got "
                              << kernel.getBody().getBlocks().size();
  if (kernel.getNumWorkgroupAttributions() != 0 ||
      kernel.getNumPrivateAttributions() != 0)
    return kernel.emitError()
           << "ag-kernels-to-cpu: kernel '" << name
           << "' declares memory attributions; expected workgroup memory as "
              "memref.alloc in #spirv.storage_class<Workgroup>";

  MLIRContext *ctx = kernel.getContext();
  SmallVector<Type> inputs(kernel.getArgumentTypes());
  inputs.append(2, IndexType::get(ctx));
  OpBuilder b = OpBuilder::atBlockEnd(host.getBody());
  auto func = func::FuncOp::create(b, kernel.getLoc(), name,
                                   FunctionType::get(ctx, inputs, {}));
  Block *entry = func.addEntryBlock();
  IRMapping map;
  map.map(kernel.getArguments(), entry->getArguments().drop_back(2));
  b.setInsertionPointToStart(entry);
  for (Operation &op : kernel.getBody().front()) {
    if (isa<gpu::ReturnOp>(op)) {
      func::ReturnOp::create(b, op.getLoc());
      continue;
    }
    b.clone(op, map);
  }
  Value group = entry->getArgument(inputs.size() - 2);
  Value groups = entry->getArgument(inputs.size() - 1);
  if (failed(replaceGPUOps(func, *workgroupSize, group, groups)) ||
      failed(hoistWorkgroupMemory(func)) ||
      failed(splitAtBarriers(func, name, *workgroupSize))) {
    func.erase();
    return failure();
  }
  return success();
}

void KernelsToCPUPass::runOnOperation() {
  ModuleOp module = getOperation();
  SmallVector<gpu::GPUFuncOp> kernels;
  for (auto gpuModule : module.getOps<gpu::GPUModuleOp>())
    for (auto func : gpuModule.getOps<gpu::GPUFuncOp>())
      if (func.isKernel())
        kernels.push_back(func);
  if (kernels.empty())
    return;

  // A subgroup wider than one invocation is lanes running together, which
  // one invocation after another cannot be.
  auto target = module->getAttrOfType<ag::TargetAttr>(kTargetAttr);
  if (!target || target.getSubgroupSize() != 1) {
    module.emitError() << "ag-kernels-to-cpu: the kernels must be shaped for "
                          "subgroups of one invocation (the cpu target), got "
                       << (target ? Attribute(target)
                                  : Attribute(module->getAttr(kTargetAttr)));
    return signalPassFailure();
  }

  SymbolTable symbols(module);
  auto host = symbols.lookup<ModuleOp>(kCPUKernelsModule);
  if (!host) {
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    host = ModuleOp::create(b, module.getLoc(), kCPUKernelsModule);
    symbols.insert(host);
  }
  SymbolTable hostSymbols(host);
  for (gpu::GPUFuncOp kernel : kernels) {
    // Running the pass again converts only kernels it has not seen.
    if (hostSymbols.lookup(kernel.getName()))
      continue;
    if (failed(convertKernel(kernel, host)))
      return signalPassFailure();
  }
}
