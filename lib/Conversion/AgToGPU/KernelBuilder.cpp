//===- KernelBuilder.cpp - gpu.func kernels for ag compute ops ------------===//
//
// This file builds each kernel's skeleton (arguments, one work item per
// invocation or a grid-stride loop),
// names and caches kernels, and picks the template of each op or dispatch
// region; the bodies are in ElementwiseKernels.cpp, MatmulKernels.cpp,
// RegionKernels.cpp, ReductionKernels.cpp and OptimizerKernels.cpp. No
// kernel uses workgroup memory (slower than registers on llvmpipe).
//
//===----------------------------------------------------------------------===//

#include "capture/Conversion/AgToGPU/KernelBuilder.h"

#include "BufferPlan.h"
#include "KernelEmitters.h"

#include "capture/Conversion/Passes.h"
#include "capture/Dialect/Ag/IR/AgOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace capture;
using namespace capture::ag;
using namespace capture::kernels;

KernelBuilder::KernelBuilder(ModuleOp module, unsigned workgroupSize,
                             unsigned subgroupSize, unsigned matmulShareLanes,
                             unsigned minMatmulWorkgroups)
    : module(module), workgroupSize(workgroupSize), subgroupSize(subgroupSize),
      matmulShareLanes(matmulShareLanes),
      minMatmulWorkgroups(minMatmulWorkgroups) {}

int64_t KernelBuilder::groupsFor(int64_t items, unsigned localSize) const {
  if (localSize == 0)
    localSize = workgroupSize;
  // Vulkan guarantees 65535 groups per dimension; the grid-stride loop
  // covers the rest.
  int64_t groups = (items + localSize - 1) / localSize;
  return std::clamp<int64_t>(groups, 1, 65535);
}

/// The fewest multiply-adds of a matmul kernel split into smaller
/// workgroups: 4x the work per dispatch from which the runtime runs
/// llvmpipe's pool (rt::kPoolWorkPerDispatch, 1M). Where a step runs on the
/// submitting thread instead, the extra workgroups cost ~0.3 us each for
/// nothing (the PPO step at batch 64, whose 64x64x64 products split, was
/// 4-9% slower); at 4M multiply-adds that stays ~1% of the kernel's time.
static constexpr int64_t kSplitMatmulMultiplyAdds = int64_t(1) << 22;

int64_t KernelBuilder::multiplyAdds(Operation *op) {
  MatmulOp matmul = dyn_cast<MatmulOp>(op);
  if (auto region = dyn_cast<DispatchRegionOp>(op))
    matmul = region.getMatmul();
  if (!matmul)
    return 0;
  auto lhs = cast<RankedTensorType>(matmul.getLhs().getType());
  auto result = cast<RankedTensorType>(matmul.getResult().getType());
  int64_t k = lhs.getDimSize(matmul.getTransposeA() ? 0 : 1);
  return result.getNumElements() * k;
}

unsigned KernelBuilder::matmulLocalSize(int64_t items,
                                        int64_t multiplyAdds) const {
  int64_t minGroups = minMatmulWorkgroups;
  // Whole subgroups only: the shared tiles' groups of lanes, and SIMD
  // lanes a CPU driver would run empty otherwise.
  if (minGroups == 0 || multiplyAdds < kSplitMatmulMultiplyAdds ||
      workgroupSize <= subgroupSize || workgroupSize % subgroupSize != 0 ||
      items >= workgroupSize * minGroups)
    return workgroupSize;
  int64_t size = items / minGroups / subgroupSize * subgroupSize;
  return static_cast<unsigned>(std::max<int64_t>(size, subgroupSize));
}

int64_t KernelBuilder::workItems(Operation *op) {
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  // A softmax row needs its max and sum before any element: one work item
  // per row (the product of the other dimensions).
  if (isa<SoftmaxOp, LogSoftmaxOp>(op))
    return softmaxRows(op);
  if (auto matmul = dyn_cast<MatmulOp>(op))
    return matmulWorkItems(matmul);
  if (auto region = dyn_cast<DispatchRegionOp>(op)) {
    if (Operation *reduction = regionReduction(region))
      return workItems(reduction);
    return region.getMatmul() ? matmulWorkItems(region.getMatmul())
                              : elementwiseRegionWorkItems(region);
  }
  // The scalar losses are one serial loop in one invocation; an index
  // check is one workgroup (checkIndicesLanes invocations).
  if (isa<CrossEntropyOp, MseOp, CheckIndicesOp>(op))
    return 1;
  return result.getNumElements();
}

static MemRefType memrefOf(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  return MemRefType::get(tensor.getShape(), tensor.getElementType());
}

gpu::GPUFuncOp KernelBuilder::createKernel(
    StringRef stem, TypeRange argTypes, int64_t items,
    function_ref<void(OpBuilder &, Location, Value, ValueRange)> emitItem,
    unsigned localSize) {
  if (localSize == 0)
    localSize = workgroupSize;
  MLIRContext *ctx = module.getContext();
  Location loc = module.getLoc();
  std::string name = (stem + "_" + Twine(nextId++)).str();

  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto gpuModule = gpu::GPUModuleOp::create(b, loc, name);
  b.setInsertionPointToStart(gpuModule.getBody());
  auto func = gpu::GPUFuncOp::create(b, loc, name,
                                     FunctionType::get(ctx, argTypes, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func->setAttr(spirv::getEntryPointABIAttrName(),
                spirv::getEntryPointABIAttr(
                    ctx, {static_cast<int32_t>(localSize), 1, 1}));

  b.setInsertionPointToStart(&func.getBody().front());
  Value wg = indexConst(b, loc, localSize);
  Value block = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value start = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, block, wg), thread);
  Value end = indexConst(b, loc, items);
  ValueRange args = func.getArguments();
  // When the launch (groupsFor(items) groups, as in the lowering) gives
  // every work item its own invocation, each runs at most one: on llvmpipe
  // a loop whose trip count differs between lanes made a 64x64x64 matmul
  // 20-30% slower than the same body under an `if` (measured), and an
  // exact cover needs no condition at all.
  int64_t launched =
      groupsFor(items, localSize) * static_cast<int64_t>(localSize);
  if (launched == items) {
    emitItem(b, loc, start, args);
  } else if (launched > items) {
    Value inRange =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, start, end);
    auto guard = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard insertion(b);
    b.setInsertionPointToStart(guard.thenBlock());
    emitItem(b, loc, start, args);
  } else {
    Value grid = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
    Value step = arith::MulIOp::create(b, loc, grid, wg);
    scf::ForOp::create(b, loc, start, end, step, ValueRange(),
                       [&](OpBuilder &nb, Location nloc, Value i, ValueRange) {
                         emitItem(nb, nloc, i, args);
                         scf::YieldOp::create(nb, nloc);
                       });
  }
  gpu::ReturnOp::create(b, loc);
  return func;
}

/// The attributes of `op` that say what it computes: all but where
/// ag-plan-buffers put its tensors, which the kernel does not see.
static DictionaryAttr computeAttrs(Operation *op) {
  SmallVector<NamedAttribute> attrs;
  for (NamedAttribute attr : op->getAttrs())
    if (!llvm::is_contained(kOpPlanAttrs, attr.getName().getValue()))
      attrs.push_back(attr);
  return DictionaryAttr::get(op->getContext(), attrs);
}

/// A key identifying kernels that compute the same thing.
static std::string kernelKey(Operation *op) {
  std::string key;
  llvm::raw_string_ostream os(key);
  // A region is its body: ops, attributes and types, with values numbered
  // in order of definition (block arguments first), so that equal bodies
  // over different operands share a kernel.
  if (isa<DispatchRegionOp, WorkgroupRegionOp>(op)) {
    DenseMap<Value, unsigned> number;
    Block &body = op->getRegion(0).front();
    os << op->getName() << computeAttrs(op) << '(';
    for (BlockArgument arg : body.getArguments()) {
      number[arg] = number.size();
      os << arg.getType() << ',';
    }
    os << ")->";
    for (Type t : op->getResultTypes())
      os << t << ',';
    for (Operation &inner : body) {
      os << ';' << inner.getName() << computeAttrs(&inner);
      for (Value operand : inner.getOperands())
        os << " %" << number.lookup(operand);
      for (Value result : inner.getResults()) {
        number[result] = number.size();
        os << " ->" << result.getType();
      }
    }
    return key;
  }
  os << op->getName() << computeAttrs(op);
  for (Type t : op->getOperandTypes())
    os << ',' << t;
  for (Type t : op->getResultTypes())
    os << "->" << t;
  return key;
}

/// The kernel name before its number: the op's name, or for a dispatch
/// region the names of its ops in order (`add_tanh`), so that profiles and
/// graph dumps show what fused; long chains are cut (`mul_sub_mul_plus3`).
static std::string kernelStem(Operation *op) {
  if (!isa<DispatchRegionOp, WorkgroupRegionOp>(op))
    return op->getName().stripDialect().str();
  SmallVector<StringRef> names;
  if (isa<WorkgroupRegionOp>(op))
    names.push_back("workgroup");
  for (Operation &inner : op->getRegion(0).front().without_terminator())
    if (!isa<ConstantOp>(inner))
      names.push_back(inner.getName().stripDialect());
  constexpr size_t kShown = 3;
  std::string stem;
  for (auto [i, name] : llvm::enumerate(names)) {
    if (i == kShown && names.size() > kShown + 1) {
      stem += "_plus" + std::to_string(names.size() - kShown);
      break;
    }
    stem += (i ? "_" : "") + name.str();
  }
  return stem.empty() ? "dispatch_region" : stem;
}

/// Emits work item `i` of the kernel computing `op`.
static void emitItem(Operation *op, int64_t shareLanes, OpBuilder &b,
                     Location loc, Value i, ValueRange args) {
  TypeSwitch<Operation *>(op)
      .Case(
          [&](MatmulOp m) { emitTiledMatmul(m, shareLanes, b, loc, i, args); })
      .Case<SumOp, MeanOp, MaxOp>(
          [&](Operation *r) { emitReduction(r, b, loc, i, args); })
      .Case<SoftmaxOp, LogSoftmaxOp>(
          [&](Operation *s) { emitSoftmaxRow(s, b, loc, i, args); })
      .Case([&](CrossEntropyOp c) { emitCrossEntropy(c, b, loc, i, args); })
      .Case([&](MseOp m) { emitMse(m, b, loc, i, args); })
      .Case([&](TransposeOp t) { emitTranspose(t, b, loc, i, args); })
      .Case([&](ConcatOp c) { emitConcat(c, b, loc, i, args); })
      .Case([&](SliceOp s) { emitSlice(s, b, loc, i, args); })
      .Case([&](GetRowsOp g) { emitGetRows(g, b, loc, i, args); })
      .Case([&](OneHotOp o) { emitOneHot(o, b, loc, i, args); })
      .Case([&](ScatterAddRowsOp s) { emitScatterAddRows(s, b, loc, i, args); })
      .Case([&](DispatchRegionOp r) {
        if (Operation *reduction = regionReduction(r))
          emitReductionOf(
              reduction,
              [&](OpBuilder &nb, Location nloc, ValueRange at) {
                return regionElement(r, nb, nloc, at, args.drop_back());
              },
              b, loc, i, args.back(),
              [&](OpBuilder &eb, Location eloc, Value reduced) {
                SmallVector<Value> inputs;
                for (BlockArgument arg : reductionEpilogueInputs(r))
                  inputs.push_back(args[arg.getArgNumber()]);
                return regionEpilogue(r, eb, eloc, reduced, inputs);
              });
        else if (r.getMatmul())
          emitMatmulRegion(r, shareLanes, b, loc, i, args);
        else
          emitElementwiseRegion(r, b, loc, i, args);
      })
      .Default([&](Operation *e) { emitElementwise(e, b, loc, i, args); });
}

FailureOr<gpu::GPUFuncOp> KernelBuilder::getOrCreate(Operation *op) {
  if (!capture::isCompute(op))
    return op->emitOpError() << "has no GPU kernel";
  std::string key = kernelKey(op);
  if (auto it = cache.find(key); it != cache.end())
    return it->second;

  // Operands then the result: the last argument is the one written.
  SmallVector<Type> argTypes;
  if (auto matmul = dyn_cast<MatmulOp>(op)) {
    argTypes = matmulArgTypes(matmul);
  } else if (auto region = dyn_cast<DispatchRegionOp>(op);
             region && !regionReduction(region)) {
    argTypes = region.getMatmul() ? matmulRegionArgTypes(region)
                                  : elementwiseRegionArgTypes(region);
  } else {
    for (Type t : op->getOperandTypes())
      argTypes.push_back(memrefOf(t));
    for (Type t : op->getResultTypes())
      argTypes.push_back(memrefOf(t));
  }
  gpu::GPUFuncOp func;
  if (auto check = dyn_cast<CheckIndicesOp>(op)) {
    int64_t n =
        cast<RankedTensorType>(check.getIndices().getType()).getNumElements();
    if (n > kMaxCheckedIndices)
      return op->emitOpError()
             << "checks " << n << " indices, more than the "
             << kMaxCheckedIndices
             << " one check kernel covers (llvmpipe ends an invocation's "
                "loops after 65535 iterations)";
    int64_t lanes = checkIndicesLanes(n);
    func = createKernel(
        kernelStem(op), argTypes, lanes,
        [&](OpBuilder &b, Location loc, Value t, ValueRange args) {
          emitCheckIndices(check, b, loc, t, args);
        },
        lanes);
  } else {
    // Only matmuls have multiply-adds, so only they may get smaller
    // workgroups.
    int64_t items = workItems(op);
    func = createKernel(
        kernelStem(op), argTypes, items,
        [&](OpBuilder &b, Location loc, Value i, ValueRange args) {
          emitItem(op, matmulShareLanes, b, loc, i, args);
        },
        matmulLocalSize(items, multiplyAdds(op)));
  }
  // Arguments bound as vec4 elements or flat lose their tensor shape:
  // record it for the module file's binding shapes.
  SmallVector<Type> tensorTypes;
  for (Value operand : kernelOperands(op))
    tensorTypes.push_back(operand.getType());
  llvm::append_range(tensorTypes, op->getResultTypes());
  if (llvm::any_of(llvm::zip(argTypes, tensorTypes), [](auto pair) {
        auto [arg, tensor] = pair;
        return cast<MemRefType>(arg).getShape() !=
               cast<RankedTensorType>(tensor).getShape();
      })) {
    SmallVector<Attribute> shapes;
    for (Type t : tensorTypes)
      shapes.push_back(DenseI64ArrayAttr::get(
          module.getContext(), cast<RankedTensorType>(t).getShape()));
    func->setAttr(kBindingShapesAttr,
                  ArrayAttr::get(module.getContext(), shapes));
  }
  // Every result is written (more than the last: a matmul region's sums).
  if (op->getNumResults() > 1) {
    SmallVector<int32_t> writes;
    for (size_t i = argTypes.size() - op->getNumResults(); i < argTypes.size();
         ++i)
      writes.push_back(static_cast<int32_t>(i));
    func->setAttr(kKernelWritesAttr,
                  DenseI32ArrayAttr::get(module.getContext(), writes));
  }
  cache[key] = func;
  return func;
}

gpu::GPUFuncOp KernelBuilder::getOrCreateCopy(RankedTensorType type) {
  std::string key;
  llvm::raw_string_ostream(key) << "copy:" << type;
  if (auto it = cache.find(key); it != cache.end())
    return it->second;
  MemRefType memref = memrefOf(type);
  gpu::GPUFuncOp func =
      createKernel("copy", {memref, memref}, type.getNumElements(),
                   [&](OpBuilder &b, Location loc, Value i, ValueRange args) {
                     SmallVector<Value> idx =
                         delinearize(b, loc, i, type.getShape());
                     Value v = memref::LoadOp::create(b, loc, args[0], idx);
                     memref::StoreOp::create(b, loc, v, args[1], idx);
                   });
  cache[key] = func;
  return func;
}

std::optional<KernelBuilder::TwoPass>
KernelBuilder::getOrCreateTwoPass(Operation *op) {
  std::optional<SplitReduction> split = splitReductionOf(op);
  if (!split)
    return std::nullopt;
  std::string key = kernelKey(op) + ":two-pass";
  auto partialIt = cache.find(key + ":partial");
  if (partialIt != cache.end())
    return TwoPass{partialIt->second, cache[key + ":final"], split->parts};
  MLIRContext *ctx = module.getContext();
  auto partials = MemRefType::get({split->parts}, Float32Type::get(ctx));
  std::string stem = kernelStem(op);
  // The partials' inputs: the reduced tensor, or the region inputs its
  // producers read.
  SmallVector<Type> inputs = partialReductionArgTypes(op, *split);
  auto region = dyn_cast<DispatchRegionOp>(op);
  Operation *reduction = region ? regionReduction(region) : op;
  gpu::GPUFuncOp partial = createKernel(
      stem + "_partial", inputs, split->parts,
      [&](OpBuilder &b, Location loc, Value i, ValueRange args) {
        if (!region) {
          emitPartialReduction(op, *split, b, loc, i, args);
          return;
        }
        // Every block argument's memref, null for the inputs the pass does
        // not bind (those only the epilogue reads).
        SmallVector<Value> memrefs;
        ValueRange bound = args.drop_back();
        for (BlockArgument arg : region.getBlock().getArguments()) {
          bool read = producersRead(region, arg);
          memrefs.push_back(read ? bound.front() : Value());
          if (read)
            bound = bound.drop_front();
        }
        if (partialReadsVec4(op)) {
          emitPartialReductionLanes(
              reduction, *split,
              [&](OpBuilder &nb, Location nloc, Value v) {
                return regionReductionLanes(region, nb, nloc, v, memrefs);
              },
              b, loc, i, args.back());
          return;
        }
        emitPartialReductionOf(
            reduction, *split,
            [&](OpBuilder &nb, Location nloc, ValueRange at) {
              return regionElement(region, nb, nloc, at, memrefs);
            },
            b, loc, i, args.back());
      });
  // The final pass: the partials, the inputs its epilogue reads, the
  // result.
  SmallVector<Type> finalTypes = {partials};
  if (region)
    for (BlockArgument arg : reductionEpilogueInputs(region))
      finalTypes.push_back(memrefOf(arg.getType()));
  finalTypes.push_back(memrefOf(op->getResult(0).getType()));
  gpu::GPUFuncOp final =
      createKernel(stem + "_final", finalTypes, 1,
                   [&](OpBuilder &b, Location loc, Value i, ValueRange args) {
                     SmallVector<Value> ends = {args.front(), args.back()};
                     if (!region) {
                       emitFinalReduction(reduction, *split, b, loc, i, ends);
                       return;
                     }
                     emitFinalReduction(
                         reduction, *split, b, loc, i, ends,
                         [&](OpBuilder &eb, Location eloc, Value reduced) {
                           return regionEpilogue(region, eb, eloc, reduced,
                                                 args.drop_front().drop_back());
                         });
                   });
  // Inputs bound as vec4s lose their tensor shape: record it.
  SmallVector<Attribute> shapes;
  for (Value input : partialPassInputs(op))
    shapes.push_back(DenseI64ArrayAttr::get(
        ctx, cast<RankedTensorType>(input.getType()).getShape()));
  shapes.push_back(DenseI64ArrayAttr::get(ctx, {split->parts}));
  partial->setAttr(kBindingShapesAttr, ArrayAttr::get(ctx, shapes));
  cache[key + ":partial"] = partial;
  cache[key + ":final"] = final;
  return TwoPass{partial, final, split->parts};
}

SmallVector<Value> KernelBuilder::kernelOperands(Operation *op) {
  auto region = dyn_cast<DispatchRegionOp>(op);
  if (!region || !region.getMatmul())
    return SmallVector<Value>(op->getOperands());
  SmallVector<Value> operands;
  for (unsigned input : matmulRegionBindings(region))
    operands.push_back(region.getInputs()[input]);
  return operands;
}

gpu::GPUFuncOp KernelBuilder::getOrCreateWorkgroup(WorkgroupRegionOp op) {
  std::string key = kernelKey(op) + ":" + std::to_string(subgroupSize);
  if (auto it = cache.find(key); it != cache.end())
    return it->second;
  SmallVector<Type> argTypes = workgroupRegionArgTypes(op);
  int64_t lanes = subgroupSize;
  gpu::GPUFuncOp func = createKernel(
      kernelStem(op), argTypes, lanes,
      [&](OpBuilder &b, Location loc, Value t, ValueRange args) {
        emitWorkgroupRegion(op, lanes, b, loc, t, args);
      },
      subgroupSize);
  // The results and the scratch values are written.
  SmallVector<int32_t> writes;
  for (size_t i = op.getInputs().size(); i < argTypes.size(); ++i)
    writes.push_back(static_cast<int32_t>(i));
  func->setAttr(kKernelWritesAttr,
                DenseI32ArrayAttr::get(module.getContext(), writes));
  cache[key] = func;
  return func;
}

int64_t KernelBuilder::adamWWorkItems(int64_t size) {
  int64_t vectors = (size + kAdamWLanes - 1) / kAdamWLanes;
  return (vectors + kAdamWVectors - 1) / kAdamWVectors;
}

gpu::GPUFuncOp KernelBuilder::getOrCreateAdamW(int64_t size, bool decoupled,
                                               ArrayRef<GroupRun> runs,
                                               DispatchRegionOp prologue) {
  // Adam with L2 weight decay is its own kernel, named as torch names it.
  std::string stem = decoupled ? "adamw" : "adam";
  int64_t groups = 1;
  std::string key;
  llvm::raw_string_ostream os(key);
  os << stem << ":" << size << ":" << (prologue ? kernelKey(prologue) : "");
  for (const GroupRun &run : runs) {
    os << ":" << run.start << "=" << run.group;
    groups = std::max(groups, run.group + 1);
  }
  if (auto it = cache.find(key); it != cache.end())
    return it->second;
  MLIRContext *ctx = module.getContext();
  auto f32 = Float32Type::get(ctx);
  int64_t vectors = (size + kAdamWLanes - 1) / kAdamWLanes;
  auto flat4 = vec4Memref(ctx, size);
  auto scalar = MemRefType::get({}, f32);
  auto hyper = MemRefType::get({ag::kAdamWHyperValues * groups}, f32);
  // The gradients' bindings: the flat array, or the prologue's inputs.
  SmallVector<Type> argTypes = {flat4};
  Attribute pack = DenseI64ArrayAttr::get(ctx, {size});
  SmallVector<Attribute> shapes = {pack};
  if (prologue) {
    argTypes = elementwiseRegionArgTypes(prologue);
    argTypes.pop_back();
    shapes.clear();
    for (Value input : prologue.getInputs())
      shapes.push_back(DenseI64ArrayAttr::get(
          ctx, cast<RankedTensorType>(input.getType()).getShape()));
  }
  size_t grads = argTypes.size();
  argTypes.append({scalar, hyper, flat4, flat4, flat4, flat4, flat4, flat4});
  gpu::GPUFuncOp func = createKernel(
      prologue ? stem + "_" + kernelStem(prologue) : stem, argTypes,
      adamWWorkItems(size),
      [&](OpBuilder &b, Location loc, Value i, ValueRange args) {
        auto gradLanes = [&](OpBuilder &gb, Location gloc, Value vi) {
          if (prologue)
            return elementwiseRegionLanes(prologue, gb, gloc, vi,
                                          args.take_front(grads));
          return loadLanes(gb, gloc, args[0], vi);
        };
        emitAdamW(size, decoupled, runs, gradLanes, b, loc, i,
                  args.drop_front(grads));
      });
  int32_t first = static_cast<int32_t>(grads) + 5;
  func->setAttr(kKernelWritesAttr,
                DenseI32ArrayAttr::get(ctx, {first, first + 1, first + 2}));
  shapes.append(
      {DenseI64ArrayAttr::get(ctx, {}),
       DenseI64ArrayAttr::get(ctx, {ag::kAdamWHyperValues * groups})});
  // The written arrays include the last vector's padding, which the kernel
  // stores back unchanged.
  shapes.append(3, pack);
  shapes.append(3, DenseI64ArrayAttr::get(ctx, {vectors * kAdamWLanes}));
  func->setAttr(kBindingShapesAttr, ArrayAttr::get(ctx, shapes));
  cache[key] = func;
  return func;
}
