//===- SPIRVTexelReads.cpp - Read-only kernel inputs as texel buffers -----===//
//
// On llvmpipe (Mesa 22), a storage-buffer load with a per-invocation address
// compiles to a scalar loop over the SIMD lanes with a store-forwarding
// stall per lane (~8 ns per float); a storage texel buffer read is a real
// gather (~0.3 ns per float of an RGBA32F texel). Kernels are written
// against memrefs (storage buffers, any device); this pass swaps the read
// path of what a kernel only loads, once the ABI is lowered, so every
// kernel template profits without knowing the device.
//
//===----------------------------------------------------------------------===//

#include "capture/Conversion/Passes.h"
#include "capture/Dialect/Ag/IR/AgDialect.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVTypes.h"
#include "mlir/IR/SymbolTable.h"

namespace capture {
#define GEN_PASS_DEF_SPIRVTEXELREADS
#include "capture/Conversion/Passes.h.inc"
} // namespace capture

using namespace mlir;
using namespace capture;

namespace {

struct SPIRVTexelReadsPass
    : public capture::impl::SPIRVTexelReadsBase<SPIRVTexelReadsPass> {
  void runOnOperation() override;
};

/// A storage-buffer variable that can be read through texels.
struct Candidate {
  /// The storage-buffer variable.
  spirv::GlobalVariableOp var;
  /// Whether its elements are vector<4xf32> (one texel each) rather than
  /// f32 (four per texel).
  bool vec4;
  /// Its spirv.mlir.addressof uses.
  SmallVector<spirv::AddressOfOp> addresses;
  /// Entry points that list it in their interface.
  SmallVector<spirv::EntryPointOp> entryPoints;
};

} // namespace

/// The element type and count of a `ptr<struct<(array<N x E>)>,
/// StorageBuffer>`, or none.
static std::optional<std::pair<Type, int64_t>>
storageArrayOf(spirv::GlobalVariableOp var) {
  auto ptr = dyn_cast<spirv::PointerType>(var.getType());
  if (!ptr || ptr.getStorageClass() != spirv::StorageClass::StorageBuffer)
    return std::nullopt;
  auto structType = dyn_cast<spirv::StructType>(ptr.getPointeeType());
  if (!structType || structType.getNumElements() != 1)
    return std::nullopt;
  auto array = dyn_cast<spirv::ArrayType>(structType.getElementType(0));
  if (!array)
    return std::nullopt;
  return std::make_pair(array.getElementType(),
                        static_cast<int64_t>(array.getNumElements()));
}

/// Whether every use of `address` is an access chain `[0, i]` whose every
/// use is a load.
static bool onlyLoaded(spirv::AddressOfOp address) {
  for (Operation *user : address->getUsers()) {
    auto chain = dyn_cast<spirv::AccessChainOp>(user);
    if (!chain || chain.getIndices().size() != 2)
      return false;
    if (!llvm::all_of(chain->getUsers(),
                      [](Operation *u) { return isa<spirv::LoadOp>(u); }))
      return false;
  }
  return true;
}

/// The variable as a texel-read candidate, or none when it is written,
/// holds other than f32 / vector<4xf32>, is larger than `maxTexels`, or is
/// referenced in a way this pass does not rewrite.
static std::optional<Candidate> candidateOf(spirv::GlobalVariableOp var,
                                            spirv::ModuleOp module,
                                            int64_t maxTexels) {
  std::optional<std::pair<Type, int64_t>> array = storageArrayOf(var);
  if (!array || !var.getBinding())
    return std::nullopt;
  auto [element, count] = *array;
  auto vector = dyn_cast<VectorType>(element);
  bool vec4 = vector && vector.getNumElements() == 4 &&
              vector.getElementType().isF32();
  if (!vec4 && !element.isF32())
    return std::nullopt;
  int64_t texels = vec4 ? count : (count + 3) / 4;
  if (texels > maxTexels)
    return std::nullopt;
  Candidate candidate{var, vec4, {}, {}};
  std::optional<SymbolTable::UseRange> uses =
      SymbolTable::getSymbolUses(var.getSymNameAttr(), module);
  if (!uses)
    return std::nullopt;
  for (const SymbolTable::SymbolUse &use : *uses) {
    Operation *user = use.getUser();
    if (auto address = dyn_cast<spirv::AddressOfOp>(user)) {
      if (!onlyLoaded(address))
        return std::nullopt;
      candidate.addresses.push_back(address);
    } else if (auto entry = dyn_cast<spirv::EntryPointOp>(user)) {
      candidate.entryPoints.push_back(entry);
    } else {
      return std::nullopt;
    }
  }
  return candidate;
}

/// Replaces `candidate.var` by an RGBA32F storage texel buffer at the same
/// binding and its loads by texel reads.
static void rewrite(Candidate &candidate) {
  spirv::GlobalVariableOp var = candidate.var;
  MLIRContext *ctx = var.getContext();
  OpBuilder b(var);
  Type f32 = Float32Type::get(ctx);
  Type i32 = IntegerType::get(ctx, 32);
  auto vec4 = VectorType::get({4}, f32);
  auto imageType = spirv::ImageType::get(
      f32, spirv::Dim::Buffer, spirv::ImageDepthInfo::NoDepth,
      spirv::ImageArrayedInfo::NonArrayed,
      spirv::ImageSamplingInfo::SingleSampled,
      spirv::ImageSamplerUseInfo::NoSampler, spirv::ImageFormat::Rgba32f);
  auto pointer =
      spirv::PointerType::get(imageType, spirv::StorageClass::UniformConstant);
  std::string name = (var.getSymName() + "_texels").str();
  spirv::GlobalVariableOp::create(
      b, var.getLoc(), pointer, name,
      static_cast<unsigned>(var.getDescriptorSet().value_or(0)),
      static_cast<unsigned>(*var.getBinding()));

  // One image load per function, at its entry: it dominates every read.
  DenseMap<Operation *, Value> images;
  auto imageIn = [&](Operation *at) -> Value {
    auto func = at->getParentOfType<spirv::FuncOp>();
    Value &image = images[func];
    if (image)
      return image;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&func.getBody().front());
    Value address =
        spirv::AddressOfOp::create(b, var.getLoc(), pointer, name);
    return image = spirv::LoadOp::create(b, var.getLoc(), address);
  };

  for (spirv::AddressOfOp address : candidate.addresses) {
    for (Operation *user : llvm::make_early_inc_range(address->getUsers())) {
      auto chain = cast<spirv::AccessChainOp>(user);
      Value index = chain.getIndices()[1];
      for (Operation *u : llvm::make_early_inc_range(chain->getUsers())) {
        auto load = cast<spirv::LoadOp>(u);
        Location loc = load.getLoc();
        b.setInsertionPoint(load);
        Value image = imageIn(load);
        Value value;
        if (candidate.vec4) {
          value = spirv::ImageReadOp::create(b, loc, vec4, image, index,
                                             nullptr, ValueRange());
        } else {
          Value two = spirv::ConstantOp::create(b, loc, i32,
                                                b.getI32IntegerAttr(2));
          Value three = spirv::ConstantOp::create(b, loc, i32,
                                                  b.getI32IntegerAttr(3));
          Value texel =
              spirv::ShiftRightLogicalOp::create(b, loc, index, two);
          Value read = spirv::ImageReadOp::create(b, loc, vec4, image, texel,
                                                  nullptr, ValueRange());
          Value lane = spirv::BitwiseAndOp::create(b, loc, index, three);
          value = spirv::VectorExtractDynamicOp::create(b, loc, read, lane);
        }
        load.replaceAllUsesWith(value);
        load.erase();
      }
      chain.erase();
    }
    address.erase();
  }
  for (spirv::EntryPointOp entry : candidate.entryPoints) {
    SmallVector<Attribute> interface;
    for (Attribute a : entry.getInterface())
      interface.push_back(cast<FlatSymbolRefAttr>(a).getValue() ==
                                  var.getSymName()
                              ? FlatSymbolRefAttr::get(ctx, name)
                              : a);
    entry.setInterfaceAttr(ArrayAttr::get(ctx, interface));
  }
  var.erase();
}

void SPIRVTexelReadsPass::runOnOperation() {
  spirv::ModuleOp module = getOperation();
  auto parent = module->getParentOfType<ModuleOp>();
  auto target = parent ? parent->getAttrOfType<ag::TargetAttr>(kTargetAttr)
                       : ag::TargetAttr();
  if (!target || target.getReadPath() != ag::ReadPath::texel)
    return;
  SmallVector<Candidate> candidates;
  for (auto var : module.getOps<spirv::GlobalVariableOp>())
    if (std::optional<Candidate> c =
            candidateOf(var, module, target.getMaxTexelElements()))
      candidates.push_back(std::move(*c));
  for (Candidate &c : candidates)
    rewrite(c);
}
