//===- AgToGPU.cpp - Packed ag entries to kernels and a replay schedule --===//

#include "capture/Conversion/AgToGPU/KernelBuilder.h"
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

namespace {

/// Which buffer a tensor lives in.
enum class Home { Input, Output, Weights, Constants, Scratch };

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

/// Lowers one packed entry.
static LogicalResult
lowerEntry(ForwardOp entry, KernelBuilder &kernels,
           const llvm::StringMap<int64_t> &weightOffsets,
           const DenseMap<Attribute, int64_t> &constOffsets,
           int64_t alignment) {
  Block &body = entry.getBody().front();
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

  // Outputs computed in this entry are written in place in the output buffer.
  DenseMap<Value, int64_t> outputSlot;
  for (auto [value, offset] : llvm::zip(pack.getOutputs(), pack.getOffsets())) {
    Value root = rootOf(value);
    Operation *def = root.getDefiningOp();
    if (def && KernelBuilder::isCompute(def) && !outputSlot.count(root))
      outputSlot[root] = offset;
  }

  // Placement of every tensor.
  DenseMap<Value, Placement> where;
  ScratchAllocator scratch(alignment);
  for (Operation &op : body) {
    // Probes and reshapes alias their root (see rootOf).
    if (isa<ReturnOp, PackOutputsOp, ProbeOp, ReshapeOp>(op))
      continue;
    Value result = op.getNumResults() == 1 ? op.getResult(0) : Value();
    if (auto view = dyn_cast<InputViewOp>(op)) {
      where[result] = {Home::Input, static_cast<int64_t>(view.getOffset())};
    } else if (auto read = dyn_cast<ReadWeightOp>(op)) {
      where[result] = {Home::Weights, weightOffsets.lookup(read.getWeight())};
    } else if (ElementsAttr value = constantValue(&op)) {
      where[result] = {Home::Constants, constOffsets.lookup(value)};
    } else if (KernelBuilder::isCompute(&op)) {
      if (auto it = outputSlot.find(result); it != outputSlot.end())
        where[result] = {Home::Output, it->second};
      else
        where[result] = {Home::Scratch,
                         scratch.allocate(byteSize(result.getType()), step[&op],
                                          lastUse.lookup(result))};
    } else {
      return op.emitOpError()
             << "cannot be lowered: it is host interaction, which "
                "ag-verify-capture rejects (run it first)";
    }
  }

  // The schedule function.
  MLIRContext *ctx = entry.getContext();
  OpBuilder b(entry);
  Location loc = entry.getLoc();
  std::string scratchName = ("__ag_scratch_" + entry.getSymName()).str();
  createGlobal(b, loc, scratchName, scratch.size(), {}, /*constant=*/false);
  auto inType = cast<RankedTensorType>(entry.getFunctionType().getInput(0));
  auto outType = cast<RankedTensorType>(entry.getFunctionType().getResult(0));
  auto inMem = MemRefType::get(inType.getShape(), b.getI8Type());
  auto outMem = MemRefType::get(outType.getShape(), b.getI8Type());
  auto func = func::FuncOp::create(b, loc, entry.getSymName(),
                                   FunctionType::get(ctx, {inMem, outMem}, {}));
  func->setAttr(kEntryAttr, b.getStringAttr("forward"));
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
    }
    llvm_unreachable("unknown home");
  };
  auto viewOf = [&](Placement p, Type tensorType) -> Value {
    auto tensor = cast<RankedTensorType>(tensorType);
    auto type = MemRefType::get(tensor.getShape(), tensor.getElementType());
    Value shift = arith::ConstantIndexOp::create(b, loc, p.offset);
    return memref::ViewOp::create(b, loc, type, baseOf(p.home), shift,
                                  ValueRange());
  };
  auto c1 = [&]() { return arith::ConstantIndexOp::create(b, loc, 1); };
  auto launch = [&](gpu::GPUFuncOp kernel, int64_t items, ValueRange args,
                    Location at) {
    Value groups =
        arith::ConstantIndexOp::create(b, at, kernels.groupsFor(items));
    Value threads =
        arith::ConstantIndexOp::create(b, at, kernels.getWorkgroupSize());
    gpu::LaunchFuncOp::create(b, at, kernel, {groups, c1(), c1()},
                              {threads, c1(), c1()}, Value(), args);
  };

  SmallVector<Attribute> probes;
  for (Operation &op : body) {
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
    if (!KernelBuilder::isCompute(&op))
      continue;
    FailureOr<gpu::GPUFuncOp> kernel = kernels.getOrCreate(&op);
    if (failed(kernel))
      return failure();
    SmallVector<Value> args;
    for (Value operand : op.getOperands())
      args.push_back(viewOf(where.lookup(rootOf(operand)), operand.getType()));
    Value result = op.getResult(0);
    args.push_back(viewOf(where.lookup(result), result.getType()));
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
  func::ReturnOp::create(b, loc);
  func->setAttr(kProbesAttr, b.getArrayAttr(probes));
  entry.erase();
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
  for (TrainStepOp step : module.getOps<TrainStepOp>()) {
    step.emitOpError() << "cannot be lowered yet: this compiler lowers "
                          "forward entries only (training steps are being "
                          "built: autodiff, clipping and AdamW)";
    return signalPassFailure();
  }
  for (ForwardOp entry : module.getOps<ForwardOp>()) {
    if (!entry.isPacked()) {
      entry.emitOpError() << "must be packed first: run ag-pack-io before "
                             "ag-lower-to-gpu";
      return signalPassFailure();
    }
  }

  // Weights: one buffer, each at an aligned offset.
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  llvm::StringMap<int64_t> weightOffsets;
  int64_t weightBytes = 0;
  for (WeightOp weight : module.getOps<WeightOp>()) {
    int64_t offset = llvm::alignTo(weightBytes, alignment);
    weightOffsets[weight.getSymName()] = offset;
    weight->setAttr(kWeightOffsetAttr, b.getI64IntegerAttr(offset));
    weightBytes = offset + byteSize(weight.getType());
  }
  if (!weightOffsets.empty())
    createGlobal(b, module.getLoc(), kWeightsGlobal,
                 std::max<int64_t>(llvm::alignTo(weightBytes, 16), 16), {},
                 /*constant=*/false);

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
  if (!module->hasAttr(spirv::getTargetEnvAttrName())) {
    // Vulkan 1.1-era SPIR-V 1.3 with storage buffers: what every Vulkan 1.1+
    // device (lavapipe included) accepts.
    auto triple = spirv::VerCapExtAttr::get(
        spirv::Version::V_1_3, {spirv::Capability::Shader},
        {spirv::Extension::SPV_KHR_storage_buffer_storage_class}, ctx);
    module->setAttr(
        spirv::getTargetEnvAttrName(),
        spirv::TargetEnvAttr::get(triple, spirv::getDefaultResourceLimits(ctx),
                                  spirv::ClientAPI::Vulkan));
  }

  KernelBuilder kernels(module, workgroupSize);
  for (ForwardOp entry : llvm::make_early_inc_range(module.getOps<ForwardOp>()))
    if (failed(
            lowerEntry(entry, kernels, weightOffsets, constOffsets, alignment)))
      return signalPassFailure();
}
