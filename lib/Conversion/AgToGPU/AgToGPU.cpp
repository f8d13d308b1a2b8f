//===- AgToGPU.cpp - Packed ag entries to kernels and a replay schedule --===//

#include "capture/Conversion/AgToGPU/KernelBuilder.h"

#include "BufferPlan.h"
#include "KernelEmitters.h"
#include "TargetPresets.h"
#include "capture/Conversion/Passes.h"
#include "capture/Dialect/Ag/IR/AgOps.h"

#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "llvm/ADT/DenseSet.h"

#include <algorithm>
#include <cstring>

namespace capture {
#define GEN_PASS_DEF_LOWERTOGPU
#include "capture/Conversion/Passes.h.inc"
} // namespace capture

using namespace mlir;
using namespace capture;
using namespace capture::ag;

/// The most invocations per workgroup any Vulkan device allows.
constexpr unsigned kMaxWorkgroupSize = 1024;

namespace {

struct LowerToGPUPass : public capture::impl::LowerToGPUBase<LowerToGPUPass> {
  using LowerToGPUBase::LowerToGPUBase;
  void runOnOperation() override;

private:
  /// Lanes whose matmul tiles share an operand's loads, or 0.
  unsigned matmulShareLanes(ModuleOp module, ag::TargetAttr target) const;
};

} // namespace

/// Appends the little-endian bytes of an f32 elements attribute.
static void appendBytes(ElementsAttr value, std::vector<char> &bytes) {
  for (APFloat v : value.getValues<APFloat>()) {
    float f = v.convertToFloat();
    const char *p = reinterpret_cast<const char *>(&f);
    bytes.insert(bytes.end(), p, p + sizeof(float));
  }
}

/// Creates a private i8 memref.global of `size` bytes aligned as the plan's
/// ranges are, optionally initialized.
static memref::GlobalOp createGlobal(OpBuilder &b, Location loc, StringRef name,
                                     int64_t size, int64_t alignment,
                                     ArrayRef<char> init, bool constant) {
  auto type = MemRefType::get({size}, b.getI8Type());
  Attribute initial = b.getUnitAttr(); // uninitialized
  if (!init.empty())
    initial = DenseElementsAttr::getFromRawBuffer(
        RankedTensorType::get({size}, b.getI8Type()), init);
  return memref::GlobalOp::create(b, loc, name, b.getStringAttr("private"),
                                  type, initial, constant,
                                  b.getI64IntegerAttr(alignment));
}

/// The name of the layout segment at byte `offset` of `layout`.
static StringAttr segmentNameAt(ArrayAttr layout, int64_t offset) {
  for (Attribute a : layout)
    if (auto segment = cast<SegmentAttr>(a); segment.getOffset() == offset)
      return StringAttr::get(a.getContext(), segment.getName());
  return {};
}

/// What the runtime needs to drive a lowered training step (kTrainAttr).
static TrainAttr trainInfo(TrainStepOp step, ApplyAdamWOp update,
                           PackOutputsOp outputs) {
  MLIRContext *ctx = step.getContext();
  // The other param groups' hyperparameters, in group order.
  ArrayAttr groups;
  if (SmallVector<AdamWAttr> adamws = step.getGroupAdamWs(); adamws.size() > 1)
    groups = ArrayAttr::get(
        ctx, SmallVector<Attribute>(std::next(adamws.begin()), adamws.end()));
  auto inputs =
      step->getAttrOfType<ArrayAttr>(ForwardOp::getInputLayoutAttrName());
  auto hyper = update.getHyper().getDefiningOp<InputViewOp>();
  StringAttr hyperInput = segmentNameAt(inputs, hyper.getOffset());
  FloatAttr maxGradNorm = step.getMaxGradNormAttr();
  StringRef maxGradNormInput = maxGradNorm ? kMaxGradNormName : "";
  auto names =
      step->getAttrOfType<ArrayAttr>(ForwardOp::getOutputLayoutAttrName());
  StringRef gradNormOutput;
  for (auto [i, value] : llvm::enumerate(outputs.getOutputs()))
    if (value == update.getGradNorm()) {
      gradNormOutput = cast<SegmentAttr>(names[i]).getName();
      break;
    }
  return TrainAttr::get(ctx, update.getPackAttr(), step.getAdamW(), groups,
                        maxGradNorm, maxGradNormInput, hyperInput.getValue(),
                        gradNormOutput);
}

/// The error for a lowering that finds no plan it needs on `op`.
static InFlightDiagnostic missingPlan(Operation *op, StringRef attr) {
  return op->emitOpError() << "has no '" << attr
                           << "' buffer plan: run ag-plan-buffers before "
                              "ag-lower-to-gpu";
}

/// A dispatch's work estimate (kWorkAttr): `multiplyAdds` plus
/// kWorkPerBoundFloat per float of every view it binds.
static int64_t estimatedWork(ValueRange args, int64_t multiplyAdds) {
  int64_t floats = 0;
  for (Value arg : args) {
    auto type = cast<MemRefType>(arg.getType());
    int64_t lanes = 1;
    if (auto vec = dyn_cast<VectorType>(type.getElementType()))
      lanes = vec.getNumElements();
    floats += type.getNumElements() * lanes;
  }
  return multiplyAdds + kWorkPerBoundFloat * floats;
}

/// Lowers one packed entry (an ag.forward or ag.train_step) whose buffers
/// ag-plan-buffers planned.
static LogicalResult lowerEntry(FunctionOpInterface entry,
                                KernelBuilder &kernels, BufferPlanAttr plan) {
  // Only packed entries are planned.
  auto scratchBytes = entry->getAttrOfType<IntegerAttr>(kScratchBytesAttr);
  if (!scratchBytes)
    return missingPlan(entry, kScratchBytesAttr);
  Block &body = entry.getFunctionBody().front();
  auto ret = cast<ReturnOp>(body.getTerminator());
  auto pack = ret->getNumOperands() == 1
                  ? ret->getOperand(0).getDefiningOp<PackOutputsOp>()
                  : PackOutputsOp();
  if (!pack)
    return ret.emitOpError() << "returns no ag.pack_outputs: run ag-pack-io "
                                "and ag-plan-buffers before ag-lower-to-gpu";
  // The schedule runs at most one update, after everything else, and only
  // a training step has one.
  SmallVector<ApplyAdamWOp> updates(body.getOps<ApplyAdamWOp>());
  if (!updates.empty() && !isa<TrainStepOp>(entry.getOperation()))
    return updates.front().emitOpError()
           << "in forward entry @" << entry.getName()
           << ": only an ag.train_step updates weights";
  if (updates.size() > 1)
    return updates[1].emitOpError()
           << "is a second update in @" << entry.getName()
           << ": a training step applies one ag.apply_adamw";

  // The planned place of every stored tensor.
  DenseMap<Value, PlaceAttr> where;
  for (Operation &op : body) {
    if (!needsPlace(&op))
      continue;
    if (failed(checkPlaceable(&op)))
      return failure();
    auto places = op.getAttrOfType<ArrayAttr>(kPlacesAttr);
    if (!places)
      return missingPlan(&op, kPlacesAttr);
    for (auto [value, place] : llvm::zip(op.getResults(), places))
      where[value] = cast<PlaceAttr>(place);
  }
  auto placeOf = [&](Value value) { return where.lookup(aliasRoot(value)); };

  // The schedule function.
  MLIRContext *ctx = entry.getContext();
  auto trainStep = dyn_cast<TrainStepOp>(entry.getOperation());
  OpBuilder b(entry);
  Location loc = entry.getLoc();
  std::string scratchName = ("__ag_scratch_" + entry.getName()).str();
  createGlobal(b, loc, scratchName, scratchBytes.getInt(), plan.getAlignment(),
               {}, /*constant=*/false);
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
  if (Attribute checks = entry->getAttr(kIndexChecksAttr))
    func->setAttr(kIndexChecksAttr, checks);
  Block *fb = func.addEntryBlock();
  b.setInsertionPointToStart(fb);

  // A kernel argument is a typed range of one of the buffers.
  auto viewOfType = [&](PlaceAttr p, Type memrefType) -> Value {
    return BindingOp::create(b, loc, cast<MemRefType>(memrefType), p);
  };
  auto viewOf = [&](PlaceAttr p, Type tensorType) -> Value {
    auto tensor = cast<RankedTensorType>(tensorType);
    return viewOfType(
        p, MemRefType::get(tensor.getShape(), tensor.getElementType()));
  };
  auto c1 = [&]() { return arith::ConstantIndexOp::create(b, loc, 1); };
  auto launch = [&](gpu::GPUFuncOp kernel, int64_t items, ValueRange args,
                    Location at, int64_t multiplyAdds = 0) {
    // The kernel's own workgroup size (a workgroup region's and a small
    // matmul's differ).
    int64_t localSize = kernels.getWorkgroupSize();
    if (auto abi = spirv::lookupEntryPointABI(kernel))
      localSize = abi.getWorkgroupSize()[0];
    Value groups = arith::ConstantIndexOp::create(
        b, at, kernels.groupsFor(items, static_cast<unsigned>(localSize)));
    Value threads = arith::ConstantIndexOp::create(b, at, localSize);
    auto launchOp =
        gpu::LaunchFuncOp::create(b, at, kernel, {groups, c1(), c1()},
                                  {threads, c1(), c1()}, Value(), args);
    launchOp->setAttr(kWorkAttr,
                      b.getI64IntegerAttr(estimatedWork(args, multiplyAdds)));
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
        PlaceAttr to = gradSlot(grads, i);
        PlaceAttr from = placeOf(grad);
        if (from == to)
          continue;
        auto type = cast<RankedTensorType>(grad.getType());
        launch(kernels.getOrCreateCopy(type), type.getNumElements(),
               {viewOf(from, type), viewOf(to, type)}, grad.getLoc());
      }
      continue;
    }
    if (auto probe = dyn_cast<ProbeOp>(op)) {
      PlaceAttr p = placeOf(probe);
      auto type = cast<RankedTensorType>(probe.getType());
      auto segment =
          SegmentAttr::get(ctx, probe.getProbeName(), type.getShape(),
                           type.getElementType(), p.getOffset());
      probes.push_back(ProbeAttr::get(ctx, p.getBuffer(), segment));
      continue;
    }
    if (!isCompute(&op) || isUpdatePrologue(&op))
      continue;
    if (std::optional<KernelBuilder::TwoPass> twoPass =
            kernels.getOrCreateTwoPass(&op)) {
      auto partials = RankedTensorType::get({twoPass->parts}, b.getF32Type());
      auto at = op.getAttrOfType<PlaceAttr>(kPartialsAttr);
      if (!at)
        return missingPlan(&op, kPartialsAttr);
      // The reduced tensor, or the reduction region's inputs its
      // producers read.
      SmallVector<Value> partialArgs;
      for (auto [input, type] : llvm::zip(kernels::partialPassInputs(&op),
                                          twoPass->partial.getArgumentTypes()))
        partialArgs.push_back(viewOfType(placeOf(input), type));
      partialArgs.push_back(viewOf(at, partials));
      Value result = op.getResult(0);
      launch(twoPass->partial, twoPass->parts, partialArgs, op.getLoc());
      // The final pass: partials, its epilogue's inputs, the result.
      SmallVector<Value> finalArgs = {viewOf(at, partials)};
      if (auto region = dyn_cast<DispatchRegionOp>(op))
        for (BlockArgument arg : kernels::reductionEpilogueInputs(region)) {
          Value input = region.getInputs()[arg.getArgNumber()];
          finalArgs.push_back(viewOf(placeOf(input), input.getType()));
        }
      finalArgs.push_back(viewOf(placeOf(result), result.getType()));
      launch(twoPass->final, 1, finalArgs, op.getLoc());
      continue;
    }
    if (auto head = dyn_cast<WorkgroupRegionOp>(op)) {
      SmallVector<Value> stages = head.getUnyieldedStages();
      auto stagePlaces = op.getAttrOfType<ArrayAttr>(kStagesAttr);
      if (!stagePlaces || stagePlaces.size() != stages.size())
        return missingPlan(&op, kStagesAttr)
               << " (one #ag.place per unyielded reduction, " << stages.size()
               << ")";
      gpu::GPUFuncOp kernel = kernels.getOrCreateWorkgroup(head);
      SmallVector<Value> args;
      for (Value input : head.getInputs())
        args.push_back(viewOf(placeOf(input), input.getType()));
      for (Value result : head.getResults())
        args.push_back(viewOf(placeOf(result), result.getType()));
      for (auto [value, place] : llvm::zip(stages, stagePlaces))
        args.push_back(viewOf(cast<PlaceAttr>(place), value.getType()));
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
      args.push_back(viewOfType(placeOf(operand), type));
    // Then every result (a matmul region's column sums after its result).
    for (auto [result, type] :
         llvm::zip(op.getResults(), argTypes.drop_front(operands.size())))
      args.push_back(viewOfType(placeOf(result), type));
    launch(*kernel, KernelBuilder::workItems(&op), args, op.getLoc(),
           KernelBuilder::multiplyAdds(&op));
  }

  // Outputs not computed in place (inputs, weights, constants, repeats,
  // reshapes of any of these): copied, viewing the source with the output's
  // type, which a reshape allows since the bytes are the same.
  for (auto [value, offset] : llvm::zip(pack.getOutputs(), pack.getOffsets())) {
    PlaceAttr from = placeOf(value);
    auto to = PlaceAttr::get(ctx, BufferKind::output, offset);
    if (from == to)
      continue;
    auto type = cast<RankedTensorType>(value.getType());
    launch(kernels.getOrCreateCopy(type), type.getNumElements(),
           {viewOf(from, type), viewOf(to, type)}, value.getLoc());
  }
  // Assigned weights are written last (ag-insert-barriers orders the copies
  // after every kernel that reads them): those copied from another weight
  // first, while every weight holds its old value (ag-plan-buffers refused
  // what no order computes), then the computed ones.
  SmallVector<AssignWeightOp> assigns(body.getOps<AssignWeightOp>());
  std::stable_partition(assigns.begin(), assigns.end(),
                        [](AssignWeightOp assign) {
                          return bool(weightSource(assign.getValue()));
                        });
  for (AssignWeightOp assign : assigns) {
    auto weight = SymbolTable::lookupNearestSymbolFrom<WeightOp>(
        assign, assign.getWeightAttr());
    auto to = weight->getAttrOfType<PlaceAttr>(kPlaceAttr);
    if (!to)
      return missingPlan(weight, kPlaceAttr);
    auto type = cast<RankedTensorType>(assign.getValue().getType());
    launch(kernels.getOrCreateCopy(type), type.getNumElements(),
           {viewOf(placeOf(assign.getValue()), type), viewOf(to, type)},
           assign.getLoc());
  }
  // AdamW writes the weights every kernel above may read (the output
  // copies included: outputs are values from before the update), so it
  // comes last; ag-insert-barriers separates it by a barrier.
  if (update) {
    ParamPackOp paramPack = paramPackOf(update);
    int64_t size = static_cast<int64_t>(paramPack.getSize());
    auto prologue = update.getGrads().getDefiningOp<DispatchRegionOp>();
    if (prologue && !prologue->hasAttr(kUpdatePrologueAttr))
      prologue = {};
    // The pack's param groups, as runs of elements.
    SmallVector<kernels::GroupRun> runs;
    for (auto [i, offset] : llvm::enumerate(paramPack.getOffsets()))
      if (int64_t group = paramPack.getGroupOf(i);
          runs.empty() || runs.back().group != group)
        runs.push_back({runs.empty() ? 0 : offset, group});
    gpu::GPUFuncOp adamw =
        kernels.getOrCreateAdamW(size, update.isDecoupled(), runs, prologue);
    ArrayRef<Type> types = adamw.getArgumentTypes();
    auto params = paramPack->getAttrOfType<PlaceAttr>(kPlaceAttr);
    auto m1 = paramPack->getAttrOfType<PlaceAttr>(kMoment1PlaceAttr);
    auto m2 = paramPack->getAttrOfType<PlaceAttr>(kMoment2PlaceAttr);
    if (!params || !m1 || !m2)
      return missingPlan(paramPack, kMoment1PlaceAttr);
    // The gradients (or the prologue's inputs), then the parameters and
    // moments twice: read views, then the written ranges.
    SmallVector<Value> grads =
        prologue ? SmallVector<Value>(prologue.getInputs())
                 : SmallVector<Value>{update.getGrads()};
    SmallVector<Value> args;
    for (auto [value, type] : llvm::zip(grads, types))
      args.push_back(viewOfType(placeOf(value), type));
    ArrayRef<Type> rest = types.drop_front(grads.size());
    args.append({viewOfType(placeOf(update.getGradNorm()), rest[0]),
                 viewOfType(placeOf(update.getHyper()), rest[1]),
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

/// Checks that ag-plan-buffers placed every module-level tensor.
static LogicalResult checkModulePlan(ModuleOp module) {
  if (!module->hasAttr(kBufferPlanAttr))
    return missingPlan(module, kBufferPlanAttr);
  for (WeightOp weight : module.getOps<WeightOp>())
    if (!weight->hasAttr(kPlaceAttr))
      return missingPlan(weight, kPlaceAttr);
  for (ParamPackOp pack : module.getOps<ParamPackOp>())
    for (StringRef attr :
         {kPlaceAttr, kGradsPlaceAttr, kMoment1PlaceAttr, kMoment2PlaceAttr})
      if (!pack->hasAttr(attr))
        return missingPlan(pack, attr);
  return success();
}

/// Records on the constants global what the module writer stores: the
/// bytes of every non-splat constant an entry body places there
/// (kConstantBytesAttr, from offset 0 to the end of the last one) and each
/// splat as [offset, bytes, bits] (kConstantFillsAttr), which ag-plan-buffers
/// placed after the others: a large splat costs a few bytes in the file
/// and no memory here.
static void recordConstants(memref::GlobalOp global,
                            ArrayRef<FunctionOpInterface> entries) {
  std::vector<char> bytes;
  SmallVector<int64_t> fills;
  llvm::DenseSet<int64_t> filled;
  for (FunctionOpInterface entry : entries) {
    for (Operation &op : entry.getFunctionBody().front()) {
      ElementsAttr value = constantValue(&op);
      auto places = op.getAttrOfType<ArrayAttr>(kPlacesAttr);
      if (!value || !places)
        continue; // lowerEntry reports a missing place
      int64_t offset = cast<PlaceAttr>(places[0]).getOffset();
      int64_t size =
          cast<ShapedType>(value.getType()).getNumElements() * sizeof(float);
      if (value.isSplat()) {
        if (!filled.insert(offset).second)
          continue; // equal constants share one place
        float v = (*value.getValues<APFloat>().begin()).convertToFloat();
        uint32_t bits;
        std::memcpy(&bits, &v, sizeof(bits));
        llvm::append_range(fills, ArrayRef<int64_t>{offset, size, bits});
        continue;
      }
      if (bytes.size() < static_cast<size_t>(offset + size))
        bytes.resize(offset + size, 0);
      std::vector<char> own;
      appendBytes(value, own);
      llvm::copy(own, bytes.begin() + offset);
    }
  }
  OpBuilder b(global);
  if (!bytes.empty())
    global->setAttr(
        kConstantBytesAttr,
        DenseElementsAttr::getFromRawBuffer(
            RankedTensorType::get({static_cast<int64_t>(bytes.size())},
                                  b.getI8Type()),
            bytes));
  if (!fills.empty())
    global->setAttr(kConstantFillsAttr, b.getDenseI64ArrayAttr(fills));
}

/// The lanes whose matmul tiles share loads (see MatmulKernels.cpp), or 0:
/// only with texel reads (shuffles beat texel fetches on llvmpipe; GPUs
/// read storage buffers at full speed, unmeasured there), 8-lane subgroups
/// that whole workgroups hold, and a SPIR-V target that allows shuffles at
/// that width.
unsigned LowerToGPUPass::matmulShareLanes(ModuleOp module,
                                          ag::TargetAttr target) const {
  constexpr unsigned kLanes = 8;
  if (!tileShuffles || target.getReadPath() != ag::ReadPath::texel ||
      target.getSubgroupSize() != kLanes || workgroupSize % kLanes != 0)
    return 0;
  spirv::TargetEnv env(spirv::lookupTargetEnvOrDefault(module));
  if (!env.allows(spirv::Capability::GroupNonUniformShuffle) ||
      env.getResourceLimits().getSubgroupSize() != static_cast<int>(kLanes))
    return 0;
  return kLanes;
}

void LowerToGPUPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  SmallVector<FunctionOpInterface> entries;
  for (Operation &op : module.getOps())
    if (isa<ForwardOp, TrainStepOp>(op))
      entries.push_back(cast<FunctionOpInterface>(op));
  // Vulkan devices allow up to 1024 invocations per workgroup (128 is the
  // guaranteed minimum); the runtime checks the device's own limit.
  if (unsigned size = workgroupSize; size < 1 || size > kMaxWorkgroupSize) {
    module.emitError() << "ag-lower-to-gpu: workgroup-size must be in [1, "
                       << kMaxWorkgroupSize << "], got " << size;
    return signalPassFailure();
  }
  if (failed(checkModulePlan(module)))
    return signalPassFailure();
  auto plan = module->getAttrOfType<BufferPlanAttr>(kBufferPlanAttr);

  // The module-wide buffers the plan sized; the constants with their bytes.
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  if (plan.getWeights() > 0)
    createGlobal(b, module.getLoc(), kWeightsGlobal, plan.getWeights(),
                 plan.getAlignment(), {}, /*constant=*/false);
  if (plan.getOptimizer() > 0)
    createGlobal(b, module.getLoc(), kOptimizerGlobal, plan.getOptimizer(),
                 plan.getAlignment(), {}, /*constant=*/false);
  if (plan.getConstants() > 0)
    recordConstants(createGlobal(b, module.getLoc(), kConstantsGlobal,
                                 plan.getConstants(), plan.getAlignment(), {},
                                 /*constant=*/true),
                    entries);

  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  b.getUnitAttr());
  if (!module->hasAttr(kTargetAttr)) {
    FailureOr<ag::TargetAttr> preset = targetPreset(ctx, target);
    if (failed(preset)) {
      module.emitError() << "ag-lower-to-gpu: unknown target '" << target
                         << "': expected 'lavapipe', 'gpu' or 'cpu'"
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
  auto targetAttr = cast<ag::TargetAttr>(module->getAttr(kTargetAttr));
  if (!module->hasAttr(spirv::getTargetEnvAttrName())) {
    // Vulkan 1.1-era SPIR-V 1.3 with storage buffers, storage texel
    // buffers, subgroup arithmetic (the workgroup region's full sums) and
    // shuffles (matmul tiles sharing loads): what Vulkan 1.1+ devices
    // (lavapipe included) accept; the runtime checks the subgroup
    // operations where a kernel uses them. The subgroup size is the
    // target's, which gpu.shuffle's lowering requires of its width.
    auto triple = spirv::VerCapExtAttr::get(
        spirv::Version::V_1_3,
        {spirv::Capability::Shader, spirv::Capability::ImageBuffer,
         spirv::Capability::SampledBuffer, spirv::Capability::GroupNonUniform,
         spirv::Capability::GroupNonUniformArithmetic,
         spirv::Capability::GroupNonUniformShuffle},
        {spirv::Extension::SPV_KHR_storage_buffer_storage_class}, ctx);
    spirv::ResourceLimitsAttr d = spirv::getDefaultResourceLimits(ctx);
    auto limits = spirv::ResourceLimitsAttr::get(
        ctx, d.getMaxComputeSharedMemorySize(),
        d.getMaxComputeWorkgroupInvocations(), d.getMaxComputeWorkgroupSize(),
        static_cast<int>(targetAttr.getSubgroupSize()), d.getMinSubgroupSize(),
        d.getMaxSubgroupSize(), d.getCooperativeMatrixPropertiesKhr(),
        d.getCooperativeMatrixPropertiesNv());
    module->setAttr(
        spirv::getTargetEnvAttrName(),
        spirv::TargetEnvAttr::get(triple, limits, spirv::ClientAPI::Vulkan));
  }

  KernelBuilder kernels(module, workgroupSize, targetAttr.getSubgroupSize(),
                        matmulShareLanes(module, targetAttr),
                        minMatmulWorkgroups);
  for (FunctionOpInterface entry : entries)
    if (failed(lowerEntry(entry, kernels, plan)))
      return signalPassFailure();
}
