//===- AgToGPU.cpp - Packed ag entries to kernels and a replay schedule --===//

#include "capture/Conversion/AgToGPU/KernelBuilder.h"

#include "KernelEmitters.h"
#include "TargetPresets.h"
#include "capture/Conversion/Passes.h"
#include "capture/Dialect/Ag/IR/AgOps.h"

#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "llvm/Support/MathExtras.h"

namespace capture {
#define GEN_PASS_DEF_LOWERTOGPU
#include "capture/Conversion/Passes.h.inc"
} // namespace capture

using namespace mlir;
using namespace capture;
using namespace capture::ag;
using capture::kernels::SplitReduction;
using capture::kernels::splitReductionOf;

namespace {

/// Which buffer a tensor lives in.
enum class Home { Input, Output, Weights, Constants, Scratch, Optimizer };

/// Where one tensor lives: a byte offset of one buffer.
struct Placement {
  /// The buffer.
  Home home;
  /// Byte offset inside it.
  int64_t offset;
};

/// First-fit allocation of scratch ranges, freed after their last use.
class ScratchAllocator {
public:
  explicit ScratchAllocator(int64_t alignment) : alignment(alignment) {}

  /// Allocates `size` bytes for a value defined at step `now` and last used
  /// at step `lastUse` (INT64_MAX: never freed).
  int64_t allocate(int64_t size, int64_t now, int64_t lastUse) {
    // A value last read by the op at `now` is still bound by that op's
    // dispatch, so only strictly earlier last uses are free.
    llvm::erase_if(live, [&](const Block &b) { return b.lastUse < now; });
    llvm::sort(live, [](const Block &a, const Block &b) {
      return a.offset < b.offset;
    });
    int64_t offset = 0;
    for (const Block &b : live) {
      if (offset + size <= b.offset)
        break;
      offset = std::max<int64_t>(offset,
                                 llvm::alignTo(b.offset + b.size, alignment));
    }
    live.push_back({offset, size, lastUse});
    peak = std::max(peak, offset + size);
    return offset;
  }

  /// Bytes the scratch buffer needs (never 0: Vulkan buffers can't be).
  int64_t size() const {
    return std::max<int64_t>(llvm::alignTo(peak, 16), 16);
  }

private:
  /// A range in use.
  struct Block {
    int64_t offset, size, lastUse;
  };
  /// Alignment of every range.
  int64_t alignment;
  /// Ranges in use.
  SmallVector<Block> live;
  /// High-water mark.
  int64_t peak = 0;
};

struct LowerToGPUPass : public capture::impl::LowerToGPUBase<LowerToGPUPass> {
  using LowerToGPUBase::LowerToGPUBase;
  void runOnOperation() override;
};

} // namespace

static int64_t byteSize(Type type) {
  return getByteSize(cast<ShapedType>(type));
}

static StringRef homeName(Home home) {
  switch (home) {
  case Home::Input:
    return "input";
  case Home::Output:
    return "output";
  case Home::Weights:
    return "weights";
  case Home::Constants:
    return "constants";
  case Home::Scratch:
    return "scratch";
  case Home::Optimizer:
    return "optimizer";
  }
  llvm_unreachable("unknown home");
}

/// The value whose bytes `value` aliases through probes and reshapes. A
/// reshape of a row-major tensor is the same bytes in the same order, so it
/// gets no kernel and no placement of its own: users view the root's range
/// with the reshaped type, and the root's liveness covers the reshape's
/// users (lastUse is keyed by root).
static Value rootOf(Value value) {
  while (true) {
    if (auto probe = value.getDefiningOp<ProbeOp>())
      value = probe.getInput();
    else if (auto reshape = value.getDefiningOp<ReshapeOp>())
      value = reshape.getInput();
    else
      return value;
  }
}

/// The constant value of a constant op or a constant upload, if any.
static ElementsAttr constantValue(Operation *op) {
  if (auto cst = dyn_cast<ConstantOp>(op))
    return cst.getValue();
  if (auto upload = dyn_cast<UploadOp>(op); upload && upload.getConstant())
    return *upload.getValue();
  return {};
}

/// Appends the little-endian bytes of an f32 elements attribute.
static void appendBytes(ElementsAttr value, std::vector<char> &bytes) {
  for (APFloat v : value.getValues<APFloat>()) {
    float f = v.convertToFloat();
    const char *p = reinterpret_cast<const char *>(&f);
    bytes.insert(bytes.end(), p, p + sizeof(float));
  }
}

/// Creates a private i8 memref.global of `size` bytes, optionally initialized.
static memref::GlobalOp createGlobal(OpBuilder &b, Location loc, StringRef name,
                                     int64_t size, ArrayRef<char> init,
                                     bool constant) {
  auto type = MemRefType::get({size}, b.getI8Type());
  Attribute initial = b.getUnitAttr(); // uninitialized
  if (!init.empty())
    initial = DenseElementsAttr::getFromRawBuffer(
        RankedTensorType::get({size}, b.getI8Type()), init);
  return memref::GlobalOp::create(b, loc, name, b.getStringAttr("private"),
                                  type, initial, constant,
                                  /*alignment=*/b.getI64IntegerAttr(256));
}

/// An integer attribute the lowering put on `op`.
static int64_t offsetAttr(Operation *op, StringRef name) {
  return op->getAttrOfType<IntegerAttr>(name).getInt();
}

/// The name of the layout segment at byte `offset` of `layout`.
static StringAttr segmentNameAt(ArrayAttr layout, int64_t offset) {
  for (Attribute a : layout)
    if (auto segment = cast<SegmentAttr>(a); segment.getOffset() == offset)
      return StringAttr::get(a.getContext(), segment.getName());
  return {};
}

/// What the runtime needs to drive a lowered training step (kTrainAttr).
static DictionaryAttr trainInfo(TrainStepOp step, ApplyAdamWOp update,
                                PackOutputsOp outputs) {
  OpBuilder b(step);
  SmallVector<NamedAttribute> info = {
      b.getNamedAttr("pack", update.getPackAttr()),
      b.getNamedAttr("adamw", step.getAdamW())};
  auto inputs =
      step->getAttrOfType<ArrayAttr>(ForwardOp::getInputLayoutAttrName());
  auto hyper = update.getHyper().getDefiningOp<InputViewOp>();
  info.push_back(
      b.getNamedAttr("hyper_input", segmentNameAt(inputs, hyper.getOffset())));
  if (std::optional<APFloat> limit = step.getMaxGradNorm()) {
    info.push_back(b.getNamedAttr("max_grad_norm", step.getMaxGradNormAttr()));
    info.push_back(b.getNamedAttr("max_grad_norm_input",
                                  b.getStringAttr(kMaxGradNormName)));
  }
  auto names =
      step->getAttrOfType<ArrayAttr>(ForwardOp::getOutputLayoutAttrName());
  for (auto [i, value] : llvm::enumerate(outputs.getOutputs()))
    if (value == update.getGradNorm())
      info.push_back(b.getNamedAttr(
          "grad_norm_output",
          b.getStringAttr(cast<SegmentAttr>(names[i]).getName())));
  return b.getDictionaryAttr(info);
}

/// Lowers one packed entry (an ag.forward or ag.train_step).
static LogicalResult
lowerEntry(FunctionOpInterface entry, KernelBuilder &kernels,
           const llvm::StringMap<int64_t> &weightOffsets,
           const DenseMap<Attribute, int64_t> &constOffsets,
           int64_t alignment) {
  Block &body = entry.getFunctionBody().front();
  auto pack = cast<PackOutputsOp>(
      cast<ReturnOp>(body.getTerminator()).getOperand(0).getDefiningOp());

  // Step numbers and last uses (of probe roots) for liveness.
  DenseMap<Operation *, int64_t> step;
  DenseMap<Value, int64_t> lastUse;
  int64_t n = 0;
  for (Operation &op : body) {
    step[&op] = n;
    for (Value operand : op.getOperands())
      lastUse[rootOf(operand)] = n;
    ++n;
  }
  for (ProbeOp probe : body.getOps<ProbeOp>())
    lastUse[rootOf(probe)] = INT64_MAX;
  // An update prologue runs inside the AdamW kernel, after everything
  // else: its inputs stay live to the end.
  auto isPrologue = [](Operation *op) {
    return isa<DispatchRegionOp>(op) && op->hasAttr(kUpdatePrologueAttr);
  };
  for (Operation &op : body)
    if (isPrologue(&op))
      for (Value input : op.getOperands())
        lastUse[rootOf(input)] = INT64_MAX;

  // Outputs computed in this entry are written in place in the output
  // buffer, and gradients in place in their param pack's flat array.
  DenseMap<Value, Placement> inPlace;
  auto isComputed = [](Value root) {
    Operation *def = root.getDefiningOp();
    return def && KernelBuilder::isCompute(def);
  };
  for (auto [value, offset] : llvm::zip(pack.getOutputs(), pack.getOffsets()))
    if (Value root = rootOf(value); isComputed(root))
      inPlace.try_emplace(root, Placement{Home::Output, offset});
  auto packOf = [&](Operation *op, FlatSymbolRefAttr ref) {
    return SymbolTable::lookupNearestSymbolFrom<ParamPackOp>(op, ref);
  };
  auto gradSlot = [&](PackGradsOp grads, unsigned i) {
    ParamPackOp paramPack = packOf(grads, grads.getPackAttr());
    return Placement{Home::Optimizer,
                     offsetAttr(paramPack, kGradsOffsetAttr) +
                         paramPack.getOffsets()[i] *
                             static_cast<int64_t>(sizeof(float))};
  };
  for (PackGradsOp grads : body.getOps<PackGradsOp>())
    for (auto [i, grad] : llvm::enumerate(grads.getGrads()))
      if (Value root = rootOf(grad); isComputed(root))
        inPlace.try_emplace(root, gradSlot(grads, i));

  // Placement of every tensor (and of the partials of two-pass reductions,
  // live during their op only).
  DenseMap<Value, Placement> where;
  DenseMap<Operation *, int64_t> partialsAt;
  DenseMap<Operation *, SmallVector<int64_t>> headScratch;
  ScratchAllocator scratch(alignment);
  for (Operation &op : body) {
    // Probes and reshapes alias their root (see rootOf); an update
    // prologue's result is never stored.
    if (isa<ReturnOp, PackOutputsOp, ProbeOp, ReshapeOp>(op) ||
        isPrologue(&op))
      continue;
    Value result = op.getNumResults() == 1 ? op.getResult(0) : Value();
    if (auto view = dyn_cast<InputViewOp>(op)) {
      where[result] = {Home::Input, static_cast<int64_t>(view.getOffset())};
    } else if (auto read = dyn_cast<ReadWeightOp>(op)) {
      where[result] = {Home::Weights, weightOffsets.lookup(read.getWeight())};
    } else if (ElementsAttr value = constantValue(&op)) {
      where[result] = {Home::Constants, constOffsets.lookup(value)};
    } else if (auto grads = dyn_cast<PackGradsOp>(op)) {
      ParamPackOp paramPack = packOf(grads, grads.getPackAttr());
      where[result] = {Home::Optimizer,
                       offsetAttr(paramPack, kGradsOffsetAttr)};
    } else if (isa<ApplyAdamWOp>(op)) {
      continue; // no result: it updates module state
    } else if (KernelBuilder::isCompute(&op)) {
      if (std::optional<SplitReduction> split = splitReductionOf(&op))
        partialsAt[&op] =
            scratch.allocate(split->parts * static_cast<int64_t>(sizeof(float)),
                             step[&op], step[&op]);
      for (Value value : op.getResults()) {
        if (auto it = inPlace.find(value); it != inPlace.end())
          where[value] = it->second;
        else
          where[value] = {Home::Scratch,
                          scratch.allocate(byteSize(value.getType()), step[&op],
                                           lastUse.lookup(value))};
      }
      // A workgroup region's unyielded reductions: live during it only.
      if (auto head = dyn_cast<WorkgroupRegionOp>(op))
        for (Value value : kernels::workgroupScratchValues(head))
          headScratch[&op].push_back(scratch.allocate(byteSize(value.getType()),
                                                      step[&op], step[&op]));
    } else {
      if (isa<UploadOp, DownloadOp, EagerOp>(op))
        return op.emitOpError()
               << "cannot be lowered: it is host interaction, which "
                  "ag-verify-capture rejects (run it first)";
      return op.emitOpError() << "has no GPU kernel";
    }
  }

  // The schedule function.
  MLIRContext *ctx = entry.getContext();
  auto trainStep = dyn_cast<TrainStepOp>(entry.getOperation());
  OpBuilder b(entry);
  Location loc = entry.getLoc();
  std::string scratchName = ("__ag_scratch_" + entry.getName()).str();
  createGlobal(b, loc, scratchName, scratch.size(), {}, /*constant=*/false);
  auto entryType = cast<FunctionType>(entry.getFunctionType());
  auto inType = cast<RankedTensorType>(entryType.getInput(0));
  auto outType = cast<RankedTensorType>(entryType.getResult(0));
  auto inMem = MemRefType::get(inType.getShape(), b.getI8Type());
  auto outMem = MemRefType::get(outType.getShape(), b.getI8Type());
  auto func = func::FuncOp::create(b, loc, entry.getName(),
                                   FunctionType::get(ctx, {inMem, outMem}, {}));
  func->setAttr(kEntryAttr, b.getStringAttr(trainStep ? "train" : "forward"));
  func->setAttr(kScratchAttr, FlatSymbolRefAttr::get(ctx, scratchName));
  func->setAttr(ForwardOp::getInputLayoutAttrName(),
                entry->getAttr(ForwardOp::getInputLayoutAttrName()));
  func->setAttr(ForwardOp::getOutputLayoutAttrName(),
                entry->getAttr(ForwardOp::getOutputLayoutAttrName()));
  Block *fb = func.addEntryBlock();
  b.setInsertionPointToStart(fb);

  // Base memrefs of the five buffers, created on first use.
  DenseMap<unsigned, Value> bases;
  auto baseOf = [&](Home home) -> Value {
    Value &base = bases[static_cast<unsigned>(home)];
    if (base)
      return base;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(fb);
    auto getGlobal = [&](StringRef name) -> Value {
      auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
          entry, StringAttr::get(ctx, name));
      return memref::GetGlobalOp::create(b, loc, global.getType(), name);
    };
    switch (home) {
    case Home::Input:
      return base = fb->getArgument(0);
    case Home::Output:
      return base = fb->getArgument(1);
    case Home::Weights:
      return base = getGlobal(kWeightsGlobal);
    case Home::Constants:
      return base = getGlobal(kConstantsGlobal);
    case Home::Scratch:
      return base = getGlobal(scratchName);
    case Home::Optimizer:
      return base = getGlobal(kOptimizerGlobal);
    }
    llvm_unreachable("unknown home");
  };
  auto viewOfType = [&](Placement p, Type memrefType) -> Value {
    Value shift = arith::ConstantIndexOp::create(b, loc, p.offset);
    return memref::ViewOp::create(b, loc, cast<MemRefType>(memrefType),
                                  baseOf(p.home), shift, ValueRange());
  };
  auto viewOf = [&](Placement p, Type tensorType) -> Value {
    auto tensor = cast<RankedTensorType>(tensorType);
    return viewOfType(
        p, MemRefType::get(tensor.getShape(), tensor.getElementType()));
  };
  auto c1 = [&]() { return arith::ConstantIndexOp::create(b, loc, 1); };
  auto launch = [&](gpu::GPUFuncOp kernel, int64_t items, ValueRange args,
                    Location at) {
    Value groups =
        arith::ConstantIndexOp::create(b, at, kernels.groupsFor(items));
    // The kernel's own workgroup size (a workgroup region's differs).
    int64_t localSize = kernels.getWorkgroupSize();
    if (auto abi = spirv::lookupEntryPointABI(kernel))
      localSize = abi.getWorkgroupSize()[0];
    Value threads = arith::ConstantIndexOp::create(b, at, localSize);
    gpu::LaunchFuncOp::create(b, at, kernel, {groups, c1(), c1()},
                              {threads, c1(), c1()}, Value(), args);
  };

  SmallVector<Attribute> probes;
  ApplyAdamWOp update;
  for (Operation &op : body) {
    if (auto apply = dyn_cast<ApplyAdamWOp>(op)) {
      update = apply; // the second graph: after the output copies below
      continue;
    }
    if (auto grads = dyn_cast<PackGradsOp>(op)) {
      // Gradients not computed in place (a weight's, an input's, one shared
      // by two weights) are copied into the flat array.
      for (auto [i, grad] : llvm::enumerate(grads.getGrads())) {
        Placement to = gradSlot(grads, i);
        Placement from = where.lookup(rootOf(grad));
        if (from.home == to.home && from.offset == to.offset)
          continue;
        auto type = cast<RankedTensorType>(grad.getType());
        launch(kernels.getOrCreateCopy(type), type.getNumElements(),
               {viewOf(from, type), viewOf(to, type)}, grad.getLoc());
      }
      continue;
    }
    if (auto probe = dyn_cast<ProbeOp>(op)) {
      Placement p = where.lookup(rootOf(probe));
      auto type = cast<RankedTensorType>(probe.getType());
      auto segment =
          SegmentAttr::get(ctx, probe.getProbeName(), type.getShape(),
                           type.getElementType(), p.offset);
      probes.push_back(b.getDictionaryAttr(
          {b.getNamedAttr("segment", segment),
           b.getNamedAttr("buffer", b.getStringAttr(homeName(p.home)))}));
      continue;
    }
    if (!KernelBuilder::isCompute(&op) || isPrologue(&op))
      continue;
    if (std::optional<KernelBuilder::TwoPass> twoPass =
            kernels.getOrCreateTwoPass(&op)) {
      auto partials = RankedTensorType::get({twoPass->parts}, b.getF32Type());
      Placement at{Home::Scratch, partialsAt.lookup(&op)};
      // The reduced tensor, or a reduction region's inputs.
      SmallVector<Value> partialArgs;
      for (Value input : op.getOperands())
        partialArgs.push_back(
            viewOf(where.lookup(rootOf(input)), input.getType()));
      partialArgs.push_back(viewOf(at, partials));
      Value result = op.getResult(0);
      launch(twoPass->partial, twoPass->parts, partialArgs, op.getLoc());
      launch(twoPass->final, 1,
             {viewOf(at, partials),
              viewOf(where.lookup(result), result.getType())},
             op.getLoc());
      continue;
    }
    if (auto head = dyn_cast<WorkgroupRegionOp>(op)) {
      gpu::GPUFuncOp kernel = kernels.getOrCreateWorkgroup(head);
      SmallVector<Value> args;
      for (Value input : head.getInputs())
        args.push_back(viewOf(where.lookup(rootOf(input)), input.getType()));
      for (Value result : head.getResults())
        args.push_back(viewOf(where.lookup(result), result.getType()));
      for (auto [value, offset] : llvm::zip(
               kernels::workgroupScratchValues(head), headScratch.lookup(&op)))
        args.push_back(viewOf({Home::Scratch, offset}, value.getType()));
      launch(kernel, kernels.getSubgroupSize(), args, op.getLoc());
      continue;
    }
    FailureOr<gpu::GPUFuncOp> kernel = kernels.getOrCreate(&op);
    if (failed(kernel))
      return failure();
    // Views of the kernel's own argument types: a template may bind a
    // tensor as vector<4xf32> elements.
    SmallVector<Value> args;
    ArrayRef<Type> argTypes = kernel->getArgumentTypes();
    SmallVector<Value> operands = KernelBuilder::kernelOperands(&op);
    for (auto [operand, type] : llvm::zip(operands, argTypes))
      args.push_back(viewOfType(where.lookup(rootOf(operand)), type));
    // Then every result (a matmul region's column sums after its result).
    for (auto [result, type] :
         llvm::zip(op.getResults(), argTypes.drop_front(operands.size())))
      args.push_back(viewOfType(where.lookup(result), type));
    launch(*kernel, KernelBuilder::workItems(&op), args, op.getLoc());
  }

  // Outputs not computed in place (inputs, weights, constants, repeats,
  // reshapes of any of these): copied, viewing the source with the output's
  // type, which a reshape allows since the bytes are the same.
  for (auto [value, offset] : llvm::zip(pack.getOutputs(), pack.getOffsets())) {
    Value root = rootOf(value);
    Placement from = where.lookup(root);
    if (from.home == Home::Output && from.offset == offset)
      continue;
    auto type = cast<RankedTensorType>(value.getType());
    launch(kernels.getOrCreateCopy(type), type.getNumElements(),
           {viewOf(from, type), viewOf({Home::Output, offset}, type)},
           value.getLoc());
  }
  // AdamW writes the weights every kernel above may read (the output
  // copies included: outputs are values from before the update), so it
  // comes last; ag-insert-barriers separates it by a barrier.
  if (update) {
    ParamPackOp paramPack = packOf(update, update.getPackAttr());
    int64_t size = static_cast<int64_t>(paramPack.getSize());
    auto prologue = update.getGrads().getDefiningOp<DispatchRegionOp>();
    if (prologue && !prologue->hasAttr(kUpdatePrologueAttr))
      prologue = {};
    gpu::GPUFuncOp adamw = kernels.getOrCreateAdamW(size, prologue);
    ArrayRef<Type> types = adamw.getArgumentTypes();
    Placement params{Home::Weights, offsetAttr(paramPack, kWeightOffsetAttr)};
    Placement m1{Home::Optimizer, offsetAttr(paramPack, kMoment1OffsetAttr)};
    Placement m2{Home::Optimizer, offsetAttr(paramPack, kMoment2OffsetAttr)};
    // The gradients (or the prologue's inputs), then the parameters and
    // moments twice: read views, then the written ranges.
    SmallVector<Value> grads =
        prologue ? SmallVector<Value>(prologue.getInputs())
                 : SmallVector<Value>{update.getGrads()};
    SmallVector<Value> args;
    for (auto [value, type] : llvm::zip(grads, types))
      args.push_back(viewOfType(where.lookup(rootOf(value)), type));
    ArrayRef<Type> rest = types.drop_front(grads.size());
    args.append(
        {viewOfType(where.lookup(rootOf(update.getGradNorm())), rest[0]),
         viewOfType(where.lookup(rootOf(update.getHyper())), rest[1]),
         viewOfType(params, rest[2]), viewOfType(m1, rest[3]),
         viewOfType(m2, rest[4]), viewOfType(params, rest[5]),
         viewOfType(m1, rest[6]), viewOfType(m2, rest[7])});
    launch(adamw, KernelBuilder::adamWWorkItems(size), args, update.getLoc());
    func->setAttr(kTrainAttr, trainInfo(trainStep, update, pack));
  }
  func::ReturnOp::create(b, loc);
  func->setAttr(kProbesAttr, b.getArrayAttr(probes));
  entry->erase();
  return success();
}

void LowerToGPUPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  if (alignment < 16 || !llvm::isPowerOf2_64(alignment)) {
    module.emitError() << "ag-lower-to-gpu: alignment must be a power of two "
                          ">= 16, got "
                       << alignment.getValue();
    return signalPassFailure();
  }
  SmallVector<FunctionOpInterface> entries;
  for (Operation &op : module.getOps())
    if (isa<ForwardOp, TrainStepOp>(op))
      entries.push_back(cast<FunctionOpInterface>(op));
  for (FunctionOpInterface entry : entries) {
    bool packed = isa<ForwardOp>(entry) ? cast<ForwardOp>(entry).isPacked()
                                        : cast<TrainStepOp>(entry).isPacked();
    if (!packed) {
      entry.emitOpError() << "must be packed first: run ag-pack-io before "
                             "ag-lower-to-gpu";
      return signalPassFailure();
    }
  }

  // Weights: one buffer. The weights of each param pack come first, as the
  // pack's flat array (element offsets scaled to bytes), then every other
  // weight at its own aligned offset.
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  llvm::StringMap<int64_t> weightOffsets;
  int64_t weightBytes = 0;
  int64_t optimizerBytes = 0;
  constexpr int64_t f32Bytes = sizeof(float);
  for (ParamPackOp pack : module.getOps<ParamPackOp>()) {
    int64_t bytes = static_cast<int64_t>(pack.getSize()) * f32Bytes;
    int64_t base = llvm::alignTo(weightBytes, alignment);
    pack->setAttr(kWeightOffsetAttr, b.getI64IntegerAttr(base));
    for (auto [ref, offset] :
         llvm::zip(pack.getWeights().getAsRange<FlatSymbolRefAttr>(),
                   pack.getOffsets())) {
      if (base + offset * f32Bytes != 0 &&
          (base + offset * f32Bytes) % alignment != 0) {
        pack.emitOpError() << "places " << ref << " at element " << offset
                           << ", which is not aligned to the " << alignment
                           << "-byte binding alignment: run ag-pack-params "
                              "with the same alignment";
        return signalPassFailure();
      }
      weightOffsets[ref.getValue()] = base + offset * f32Bytes;
    }
    weightBytes = base + bytes;
    // Gradients, first and second moments: three arrays of the same layout.
    for (StringRef attr :
         {kGradsOffsetAttr, kMoment1OffsetAttr, kMoment2OffsetAttr}) {
      int64_t at = llvm::alignTo(optimizerBytes, alignment);
      pack->setAttr(attr, b.getI64IntegerAttr(at));
      optimizerBytes = at + bytes;
    }
  }
  for (WeightOp weight : module.getOps<WeightOp>()) {
    if (!weightOffsets.count(weight.getSymName())) {
      int64_t offset = llvm::alignTo(weightBytes, alignment);
      weightOffsets[weight.getSymName()] = offset;
      weightBytes = offset + byteSize(weight.getType());
    }
    weight->setAttr(kWeightOffsetAttr,
                    b.getI64IntegerAttr(weightOffsets[weight.getSymName()]));
  }
  if (!weightOffsets.empty())
    createGlobal(b, module.getLoc(), kWeightsGlobal,
                 std::max<int64_t>(llvm::alignTo(weightBytes, 16), 16), {},
                 /*constant=*/false);
  if (optimizerBytes > 0)
    createGlobal(b, module.getLoc(), kOptimizerGlobal,
                 llvm::alignTo(optimizerBytes, 16), {}, /*constant=*/false);

  // Constants: one read-only buffer with their bytes, equal values shared.
  DenseMap<Attribute, int64_t> constOffsets;
  std::vector<char> constBytes;
  module.walk([&](Operation *op) {
    ElementsAttr value = constantValue(op);
    if (!value || constOffsets.count(value))
      return;
    constBytes.resize(llvm::alignTo(constBytes.size(), alignment), 0);
    constOffsets[value] = constBytes.size();
    appendBytes(value, constBytes);
  });
  if (!constOffsets.empty()) {
    constBytes.resize(
        std::max<size_t>(llvm::alignTo(constBytes.size(), 16), 16), 0);
    createGlobal(b, module.getLoc(), kConstantsGlobal, constBytes.size(),
                 constBytes, /*constant=*/true);
  }

  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  b.getUnitAttr());
  module->setAttr(kAlignmentAttr, b.getI64IntegerAttr(alignment));
  if (!module->hasAttr(kTargetAttr)) {
    FailureOr<ag::TargetAttr> preset = targetPreset(ctx, target);
    if (failed(preset)) {
      module.emitError() << "ag-lower-to-gpu: unknown target '" << target
                         << "': expected 'lavapipe' or 'gpu'"
                         << suggestTarget(target);
      return signalPassFailure();
    }
    module->setAttr(kTargetAttr, *preset);
  } else if (!isa<ag::TargetAttr>(module->getAttr(kTargetAttr))) {
    module.emitError() << "'" << kTargetAttr
                       << "' must be an #ag.target<...> attribute, got "
                       << module->getAttr(kTargetAttr);
    return signalPassFailure();
  }
  if (!module->hasAttr(spirv::getTargetEnvAttrName())) {
    // Vulkan 1.1-era SPIR-V 1.3 with storage buffers and storage texel
    // buffers: what every Vulkan 1.1+ device (lavapipe included) accepts.
    auto triple = spirv::VerCapExtAttr::get(
        spirv::Version::V_1_3,
        {spirv::Capability::Shader, spirv::Capability::ImageBuffer,
         spirv::Capability::SampledBuffer},
        {spirv::Extension::SPV_KHR_storage_buffer_storage_class}, ctx);
    module->setAttr(
        spirv::getTargetEnvAttrName(),
        spirv::TargetEnvAttr::get(triple, spirv::getDefaultResourceLimits(ctx),
                                  spirv::ClientAPI::Vulkan));
  }

  auto targetAttr = cast<ag::TargetAttr>(module->getAttr(kTargetAttr));
  KernelBuilder kernels(module, workgroupSize, targetAttr.getSubgroupSize());
  for (FunctionOpInterface entry : entries)
    if (failed(
            lowerEntry(entry, kernels, weightOffsets, constOffsets, alignment)))
      return signalPassFailure();
}
