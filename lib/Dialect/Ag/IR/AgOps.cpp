//===- AgOps.cpp - ag dialect operations ----------------------------------===//

#include "capture/Dialect/Ag/IR/AgOps.h"

#include "AgOpsVerify.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace capture::ag;
using namespace capture::ag::detail;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

std::string capture::ag::formatShape(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '[';
  llvm::interleaveComma(shape, os, [&](int64_t dim) {
    if (ShapedType::isDynamic(dim))
      os << '?';
    else
      os << dim;
  });
  os << ']';
  return text;
}

FailureOr<SmallVector<int64_t>>
capture::ag::broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> result(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1)
      return failure();
    result[rank - 1 - i] = da == 1 ? db : da;
  }
  return result;
}

/// Every tensor an op touches must have a static shape: kernels, buffer
/// plans and the module file are all sized at compile time.
LogicalResult capture::ag::detail::verifyStatic(Operation *op) {
  auto check = [&](Type type, StringRef what, unsigned index) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || tensor.hasStaticShape())
      return success();
    return op->emitOpError()
           << "expects static shapes, but " << what << " #" << index
           << " has shape " << formatShape(tensor.getShape());
  };
  for (auto [i, type] : llvm::enumerate(op->getOperandTypes()))
    if (failed(check(type, "operand", i)))
      return failure();
  for (auto [i, type] : llvm::enumerate(op->getResultTypes()))
    if (failed(check(type, "result", i)))
      return failure();
  return success();
}

RankedTensorType capture::ag::detail::tensorOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// Checks `axis` against `rank` (negative counts from the end, as in
/// PyTorch) and returns it in [0, rank).
FailureOr<int64_t> capture::ag::detail::checkAxis(Operation *op, int64_t axis,
                                                  int64_t rank) {
  if (axis < -rank || axis >= rank || rank == 0)
    return op->emitOpError()
           << "axis " << axis << " is out of range for an input of rank "
           << rank << " (expected " << -rank << " <= axis < " << rank << ")";
  return axis < 0 ? axis + rank : axis;
}

/// `axis` in [0, rank) for an op that verified it with checkAxis.
int64_t capture::ag::detail::normalize(int64_t axis, Value input) {
  return axis < 0 ? axis + tensorOf(input).getRank() : axis;
}

//===----------------------------------------------------------------------===//
// WeightOp
//===----------------------------------------------------------------------===//

/// Parses the optional `= dense<...>` of a weight or an upload; the value's
/// type is the op's, so it is not repeated.
/// Parses `= dense<...>` of type `type`, or nothing (ag.upload's value).
static ParseResult parseInitialValue(OpAsmParser &parser, Type type,
                                     ElementsAttr &init) {
  if (failed(parser.parseOptionalEqual()))
    return success();
  Attribute attr;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseAttribute(attr, type))
    return failure();
  init = dyn_cast<ElementsAttr>(attr);
  if (!init)
    return parser.emitError(loc)
           << "expected a dense elements initial value, found " << attr;
  return success();
}

static void printInitialValue(OpAsmPrinter &p, Operation *, Type,
                              ElementsAttr init) {
  if (!init)
    return;
  p << "= ";
  p.printAttributeWithoutType(init);
}

/// Parses `= dense<...>` (elements) or `= #ag.init<...>` (a rule), or
/// nothing (ag.weight).
static ParseResult parseInitialValue(OpAsmParser &parser, TypeAttr type,
                                     ElementsAttr &init, InitAttr &rule) {
  if (failed(parser.parseOptionalEqual()))
    return success();
  Attribute attr;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseAttribute(attr, type.getValue()))
    return failure();
  if ((rule = dyn_cast<InitAttr>(attr)))
    return success();
  init = dyn_cast<ElementsAttr>(attr);
  if (!init)
    return parser.emitError(loc)
           << "expected a dense elements initial value or an #ag.init rule, "
              "found "
           << attr;
  return success();
}

static void printInitialValue(OpAsmPrinter &p, Operation *, TypeAttr,
                              ElementsAttr init, InitAttr rule) {
  if (rule) {
    p << "= ";
    p.printAttribute(rule);
  } else if (init) {
    p << "= ";
    p.printAttributeWithoutType(init);
  }
}

LogicalResult WeightOp::verify() {
  RankedTensorType type = getTensorType();
  if (!type.hasStaticShape())
    return emitOpError() << "expects a static shape, but @" << getSymName()
                         << " has shape " << formatShape(type.getShape());
  if (std::optional<ElementsAttr> init = getInitialValue()) {
    if (init->getType() != type)
      return emitOpError() << "initial value has type " << init->getType()
                           << " but the weight is " << type;
  }
  if (getInitializer() && getInitialValue())
    return emitOpError() << "has both an initial value and an initializer, "
                            "expected at most one";
  return success();
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

/// Shared verifier of the binary elementwise ops.
LogicalResult
capture::ag::detail::verifyResultShape(Operation *op,
                                       ArrayRef<int64_t> expected) {
  ArrayRef<int64_t> result = tensorOf(op->getResult(0)).getShape();
  if (expected == result)
    return success();
  return op->emitOpError() << "result shape " << formatShape(result)
                           << " does not match the expected "
                           << formatShape(expected);
}

LogicalResult capture::ag::detail::verifyBroadcastBinary(Operation *op) {
  if (failed(verifyStatic(op)))
    return failure();
  ArrayRef<int64_t> lhs = tensorOf(op->getOperand(0)).getShape();
  ArrayRef<int64_t> rhs = tensorOf(op->getOperand(1)).getShape();
  FailureOr<SmallVector<int64_t>> shape = broadcastShapes(lhs, rhs);
  if (failed(shape))
    return op->emitOpError() << "cannot broadcast shapes " << formatShape(lhs)
                             << " and " << formatShape(rhs);
  ArrayRef<int64_t> result = tensorOf(op->getResult(0)).getShape();
  if (ArrayRef<int64_t>(*shape) != result)
    return op->emitOpError()
           << "result shape " << formatShape(result)
           << " does not match the broadcast shape " << formatShape(*shape);
  return success();
}

/// The f32 value of a splat constant operand, if it is one.
static std::optional<APFloat> splatOf(Attribute attr) {
  auto splat = dyn_cast_or_null<SplatElementsAttr>(attr);
  if (!splat || !splat.getElementType().isF32())
    return std::nullopt;
  return splat.getSplatValue<APFloat>();
}

/// Folds a binary op of two splat f32 constants into a splat of the
/// result's (broadcast) type. Only correctly rounded operations use this:
/// APFloat gives the same bits as the device's f32 arithmetic.
static OpFoldResult
foldSplats(Operation *op, ArrayRef<Attribute> operands,
           function_ref<APFloat(const APFloat &, const APFloat &)> fn) {
  std::optional<APFloat> lhs = splatOf(operands[0]);
  std::optional<APFloat> rhs = splatOf(operands[1]);
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!lhs || !rhs || !type || !type.hasStaticShape())
    return {};
  return DenseElementsAttr::get(type, fn(*lhs, *rhs));
}

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  return foldSplats(*this, adaptor.getOperands(),
                    [](const APFloat &a, const APFloat &b) { return a + b; });
}
OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  return foldSplats(*this, adaptor.getOperands(),
                    [](const APFloat &a, const APFloat &b) { return a - b; });
}
OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  return foldSplats(*this, adaptor.getOperands(),
                    [](const APFloat &a, const APFloat &b) { return a * b; });
}
OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  return foldSplats(*this, adaptor.getOperands(),
                    [](const APFloat &a, const APFloat &b) { return a / b; });
}
OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  std::optional<APFloat> x = splatOf(adaptor.getOperand());
  if (!x)
    return {};
  return DenseElementsAttr::get(cast<ShapedType>(getType()), -*x);
}

LogicalResult AddOp::verify() { return verifyBroadcastBinary(*this); }
LogicalResult SubOp::verify() { return verifyBroadcastBinary(*this); }
LogicalResult MulOp::verify() { return verifyBroadcastBinary(*this); }
LogicalResult DivOp::verify() { return verifyBroadcastBinary(*this); }
LogicalResult MinimumOp::verify() { return verifyBroadcastBinary(*this); }
LogicalResult MaximumOp::verify() { return verifyBroadcastBinary(*this); }

LogicalResult NegOp::verify() { return verifyStatic(*this); }
LogicalResult ExpOp::verify() { return verifyStatic(*this); }
LogicalResult LogOp::verify() { return verifyStatic(*this); }
LogicalResult TanhOp::verify() { return verifyStatic(*this); }
LogicalResult SigmoidOp::verify() { return verifyStatic(*this); }
LogicalResult ReluOp::verify() { return verifyStatic(*this); }
LogicalResult SqrtOp::verify() { return verifyStatic(*this); }
LogicalResult SquareOp::verify() { return verifyStatic(*this); }
LogicalResult FloorOp::verify() { return verifyStatic(*this); }
LogicalResult CeilOp::verify() { return verifyStatic(*this); }
LogicalResult ErfOp::verify() { return verifyStatic(*this); }

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  RankedTensorType lhs = tensorOf(getLhs()), rhs = tensorOf(getRhs());
  RankedTensorType result = tensorOf(getResult());
  if (lhs.getRank() != 2 || rhs.getRank() != 2 || result.getRank() != 2)
    return emitOpError() << "expects 2-D operands and result, but found "
                         << formatShape(lhs.getShape()) << " x "
                         << formatShape(rhs.getShape()) << " -> "
                         << formatShape(result.getShape());
  int64_t m = lhs.getDimSize(getTransposeA() ? 1 : 0);
  int64_t ka = lhs.getDimSize(getTransposeA() ? 0 : 1);
  int64_t kb = rhs.getDimSize(getTransposeB() ? 1 : 0);
  int64_t n = rhs.getDimSize(getTransposeB() ? 0 : 1);
  if (ka != kb)
    return emitOpError() << "contraction sizes differ: lhs "
                         << formatShape(lhs.getShape())
                         << (getTransposeA() ? " (transposed)" : "")
                         << " gives K = " << ka << ", rhs "
                         << formatShape(rhs.getShape())
                         << (getTransposeB() ? " (transposed)" : "")
                         << " gives K = " << kb;
  return verifyResultShape(*this, {m, n});
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// Expected result shape of a reduction of `input` along `axis` (or all).
static SmallVector<int64_t> reducedShape(ArrayRef<int64_t> input,
                                         std::optional<int64_t> axis,
                                         bool keepdim) {
  SmallVector<int64_t> shape;
  for (auto [i, dim] : llvm::enumerate(input)) {
    bool reduced = !axis || static_cast<int64_t>(i) == *axis;
    if (!reduced)
      shape.push_back(dim);
    else if (keepdim)
      shape.push_back(1);
  }
  return shape;
}

/// Shared verifier of sum, mean and max.
template <typename OpTy> static LogicalResult verifyReduction(OpTy op) {
  if (failed(verifyStatic(op)))
    return failure();
  RankedTensorType input = tensorOf(op.getInput());
  std::optional<int64_t> axis;
  if (IntegerAttr attr = op.getAxisAttr()) {
    FailureOr<int64_t> normalized =
        checkAxis(op, attr.getInt(), input.getRank());
    if (failed(normalized))
      return failure();
    axis = *normalized;
  }
  SmallVector<int64_t> expected =
      reducedShape(input.getShape(), axis, op.getKeepdim());
  return verifyResultShape(op, expected);
}

template <typename OpTy> static std::optional<int64_t> normalizedAxis(OpTy op) {
  if (IntegerAttr attr = op.getAxisAttr())
    return normalize(attr.getInt(), op.getInput());
  return std::nullopt;
}

LogicalResult SumOp::verify() { return verifyReduction(*this); }
LogicalResult MeanOp::verify() { return verifyReduction(*this); }
LogicalResult MaxOp::verify() { return verifyReduction(*this); }
std::optional<int64_t> MaxOp::getNormalizedAxis() {
  return normalizedAxis(*this);
}
std::optional<int64_t> SumOp::getNormalizedAxis() {
  return normalizedAxis(*this);
}
std::optional<int64_t> MeanOp::getNormalizedAxis() {
  return normalizedAxis(*this);
}

//===----------------------------------------------------------------------===//
// ReadWeightOp, ProbeOp, StopGradientOp
//===----------------------------------------------------------------------===//

/// The ag.weight `op` refers to by `ref`, or an error naming it.
static FailureOr<WeightOp> lookupWeight(Operation *op, FlatSymbolRefAttr ref,
                                        SymbolTableCollection &symbolTable) {
  auto weight = symbolTable.lookupNearestSymbolFrom<WeightOp>(op, ref);
  if (!weight)
    return op->emitOpError() << "refers to @" << ref.getValue()
                             << ", which is not an ag.weight of this module";
  return weight;
}

LogicalResult
ReadWeightOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  FailureOr<WeightOp> weight =
      lookupWeight(*this, getWeightAttr(), symbolTable);
  if (failed(weight))
    return failure();
  if (weight->getType() != getResult().getType())
    return emitOpError() << "reads @" << getWeight() << " as "
                         << getResult().getType() << ", but it is declared "
                         << weight->getType();
  return success();
}

LogicalResult AssignWeightOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  Operation *entry = (*this)->getParentOp();
  if (!isa<ForwardOp>(entry))
    return emitOpError() << "assigns @" << getWeight() << " in "
                         << entry->getName()
                         << ": only an ag.forward assigns weights (a training "
                            "step changes its weights through its update)";
  // A compiled entry writes every assigned weight at its end: a read after
  // the assign, or a second assign, would see another value there than in
  // program order.
  for (Operation *op = (*this)->getNextNode(); op; op = op->getNextNode()) {
    auto other = dyn_cast<AssignWeightOp>(op);
    auto read = dyn_cast<ReadWeightOp>(op);
    if ((other && other.getWeight() == getWeight()) ||
        (read && read.getWeight() == getWeight())) {
      InFlightDiagnostic diag =
          op->emitOpError()
          << (other ? "assigns" : "reads") << " @" << getWeight()
          << " after an ag.assign_weight of it: an entry assigns a weight "
             "once, after every read of it";
      diag.attachNote(getLoc()) << "the assign";
      return diag;
    }
  }
  return success();
}

LogicalResult
AssignWeightOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  FailureOr<WeightOp> weight =
      lookupWeight(*this, getWeightAttr(), symbolTable);
  if (failed(weight))
    return failure();
  if (weight->getType() != getValue().getType())
    return emitOpError() << "assigns " << getValue().getType() << " to @"
                         << getWeight() << ", which is declared "
                         << weight->getType();
  return success();
}

LogicalResult ProbeOp::verify() {
  if (getProbeName().empty())
    return emitOpError() << "needs a non-empty probe name";
  return verifyStatic(*this);
}

LogicalResult StopGradientOp::verify() { return verifyStatic(*this); }

//===----------------------------------------------------------------------===//
// UploadOp
//===----------------------------------------------------------------------===//

LogicalResult UploadOp::verify() {
  if (getConstant() && !getValue())
    return emitOpError() << "marked constant must carry its value";
  if (std::optional<ElementsAttr> value = getValue())
    if (value->getType() != getResult().getType())
      return emitOpError() << "value has type " << value->getType()
                           << " but the result is " << getResult().getType();
  return verifyStatic(*this);
}

//===----------------------------------------------------------------------===//
// InputViewOp, PackOutputsOp
//===----------------------------------------------------------------------===//

int64_t capture::ag::getByteSize(ShapedType type) {
  // Kernels may bind a tensor as vector elements (vec4 views).
  Type element = type.getElementType();
  int64_t lanes = 1;
  if (auto vector = dyn_cast<VectorType>(element)) {
    lanes = vector.getNumElements();
    element = vector.getElementType();
  }
  return type.getNumElements() * lanes *
         ((element.getIntOrFloatBitWidth() + 7) / 8);
}

LogicalResult InputViewOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  int64_t bytes = tensorOf(getBuffer()).getDimSize(0);
  int64_t size = getByteSize(tensorOf(getResult()));
  auto offset = static_cast<int64_t>(getOffset());
  if (offset < 0 || offset + size > bytes)
    return emitOpError() << "view of " << size << " bytes at offset " << offset
                         << " does not fit the " << bytes << "-byte buffer";
  return success();
}

/// Checks that no two outputs of `op` share a byte: each is written in
/// place at its offset, and the runtime reads each from there.
static LogicalResult verifyDisjointOutputs(PackOutputsOp op) {
  SmallVector<int64_t> sizes;
  for (Value value : op.getOutputs())
    sizes.push_back(getByteSize(tensorOf(value)));
  ArrayRef<int64_t> offsets = op.getOffsets();
  for (size_t j = 0; j < sizes.size(); ++j)
    for (size_t i = 0; i < j; ++i) {
      if (sizes[i] == 0 || sizes[j] == 0 ||
          offsets[j] >= offsets[i] + sizes[i] ||
          offsets[i] >= offsets[j] + sizes[j])
        continue;
      return op.emitOpError()
             << "output #" << j << " (" << sizes[j] << " bytes at offset "
             << offsets[j] << ") overlaps output #" << i << " (" << sizes[i]
             << " bytes at offset " << offsets[i]
             << "): each output needs its own bytes of the buffer";
    }
  return success();
}

ParseResult PackOutputsOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  SmallVector<int64_t> offsets;
  SmallVector<Type> types;
  Type resultType;
  auto parseOne = [&]() -> ParseResult {
    int64_t offset;
    if (parser.parseOperand(operands.emplace_back()) || parser.parseLSquare() ||
        parser.parseInteger(offset) || parser.parseRSquare())
      return failure();
    offsets.push_back(offset);
    return success();
  };
  // The list may be empty: an entry without outputs.
  OpAsmParser::UnresolvedOperand first;
  OptionalParseResult hasFirst = parser.parseOptionalOperand(first);
  if (hasFirst.has_value()) {
    if (failed(*hasFirst))
      return failure();
    operands.push_back(first);
    int64_t offset;
    if (parser.parseLSquare() || parser.parseInteger(offset) ||
        parser.parseRSquare())
      return failure();
    offsets.push_back(offset);
    while (succeeded(parser.parseOptionalComma()))
      if (parseOne())
        return failure();
  }
  if (parser.parseOptionalAttrDict(result.attributes) || parser.parseColon())
    return failure();
  if (failed(parser.parseOptionalArrow()) &&
      (parser.parseTypeList(types) || parser.parseArrow()))
    return failure();
  if (parser.parseType(resultType) ||
      parser.resolveOperands(operands, types, parser.getCurrentLocation(),
                             result.operands))
    return failure();
  result.addAttribute(getOffsetsAttrName(result.name),
                      parser.getBuilder().getDenseI64ArrayAttr(offsets));
  result.addTypes(resultType);
  return success();
}

void PackOutputsOp::print(OpAsmPrinter &p) {
  p << ' ';
  llvm::interleaveComma(
      llvm::zip(getOutputs(), getOffsets()), p, [&](auto pair) {
        p << std::get<0>(pair) << '[' << std::get<1>(pair) << ']';
      });
  p.printOptionalAttrDict((*this)->getAttrs(), {getOffsetsAttrName()});
  p << " : ";
  llvm::interleaveComma(getOutputs().getTypes(), p);
  p << (getOutputs().empty() ? "-> " : " -> ") << getResult().getType();
}

LogicalResult PackOutputsOp::verify() {
  if (getOutputs().size() != getOffsets().size())
    return emitOpError() << "has " << getOutputs().size() << " outputs but "
                         << getOffsets().size() << " offsets";
  int64_t bytes = tensorOf(getResult()).getDimSize(0);
  for (auto [i, value, offset] : llvm::enumerate(getOutputs(), getOffsets())) {
    int64_t size = getByteSize(tensorOf(value));
    if (offset < 0 || offset + size > bytes)
      return emitOpError() << "output #" << i << " (" << size
                           << " bytes at offset " << offset
                           << ") does not fit the " << bytes << "-byte buffer";
  }
  return verifyDisjointOutputs(*this);
}

#include "capture/Dialect/Ag/IR/AgEnums.cpp.inc"
#include "capture/Dialect/Ag/IR/AgInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "capture/Dialect/Ag/IR/AgOps.cpp.inc"
