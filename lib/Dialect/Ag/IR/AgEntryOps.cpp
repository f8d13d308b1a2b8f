//===- AgEntryOps.cpp - Entries (ag.forward, ag.train_step), ag.return ----===//
//
// The parsers and verifiers of the function-like entries: names and
// signatures, probes, and the packed I/O layouts of a lowered entry.
//
//===----------------------------------------------------------------------===//

#include "capture/Dialect/Ag/IR/AgOps.h"

#include "AgOpsVerify.h"

#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace capture::ag;
using namespace capture::ag::detail;

//===----------------------------------------------------------------------===//
// Entries: ForwardOp and TrainStepOp
//===----------------------------------------------------------------------===//

/// Parses a function-like entry (`@name(%x: type {attrs}) -> (...)`).
static ParseResult parseEntry(OpAsmParser &parser, OperationState &result,
                              StringAttr typeAttrName, StringAttr argAttrsName,
                              StringAttr resAttrsName) {
  auto buildType = [](Builder &builder, ArrayRef<Type> args,
                      ArrayRef<Type> results,
                      function_interface_impl::VariadicFlag, std::string &) {
    return builder.getFunctionType(args, results);
  };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false, typeAttrName, buildType,
      argAttrsName, resAttrsName);
}

/// The `ag.name` of argument or result `i` of an entry, or empty.
static StringRef entryName(FunctionOpInterface entry, unsigned i, bool result) {
  StringRef attrName = ForwardOp::getNameAttrName();
  auto name = result ? entry.getResultAttrOfType<StringAttr>(i, attrName)
                     : entry.getArgAttrOfType<StringAttr>(i, attrName);
  return name ? name.getValue() : StringRef();
}

/// Checks that every input or output has a unique, non-empty name.
static LogicalResult verifyNames(FunctionOpInterface op, unsigned count,
                                 StringRef what, bool results) {
  llvm::StringSet<> seen;
  for (unsigned i = 0; i < count; ++i) {
    StringRef name = entryName(op, i, results);
    if (name.empty())
      return op.emitOpError() << what << " #" << i << " needs a name: add {"
                              << ForwardOp::getNameAttrName() << " = \"...\"}";
    if (!seen.insert(name).second)
      return op.emitOpError()
             << what << " name \"" << name << "\" is used more than once";
  }
  return success();
}

/// Checks the types and names of an unpacked entry's inputs and outputs.
static LogicalResult verifyEntrySignature(FunctionOpInterface op) {
  auto verifyTypes = [&](ArrayRef<Type> types,
                         StringRef what) -> LogicalResult {
    for (auto [i, t] : llvm::enumerate(types)) {
      auto tensor = dyn_cast<RankedTensorType>(t);
      if (!tensor || !tensor.hasStaticShape() ||
          !(tensor.getElementType().isF32() ||
            tensor.getElementType().isSignlessInteger(32)))
        return op.emitOpError()
               << what << " #" << i
               << " must be a statically shaped f32 or i32 tensor, but found "
               << t;
    }
    return success();
  };
  if (failed(verifyTypes(op.getArgumentTypes(), "input")) ||
      failed(verifyTypes(op.getResultTypes(), "output")) ||
      failed(verifyNames(op, op.getNumArguments(), "input", false)) ||
      failed(verifyNames(op, op.getNumResults(), "output", true)))
    return failure();
  return success();
}

/// Checks that probe names are unique in an entry.
static LogicalResult verifyProbes(FunctionOpInterface entry) {
  llvm::StringSet<> probes;
  WalkResult result = entry.walk([&](ProbeOp probe) {
    if (!probes.insert(probe.getProbeName()).second) {
      probe.emitOpError() << "probe name \"" << probe.getProbeName()
                          << "\" is used more than once in entry @"
                          << entry.getName();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

ParseResult ForwardOp::parse(OpAsmParser &parser, OperationState &result) {
  return parseEntry(parser, result, getFunctionTypeAttrName(result.name),
                    getArgAttrsAttrName(result.name),
                    getResAttrsAttrName(result.name));
}

void ForwardOp::print(OpAsmPrinter &p) {
  function_interface_impl::printFunctionOp(
      p, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

StringRef ForwardOp::getInputName(unsigned i) {
  return entryName(*this, i, false);
}

StringRef ForwardOp::getOutputName(unsigned i) {
  return entryName(*this, i, true);
}

bool ForwardOp::isPacked() {
  return (*this)->hasAttr(getInputLayoutAttrName());
}

/// Checks a packed layout attribute: an array of #ag.segment with unique
/// names, f32 or i32 elements and sizes >= 0, each inside the buffer of
/// `bytes` bytes.
static LogicalResult verifyLayout(Operation *op, StringRef attrName,
                                  int64_t bytes) {
  auto layout = op->getAttrOfType<ArrayAttr>(attrName);
  if (!layout)
    return op->emitOpError()
           << "expects '" << attrName << "' to be an array of #ag.segment";
  llvm::StringSet<> seen;
  for (Attribute attr : layout) {
    auto segment = dyn_cast<SegmentAttr>(attr);
    if (!segment)
      return op->emitOpError()
             << "'" << attrName << "' holds a non-segment attribute " << attr;
    if (!seen.insert(segment.getName()).second)
      return op->emitOpError() << "'" << attrName << "' names \""
                               << segment.getName() << "\" more than once";
    // An entry's inputs and outputs are f32 or i32 (and getByteSize needs
    // a bit width).
    Type element = segment.getElementType();
    if (!element.isF32() && !element.isSignlessInteger(32))
      return op->emitOpError()
             << "segment \"" << segment.getName() << "\" has element type "
             << element << ", expected f32 or i32";
    for (int64_t dim : segment.getShape())
      if (dim < 0)
        return op->emitOpError()
               << "segment \"" << segment.getName() << "\" has dimension "
               << dim << " in its shape; expected sizes >= 0";
    if (segment.getOffset() < 0 ||
        segment.getOffset() + segment.getByteSize() > bytes)
      return op->emitOpError()
             << "segment \"" << segment.getName() << "\" at offset "
             << segment.getOffset() << " (" << segment.getByteSize()
             << " bytes) does not fit the " << bytes << "-byte buffer";
  }
  return success();
}

/// Checks the signature and layouts of an entry after ag-pack-io.
static LogicalResult verifyPackedEntry(FunctionOpInterface op) {
  auto type = cast<FunctionType>(op.getFunctionType());
  if (type.getNumInputs() != 1 || type.getNumResults() != 1)
    return op.emitOpError() << "a packed entry takes one input buffer and "
                               "returns one output buffer, but has type "
                            << type;
  for (Type t : {type.getInput(0), type.getResult(0)}) {
    auto buffer = dyn_cast<RankedTensorType>(t);
    if (!buffer || buffer.getRank() != 1 || !buffer.hasStaticShape() ||
        !buffer.getElementType().isInteger(8))
      return op.emitOpError() << "a packed entry's buffers must be static 1-D "
                                 "i8 tensors, but found "
                              << t;
  }
  if (failed(verifyLayout(
          op, ForwardOp::getInputLayoutAttrName(),
          cast<RankedTensorType>(type.getInput(0)).getDimSize(0))) ||
      failed(verifyLayout(
          op, ForwardOp::getOutputLayoutAttrName(),
          cast<RankedTensorType>(type.getResult(0)).getDimSize(0))))
    return failure();
  return success();
}

LogicalResult ForwardOp::verify() {
  if (!isPacked())
    return verifyEntrySignature(*this);
  return verifyPackedEntry(*this);
}

LogicalResult ForwardOp::verifyRegions() {
  // FunctionOpInterface already checks the body against the signature.
  return verifyProbes(*this);
}

ParseResult TrainStepOp::parse(OpAsmParser &parser, OperationState &result) {
  return parseEntry(parser, result, getFunctionTypeAttrName(result.name),
                    getArgAttrsAttrName(result.name),
                    getResAttrsAttrName(result.name));
}

void TrainStepOp::print(OpAsmPrinter &p) {
  function_interface_impl::printFunctionOp(
      p, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

StringRef TrainStepOp::getInputName(unsigned i) {
  return entryName(*this, i, false);
}

StringRef TrainStepOp::getOutputName(unsigned i) {
  return entryName(*this, i, true);
}

bool TrainStepOp::isPacked() {
  return (*this)->hasAttr(ForwardOp::getInputLayoutAttrName());
}

LogicalResult TrainStepOp::verify() {
  if (!isa<AdamWAttr>(getOptimizer()))
    return emitOpError() << "unsupported optimizer " << getOptimizer()
                         << ": expected #ag.adamw<lr = ..., beta1 = ..., "
                            "beta2 = ..., eps = ..., weight_decay = ...>";
  bool decoupled = getAdamW().getDecoupled();
  llvm::SmallDenseSet<Attribute> grouped;
  for (auto [i, group] : llvm::enumerate(getGroups())) {
    if (group.getAdamw().getDecoupled() != decoupled)
      return emitOpError() << "param group " << i + 1 << " has decoupled = "
                           << (decoupled ? "false" : "true")
                           << ", but the step's optimizer has decoupled = "
                           << (decoupled ? "true" : "false")
                           << ": one optimizer class updates every group";
    for (Attribute w : group.getWeights())
      if (!grouped.insert(w).second)
        return emitOpError() << w << " is in two param groups";
  }
  if (std::optional<APFloat> norm = getMaxGradNorm()) {
    float v = norm->convertToFloat();
    if (!(v > 0) || !std::isfinite(v))
      return emitOpError() << "max_grad_norm must be finite and > 0, got " << v;
  }
  if (isPacked())
    return verifyPackedEntry(*this);
  FunctionType type = getFunctionType();
  if (type.getNumResults() == 0)
    return emitOpError() << "needs the loss as its first output";
  auto loss = dyn_cast<RankedTensorType>(type.getResult(0));
  if (!loss || loss.getRank() != 0 || !loss.getElementType().isF32())
    return emitOpError() << "the loss (output #0) must be a scalar "
                            "tensor<f32>, but found "
                         << type.getResult(0);
  return verifyEntrySignature(*this);
}

SmallVector<ParamGroupAttr> TrainStepOp::getGroups() {
  SmallVector<ParamGroupAttr> groups;
  if (std::optional<ArrayAttr> all = getParamGroups())
    for (Attribute g : *all)
      groups.push_back(cast<ParamGroupAttr>(g));
  return groups;
}

SmallVector<AdamWAttr> TrainStepOp::getGroupAdamWs() {
  SmallVector<AdamWAttr> adamws = {getAdamW()};
  for (ParamGroupAttr group : getGroups())
    adamws.push_back(group.getAdamw());
  return adamws;
}

LogicalResult TrainStepOp::verifyRegions() { return verifyProbes(*this); }

//===----------------------------------------------------------------------===//
// ReturnOp
//===----------------------------------------------------------------------===//

LogicalResult ReturnOp::verify() {
  auto entry = cast<FunctionOpInterface>((*this)->getParentOp());
  ArrayRef<Type> expected = entry.getResultTypes();
  if (getOperands().size() != expected.size())
    return emitOpError() << "returns " << getOperands().size()
                         << " values, but the entry declares "
                         << expected.size() << " outputs";
  for (auto [i, value] : llvm::enumerate(getOperands()))
    if (value.getType() != expected[i])
      return emitOpError() << "output #" << i << " has type " << value.getType()
                           << ", but the entry declares " << expected[i];
  return success();
}
