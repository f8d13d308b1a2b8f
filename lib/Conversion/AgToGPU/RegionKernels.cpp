//===- RegionKernels.cpp - The elementwise dispatch-region template -------===//
//
// One kernel per ag.dispatch_region elementwise: every work item evaluates
// the region's body for 4 consecutive output elements, in registers, and
// stores only the result: one vec4 store, or with a tail of 1-3 elements
// four masked scalar stores (llvmpipe runs a store once per SIMD lane, so
// a vec4 store costs about what one scalar store does). Inputs of the
// result's shape, and inputs that broadcast a trailing block of it (a bias
// row) whose size is a multiple of 4, are bound as vector<4xf32> elements:
// one load per input per work item (one texel read on lavapipe). Other
// inputs are loaded per element at their broadcast indices; a
// single-element input is loaded once.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitters.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace capture;
using namespace capture::ag;
using namespace capture::kernels;

namespace {

/// Output elements per work item on the vector path.
constexpr int64_t kLanes = 4;

/// How the template reads one input.
enum class InputRead {
  /// The result's shape: vector `i` holds the work item's 4 elements.
  Same,
  /// A trailing block of the result's shape (leading 1s dropped), of a
  /// multiple of 4 elements: vector `i mod (size / 4)`.
  Trailing,
  /// One element, loaded once.
  Single,
  /// Anything else: per element at the broadcast indices.
  PerElement,
};

} // namespace

static RankedTensorType resultType(DispatchRegionOp op) {
  return cast<RankedTensorType>(op->getResult(0).getType());
}

/// Whether work items are 4 elements: always but for tiny results. When
/// the size is not a multiple of 4, the last work item's extra lanes read
/// the padding of the inputs' last vec4 (every range a kernel binds starts
/// at a 256-byte boundary, so its last 16 bytes are in its own slot),
/// compute garbage and store nothing.
static bool vectorized(DispatchRegionOp op) {
  return resultType(op).getNumElements() >= kLanes;
}

/// Whether the last work item has lanes past the result.
static bool hasTail(DispatchRegionOp op) {
  return resultType(op).getNumElements() % kLanes != 0;
}

/// Whether the result is bound as vector<4xf32> elements and stored one
/// vec4 per work item: with a tail the lanes past it must not be stored.
static bool vecResult(DispatchRegionOp op) {
  return vectorized(op) && !hasTail(op);
}

static InputRead readOf(DispatchRegionOp op, Value input) {
  auto type = cast<RankedTensorType>(input.getType());
  ArrayRef<int64_t> result = resultType(op).getShape();
  if (type.getNumElements() == 1)
    return InputRead::Single;
  if (!vectorized(op))
    return InputRead::PerElement;
  if (type.getShape() == result)
    return InputRead::Same;
  ArrayRef<int64_t> shape = type.getShape();
  while (!shape.empty() && shape.front() == 1)
    shape = shape.drop_front();
  // (A trailing block of a multiple of 4 elements implies a result of one.)
  if (shape.size() <= result.size() &&
      result.take_back(shape.size()) == shape &&
      type.getNumElements() % kLanes == 0)
    return InputRead::Trailing;
  return InputRead::PerElement;
}

int64_t capture::kernels::elementwiseRegionWorkItems(DispatchRegionOp op) {
  int64_t n = resultType(op).getNumElements();
  return vectorized(op) ? (n + kLanes - 1) / kLanes : n;
}

SmallVector<Type>
capture::kernels::elementwiseRegionArgTypes(DispatchRegionOp op) {
  MLIRContext *ctx = op.getContext();
  Type f32 = Float32Type::get(ctx);
  SmallVector<Type> types;
  for (Value input : op.getInputs()) {
    auto type = cast<RankedTensorType>(input.getType());
    InputRead read = readOf(op, input);
    if (read == InputRead::Same || read == InputRead::Trailing)
      types.push_back(vec4Memref(ctx, type.getNumElements()));
    else
      types.push_back(MemRefType::get(type.getShape(), f32));
  }
  int64_t n = resultType(op).getNumElements();
  types.push_back(vecResult(op) ? vec4Memref(ctx, n)
                                : MemRefType::get({n}, f32));
  return types;
}

/// The f32 value of a splat ag.constant.
static Value splatValue(ConstantOp constant, OpBuilder &b, Location loc) {
  auto dense = cast<DenseElementsAttr>(constant.getValue());
  return arith::ConstantOp::create(
      b, loc, b.getF32FloatAttr(dense.getSplatValue<APFloat>().convertToFloat()));
}

Operation *capture::kernels::regionReduction(DispatchRegionOp op) {
  return op.getReduction();
}

SmallVector<BlockArgument>
capture::kernels::reductionEpilogueInputs(DispatchRegionOp op) {
  SmallVector<BlockArgument> inputs;
  Operation *reduction = regionReduction(op);
  for (Operation *inner = reduction->getNextNode();
       inner && !isa<YieldOp>(inner); inner = inner->getNextNode())
    for (Value operand : inner->getOperands())
      if (auto arg = dyn_cast<BlockArgument>(operand);
          arg && !llvm::is_contained(inputs, arg))
        inputs.push_back(arg);
  return inputs;
}

Value capture::kernels::regionEpilogue(DispatchRegionOp op, OpBuilder &b,
                                       Location loc, Value reduced,
                                       ValueRange inputs) {
  Operation *reduction = regionReduction(op);
  DenseMap<Value, Value> scalar;
  scalar[reduction->getResult(0)] = reduced;
  // Its single-element inputs, each loaded once.
  for (auto [arg, memref] :
       llvm::zip_equal(reductionEpilogueInputs(op), inputs)) {
    SmallVector<Value> zeros(cast<MemRefType>(memref.getType()).getRank(),
                             indexConst(b, loc, 0));
    scalar[arg] = memref::LoadOp::create(b, loc, memref, zeros);
  }
  // The verifier allows only the reduction's result, splat constants and
  // single-element inputs into the epilogue.
  for (Operation *inner = reduction->getNextNode();
       inner && !isa<YieldOp>(inner); inner = inner->getNextNode()) {
    if (auto constant = dyn_cast<ConstantOp>(inner)) {
      scalar[constant.getResult()] = splatValue(constant, b, loc);
      continue;
    }
    SmallVector<Value> operands;
    for (Value operand : inner->getOperands()) {
      Value v = scalar.lookup(operand);
      if (!v) // a splat constant cloned before the reduction
        v = splatValue(operand.getDefiningOp<ConstantOp>(), b, loc);
      operands.push_back(v);
    }
    scalar[inner->getResult(0)] = emitScalar(inner, b, loc, operands);
  }
  return scalar.lookup(op.getYielded());
}

bool capture::kernels::producersRead(DispatchRegionOp op, BlockArgument arg) {
  Operation *reduction = regionReduction(op);
  return llvm::any_of(arg.getUsers(), [&](Operation *user) {
    return user == reduction || user->isBeforeInBlock(reduction);
  });
}

Value capture::kernels::regionElement(DispatchRegionOp op, OpBuilder &b,
                                      Location loc, ValueRange at,
                                      ValueRange args) {
  DenseMap<Value, Value> scalar;
  for (auto [arg, memref] : llvm::zip(op.getBlock().getArguments(), args)) {
    if (!producersRead(op, arg))
      continue;
    ArrayRef<int64_t> shape = cast<RankedTensorType>(arg.getType()).getShape();
    scalar[arg] = memref::LoadOp::create(b, loc, memref,
                                         broadcastIndices(b, loc, at, shape));
  }
  // The producers only: the reduction itself is the caller's loop.
  Operation *reduction = regionReduction(op);
  evaluateBody(op, b, loc, scalar, reduction);
  return scalar.lookup(reduction->getOperand(0));
}

SmallVector<Value> capture::kernels::regionReductionLanes(DispatchRegionOp op,
                                                          OpBuilder &b,
                                                          Location loc, Value v,
                                                          ValueRange args) {
  // Each input's four lanes: a vec4 of the reduced shape, or its single
  // element (partialReadsVec4 allows no other).
  SmallVector<SmallVector<Value>> inputs;
  for (auto [arg, memref] : llvm::zip(op.getBlock().getArguments(), args)) {
    auto type = cast<RankedTensorType>(arg.getType());
    SmallVector<Value> lanes;
    if (!producersRead(op, arg)) {
      lanes.assign(kLanes, Value());
    } else if (type.getNumElements() == 1) {
      SmallVector<Value> zeros(type.getRank(), indexConst(b, loc, 0));
      lanes.assign(kLanes, memref::LoadOp::create(b, loc, memref, zeros));
    } else {
      lanes = loadLanes(b, loc, memref, v);
    }
    inputs.push_back(std::move(lanes));
  }
  Operation *reduction = regionReduction(op);
  SmallVector<Value> out;
  for (int64_t l = 0; l < kLanes; ++l) {
    DenseMap<Value, Value> scalar;
    for (auto [arg, lanes] : llvm::zip(op.getBlock().getArguments(), inputs))
      if (lanes[l])
        scalar[arg] = lanes[l];
    evaluateBody(op, b, loc, scalar, reduction);
    out.push_back(scalar.lookup(reduction->getOperand(0)));
  }
  return out;
}

void capture::kernels::evaluateBody(DispatchRegionOp op, OpBuilder &b,
                                    Location loc,
                                    DenseMap<Value, Value> &scalar,
                                    Operation *stop) {
  for (Operation &inner : op.getBlock().without_terminator()) {
    if (&inner == stop)
      return;
    if (scalar.count(inner.getResult(0)))
      continue; // given (a matmul's accumulator)
    if (inner.getResult(0) == op.getYieldedSums())
      continue; // a matmul region's column sums: the tiles' own loop
    if (auto constant = dyn_cast<ConstantOp>(inner)) {
      scalar[constant.getResult()] = splatValue(constant, b, loc);
      continue;
    }
    SmallVector<Value> operands;
    for (Value operand : inner.getOperands())
      operands.push_back(scalar.lookup(operand));
    scalar[inner.getResult(0)] = emitScalar(&inner, b, loc, operands);
  }
}

SmallVector<Value> capture::kernels::elementwiseRegionLanes(
    DispatchRegionOp op, OpBuilder &b, Location loc, Value i,
    ValueRange args) {
  RankedTensorType result = resultType(op);
  int64_t lanes = vectorized(op) ? kLanes : 1;
  Value first = lanes == 1 ? i
                           : arith::MulIOp::create(b, loc, i,
                                                   indexConst(b, loc, lanes));

  // values[input][lane].
  SmallVector<SmallVector<Value>> values;
  for (auto [input, memref] : llvm::zip(op.getInputs(), args)) {
    auto type = cast<RankedTensorType>(input.getType());
    SmallVector<Value> &lane = values.emplace_back();
    switch (readOf(op, input)) {
    case InputRead::Same:
    case InputRead::Trailing: {
      int64_t vectors = (type.getNumElements() + kLanes - 1) / kLanes;
      Value at = i;
      if (vectors != elementwiseRegionWorkItems(op))
        at = arith::RemUIOp::create(b, loc, i, indexConst(b, loc, vectors));
      lane = loadLanes(b, loc, memref, at);
      break;
    }
    case InputRead::Single: {
      SmallVector<Value> zeros(type.getRank(), indexConst(b, loc, 0));
      Value v = memref::LoadOp::create(b, loc, memref, zeros);
      lane.assign(lanes, v);
      break;
    }
    case InputRead::PerElement:
      for (int64_t l = 0; l < lanes; ++l) {
        Value e = l == 0 ? first
                         : arith::AddIOp::create(b, loc, first,
                                                 indexConst(b, loc, l));
        // Lanes past the result load the last element instead.
        if (l > 0 && hasTail(op))
          e = arith::MinUIOp::create(
              b, loc, e, indexConst(b, loc, result.getNumElements() - 1));
        SmallVector<Value> idx = delinearize(b, loc, e, result.getShape());
        lane.push_back(memref::LoadOp::create(
            b, loc, memref, broadcastIndices(b, loc, idx, type.getShape())));
      }
      break;
    }
  }

  Block &body = op.getBlock();
  SmallVector<Value> out;
  for (int64_t l = 0; l < lanes; ++l) {
    // Scalar value of every body value for this lane.
    DenseMap<Value, Value> scalar;
    for (auto [arg, lane] : llvm::zip(body.getArguments(), values))
      scalar[arg] = lane[l];
    evaluateBody(op, b, loc, scalar);
    out.push_back(scalar.lookup(op.getYielded()));
  }
  return out;
}

void capture::kernels::emitElementwiseRegion(DispatchRegionOp op, OpBuilder &b,
                                             Location loc, Value i,
                                             ValueRange args) {
  RankedTensorType result = resultType(op);
  SmallVector<Value> lanes = elementwiseRegionLanes(op, b, loc, i, args);
  if (vecResult(op)) {
    Value vec = vector::FromElementsOp::create(
        b, loc, VectorType::get({kLanes}, lanes[0].getType()), lanes);
    memref::StoreOp::create(b, loc, vec, args.back(), ValueRange{i});
    return;
  }
  Value first =
      lanes.size() == 1
          ? i
          : arith::MulIOp::create(b, loc, i, indexConst(b, loc, kLanes));
  for (auto [l, value] : llvm::enumerate(lanes)) {
    Value e = l == 0 ? first
                     : arith::AddIOp::create(b, loc, first,
                                             indexConst(b, loc, l));
    ifBelow(b, loc, e, result.getNumElements(), l == 0 || !hasTail(op),
            [&](OpBuilder &sb, Location sloc) {
              memref::StoreOp::create(sb, sloc, value, args.back(),
                                      ValueRange{e});
            });
  }
}
