//===- CapmodWriter.cpp - Write the .capmod module file -------------------===//
//
// Maps the lowered module onto the runtime's plain description of a module
// file (capture::rt::ModuleDesc) and lets the runtime's capmod library
// serialize it: one FlatBuffers mapping serves compiler and loader, and the
// loader's own checks (bounds, SPIR-V, schedule hazards) run before anything
// is written.
//
//===----------------------------------------------------------------------===//

#include "capture/Target/Capmod.h"
#include "capture/Target/HostLibrary.h"

#include "capture/Conversion/AgToGPU/Schedule.h"
#include "capture/Conversion/Passes.h"
#include "capture/Dialect/Ag/IR/AgInitializer.h"
#include "capture/Dialect/Ag/IR/AgOps.h"

#include "capture/rt/capmod.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Target/SPIRV/Serialization.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace capture;
using namespace capture::ag;
namespace rt = capture::rt;

namespace {

/// The buffers of the entry being written, by index into the module's.
struct EntryBuffers {
  /// Its packed input, packed output and scratch buffers.
  uint32_t input, output, scratch;
};

/// Builds the module description; one instance per write.
class Writer {
public:
  explicit Writer(ModuleOp module) : module(module) {}
  LogicalResult write(rt::ModuleDesc &desc);

private:
  uint32_t addBuffer(rt::BufferKind kind, uint64_t size) {
    desc->buffers.push_back({kind, size});
    return desc->buffers.size() - 1;
  }
  FailureOr<uint32_t> kernelIndex(gpu::LaunchFuncOp launch);
  LogicalResult writeTrainInfo(func::FuncOp func, rt::EntryDesc &entry);
  FailureOr<uint32_t> bufferOf(ag::BufferKind kind, Operation *user,
                               const EntryBuffers &entry);
  LogicalResult writeEntry(func::FuncOp func);

  /// The module being written.
  ModuleOp module;
  /// The description being filled.
  rt::ModuleDesc *desc = nullptr;
  /// Kernel index by gpu.module name.
  llvm::StringMap<uint32_t> kernelIndices;
  /// Buffer index of the module-wide globals, by symbol name.
  llvm::StringMap<uint32_t> globalBuffers;
};

} // namespace

/// The little-endian bytes of an f32 elements attribute.
static std::vector<uint8_t> bytesOf(ElementsAttr value) {
  std::vector<uint8_t> bytes;
  for (APFloat v : value.getValues<APFloat>()) {
    float f = v.convertToFloat();
    const auto *p = reinterpret_cast<const uint8_t *>(&f);
    bytes.insert(bytes.end(), p, p + sizeof(float));
  }
  return bytes;
}

/// Sets `w`'s initial value from f32 elements: a splat stays one value (a
/// constant initializer, or zeros for +0.0), so that a huge weight with one
/// value costs a few bytes in the file, not its size. (A non-finite splat
/// keeps its bytes: constant initializers are finite.)
static void setInitialValue(rt::WeightDesc &w, ElementsAttr value) {
  float v = value.isSplat()
                ? (*value.getValues<APFloat>().begin()).convertToFloat()
                : 0.0f;
  if (!value.isSplat() || !std::isfinite(v)) {
    w.init = bytesOf(value);
    return;
  }
  rt::InitializerDesc rule;
  if (v != 0.0f || std::signbit(v)) {
    rule.kind = rt::InitKind::Constant;
    rule.value = v;
  }
  w.initializer = rule;
}

/// The spirv.module of gpu.module `name`.
static FailureOr<spirv::ModuleOp> spirvKernel(ModuleOp module,
                                              StringRef name) {
  std::string spvName = ("__spv__" + name).str();
  for (auto spv : module.getOps<spirv::ModuleOp>())
    if (spv.getName() == spvName)
      return spv;
  return module.emitError() << "kernel '" << name
                            << "' has no spirv.module: run "
                               "ag-kernels-to-spirv before writing";
}

/// Serializes the spirv.module of gpu.module `name`; `spv` receives it.
static FailureOr<SmallVector<uint32_t>>
serializeKernel(ModuleOp module, StringRef name,
                spirv::ModuleOp *spv = nullptr) {
  FailureOr<spirv::ModuleOp> kernel = spirvKernel(module, name);
  if (failed(kernel))
    return failure();
  SmallVector<uint32_t> words;
  if (failed(spirv::serialize(*kernel, words)))
    return kernel->emitError() << "SPIR-V serialization failed";
  if (spv)
    *spv = *kernel;
  return words;
}

/// How each of `numBindings` bindings of a kernel is bound: a texel buffer
/// where ag-spirv-texel-reads made the variable an image, else a storage
/// buffer. The SPIR-V is the one source of truth.
static std::vector<rt::BindingKind> bindingKindsOf(spirv::ModuleOp spv,
                                                   unsigned numBindings) {
  std::vector<rt::BindingKind> kinds(numBindings,
                                     rt::BindingKind::StorageBuffer);
  bool anyTexel = false;
  for (auto var : spv.getOps<spirv::GlobalVariableOp>()) {
    std::optional<uint32_t> binding = var.getBinding();
    auto ptr = dyn_cast<spirv::PointerType>(var.getType());
    if (!binding || *binding >= numBindings || !ptr ||
        !isa<spirv::ImageType>(ptr.getPointeeType()))
      continue;
    kinds[*binding] = rt::BindingKind::TexelBufferRgba32f;
    anyTexel = true;
  }
  // No kinds at all means "all storage buffers" in the file.
  if (!anyTexel)
    kinds.clear();
  return kinds;
}

FailureOr<uint32_t> Writer::kernelIndex(gpu::LaunchFuncOp launch) {
  StringRef name = launch.getKernelModuleName().getValue();
  if (auto it = kernelIndices.find(name); it != kernelIndices.end())
    return it->second;
  auto func = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
      launch, launch.getKernel());
  if (!func)
    return launch.emitOpError() << "refers to a kernel that does not exist";
  spirv::ModuleOp spv;
  FailureOr<SmallVector<uint32_t>> words = serializeKernel(module, name, &spv);
  if (failed(words))
    return failure();
  rt::KernelDesc kernel;
  kernel.name = name.str();
  kernel.entryPoint = func.getName().str();
  kernel.spirv.assign(words->begin(), words->end());
  kernel.workgroupSize = {1, 1, 1};
  if (auto abi = func->getAttrOfType<spirv::EntryPointABIAttr>(
          spirv::getEntryPointABIAttrName()))
    if (DenseI32ArrayAttr size = abi.getWorkgroupSize())
      for (auto [i, v] : llvm::enumerate(size.asArrayRef()))
        kernel.workgroupSize[i] = v;
  kernel.numBindings = func.getNumArguments();
  if (auto shapes = func->getAttrOfType<ArrayAttr>(kBindingShapesAttr)) {
    for (Attribute a : shapes) {
      ArrayRef<int64_t> shape = cast<DenseI64ArrayAttr>(a).asArrayRef();
      kernel.bindingShapes.emplace_back(shape.begin(), shape.end());
    }
  } else {
    for (Type arg : func.getArgumentTypes()) {
      ArrayRef<int64_t> shape = cast<MemRefType>(arg).getShape();
      kernel.bindingShapes.emplace_back(shape.begin(), shape.end());
    }
  }
  kernel.bindingKinds = bindingKindsOf(spv, kernel.numBindings);
  // [before, after] ag-bound-kernel-loops unrolled it: what it runs now.
  if (auto bound = func->getAttrOfType<DenseI64ArrayAttr>(kLoopIterationsAttr);
      bound && !bound.empty())
    kernel.loopIterations = static_cast<uint64_t>(bound.asArrayRef().back());
  if (auto lanes = func->getAttrOfType<IntegerAttr>(kSubgroupMultipleAttr))
    kernel.subgroupMultiple = static_cast<uint32_t>(lanes.getInt());
  desc->kernels.push_back(std::move(kernel));
  return kernelIndices[name] = desc->kernels.size() - 1;
}

FailureOr<uint32_t> Writer::bufferOf(ag::BufferKind kind, Operation *user,
                                     const EntryBuffers &entry) {
  StringRef global;
  switch (kind) {
  case BufferKind::input:
    return entry.input;
  case BufferKind::output:
    return entry.output;
  case BufferKind::scratch:
    return entry.scratch;
  case BufferKind::weights:
    global = kWeightsGlobal;
    break;
  case BufferKind::optimizer:
    global = kOptimizerGlobal;
    break;
  case BufferKind::constants:
    global = kConstantsGlobal;
    break;
  }
  if (auto it = globalBuffers.find(global); it != globalBuffers.end())
    return it->second;
  return user->emitOpError()
         << "uses the " << stringifyBufferKind(kind)
         << " buffer, but the module has no @" << global << " global";
}

/// Converts an I/O layout or probe segment to a tensor slot.
static rt::TensorSlotDesc slotOf(SegmentAttr segment, uint32_t buffer) {
  rt::TensorSlotDesc slot;
  slot.name = segment.getName().str();
  slot.shape.assign(segment.getShape().begin(), segment.getShape().end());
  slot.dtype =
      segment.getElementType().isF32() ? rt::DType::F32 : rt::DType::I32;
  slot.buffer = buffer;
  slot.offset = segment.getOffset();
  slot.size = segment.getByteSize();
  return slot;
}

LogicalResult Writer::writeEntry(func::FuncOp func) {
  auto bufferSize = [](Type type) {
    return static_cast<uint64_t>(cast<MemRefType>(type).getNumElements());
  };
  auto isBuffer = [](Type type) {
    auto memref = dyn_cast<MemRefType>(type);
    return memref && memref.hasStaticShape() && memref.getRank() == 1 &&
           memref.getElementType().isInteger(8);
  };
  if (func.getNumArguments() != 2 ||
      !llvm::all_of(func.getArgumentTypes(), isBuffer))
    return func.emitOpError()
           << "must take its packed input and output buffers (two static "
              "memref<Nxi8>), but takes "
           << func.getFunctionType().getInputs();
  auto inputLayout =
      func->getAttrOfType<ArrayAttr>(ForwardOp::getInputLayoutAttrName());
  auto outputLayout =
      func->getAttrOfType<ArrayAttr>(ForwardOp::getOutputLayoutAttrName());
  auto segments = [](ArrayAttr list) {
    return list && llvm::all_of(list, llvm::IsaPred<SegmentAttr>);
  };
  if (!segments(inputLayout) || !segments(outputLayout))
    return func.emitOpError()
           << "needs '" << ForwardOp::getInputLayoutAttrName() << "' and '"
           << ForwardOp::getOutputLayoutAttrName()
           << "' as arrays of #ag.segment: run ag-pack-io "
              "before writing";
  rt::EntryDesc entry;
  entry.name = func.getName().str();
  entry.kind = rt::EntryKind::Forward;
  uint32_t input = entry.inputBuffer =
      addBuffer(rt::BufferKind::Input, bufferSize(func.getArgumentTypes()[0]));
  uint32_t output = entry.outputBuffer =
      addBuffer(rt::BufferKind::Output, bufferSize(func.getArgumentTypes()[1]));
  auto scratchName = func->getAttrOfType<FlatSymbolRefAttr>(kScratchAttr);
  auto scratchGlobal =
      scratchName ? SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
                        func, scratchName)
                  : nullptr;
  if (!scratchGlobal)
    return func.emitOpError()
           << "has no scratch global (its '" << kScratchAttr
           << "' attribute names no memref.global): run ag-lower-to-gpu "
              "before writing";
  uint32_t scratch = addBuffer(rt::BufferKind::Scratch,
                               scratchGlobal.getType().getNumElements());
  EntryBuffers buffers{input, output, scratch};

  // Dispatches and the barriers ag-insert-barriers placed, in order; the
  // loader's hazard check (run on the written module) confirms them.
  WalkResult walk = func.walk([&](Operation *op) {
    if (isa<ag::BarrierOp>(op)) {
      entry.commands.push_back({rt::CommandDesc::Kind::Barrier, {}});
      return WalkResult::advance();
    }
    auto launch = dyn_cast<gpu::LaunchFuncOp>(op);
    if (!launch)
      return WalkResult::advance();
    FailureOr<uint32_t> kernel = kernelIndex(launch);
    if (failed(kernel))
      return WalkResult::interrupt();
    rt::CommandDesc command;
    command.kind = rt::CommandDesc::Kind::Dispatch;
    rt::DispatchDesc &dispatch = command.dispatch;
    dispatch.kernel = *kernel;
    const std::vector<rt::BindingKind> &kinds =
        desc->kernels[*kernel].bindingKinds;
    FailureOr<SmallVector<LaunchBinding>> bindings = getLaunchBindings(launch);
    if (failed(bindings))
      return WalkResult::interrupt();
    for (auto [i, b] : llvm::enumerate(*bindings)) {
      FailureOr<uint32_t> buffer =
          bufferOf(b.binding.getBuffer(), b.binding, buffers);
      if (failed(buffer))
        return WalkResult::interrupt();
      uint64_t size = b.binding.getByteSize();
      // A texel view covers whole 16-byte texels; every range starts at a
      // 256-byte boundary and every buffer size is a multiple of 16, so
      // the rounded range stays inside the tensor's own slot.
      if (i < kinds.size() && kinds[i] == rt::BindingKind::TexelBufferRgba32f)
        size = llvm::alignTo(size, uint64_t(16));
      dispatch.bindings.push_back(
          {*buffer, static_cast<uint64_t>(b.binding.getOffset()), size});
      if (b.write)
        dispatch.writes.push_back(static_cast<uint32_t>(i));
    }
    if (auto work = launch->getAttrOfType<IntegerAttr>(kWorkAttr))
      dispatch.work = std::max<int64_t>(work.getInt(), 0);
    for (Value v :
         {launch.getGridSizeX(), launch.getGridSizeY(), launch.getGridSizeZ()})
      dispatch.groups.push_back(getConstantIntValue(v).value_or(1));
    entry.commands.push_back(std::move(command));
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();

  for (Attribute a : inputLayout)
    entry.inputs.push_back(slotOf(cast<SegmentAttr>(a), input));
  for (Attribute a : outputLayout)
    entry.outputs.push_back(slotOf(cast<SegmentAttr>(a), output));
  // The records are typed attributes (the dialect verifies them where the
  // pipeline runs); a writer handed IR that skipped verification still
  // refuses anything else.
  if (auto list = func->getAttrOfType<ArrayAttr>(kProbesAttr)) {
    for (Attribute a : list) {
      auto probe = dyn_cast<ProbeAttr>(a);
      if (!probe)
        return func.emitOpError()
               << "has a probe that is not an #ag.probe: " << a;
      FailureOr<uint32_t> buffer = bufferOf(probe.getBuffer(), func, buffers);
      if (failed(buffer))
        return failure();
      entry.probes.push_back(slotOf(probe.getSegment(), *buffer));
    }
  }
  if (auto checks = func->getAttrOfType<ArrayAttr>(kIndexChecksAttr)) {
    for (Attribute a : checks) {
      auto c = dyn_cast<IndexCheckAttr>(a);
      if (!c)
        return func.emitOpError()
               << "has an index check that is not an #ag.index_check: " << a;
      rt::IndexCheckDesc check;
      check.output = c.getOutput().str();
      check.op = c.getOp().str();
      check.input = c.getInput().str();
      check.bound = c.getBound();
      check.location = c.getLoc().str();
      entry.indexChecks.push_back(std::move(check));
    }
  }
  if (func->hasAttr(kTrainAttr) && failed(writeTrainInfo(func, entry)))
    return failure();
  desc->entries.push_back(std::move(entry));
  return success();
}

LogicalResult Writer::writeTrainInfo(func::FuncOp func, rt::EntryDesc &entry) {
  auto info = func->getAttrOfType<TrainAttr>(kTrainAttr);
  if (!info)
    return func.emitOpError()
           << "has '" << kTrainAttr << "' = " << func->getAttr(kTrainAttr)
           << ", expected an #ag.train";
  auto pack =
      SymbolTable::lookupNearestSymbolFrom<ParamPackOp>(func, info.getPack());
  if (!pack)
    return func.emitOpError() << "trains param pack " << info.getPack()
                              << ", which is not an ag.param_pack";
  for (StringRef name :
       {kPlaceAttr, kMoment1PlaceAttr, kMoment2PlaceAttr, kGradsPlaceAttr})
    if (!pack->getAttrOfType<PlaceAttr>(name))
      return pack.emitOpError() << "has no '" << name
                                << "' place: run ag-plan-buffers before "
                                   "writing";
  auto f32 = [](const APFloat &v) {
    APFloat copy = v;
    bool lost;
    copy.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
    return copy.convertToFloat();
  };
  auto desc = [&](AdamWAttr a) -> rt::AdamWDesc {
    return {f32(a.getLr()),  f32(a.getBeta1()),       f32(a.getBeta2()),
            f32(a.getEps()), f32(a.getWeightDecay()), a.getDecoupled()};
  };
  rt::TrainDesc train;
  train.adamw = desc(info.getAdamw());
  // (TrainAttr's verifier made every group an #ag.adamw.)
  if (ArrayAttr groups = info.getGroups())
    for (Attribute group : groups)
      train.groups.push_back(desc(cast<AdamWAttr>(group)));
  if (FloatAttr limit = info.getMaxGradNorm())
    train.maxGradNorm = f32(limit.getValue());
  train.hyperInput = info.getHyperInput().str();
  train.maxGradNormInput = info.getMaxGradNormInput().str();
  train.gradNormOutput = info.getGradNormOutput().str();
  auto offset = [&](StringRef attr) -> uint64_t {
    return pack->getAttrOfType<PlaceAttr>(attr).getOffset();
  };
  uint64_t bytes = pack.getSize() * sizeof(float);
  uint32_t weights = globalBuffers.lookup(kWeightsGlobal);
  uint32_t optimizer = globalBuffers.lookup(kOptimizerGlobal);
  train.params = {weights, offset(kPlaceAttr), bytes};
  train.moment1 = {optimizer, offset(kMoment1PlaceAttr), bytes};
  train.moment2 = {optimizer, offset(kMoment2PlaceAttr), bytes};
  // Every step writes each weight's gradient (before clipping) into its
  // slot; the padding stays zero. (Clipped gradients are not written back
  // there: a NaN scale would turn the padding into NaN for good.)
  train.grads = rt::BufferRangeDesc{optimizer, offset(kGradsPlaceAttr), bytes};
  entry.kind = rt::EntryKind::Train;
  entry.train = std::move(train);
  return success();
}

LogicalResult Writer::write(rt::ModuleDesc &out) {
  desc = &out;
  auto plan = module->getAttrOfType<BufferPlanAttr>(kBufferPlanAttr);
  if (!plan || !module->hasAttr(gpu::GPUDialect::getContainerModuleAttrName()))
    return module.emitError() << "module is not lowered: run the Capture "
                                 "pipeline (ag-plan-buffers, ag-lower-to-gpu) "
                                 "before writing";
  desc->producer = "capture-aot";
  // Vulkan 1.1 suffices for SPIR-V 1.3 compute with storage buffers.
  desc->target.vulkanApiVersion = (1u << 22) | (1u << 12);
  desc->target.bindingAlignment = plan.getAlignment();

  if (auto g = module.lookupSymbol<memref::GlobalOp>(kWeightsGlobal))
    globalBuffers[kWeightsGlobal] = desc->weightsBuffer =
        addBuffer(rt::BufferKind::Weights, g.getType().getNumElements());
  if (auto g = module.lookupSymbol<memref::GlobalOp>(kOptimizerGlobal))
    globalBuffers[kOptimizerGlobal] =
        addBuffer(rt::BufferKind::Optimizer, g.getType().getNumElements());
  if (auto g = module.lookupSymbol<memref::GlobalOp>(kConstantsGlobal)) {
    globalBuffers[kConstantsGlobal] = desc->constantsBuffer =
        addBuffer(rt::BufferKind::Constants, g.getType().getNumElements());
    std::vector<uint8_t> bytes;
    if (auto init = g->getAttrOfType<DenseElementsAttr>(kConstantBytesAttr)) {
      ArrayRef<char> raw = init.getRawData();
      bytes.assign(raw.begin(), raw.end());
    }
    desc->constants = std::move(bytes);
    if (auto fills = g->getAttrOfType<DenseI64ArrayAttr>(kConstantFillsAttr))
      for (size_t i = 0; i + 2 < fills.size(); i += 3)
        desc->constantFills.push_back({static_cast<uint64_t>(fills[i]),
                                       static_cast<uint64_t>(fills[i + 1]),
                                       static_cast<uint32_t>(fills[i + 2])});
  }

  for (WeightOp weight : module.getOps<WeightOp>()) {
    auto place = weight->getAttrOfType<PlaceAttr>(kPlaceAttr);
    if (!place)
      return weight.emitOpError() << "has no buffer place: run "
                                     "ag-plan-buffers before writing";
    RankedTensorType type = weight.getTensorType();
    rt::WeightDesc w;
    w.name = weight.getSymName().str();
    w.shape.assign(type.getShape().begin(), type.getShape().end());
    w.trainable = weight.getTrainable();
    w.offset = place.getOffset();
    w.size = type.getNumElements() * sizeof(float);
    if (std::optional<InitAttr> rule = weight.getInitializer())
      w.initializer = toInitializerDesc(*rule);
    else if (std::optional<ElementsAttr> value = weight.getInitialValue())
      setInitialValue(w, *value);
    desc->weights.push_back(std::move(w));
  }

  for (auto func : module.getOps<func::FuncOp>())
    if (func->hasAttr(kEntryAttr) && failed(writeEntry(func)))
      return failure();

  // The cpu target's kernels, beside their SPIR-V: the host module
  // (ag-cpu-kernels-to-llvm) compiled and linked now.
  if (auto host = SymbolTable(module).lookup<ModuleOp>(kCPUKernelsModule)) {
    FailureOr<HostLibrary> library = buildHostLibrary(host);
    if (failed(library))
      return failure();
    desc->hostCode = rt::HostCodeDesc{library->triple, library->cpuLevel,
                                      std::move(library->bytes)};
  }

  // The loader's checks, before anything is written: a module the runtime
  // would refuse is a compiler bug, reported here rather than at load time.
  rt::Status status = rt::verifyModuleDesc(*desc);
  if (status.isError())
    return module.emitError() << "internal error: the written module fails "
                                 "the loader's checks: "
                              << status.message();
  return success();
}

LogicalResult capture::writeCapmod(ModuleOp module,
                                   std::vector<uint8_t> &bytes) {
  rt::ModuleDesc desc;
  if (failed(Writer(module).write(desc)))
    return failure();
  bytes = rt::writeCapmod(desc);
  return success();
}

LogicalResult capture::dumpSpirv(ModuleOp module, StringRef dir) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return module.emitError()
           << "cannot create '" << dir << "': " << ec.message();
  for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
    FailureOr<SmallVector<uint32_t>> words =
        serializeKernel(module, gpuModule.getName());
    if (failed(words))
      return failure();
    SmallString<128> path(dir);
    llvm::sys::path::append(path, gpuModule.getName() + ".spv");
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (ec)
      return module.emitError()
             << "cannot write '" << path << "': " << ec.message();
    os.write(reinterpret_cast<const char *>(words->data()),
             words->size() * sizeof(uint32_t));
  }
  return success();
}
