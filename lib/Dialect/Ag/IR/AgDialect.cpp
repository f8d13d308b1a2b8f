//===- AgDialect.cpp - The ag dialect -------------------------------------===//

#include "capture/Dialect/Ag/IR/AgDialect.h"
#include "capture/Dialect/Ag/IR/AgOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace capture::ag;

#include "capture/Dialect/Ag/IR/AgOpsDialect.cpp.inc"

/// Parses `[2, 4]` (possibly `[]`) for `#ag.segment`.
static ParseResult parseShapeList(AsmParser &parser,
                                  SmallVector<int64_t> &shape) {
  return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() {
    return parser.parseInteger(shape.emplace_back());
  });
}

static void printShapeList(AsmPrinter &printer, ArrayRef<int64_t> shape) {
  printer << '[';
  llvm::interleaveComma(shape, printer);
  printer << ']';
}

#define GET_ATTRDEF_CLASSES
#include "capture/Dialect/Ag/IR/AgAttributes.cpp.inc"

int64_t SegmentAttr::getByteSize() const {
  int64_t elements = 1;
  for (int64_t dim : getShape())
    elements *= dim;
  return elements * ((getElementType().getIntOrFloatBitWidth() + 7) / 8);
}

LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ReadPath readPath, int64_t subgroupSize,
                                 int64_t maxTexelElements) {
  if (subgroupSize < 1 || !llvm::isPowerOf2_64(subgroupSize))
    return emitError() << "target subgroup_size must be a power of two >= 1, "
                          "got "
                       << subgroupSize;
  // Vulkan guarantees 65536 texels per texel buffer.
  if (maxTexelElements < 65536)
    return emitError() << "target max_texel_elements must be >= 65536 (what "
                          "Vulkan guarantees), got "
                       << maxTexelElements;
  return success();
}

void AgDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "capture/Dialect/Ag/IR/AgOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "capture/Dialect/Ag/IR/AgAttributes.cpp.inc"
      >();
}

Operation *AgDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                          Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, type, elements);
}

LogicalResult AdamWAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                APFloat lrAttr, APFloat beta1Attr,
                                APFloat beta2Attr, APFloat epsAttr,
                                APFloat weightDecayAttr) {
  double lr = lrAttr.convertToDouble(), beta1 = beta1Attr.convertToDouble(),
         beta2 = beta2Attr.convertToDouble(), eps = epsAttr.convertToDouble(),
         weightDecay = weightDecayAttr.convertToDouble();
  auto bad = [&](StringRef name, double value, StringRef expected) {
    return emitError() << "AdamW " << name << " must be " << expected
                       << ", got " << value;
  };
  if (!(lr > 0) || !std::isfinite(lr))
    return bad("lr", lr, "finite and > 0");
  if (!(beta1 >= 0 && beta1 < 1))
    return bad("beta1", beta1, "in [0, 1)");
  if (!(beta2 >= 0 && beta2 < 1))
    return bad("beta2", beta2, "in [0, 1)");
  if (!(eps > 0) || !std::isfinite(eps))
    return bad("eps", eps, "finite and > 0");
  if (!(weightDecay >= 0) || !std::isfinite(weightDecay))
    return bad("weight_decay", weightDecay, "finite and >= 0");
  return success();
}

LogicalResult PlaceAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                BufferKind buffer, int64_t offset) {
  if (offset < 0)
    return emitError() << "place offset must be >= 0, got " << offset;
  return success();
}

LogicalResult
BufferPlanAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       int64_t alignment, int64_t weights, int64_t optimizer,
                       int64_t constants) {
  if (alignment < 16 || !llvm::isPowerOf2_64(alignment))
    return emitError() << "buffer plan alignment must be a power of two >= "
                          "16, got "
                       << alignment;
  for (auto [name, bytes] : {std::pair<StringRef, int64_t>{"weights", weights},
                             {"optimizer", optimizer},
                             {"constants", constants}})
    if (bytes < 0)
      return emitError() << "buffer plan " << name
                         << " must be >= 0 bytes, got " << bytes;
  return success();
}

/// Checks that `value` is a list of #ag.place, `count` of them when given.
static LogicalResult verifyPlaceList(Operation *op, StringRef name,
                                     Attribute value,
                                     std::optional<size_t> count) {
  auto list = dyn_cast<ArrayAttr>(value);
  if (!list || !llvm::all_of(list, llvm::IsaPred<PlaceAttr>))
    return op->emitOpError() << "attribute '" << name
                             << "' must be a list of #ag.place, got " << value;
  if (count && list.size() != *count)
    return op->emitOpError()
           << "attribute '" << name << "' must have one #ag.place per result ("
           << *count << "), got " << list.size();
  return success();
}

LogicalResult AgDialect::verifyOperationAttribute(Operation *op,
                                                  NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  Attribute value = attr.getValue();
  auto expect = [&](bool ok, StringRef what) -> LogicalResult {
    if (ok)
      return success();
    return op->emitOpError() << "attribute '" << name << "' must be " << what
                             << ", got " << value;
  };
  if (name == kBufferPlanAttr)
    return expect(isa<BufferPlanAttr>(value) && isa<ModuleOp>(op),
                  "an #ag.buffer_plan on a builtin.module");
  if (name == kPlaceAttr || name == kGradsPlaceAttr ||
      name == kMoment1PlaceAttr || name == kMoment2PlaceAttr)
    return expect(isa<PlaceAttr>(value), "an #ag.place");
  if (name == kPartialsAttr) {
    auto place = dyn_cast<PlaceAttr>(value);
    return expect(place && place.getBuffer() == BufferKind::scratch,
                  "an #ag.place in scratch");
  }
  if (name == kPlacesAttr)
    return verifyPlaceList(op, name, value, op->getNumResults());
  if (name == kStagesAttr)
    return verifyPlaceList(op, name, value, std::nullopt);
  if (name == kScratchBytesAttr) {
    auto bytes = dyn_cast<IntegerAttr>(value);
    return expect(bytes && bytes.getType().isInteger(64) && bytes.getInt() >= 0,
                  "a non-negative i64 byte count");
  }
  return success();
}
