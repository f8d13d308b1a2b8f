//===- AgVJP.cpp - Vector-Jacobian products of the ag ops
//------------------===//
//
// Each differentiable op builds the gradients of its operands from the
// gradient of its result, in ag ops, following PyTorch's derivative
// conventions (derivatives.yaml): relu'(x <= 0) = 0, clamp passes the
// gradient on [min, max] inclusive, ties of minimum/maximum split it in
// halves, amax spreads it evenly over the maxima, floor and ceil give zeros.
//
//===----------------------------------------------------------------------===//

#include "capture/Dialect/Ag/IR/AgOps.h"

using namespace mlir;
using namespace capture::ag;

namespace {

/// Builds the ag ops of a backward pass at one insertion point.
class GradBuilder {
public:
  GradBuilder(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  static RankedTensorType typeOf(Value v) {
    return cast<RankedTensorType>(v.getType());
  }
  RankedTensorType f32(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, b.getF32Type());
  }
  /// A splat f32 constant of `shape`.
  Value constant(ArrayRef<int64_t> shape, double value) {
    RankedTensorType type = f32(shape);
    return ConstantOp::create(
        b, loc, type,
        DenseElementsAttr::get(type, APFloat(static_cast<float>(value))));
  }
  /// A rank-0 f32 constant.
  Value scalar(double value) { return constant({}, value); }

  template <typename OpTy> Value binary(Value x, Value y) {
    SmallVector<int64_t> shape =
        *broadcastShapes(typeOf(x).getShape(), typeOf(y).getShape());
    return OpTy::create(b, loc, f32(shape), x, y);
  }
  Value add(Value x, Value y) { return binary<AddOp>(x, y); }
  Value sub(Value x, Value y) { return binary<SubOp>(x, y); }
  Value mul(Value x, Value y) { return binary<MulOp>(x, y); }
  Value div(Value x, Value y) { return binary<DivOp>(x, y); }
  Value neg(Value x) { return NegOp::create(b, loc, x.getType(), x); }
  Value exp(Value x) { return ExpOp::create(b, loc, x.getType(), x); }
  Value compare(ComparePredicate predicate, Value x, Value y) {
    SmallVector<int64_t> shape =
        *broadcastShapes(typeOf(x).getShape(), typeOf(y).getShape());
    return CompareOp::create(b, loc, f32(shape), predicate, x, y);
  }

  /// Sums `x` along `axis` (kept as 1 when `keepdim`).
  Value sumAxis(Value x, int64_t axis, bool keepdim) {
    SmallVector<int64_t> shape(typeOf(x).getShape());
    if (keepdim)
      shape[axis] = 1;
    else
      shape.erase(shape.begin() + axis);
    return SumOp::create(b, loc, f32(shape), x, b.getI64IntegerAttr(axis),
                         keepdim);
  }

  Value reshape(Value x, ArrayRef<int64_t> shape) {
    if (typeOf(x).getShape() == shape)
      return x;
    return ReshapeOp::create(b, loc, f32(shape), x);
  }
  Value broadcastTo(Value x, ArrayRef<int64_t> shape) {
    if (typeOf(x).getShape() == shape)
      return x;
    return BroadcastToOp::create(b, loc, f32(shape), x);
  }

  /// Reduces a gradient of the broadcast shape back to an operand's `shape`
  /// by summing over the broadcast dimensions.
  Value unbroadcast(Value g, ArrayRef<int64_t> shape) {
    while (typeOf(g).getRank() > static_cast<int64_t>(shape.size()))
      g = sumAxis(g, 0, /*keepdim=*/false);
    for (auto [d, dim] : llvm::enumerate(shape))
      if (dim == 1 && typeOf(g).getDimSize(d) != 1)
        g = sumAxis(g, d, /*keepdim=*/true);
    return g;
  }

  /// The shape of `input` with the reduced axis (or all axes) set to 1.
  static SmallVector<int64_t> keptShape(ArrayRef<int64_t> input,
                                        std::optional<int64_t> axis) {
    SmallVector<int64_t> shape(input);
    for (auto [d, dim] : llvm::enumerate(shape))
      if (!axis || static_cast<int64_t>(d) == *axis)
        dim = 1;
    return shape;
  }

  OpBuilder &b;
  Location loc;
};

} // namespace

/// Unbroadcast `g * scale` to each of two operands (null scale: g itself).
static void appendBinaryGrads(GradBuilder &gb, Operation *op, Value gLhs,
                              Value gRhs,
                              SmallVectorImpl<Value> &operandGrads) {
  operandGrads.push_back(
      gb.unbroadcast(gLhs, GradBuilder::typeOf(op->getOperand(0)).getShape()));
  operandGrads.push_back(
      gb.unbroadcast(gRhs, GradBuilder::typeOf(op->getOperand(1)).getShape()));
}

LogicalResult AddOp::buildVJP(OpBuilder &b, ValueRange grads,
                              SmallVectorImpl<Value> &operandGrads) {
  GradBuilder gb(b, getLoc());
  appendBinaryGrads(gb, *this, grads[0], grads[0], operandGrads);
  return success();
}

LogicalResult SubOp::buildVJP(OpBuilder &b, ValueRange grads,
                              SmallVectorImpl<Value> &operandGrads) {
  GradBuilder gb(b, getLoc());
  appendBinaryGrads(gb, *this, grads[0], gb.neg(grads[0]), operandGrads);
  return success();
}

LogicalResult MulOp::buildVJP(OpBuilder &b, ValueRange grads,
                              SmallVectorImpl<Value> &operandGrads) {
  GradBuilder gb(b, getLoc());
  appendBinaryGrads(gb, *this, gb.mul(grads[0], getRhs()),
                    gb.mul(grads[0], getLhs()), operandGrads);
  return success();
}

LogicalResult DivOp::buildVJP(OpBuilder &b, ValueRange grads,
                              SmallVectorImpl<Value> &operandGrads) {
  GradBuilder gb(b, getLoc());
  Value g = grads[0];
  // d(a/b)/db = -a / b^2 = -(a/b) / b.
  Value gRhs = gb.neg(gb.div(gb.mul(g, getResult()), getRhs()));
  appendBinaryGrads(gb, *this, gb.div(g, getRhs()), gRhs, operandGrads);
  return success();
}

/// torch.minimum/maximum: the chosen side gets the gradient, ties split it.
/// `otherWins` is the predicate under which the lhs gets nothing.
static void appendMinMaxGrads(GradBuilder &gb, Operation *op, Value g,
                              ComparePredicate lhsLoses,
                              ComparePredicate rhsLoses,
                              SmallVectorImpl<Value> &operandGrads) {
  Value a = op->getOperand(0), c = op->getOperand(1);
  Value half = gb.mul(gb.compare(ComparePredicate::eq, a, c), gb.scalar(0.5));
  Value one = gb.scalar(1.0);
  Value maskA = gb.sub(gb.sub(one, gb.compare(lhsLoses, a, c)), half);
  Value maskB = gb.sub(gb.sub(one, gb.compare(rhsLoses, a, c)), half);
  appendBinaryGrads(gb, op, gb.mul(g, maskA), gb.mul(g, maskB), operandGrads);
}

LogicalResult MinimumOp::buildVJP(OpBuilder &b, ValueRange grads,
                                  SmallVectorImpl<Value> &operandGrads) {
  GradBuilder gb(b, getLoc());
  appendMinMaxGrads(gb, *this, grads[0], ComparePredicate::gt,
                    ComparePredicate::lt, operandGrads);
  return success();
}

LogicalResult MaximumOp::buildVJP(OpBuilder &b, ValueRange grads,
                                  SmallVectorImpl<Value> &operandGrads) {
  GradBuilder gb(b, getLoc());
  appendMinMaxGrads(gb, *this, grads[0], ComparePredicate::lt,
                    ComparePredicate::gt, operandGrads);
  return success();
}

LogicalResult NegOp::buildVJP(OpBuilder &b, ValueRange grads,
                              SmallVectorImpl<Value> &operandGrads) {
  operandGrads.push_back(GradBuilder(b, getLoc()).neg(grads[0]));
  return success();
}

LogicalResult ExpOp::buildVJP(OpBuilder &b, ValueRange grads,
                              SmallVectorImpl<Value> &operandGrads) {
  operandGrads.push_back(GradBuilder(b, getLoc()).mul(grads[0], getResult()));
  return success();
}

LogicalResult LogOp::buildVJP(OpBuilder &b, ValueRange grads,
                              SmallVectorImpl<Value> &operandGrads) {
  operandGrads.push_back(GradBuilder(b, getLoc()).div(grads[0], getOperand()));
  return success();
}

LogicalResult TanhOp::buildVJP(OpBuilder &b, ValueRange grads,
                               SmallVectorImpl<Value> &operandGrads) {
  GradBuilder gb(b, getLoc());
  Value y = getResult();
  operandGrads.push_back(
      gb.mul(grads[0], gb.sub(gb.scalar(1.0), gb.mul(y, y))));
  return success();
}

LogicalResult SigmoidOp::buildVJP(OpBuilder &b, ValueRange grads,
                                  SmallVectorImpl<Value> &operandGrads) {
  GradBuilder gb(b, getLoc());
  Value y = getResult();
  operandGrads.push_back(
      gb.mul(grads[0], gb.mul(y, gb.sub(gb.scalar(1.0), y))));
  return success();
}

LogicalResult ReluOp::buildVJP(OpBuilder &b, ValueRange grads,
                               SmallVectorImpl<Value> &operandGrads) {
  GradBuilder gb(b, getLoc());
  // threshold_backward(grad, result, 0), as PyTorch: zero where
  // relu(x) <= 0, which is where x <= 0 (NaN stays NaN on both). Reading the
  // result rather than x leaves x no user but the relu, so a matmul's
  // epilogue can apply the relu and x is never stored.
  Value mask = gb.sub(gb.scalar(1.0), gb.compare(ComparePredicate::le,
                                                 getResult(), gb.scalar(0)));
  operandGrads.push_back(gb.mul(grads[0], mask));
  return success();
}

LogicalResult SqrtOp::buildVJP(OpBuilder &b, ValueRange grads,
                               SmallVectorImpl<Value> &operandGrads) {
  GradBuilder gb(b, getLoc());
  operandGrads.push_back(gb.div(grads[0], gb.mul(getResult(), gb.scalar(2.0))));
  return success();
}

LogicalResult SquareOp::buildVJP(OpBuilder &b, ValueRange grads,
                                 SmallVectorImpl<Value> &operandGrads) {
  GradBuilder gb(b, getLoc());
  operandGrads.push_back(
      gb.mul(grads[0], gb.mul(getOperand(), gb.scalar(2.0))));
  return success();
}

/// floor and ceil are piecewise constant: PyTorch's backward gives zeros
/// (even at the integers, where the derivative does not exist).
static Value zerosLike(GradBuilder &gb, Value x) {
  return gb.constant(GradBuilder::typeOf(x).getShape(), 0.0);
}

LogicalResult FloorOp::buildVJP(OpBuilder &b, ValueRange grads,
                                SmallVectorImpl<Value> &operandGrads) {
  GradBuilder gb(b, getLoc());
  operandGrads.push_back(zerosLike(gb, getOperand()));
  return success();
}

LogicalResult CeilOp::buildVJP(OpBuilder &b, ValueRange grads,
                               SmallVectorImpl<Value> &operandGrads) {
  GradBuilder gb(b, getLoc());
  operandGrads.push_back(zerosLike(gb, getOperand()));
  return success();
}

LogicalResult ErfOp::buildVJP(OpBuilder &b, ValueRange grads,
                              SmallVectorImpl<Value> &operandGrads) {
  GradBuilder gb(b, getLoc());
  // erf'(x) = 2 / sqrt(pi) * exp(-x^2).
  Value x = getOperand();
  Value density = gb.exp(gb.neg(gb.mul(x, x)));
  operandGrads.push_back(
      gb.mul(grads[0], gb.mul(density, gb.scalar(1.1283791670955126))));
  return success();
}

LogicalResult ClampOp::buildVJP(OpBuilder &b, ValueRange grads,
                                SmallVectorImpl<Value> &operandGrads) {
  GradBuilder gb(b, getLoc());
  Value x = getOperand();
  Value mask = gb.mul(gb.compare(ComparePredicate::ge, x,
                                 gb.scalar(getMin().convertToDouble())),
                      gb.compare(ComparePredicate::le, x,
                                 gb.scalar(getMax().convertToDouble())));
  operandGrads.push_back(gb.mul(grads[0], mask));
  return success();
}

LogicalResult MatmulOp::buildVJP(OpBuilder &b, ValueRange grads,
                                 SmallVectorImpl<Value> &operandGrads) {
  Value g = grads[0], a = getLhs(), c = getRhs();
  bool ta = getTransposeA(), tb = getTransposeB();
  Location loc = getLoc();
  // C = op(A) op(B): dop(A) = G op(B)^T, dop(B) = op(A)^T G; transpose back
  // when the operand itself was transposed.
  Value gA = ta ? MatmulOp::create(b, loc, a.getType(), c, g, tb, true)
                : MatmulOp::create(b, loc, a.getType(), g, c, false, !tb);
  Value gB = tb ? MatmulOp::create(b, loc, c.getType(), g, a, true, ta)
                : MatmulOp::create(b, loc, c.getType(), a, g, !ta, false);
  operandGrads.push_back(gA);
  operandGrads.push_back(gB);
  return success();
}

/// Gradient of sum/mean: the result gradient spread over the reduced
/// elements (divided by their count for mean).
static Value spreadReduction(GradBuilder &gb, Value g, Value input,
                             std::optional<int64_t> axis, double scale) {
  ArrayRef<int64_t> shape = GradBuilder::typeOf(input).getShape();
  Value kept = gb.reshape(g, GradBuilder::keptShape(shape, axis));
  if (scale != 1.0)
    kept = gb.mul(kept, gb.scalar(scale));
  return gb.broadcastTo(kept, shape);
}

LogicalResult SumOp::buildVJP(OpBuilder &b, ValueRange grads,
                              SmallVectorImpl<Value> &operandGrads) {
  GradBuilder gb(b, getLoc());
  operandGrads.push_back(
      spreadReduction(gb, grads[0], getInput(), getNormalizedAxis(), 1.0));
  return success();
}

LogicalResult MeanOp::buildVJP(OpBuilder &b, ValueRange grads,
                               SmallVectorImpl<Value> &operandGrads) {
  GradBuilder gb(b, getLoc());
  RankedTensorType in = GradBuilder::typeOf(getInput());
  std::optional<int64_t> axis = getNormalizedAxis();
  int64_t count = axis ? in.getDimSize(*axis) : in.getNumElements();
  operandGrads.push_back(
      spreadReduction(gb, grads[0], getInput(), axis, 1.0 / count));
  return success();
}

LogicalResult MaxOp::buildVJP(OpBuilder &b, ValueRange grads,
                              SmallVectorImpl<Value> &operandGrads) {
  GradBuilder gb(b, getLoc());
  ArrayRef<int64_t> shape = GradBuilder::typeOf(getInput()).getShape();
  std::optional<int64_t> axis = getNormalizedAxis();
  SmallVector<int64_t> kept = GradBuilder::keptShape(shape, axis);
  // amax: the gradient is shared evenly by every maximal element.
  Value mask = gb.compare(ComparePredicate::eq, getInput(),
                          gb.reshape(getResult(), kept));
  Value count = mask;
  if (axis) {
    count = gb.sumAxis(mask, *axis, /*keepdim=*/true);
  } else {
    for (int64_t d = 0, r = shape.size(); d < r; ++d)
      count = gb.sumAxis(count, d, /*keepdim=*/true);
  }
  operandGrads.push_back(
      gb.mul(mask, gb.div(gb.reshape(grads[0], kept), count)));
  return success();
}

LogicalResult BroadcastToOp::buildVJP(OpBuilder &b, ValueRange grads,
                                      SmallVectorImpl<Value> &operandGrads) {
  operandGrads.push_back(
      GradBuilder(b, getLoc())
          .unbroadcast(grads[0], getInput().getType().getShape()));
  return success();
}

LogicalResult ReshapeOp::buildVJP(OpBuilder &b, ValueRange grads,
                                  SmallVectorImpl<Value> &operandGrads) {
  operandGrads.push_back(
      GradBuilder(b, getLoc())
          .reshape(grads[0], getInput().getType().getShape()));
  return success();
}

LogicalResult TransposeOp::buildVJP(OpBuilder &b, ValueRange grads,
                                    SmallVectorImpl<Value> &operandGrads) {
  ArrayRef<int64_t> perm = getPermutation();
  SmallVector<int64_t> inverse(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = i;
  operandGrads.push_back(TransposeOp::create(b, getLoc(), getInput().getType(),
                                             grads[0], inverse));
  return success();
}

LogicalResult ConcatOp::buildVJP(OpBuilder &b, ValueRange grads,
                                 SmallVectorImpl<Value> &operandGrads) {
  int64_t axis = getNormalizedAxis(), start = 0;
  for (Value input : getInputs()) {
    auto type = cast<RankedTensorType>(input.getType());
    int64_t end = start + type.getDimSize(axis);
    operandGrads.push_back(
        SliceOp::create(b, getLoc(), type, grads[0], axis, start, end));
    start = end;
  }
  return success();
}

LogicalResult SliceOp::buildVJP(OpBuilder &b, ValueRange grads,
                                SmallVectorImpl<Value> &operandGrads) {
  GradBuilder gb(b, getLoc());
  RankedTensorType in = getInput().getType();
  int64_t axis = getNormalizedAxis();
  int64_t start = getStartAttr().getInt(), end = getEndAttr().getInt();
  // Zeros before and after the slice, concatenated around its gradient.
  SmallVector<Value> parts;
  SmallVector<int64_t> shape(in.getShape());
  if (start > 0) {
    shape[axis] = start;
    parts.push_back(gb.constant(shape, 0.0));
  }
  parts.push_back(grads[0]);
  if (end < in.getDimSize(axis)) {
    shape[axis] = in.getDimSize(axis) - end;
    parts.push_back(gb.constant(shape, 0.0));
  }
  operandGrads.push_back(
      parts.size() == 1
          ? parts.front()
          : ConcatOp::create(b, getLoc(), in, parts, axis).getResult());
  return success();
}

LogicalResult SoftmaxOp::buildVJP(OpBuilder &b, ValueRange grads,
                                  SmallVectorImpl<Value> &operandGrads) {
  GradBuilder gb(b, getLoc());
  Value y = getResult(), g = grads[0];
  // dx = y * (g - sum(g * y)).
  Value dot = gb.sumAxis(gb.mul(g, y), getNormalizedAxis(), true);
  operandGrads.push_back(gb.mul(y, gb.sub(g, dot)));
  return success();
}

LogicalResult LogSoftmaxOp::buildVJP(OpBuilder &b, ValueRange grads,
                                     SmallVectorImpl<Value> &operandGrads) {
  GradBuilder gb(b, getLoc());
  Value g = grads[0];
  // dx = g - softmax(x) * sum(g).
  Value total = gb.sumAxis(g, getNormalizedAxis(), true);
  operandGrads.push_back(gb.sub(g, gb.mul(gb.exp(getResult()), total)));
  return success();
}

LogicalResult CrossEntropyOp::buildVJP(OpBuilder &b, ValueRange grads,
                                       SmallVectorImpl<Value> &operandGrads) {
  GradBuilder gb(b, getLoc());
  auto logits = cast<RankedTensorType>(getLogits().getType());
  // d(mean CE)/dlogits = (softmax(logits) - onehot(labels)) / B.
  Value probs = SoftmaxOp::create(b, getLoc(), logits, getLogits(), 1);
  Value onehot = OneHotOp::create(b, getLoc(), logits, getLabels());
  Value scale = gb.div(grads[0], gb.scalar(logits.getDimSize(0)));
  operandGrads.push_back(gb.mul(gb.sub(probs, onehot), scale));
  operandGrads.push_back(Value());
  return success();
}

LogicalResult MseOp::buildVJP(OpBuilder &b, ValueRange grads,
                              SmallVectorImpl<Value> &operandGrads) {
  GradBuilder gb(b, getLoc());
  int64_t n = GradBuilder::typeOf(getLhs()).getNumElements();
  Value scale = gb.mul(grads[0], gb.scalar(2.0 / n));
  Value gLhs = gb.mul(gb.sub(getLhs(), getRhs()), scale);
  operandGrads.push_back(gLhs);
  operandGrads.push_back(gb.neg(gLhs));
  return success();
}

LogicalResult GetRowsOp::buildVJP(OpBuilder &b, ValueRange grads,
                                  SmallVectorImpl<Value> &operandGrads) {
  operandGrads.push_back(ScatterAddRowsOp::create(
      b, getLoc(), getTable().getType(), grads[0], getIndices()));
  operandGrads.push_back(Value());
  return success();
}

LogicalResult ProbeOp::buildVJP(OpBuilder &b, ValueRange grads,
                                SmallVectorImpl<Value> &operandGrads) {
  operandGrads.push_back(grads[0]);
  return success();
}

LogicalResult StopGradientOp::buildVJP(OpBuilder &b, ValueRange grads,
                                       SmallVectorImpl<Value> &operandGrads) {
  // detach(): nothing flows to the operand. (ag-autodiff does not count the
  // result as depending on a weight, so it never asks; a caller that does
  // gets no gradient, as for an integer operand.)
  operandGrads.push_back(Value());
  return success();
}
