//===- PackIO.cpp - One input buffer and one output buffer per entry -----===//
//
// A replay then costs one host-to-device copy and one device-to-host copy,
// whatever the number of inputs and outputs.
//
//===----------------------------------------------------------------------===//

#include "capture/Transforms/Passes.h"

#include "llvm/Support/MathExtras.h"

namespace capture {
#define GEN_PASS_DEF_PACKIO
#include "capture/Transforms/Passes.h.inc"
} // namespace capture

using namespace mlir;
using namespace capture;
using namespace capture::ag;

namespace {
struct PackIOPass : public capture::impl::PackIOBase<PackIOPass> {
  using PackIOBase::PackIOBase;
  void runOnOperation() override;
};
} // namespace

/// Lays out `types` back to back, each at an `alignment`-aligned offset;
/// returns the segments and the buffer size (never 0: Vulkan buffers can't
/// be empty).
static std::pair<SmallVector<Attribute>, int64_t>
layOut(MLIRContext *ctx, ArrayRef<Type> types,
       function_ref<StringRef(unsigned)> nameOf, int64_t alignment) {
  SmallVector<Attribute> segments;
  int64_t cursor = 0;
  for (auto [i, type] : llvm::enumerate(types)) {
    auto tensor = cast<RankedTensorType>(type);
    int64_t offset = llvm::alignTo(cursor, alignment);
    auto segment = SegmentAttr::get(ctx, nameOf(i), tensor.getShape(),
                                    tensor.getElementType(), offset);
    cursor = offset + segment.getByteSize();
    segments.push_back(segment);
  }
  return {segments, std::max<int64_t>(llvm::alignTo(cursor, 16), 16)};
}

/// The `ag.name` of input (or output) `i` of `entry`.
static StringRef nameOf(FunctionOpInterface entry, unsigned i, bool output) {
  auto name =
      output
          ? entry.getResultAttrOfType<StringAttr>(i,
                                                  ForwardOp::getNameAttrName())
          : entry.getArgAttrOfType<StringAttr>(i, ForwardOp::getNameAttrName());
  return name ? name.getValue() : StringRef();
}

static void packEntry(FunctionOpInterface entry, int64_t alignment) {
  MLIRContext *ctx = entry.getContext();
  auto type = cast<FunctionType>(entry.getFunctionType());
  auto [inputs, inputBytes] = layOut(
      ctx, type.getInputs(),
      [&](unsigned i) { return nameOf(entry, i, false); }, alignment);
  auto [outputs, outputBytes] = layOut(
      ctx, type.getResults(),
      [&](unsigned i) { return nameOf(entry, i, true); }, alignment);
  auto i8 = IntegerType::get(ctx, 8);
  auto inType = RankedTensorType::get({inputBytes}, i8);
  auto outType = RankedTensorType::get({outputBytes}, i8);

  Block &body = entry.getFunctionBody().front();
  unsigned oldArgs = body.getNumArguments();
  BlockArgument buffer = body.addArgument(inType, entry.getLoc());
  OpBuilder builder = OpBuilder::atBlockBegin(&body);
  for (unsigned i = 0; i < oldArgs; ++i) {
    BlockArgument arg = body.getArgument(i);
    auto segment = cast<SegmentAttr>(inputs[i]);
    auto view = InputViewOp::create(builder, arg.getLoc(), arg.getType(),
                                    buffer, segment.getOffset());
    arg.replaceAllUsesWith(view);
  }
  body.eraseArguments(0, oldArgs);

  auto ret = cast<ReturnOp>(body.getTerminator());
  builder.setInsertionPoint(ret);
  SmallVector<int64_t> offsets;
  for (Attribute attr : outputs)
    offsets.push_back(cast<SegmentAttr>(attr).getOffset());
  auto packed = PackOutputsOp::create(builder, ret.getLoc(), outType,
                                      ret.getOperands(), offsets);
  ReturnOp::create(builder, ret.getLoc(), packed.getResult());
  ret.erase();

  entry.setType(FunctionType::get(ctx, {inType}, {outType}));
  entry.removeArgAttrsAttr();
  entry.removeResAttrsAttr();
  entry->setAttr(ForwardOp::getInputLayoutAttrName(),
                 ArrayAttr::get(ctx, inputs));
  entry->setAttr(ForwardOp::getOutputLayoutAttrName(),
                 ArrayAttr::get(ctx, outputs));
}

void PackIOPass::runOnOperation() {
  if (alignment < 4 || !llvm::isPowerOf2_64(alignment)) {
    getOperation().emitError()
        << "ag-pack-io: alignment must be a power of two >= 4, got "
        << alignment.getValue();
    return signalPassFailure();
  }
  for (auto entry : getOperation().getOps<ForwardOp>())
    if (!entry.isPacked())
      packEntry(entry, alignment);
  for (auto step : getOperation().getOps<TrainStepOp>()) {
    if (step.isPacked())
      continue;
    // The update's hyperparameters must be inputs before packing; packing
    // earlier would freeze a layout without them.
    if (step.getBody().front().getOps<ApplyAdamWOp>().empty()) {
      step.emitOpError() << "must have its AdamW update split out before "
                            "its I/O is packed: run ag-autodiff, "
                            "ag-pack-params, ag-insert-clip-scale and "
                            "ag-split-update before ag-pack-io";
      return signalPassFailure();
    }
    packEntry(step, alignment);
  }
}
