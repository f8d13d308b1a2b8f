//===- AgDispatchOps.cpp - Dispatch regions -------------------------------===//

#include "capture/Dialect/Ag/IR/AgOps.h"

#include "AgOpsVerify.h"

using namespace mlir;
using namespace capture::ag;
using namespace capture::ag::detail;

bool capture::ag::isElementwiseOp(Operation *op) {
  return isa<AddOp, SubOp, MulOp, DivOp, MinimumOp, MaximumOp, NegOp, ExpOp,
             LogOp, SqrtOp, SquareOp, ReluOp, ClampOp, BroadcastToOp, SigmoidOp,
             TanhOp, FloorOp, CeilOp, ErfOp, CompareOp>(op);
}

bool capture::ag::isSplatConstant(Operation *op) {
  auto constant = dyn_cast<ConstantOp>(op);
  if (!constant)
    return false;
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  return dense && dense.isSplat();
}

/// The operands, results and body of a region op: one block with one
/// argument per input, for the caller to fill.
static void buildRegionOp(OperationState &state, ValueRange inputs,
                          TypeRange results) {
  state.addOperands(inputs);
  state.addTypes(results);
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (Value input : inputs)
    block->addArgument(input.getType(), input.getLoc());
}

void DispatchRegionOp::build(OpBuilder &b, OperationState &state,
                             DispatchKind kind, ValueRange inputs,
                             TypeRange results) {
  state.addAttribute(getKindAttrName(state.name),
                     DispatchKindAttr::get(b.getContext(), kind));
  buildRegionOp(state, inputs, results);
}

Value DispatchRegionOp::getYielded() {
  return cast<YieldOp>(getBlock().getTerminator()).getValues().front();
}

Value DispatchRegionOp::getYieldedSums() {
  ValueRange values = cast<YieldOp>(getBlock().getTerminator()).getValues();
  return values.size() == 2 ? values[1] : Value();
}

MatmulOp DispatchRegionOp::getMatmul() {
  if (getKind() != DispatchKind::matmul)
    return {};
  for (Operation &op : getBlock())
    if (auto matmul = dyn_cast<MatmulOp>(op))
      return matmul;
  return {};
}

Operation *DispatchRegionOp::getReduction() {
  if (getKind() != DispatchKind::reduction)
    return nullptr;
  for (Operation &op : getBlock())
    if (isa<SumOp, MeanOp, MaxOp>(op))
      return &op;
  return nullptr;
}

Operation *capture::ag::fullReductionOf(Operation *op) {
  if (auto region = dyn_cast<DispatchRegionOp>(op))
    op = region.getReduction();
  if (!op)
    return nullptr;
  std::optional<int64_t> axis;
  if (auto sum = dyn_cast<SumOp>(op))
    axis = sum.getNormalizedAxis();
  else if (auto mean = dyn_cast<MeanOp>(op))
    axis = mean.getNormalizedAxis();
  else if (auto max = dyn_cast<MaxOp>(op))
    axis = max.getNormalizedAxis();
  else
    return nullptr;
  return axis ? nullptr : op;
}

SmallVector<Value> WorkgroupRegionOp::getUnyieldedStages() {
  SmallVector<Value> values;
  ValueRange yielded = getYielded();
  for (Operation &inner : getBlock().without_terminator())
    if (isStage(&inner) && !llvm::is_contained(yielded, inner.getResult(0)))
      values.push_back(inner.getResult(0));
  return values;
}

/// The checks every region op's body shares: one block argument per input,
/// of its type, and an ag.yield at the end, which it returns.
static FailureOr<YieldOp> verifyRegionBody(Operation *op, Block &block,
                                           ValueRange inputs) {
  if (block.getNumArguments() != inputs.size())
    return op->emitOpError() << "body has " << block.getNumArguments()
                             << " arguments for " << inputs.size() << " inputs";
  for (auto [i, arg, input] : llvm::enumerate(block.getArguments(), inputs))
    if (arg.getType() != input.getType())
      return op->emitOpError()
             << "body argument " << i << " is " << arg.getType()
             << ", but input " << i << " is " << input.getType();
  auto yield =
      dyn_cast_or_null<YieldOp>(block.empty() ? nullptr : &block.back());
  if (!yield)
    return op->emitOpError() << "body must end with ag.yield";
  return yield;
}

/// "an" before "elementwise", else "a".
static StringRef article(DispatchKind kind) {
  return kind == DispatchKind::elementwise ? "an" : "a";
}

LogicalResult DispatchRegionOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  Block &block = getBlock();
  FailureOr<YieldOp> yielded = verifyRegionBody(*this, block, getInputs());
  if (failed(yielded))
    return failure();
  YieldOp yield = *yielded;
  if (getNumResults() == 0)
    return emitOpError() << "has no results, expected 1";
  if (yield.getValues().size() != getNumResults())
    return emitOpError() << "yields " << yield.getValues().size()
                         << " values for " << getNumResults() << " results";
  for (auto [value, result] : llvm::zip(yield.getValues(), getResults()))
    if (value.getType() != result.getType())
      return emitOpError() << "yields " << value.getType()
                           << ", but the result is " << result.getType();
  if (getNumResults() > 1) {
    // Only a matmul region's column sums of its transposed lhs.
    MatmulOp matmul = getMatmul();
    auto sum = getYieldedSums().getDefiningOp<SumOp>();
    if (getNumResults() != 2 || !matmul || !matmul.getTransposeA() || !sum ||
        sum.getInput() != matmul.getLhs() || sum.getNormalizedAxis() != 0 ||
        sum.getKeepdim())
      return emitOpError()
             << "has " << getNumResults()
             << " results: only a matmul region with transpose_a may have a "
                "second, the ag.sum along axis 0 (no keepdim) of its "
                "matmul's left operand";
  }
  if ((*this)->hasAttr(kUpdatePrologueAttr)) {
    Value result = getResult(0);
    auto user = result.hasOneUse()
                    ? dyn_cast<ApplyAdamWOp>(*result.getUsers().begin())
                    : ApplyAdamWOp();
    if (getKind() != DispatchKind::elementwise || !user ||
        user.getGrads() != result)
      return emitOpError()
             << "marked '" << kUpdatePrologueAttr
             << "' must be elementwise and used only as the gradients of one "
                "ag.apply_adamw";
  }
  auto result = cast<RankedTensorType>(getResult(0).getType());
  Operation *reduction = nullptr;
  if (getKind() == DispatchKind::reduction) {
    for (Operation &op : block)
      if (isa<SumOp, MeanOp, MaxOp>(op) && !reduction)
        reduction = &op;
    if (!reduction)
      return emitOpError() << "of kind reduction has no ag.sum, ag.mean or "
                              "ag.max";
    // The epilogue: elementwise ops of the reduced value, splat constants
    // and single-element inputs only, up to the yielded value.
    DenseSet<Value> epilogue = {reduction->getResult(0)};
    for (BlockArgument arg : block.getArguments())
      if (cast<RankedTensorType>(arg.getType()).getNumElements() == 1)
        epilogue.insert(arg);
    for (Operation *op = reduction->getNextNode(); op != yield;
         op = op->getNextNode()) {
      if (isSplatConstant(op)) {
        epilogue.insert(op->getResult(0));
        continue;
      }
      bool ok = isElementwiseOp(op) &&
                llvm::all_of(op->getOperands(),
                             [&](Value v) {
                               return epilogue.contains(v) ||
                                      (v.getDefiningOp() &&
                                       isSplatConstant(v.getDefiningOp()));
                             }) &&
                op->getResult(0).getType() == reduction->getResult(0).getType();
      if (!ok)
        return op->emitOpError()
               << "after the reduction of a reduction dispatch region must "
                  "be elementwise, of the reduced value's type, on the "
                  "reduced value, splat constants and single-element inputs "
                  "only";
      epilogue.insert(op->getResult(0));
    }
    Operation *last = getYielded().getDefiningOp();
    if (!last || last->getBlock() != &block || last->getNextNode() != yield ||
        !epilogue.contains(getYielded()))
      return emitOpError() << "of kind reduction must yield the result of "
                              "its last op: its ag.sum, ag.mean or ag.max, "
                              "or the end of its epilogue";
    // Its producers must have the reduced tensor's shape.
    result = cast<RankedTensorType>(reduction->getOperand(0).getType());
  }
  bool matmulKind = getKind() == DispatchKind::matmul;
  bool seenMatmul = false, seenElementwise = false;
  for (Operation &op : block.without_terminator()) {
    if (reduction && (&op == reduction || reduction->isBeforeInBlock(&op)))
      break;
    if (Value sums = getYieldedSums(); sums && sums.getDefiningOp() == &op)
      continue; // checked above
    if (auto matmul = dyn_cast<MatmulOp>(op); matmul && matmulKind) {
      if (seenMatmul || seenElementwise)
        return op.emitOpError()
               << "must be the first op (after splat constants) and the "
                  "only matmul of a matmul dispatch region";
      seenMatmul = true;
      for (Value operand : matmul->getOperands())
        if (!isa<BlockArgument>(operand))
          return op.emitOpError()
                 << "in a matmul dispatch region must multiply region "
                    "inputs (block arguments)";
      if (matmul.getType().getShape() != result.getShape())
        return op.emitOpError()
               << "has shape " << formatShape(matmul.getType().getShape())
               << ", but its matmul dispatch region has shape "
               << formatShape(result.getShape());
      continue;
    }
    if (!isElementwiseOp(&op) && !isSplatConstant(&op))
      return op.emitOpError()
             << "cannot be in " << article(getKind()) << " "
             << stringifyDispatchKind(getKind()) << " dispatch region: expected "
             << (matmulKind ? "one leading ag.matmul, then " : "")
             << "elementwise ops or splat ag.constants";
    seenElementwise |= isElementwiseOp(&op);
    if (isSplatConstant(&op))
      continue;
    auto type = cast<RankedTensorType>(op.getResult(0).getType());
    if (type.getShape() != result.getShape() && type.getNumElements() != 1)
      return op.emitOpError()
             << "has shape " << formatShape(type.getShape())
             << " in " << article(getKind()) << " "
             << stringifyDispatchKind(getKind()) << " dispatch region of shape "
             << formatShape(result.getShape())
             << ": every op must produce the region's shape or one element";
  }
  if (matmulKind && !seenMatmul)
    return emitOpError() << "of kind matmul has no ag.matmul";
  return success();
}

//===----------------------------------------------------------------------===//
// WorkgroupRegionOp
//===----------------------------------------------------------------------===//

void WorkgroupRegionOp::build(OpBuilder &b, OperationState &state,
                              ValueRange inputs, TypeRange results) {
  buildRegionOp(state, inputs, results);
}

ValueRange WorkgroupRegionOp::getYielded() {
  return cast<YieldOp>(getBlock().getTerminator()).getValues();
}

bool WorkgroupRegionOp::isStage(Operation *op) {
  return isa<SumOp, MeanOp, MaxOp, MseOp, SoftmaxOp, LogSoftmaxOp,
             CrossEntropyOp>(op);
}

bool WorkgroupRegionOp::isMember(Operation *op) {
  return isElementwiseOp(op) || isSplatConstant(op) ||
         isa<ReshapeOp, OneHotOp>(op) || isStage(op);
}

Value WorkgroupRegionOp::labelsOf(Operation *op) {
  if (auto oneHot = dyn_cast<OneHotOp>(op))
    return oneHot.getLabels();
  if (auto loss = dyn_cast<CrossEntropyOp>(op))
    return loss.getLabels();
  return Value();
}

LogicalResult WorkgroupRegionOp::verify() {
  Block &block = getBlock();
  FailureOr<YieldOp> yielded = verifyRegionBody(*this, block, getInputs());
  if (failed(yielded))
    return failure();
  YieldOp yield = *yielded;
  if (getNumResults() == 0)
    return emitOpError() << "has no results, expected at least one";
  if (!llvm::equal(yield.getValues().getTypes(), getResultTypes())) {
    InFlightDiagnostic diag = emitOpError() << "yields (";
    llvm::interleaveComma(yield.getValues().getTypes(), diag);
    diag << "), but the results are (";
    llvm::interleaveComma(getResultTypes(), diag);
    return diag << ")";
  }
  for (Operation &op : block.without_terminator()) {
    if (!isMember(&op))
      return op.emitOpError()
             << "cannot be in a workgroup region: expected elementwise ops, "
                "splat ag.constants, ag.reshape, ag.one_hot, ag.sum, ag.mean, "
                "ag.max, ag.mse, ag.softmax, ag.log_softmax or "
                "ag.cross_entropy";
    // The kernel loads labels from their binding.
    Value labels = labelsOf(&op);
    if (labels && !isa<BlockArgument>(labels))
      return op.emitOpError()
             << "reads its labels from a value computed in the workgroup "
                "region; expected a block argument (an input of the region)";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// BindingOp
//===----------------------------------------------------------------------===//

/// Bits of one element of a binding: an integer or float, or a vector of
/// them (a kernel may bind a tensor as vector<4xf32>); 0 for anything else.
static int64_t elementBits(Type element) {
  int64_t lanes = 1;
  if (auto vector = dyn_cast<VectorType>(element)) {
    if (vector.isScalable() || vector.getRank() != 1)
      return 0;
    lanes = vector.getNumElements();
    element = vector.getElementType();
  }
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
    return 0;
  return lanes * element.getIntOrFloatBitWidth();
}

/// The bytes of a binding of `type`, or nullopt past 2^62 (a shape whose
/// product overflows included).
static std::optional<int64_t> bindingBytes(MemRefType type) {
  constexpr uint64_t kLimit = uint64_t(1) << 62;
  uint64_t bytes = elementBits(type.getElementType()) / 8;
  for (int64_t dim : type.getShape()) {
    if (dim < 0 || (dim != 0 && bytes > kLimit / static_cast<uint64_t>(dim)))
      return std::nullopt;
    bytes *= static_cast<uint64_t>(dim);
  }
  return static_cast<int64_t>(bytes);
}

int64_t BindingOp::getByteSize() {
  // (The verifier refused sizes that overflow.)
  return ag::getByteSize(getResult().getType());
}

/// The bytes of `kind`'s buffer where the IR around `op` says (the entry's
/// arguments, the module's buffer plan); nullopt where it does not.
static std::optional<int64_t> knownBufferBytes(BindingOp op, BufferKind kind) {
  if (kind == BufferKind::input || kind == BufferKind::output) {
    auto func = op->getParentOfType<FunctionOpInterface>();
    unsigned index = kind == BufferKind::input ? 0 : 1;
    if (!func || func.getNumArguments() != 2)
      return std::nullopt;
    auto type = dyn_cast<MemRefType>(func.getArgument(index).getType());
    if (!type || !type.hasStaticShape() || !type.getElementType().isInteger(8))
      return std::nullopt;
    return type.getNumElements();
  }
  auto module = op->getParentOfType<ModuleOp>();
  auto plan =
      module ? module->getAttrOfType<BufferPlanAttr>(kBufferPlanAttr) : nullptr;
  if (!plan)
    return std::nullopt;
  switch (kind) {
  case BufferKind::weights:
    return plan.getWeights();
  case BufferKind::optimizer:
    return plan.getOptimizer();
  case BufferKind::constants:
    return plan.getConstants();
  default:
    return std::nullopt;
  }
}

LogicalResult BindingOp::verify() {
  MemRefType type = getResult().getType();
  if (!type.getLayout().isIdentity())
    return emitOpError() << "binds " << type
                         << ", expected a memref with the identity layout";
  if (elementBits(type.getElementType()) == 0)
    return emitOpError() << "binds elements of " << type.getElementType()
                         << ", expected whole-byte integers or floats or 1-D "
                            "vectors of them";
  std::optional<int64_t> size = bindingBytes(type);
  if (!size)
    return emitOpError() << "binds " << type << ", more than 2^62 bytes";
  BufferKind kind = getBuffer();
  int64_t offset = getOffset();
  if (auto module = (*this)->getParentOfType<ModuleOp>())
    if (auto plan = module->getAttrOfType<BufferPlanAttr>(kBufferPlanAttr);
        plan && offset % plan.getAlignment() != 0)
      return emitOpError() << "binds " << stringifyBufferKind(kind)
                           << " at byte " << offset
                           << ", expected a multiple of the buffer plan's "
                              "alignment "
                           << plan.getAlignment();
  std::optional<int64_t> bytes = knownBufferBytes(*this, kind);
  if (bytes && (*size > *bytes || offset > *bytes - *size))
    return emitOpError() << "binds " << *size << " bytes at byte " << offset
                         << " of " << stringifyBufferKind(kind)
                         << ", which has only " << *bytes << " bytes";
  return success();
}
