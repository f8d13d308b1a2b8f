//===- PlanBuffers.cpp - Where every tensor of a module lives -------------===//
//
// The buffer layout is a decision in the IR: typed #ag.place attributes that
// ag-lower-to-gpu follows and tests can check, made for a whole entry at
// once (scratch ranges are reused by liveness), which is why it is a pass.
// It lives beside the lowering because the kernel templates decide what
// scratch they need besides the tensors (two-pass partials, stages).
//
//===----------------------------------------------------------------------===//

#include "BufferPlan.h"
#include "capture/Conversion/Passes.h"
#include "capture/Dialect/Ag/IR/AgOps.h"

#include "llvm/Support/MathExtras.h"

namespace capture {
#define GEN_PASS_DEF_PLANBUFFERS
#include "capture/Conversion/Passes.h.inc"
} // namespace capture

using namespace mlir;
using namespace capture;
using namespace capture::ag;

namespace {

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
    /// First byte.
    int64_t offset;
    /// Bytes.
    int64_t size;
    /// Step of the last op that binds it.
    int64_t lastUse;
  };
  /// Alignment of every range.
  int64_t alignment;
  /// Ranges in use.
  SmallVector<Block> live;
  /// High-water mark.
  int64_t peak = 0;
};

struct PlanBuffersPass
    : public capture::impl::PlanBuffersBase<PlanBuffersPass> {
  using PlanBuffersBase::PlanBuffersBase;
  void runOnOperation() override;
};

} // namespace

static int64_t byteSize(Type type) {
  return getByteSize(cast<ShapedType>(type));
}

bool capture::isCompute(Operation *op) {
  return isElementwiseOp(op) ||
         isa<MatmulOp, SumOp, MeanOp, MaxOp, TransposeOp, ConcatOp, SliceOp,
             SoftmaxOp, LogSoftmaxOp, CrossEntropyOp, MseOp, GetRowsOp,
             OneHotOp, ScatterAddRowsOp, CheckIndicesOp, DispatchRegionOp,
             WorkgroupRegionOp>(op);
}

Value capture::aliasRoot(Value value) {
  while (true) {
    if (auto probe = value.getDefiningOp<ProbeOp>())
      value = probe.getInput();
    else if (auto reshape = value.getDefiningOp<ReshapeOp>())
      value = reshape.getInput();
    else
      return value;
  }
}

bool capture::isUpdatePrologue(Operation *op) {
  return isa<DispatchRegionOp>(op) && op->hasAttr(kUpdatePrologueAttr);
}

ElementsAttr capture::constantValue(Operation *op) {
  if (auto cst = dyn_cast<ConstantOp>(op))
    return cst.getValue();
  if (auto upload = dyn_cast<UploadOp>(op); upload && upload.getConstant())
    return *upload.getValue();
  return {};
}

ParamPackOp capture::paramPackOf(PackGradsOp grads) {
  return SymbolTable::lookupNearestSymbolFrom<ParamPackOp>(grads,
                                                           grads.getPackAttr());
}

ParamPackOp capture::paramPackOf(ApplyAdamWOp update) {
  return SymbolTable::lookupNearestSymbolFrom<ParamPackOp>(
      update, update.getPackAttr());
}

bool capture::needsPlace(Operation *op) {
  return !isa<ReturnOp, PackOutputsOp, ProbeOp, ReshapeOp, ApplyAdamWOp,
              AssignWeightOp>(op) &&
         !isUpdatePrologue(op);
}

LogicalResult capture::checkPlaceable(Operation *op) {
  if (isa<InputViewOp, ReadWeightOp, PackGradsOp>(op) || constantValue(op) ||
      isCompute(op))
    return success();
  if (isa<UploadOp, DownloadOp, EagerOp>(op))
    return op->emitOpError()
           << "cannot be lowered: it is host interaction, which "
              "ag-verify-capture rejects (run it first)";
  return op->emitOpError() << "has no GPU kernel";
}

PlaceAttr capture::gradSlot(PackGradsOp grads, unsigned i) {
  ParamPackOp pack = paramPackOf(grads);
  auto base = pack->getAttrOfType<PlaceAttr>(kGradsPlaceAttr);
  return PlaceAttr::get(grads.getContext(), base.getBuffer(),
                        base.getOffset() +
                            pack.getOffsets()[i] *
                                static_cast<int64_t>(sizeof(float)));
}

ReadWeightOp capture::weightSource(Value value) {
  return aliasRoot(value).getDefiningOp<ReadWeightOp>();
}

/// The end of a compiled entry copies assigned values into their weights,
/// those read from a weight first (while every weight holds its old value),
/// then the computed ones. Fails on what no order of copies computes: one
/// weight copied into another that is itself assigned a weight (a swap, or
/// a chain of hard copies); and on a probe of an assigned weight, which is
/// read after the replay, from the weight's new value.
static LogicalResult checkAssigns(Block &body) {
  llvm::StringMap<AssignWeightOp> assigned;
  for (AssignWeightOp assign : body.getOps<AssignWeightOp>())
    assigned[assign.getWeight()] = assign;
  // The assign of the weight `value` is read from, if any.
  auto assignOfSource = [&](Value value) -> AssignWeightOp {
    ReadWeightOp source = weightSource(value);
    return source ? assigned.lookup(source.getWeight()) : AssignWeightOp();
  };
  for (AssignWeightOp assign : body.getOps<AssignWeightOp>()) {
    AssignWeightOp other = assignOfSource(assign.getValue());
    if (!other || !weightSource(other.getValue()))
      continue;
    StringRef source = other.getWeight();
    InFlightDiagnostic diag =
        assign.emitOpError()
        << "copies @" << source << " into @" << assign.getWeight() << ", but @"
        << source
        << " is itself assigned a weight's value in this entry: a compiled "
           "entry copies weights into weights at its end, in no order that "
           "keeps both old values; assign one of them in another entry";
    diag.attachNote(other.getLoc()) << "the other copy";
    return diag;
  }
  for (ProbeOp probe : body.getOps<ProbeOp>()) {
    AssignWeightOp assign = assignOfSource(probe.getInput());
    if (!assign)
      continue;
    InFlightDiagnostic diag =
        probe.emitOpError()
        << "probes @" << assign.getWeight()
        << ", which this entry assigns: a probe is read after the replay, "
           "when the weight holds its new value; probe a value computed "
           "from it, or read the weight before the entry";
    diag.attachNote(assign.getLoc()) << "the assign";
    return diag;
  }
  return success();
}

/// Plans one packed entry (an ag.forward or ag.train_step).
/// `constantPlace` places a constant value in the module's constants.
static LogicalResult
planEntry(FunctionOpInterface entry, int64_t alignment,
          function_ref<PlaceAttr(ElementsAttr)> constantPlace) {
  MLIRContext *ctx = entry.getContext();
  Block &body = entry.getFunctionBody().front();
  // (packedOutputs checked this.)
  auto pack = cast<PackOutputsOp>(
      cast<ReturnOp>(body.getTerminator()).getOperand(0).getDefiningOp());
  auto place = [&](BufferKind buffer, int64_t offset) {
    return PlaceAttr::get(ctx, buffer, offset);
  };
  auto placeAttr = [](Operation *op, StringRef name) {
    return op->getAttrOfType<PlaceAttr>(name);
  };

  // Step numbers and last uses (of alias roots) for liveness.
  DenseMap<Operation *, int64_t> step;
  DenseMap<Value, int64_t> lastUse;
  int64_t n = 0;
  for (Operation &op : body) {
    step[&op] = n;
    for (Value operand : op.getOperands())
      lastUse[aliasRoot(operand)] = n;
    ++n;
  }
  for (ProbeOp probe : body.getOps<ProbeOp>())
    lastUse[aliasRoot(probe)] = INT64_MAX;
  // An update prologue runs inside the AdamW kernel, after everything
  // else: its inputs stay live to the end.
  for (Operation &op : body)
    if (isUpdatePrologue(&op))
      for (Value input : op.getOperands())
        lastUse[aliasRoot(input)] = INT64_MAX;
  // So are assigned values: they are copied into their weights at the end.
  for (AssignWeightOp assign : body.getOps<AssignWeightOp>())
    lastUse[aliasRoot(assign.getValue())] = INT64_MAX;
  if (failed(checkAssigns(body)))
    return failure();

  // Outputs computed in this entry are written in place in the output
  // buffer, and gradients in place in their param pack's flat array.
  DenseMap<Value, PlaceAttr> inPlace;
  auto isComputed = [](Value root) {
    Operation *def = root.getDefiningOp();
    return def && isCompute(def);
  };
  for (auto [value, offset] : llvm::zip(pack.getOutputs(), pack.getOffsets()))
    if (Value root = aliasRoot(value); isComputed(root))
      inPlace.try_emplace(root, place(BufferKind::output, offset));
  for (PackGradsOp grads : body.getOps<PackGradsOp>())
    for (auto [i, grad] : llvm::enumerate(grads.getGrads()))
      if (Value root = aliasRoot(grad); isComputed(root))
        inPlace.try_emplace(root, gradSlot(grads, i));

  ScratchAllocator scratch(alignment);
  auto scratchPlace = [&](Type type, int64_t from, int64_t to) {
    return place(BufferKind::scratch,
                 scratch.allocate(byteSize(type), from, to));
  };
  auto setPlaces = [&](Operation *op, ArrayRef<Attribute> places) {
    op->setAttr(kPlacesAttr, ArrayAttr::get(ctx, places));
  };
  // The weights an ag.apply_adamw above updated, with the update.
  llvm::StringMap<ApplyAdamWOp> updated;
  for (Operation &op : body) {
    if (auto apply = dyn_cast<ApplyAdamWOp>(op)) {
      for (auto ref :
           paramPackOf(apply).getWeights().getAsRange<FlatSymbolRefAttr>())
        updated.try_emplace(ref.getValue(), apply);
    }
    if (auto read = dyn_cast<ReadWeightOp>(op)) {
      if (ApplyAdamWOp apply = updated.lookup(read.getWeight())) {
        InFlightDiagnostic diag =
            read.emitOpError()
            << "reads @" << read.getWeight()
            << " after the ag.apply_adamw that updates it: a compiled step "
               "runs its update last, so this read would see the weight from "
               "before the update; read it before the update, or in a "
               "forward entry";
        diag.attachNote(apply.getLoc()) << "the update";
        return diag;
      }
    }
    if (!needsPlace(&op))
      continue;
    if (failed(checkPlaceable(&op)))
      return failure();
    if (auto view = dyn_cast<InputViewOp>(op)) {
      setPlaces(&op, {place(BufferKind::input, view.getOffset())});
    } else if (auto read = dyn_cast<ReadWeightOp>(op)) {
      auto weight = SymbolTable::lookupNearestSymbolFrom<WeightOp>(
          &op, read.getWeightAttr());
      setPlaces(&op, {placeAttr(weight, kPlaceAttr)});
    } else if (ElementsAttr value = constantValue(&op)) {
      setPlaces(&op, {constantPlace(value)});
    } else if (auto grads = dyn_cast<PackGradsOp>(op)) {
      setPlaces(&op, {placeAttr(paramPackOf(grads), kGradsPlaceAttr)});
    } else {
      // A two-pass reduction's partials: live during it only.
      if (auto split = op.getAttrOfType<TwoPassAttr>(kKernelConfigAttr))
        op.setAttr(
            kPartialsAttr,
            place(BufferKind::scratch,
                  scratch.allocate(split.getParts() *
                                       static_cast<int64_t>(sizeof(float)),
                                   step[&op], step[&op])));
      SmallVector<Attribute> places;
      for (Value value : op.getResults()) {
        if (auto it = inPlace.find(value); it != inPlace.end())
          places.push_back(it->second);
        else
          places.push_back(
              scratchPlace(value.getType(), step[&op], lastUse.lookup(value)));
      }
      setPlaces(&op, places);
      // A workgroup region's unyielded reductions: live during it only.
      if (auto head = dyn_cast<WorkgroupRegionOp>(op)) {
        SmallVector<Attribute> stages;
        for (Value value : head.getUnyieldedStages())
          stages.push_back(scratchPlace(value.getType(), step[&op], step[&op]));
        op.setAttr(kStagesAttr, ArrayAttr::get(ctx, stages));
      }
    }
  }
  entry->setAttr(kScratchBytesAttr,
                 IntegerAttr::get(IntegerType::get(ctx, 64), scratch.size()));
  return success();
}

/// The ag.pack_outputs a packed `entry` returns, checked against the
/// entry's ag.output_layout: output #i is segment #i, at its offset, with
/// its shape and element type (outputs are computed in place there, and
/// the runtime reads each one from its segment). Fails, naming what
/// differs, on anything else.
static FailureOr<PackOutputsOp> packedOutputs(FunctionOpInterface entry) {
  Operation *terminator = entry.getFunctionBody().front().getTerminator();
  auto ret = dyn_cast<ReturnOp>(terminator);
  auto pack = ret && ret->getNumOperands() == 1
                  ? ret->getOperand(0).getDefiningOp<PackOutputsOp>()
                  : PackOutputsOp();
  if (!pack)
    return terminator->emitOpError()
           << "ends packed entry @" << entry.getName()
           << " without returning an ag.pack_outputs: a packed entry returns "
              "the one output buffer ag-pack-io builds (run ag-pack-io after "
              "any pass that changes the outputs, then ag-plan-buffers)";
  auto layout =
      entry->getAttrOfType<ArrayAttr>(ForwardOp::getOutputLayoutAttrName());
  if (layout.size() != pack.getOutputs().size())
    return pack.emitOpError()
           << "packs " << pack.getOutputs().size()
           << " outputs, but the entry's ag.output_layout has " << layout.size()
           << " segments: run ag-pack-io again";
  for (auto [i, value, offset, attr] :
       llvm::enumerate(pack.getOutputs(), pack.getOffsets(), layout)) {
    auto segment = cast<SegmentAttr>(attr);
    auto type = cast<RankedTensorType>(value.getType());
    if (offset == segment.getOffset() &&
        type.getShape() == segment.getShape() &&
        type.getElementType() == segment.getElementType())
      continue;
    return pack.emitOpError()
           << "output #" << i << " is " << type << " at offset " << offset
           << ", but segment #" << i << " of the entry's ag.output_layout is "
           << segment << ": run ag-pack-io again";
  }
  return pack;
}

void PlanBuffersPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  if (alignment < 16 || !llvm::isPowerOf2_64(alignment)) {
    module.emitError() << "ag-plan-buffers: alignment must be a power of two "
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
                             "ag-plan-buffers";
      return signalPassFailure();
    }
    if (failed(packedOutputs(entry)))
      return signalPassFailure();
  }
  auto place = [&](BufferKind buffer, int64_t offset) {
    return PlaceAttr::get(ctx, buffer, offset);
  };
  const int64_t alignment = this->alignment;

  // Weights, in declaration order, each at its own aligned offset; the
  // weights of a param pack as the pack's flat array (element offsets
  // scaled to bytes), placed where its first weight is declared. So modules
  // that declare the same weights in the same order lay them out alike
  // whichever of them each module's steps train (they can share one
  // Weights buffer), and a pack whose weights are declared together takes
  // the bytes they would take unpacked. Gradients and both moments of each
  // pack: three arrays of its layout in the optimizer buffer.
  llvm::StringMap<int64_t> weightOffsets;
  llvm::StringMap<ParamPackOp> packOf;
  for (ParamPackOp pack : module.getOps<ParamPackOp>())
    for (auto ref : pack.getWeights().getAsRange<FlatSymbolRefAttr>())
      packOf[ref.getValue()] = pack;
  int64_t weightBytes = 0, optimizerBytes = 0;
  constexpr int64_t f32Bytes = sizeof(float);
  auto placePack = [&](ParamPackOp pack) -> LogicalResult {
    int64_t base = llvm::alignTo(weightBytes, alignment);
    pack->setAttr(kPlaceAttr, place(BufferKind::weights, base));
    for (auto [ref, offset] :
         llvm::zip(pack.getWeights().getAsRange<FlatSymbolRefAttr>(),
                   pack.getOffsets())) {
      int64_t at = base + offset * f32Bytes;
      if (at % alignment != 0)
        return pack.emitOpError()
               << "places " << ref << " at element " << offset
               << ", which is not aligned to the " << alignment
               << "-byte binding alignment: run ag-pack-params with the same "
                  "alignment";
      weightOffsets[ref.getValue()] = at;
    }
    weightBytes = base + static_cast<int64_t>(pack.getSize()) * f32Bytes;
    return success();
  };
  for (WeightOp weight : module.getOps<WeightOp>()) {
    StringRef name = weight.getSymName();
    if (!weightOffsets.count(name)) {
      if (ParamPackOp pack = packOf.lookup(name)) {
        if (failed(placePack(pack)))
          return signalPassFailure();
      } else {
        int64_t offset = llvm::alignTo(weightBytes, alignment);
        weightOffsets[name] = offset;
        weightBytes = offset + byteSize(weight.getType());
      }
    }
    weight->setAttr(kPlaceAttr,
                    place(BufferKind::weights, weightOffsets[name]));
  }
  for (ParamPackOp pack : module.getOps<ParamPackOp>()) {
    int64_t bytes = static_cast<int64_t>(pack.getSize()) * f32Bytes;
    for (StringRef attr :
         {kGradsPlaceAttr, kMoment1PlaceAttr, kMoment2PlaceAttr}) {
      int64_t at = llvm::alignTo(optimizerBytes, alignment);
      pack->setAttr(attr, place(BufferKind::optimizer, at));
      optimizerBytes = at + bytes;
    }
  }

  // Constants the kernels read (those of entry bodies; constants inside
  // regions are splats the kernels make in registers): one read-only
  // buffer, equal values stored once, the splats after all the others so
  // that the module file stores the others' bytes and fills the splats
  // (ag-lower-to-gpu, the module writer).
  DenseMap<Attribute, int64_t> constOffsets;
  int64_t constantBytes = 0;
  auto constantPlace = [&](ElementsAttr value) {
    auto [it, inserted] = constOffsets.try_emplace(value, 0);
    if (inserted) {
      it->second = llvm::alignTo(constantBytes, alignment);
      constantBytes = it->second + byteSize(value.getType());
    }
    return place(BufferKind::constants, it->second);
  };
  for (bool splats : {false, true})
    for (FunctionOpInterface entry : entries)
      for (Operation &op : entry.getFunctionBody().front())
        if (ElementsAttr value = constantValue(&op))
          if (value.isSplat() == splats)
            (void)constantPlace(value);

  for (FunctionOpInterface entry : entries)
    if (failed(planEntry(entry, alignment, constantPlace)))
      return signalPassFailure();

  // Vulkan buffers can't be empty: a buffer that exists has >= 16 bytes.
  auto bufferSize = [](bool exists, int64_t bytes) -> int64_t {
    return exists ? std::max<int64_t>(llvm::alignTo(bytes, 16), 16) : 0;
  };
  module->setAttr(
      kBufferPlanAttr,
      BufferPlanAttr::get(ctx, alignment,
                          bufferSize(!weightOffsets.empty(), weightBytes),
                          bufferSize(optimizerBytes > 0, optimizerBytes),
                          bufferSize(!constOffsets.empty(), constantBytes)));
}
