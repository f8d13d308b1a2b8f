//===- AgShapeOps.cpp - Verifiers of the shape, loss and index ops ------===//

#include "capture/Dialect/Ag/IR/AgOps.h"

#include "AgOpsVerify.h"

using namespace mlir;
using namespace capture::ag;
using namespace capture::ag::detail;

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

LogicalResult ClampOp::verify() {
  if (getMin().convertToFloat() > getMax().convertToFloat())
    return emitOpError() << "min " << getMin().convertToFloat()
                         << " is greater than max "
                         << getMax().convertToFloat();
  return verifyStatic(*this);
}

/// A splat constant reshaped or broadcast is a splat of the result's type.
static OpFoldResult foldSplat(Attribute input, Type result) {
  auto splat = dyn_cast_or_null<SplatElementsAttr>(input);
  auto type = dyn_cast<RankedTensorType>(result);
  if (!splat || !type || !type.hasStaticShape())
    return {};
  return splat.resizeSplat(type);
}

OpFoldResult BroadcastToOp::fold(FoldAdaptor adaptor) {
  return foldSplat(adaptor.getInput(), getType());
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  return foldSplat(adaptor.getInput(), getType());
}

LogicalResult BroadcastToOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  ArrayRef<int64_t> in = tensorOf(getInput()).getShape();
  ArrayRef<int64_t> out = tensorOf(getResult()).getShape();
  FailureOr<SmallVector<int64_t>> shape = broadcastShapes(in, out);
  if (failed(shape) || ArrayRef<int64_t>(*shape) != out)
    return emitOpError() << "cannot broadcast " << formatShape(in) << " to "
                         << formatShape(out);
  return success();
}

LogicalResult ReshapeOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  RankedTensorType in = tensorOf(getInput()), out = tensorOf(getResult());
  if (in.getNumElements() != out.getNumElements())
    return emitOpError() << "cannot reshape " << formatShape(in.getShape())
                         << " (" << in.getNumElements() << " elements) to "
                         << formatShape(out.getShape()) << " ("
                         << out.getNumElements() << " elements)";
  return success();
}

LogicalResult TransposeOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  RankedTensorType in = tensorOf(getInput());
  ArrayRef<int64_t> perm = getPermutation();
  int64_t rank = in.getRank();
  SmallVector<bool> seen(rank, false);
  bool valid = static_cast<int64_t>(perm.size()) == rank;
  for (int64_t p : perm) {
    valid = valid && p >= 0 && p < rank && !seen[p];
    if (valid)
      seen[p] = true;
  }
  if (!valid)
    return emitOpError() << "permutation " << formatShape(perm)
                         << " is not a permutation of the " << rank
                         << " dimensions of the input";
  SmallVector<int64_t> expected;
  for (int64_t p : perm)
    expected.push_back(in.getDimSize(p));
  return verifyResultShape(*this, expected);
}

LogicalResult ConcatOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  if (getInputs().empty())
    return emitOpError() << "needs at least one input";
  RankedTensorType first = tensorOf(getInputs().front());
  FailureOr<int64_t> axis =
      checkAxis(*this, getAxisAttr().getInt(), first.getRank());
  if (failed(axis))
    return failure();
  SmallVector<int64_t> expected(first.getShape());
  expected[*axis] = 0;
  for (auto [i, value] : llvm::enumerate(getInputs())) {
    RankedTensorType type = tensorOf(value);
    bool compatible = type.getRank() == first.getRank();
    for (int64_t d = 0; compatible && d < first.getRank(); ++d)
      compatible = d == *axis || type.getDimSize(d) == first.getDimSize(d);
    if (!compatible)
      return emitOpError() << "input #" << i << " has shape "
                           << formatShape(type.getShape())
                           << ", which differs from input #0's "
                           << formatShape(first.getShape()) << " outside axis "
                           << *axis;
    expected[*axis] += type.getDimSize(*axis);
  }
  return verifyResultShape(*this, expected);
}

int64_t ConcatOp::getNormalizedAxis() {
  return normalize(getAxisAttr().getInt(), getInputs().front());
}

LogicalResult SliceOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  RankedTensorType in = tensorOf(getInput());
  FailureOr<int64_t> axis =
      checkAxis(*this, getAxisAttr().getInt(), in.getRank());
  if (failed(axis))
    return failure();
  int64_t dim = in.getDimSize(*axis);
  int64_t start = getStartAttr().getInt(), end = getEndAttr().getInt();
  if (start < 0 || start >= end || end > dim)
    return emitOpError() << "range [" << start << ", " << end
                         << ") is not a non-empty part of [0, " << dim
                         << ") (axis " << *axis << ")";
  SmallVector<int64_t> expected(in.getShape());
  expected[*axis] = end - start;
  return verifyResultShape(*this, expected);
}

int64_t SliceOp::getNormalizedAxis() {
  return normalize(getAxisAttr().getInt(), getInput());
}

//===----------------------------------------------------------------------===//
// Softmax and losses
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  return failure(failed(checkAxis(*this, getAxisAttr().getInt(),
                                  tensorOf(getInput()).getRank())));
}
LogicalResult LogSoftmaxOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  return failure(failed(checkAxis(*this, getAxisAttr().getInt(),
                                  tensorOf(getInput()).getRank())));
}
int64_t SoftmaxOp::getNormalizedAxis() {
  return normalize(getAxisAttr().getInt(), getInput());
}
int64_t LogSoftmaxOp::getNormalizedAxis() {
  return normalize(getAxisAttr().getInt(), getInput());
}

/// Losses return a rank-0 tensor.
static LogicalResult verifyScalarResult(Operation *op) {
  ArrayRef<int64_t> out = tensorOf(op->getResult(0)).getShape();
  if (!out.empty())
    return op->emitOpError() << "returns a scalar (tensor<f32>), but the "
                                "result has shape "
                             << formatShape(out);
  return success();
}

LogicalResult CrossEntropyOp::verify() {
  if (failed(verifyStatic(*this)) || failed(verifyScalarResult(*this)))
    return failure();
  ArrayRef<int64_t> logits = tensorOf(getLogits()).getShape();
  ArrayRef<int64_t> labels = tensorOf(getLabels()).getShape();
  if (logits.size() != 2 || labels.size() != 1 || labels[0] != logits[0])
    return emitOpError() << "expects logits [B, C] and labels [B], but found "
                         << formatShape(logits) << " and "
                         << formatShape(labels);
  return success();
}

LogicalResult MseOp::verify() {
  if (failed(verifyStatic(*this)) || failed(verifyScalarResult(*this)))
    return failure();
  ArrayRef<int64_t> lhs = tensorOf(getLhs()).getShape();
  ArrayRef<int64_t> rhs = tensorOf(getRhs()).getShape();
  if (lhs != rhs)
    return emitOpError() << "expects operands of one shape, but found "
                         << formatShape(lhs) << " and " << formatShape(rhs)
                         << " (broadcast explicitly with ag.broadcast_to)";
  return success();
}

LogicalResult GetRowsOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  ArrayRef<int64_t> table = tensorOf(getTable()).getShape();
  ArrayRef<int64_t> indices = tensorOf(getIndices()).getShape();
  if (table.size() != 2 || indices.size() != 1)
    return emitOpError() << "expects a table [V, D] and indices [N], but "
                            "found "
                         << formatShape(table) << " and "
                         << formatShape(indices);
  SmallVector<int64_t> expected = {indices[0], table[1]};
  return verifyResultShape(*this, expected);
}

//===----------------------------------------------------------------------===//
// Backward-pass helper ops
//===----------------------------------------------------------------------===//

LogicalResult CompareOp::verify() { return verifyBroadcastBinary(*this); }

LogicalResult OneHotOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  ArrayRef<int64_t> labels = tensorOf(getLabels()).getShape();
  ArrayRef<int64_t> out = tensorOf(getResult()).getShape();
  if (labels.size() != 1 || out.size() != 2 || out[0] != labels[0])
    return emitOpError() << "expects labels [B] and a result [B, C], but "
                            "found "
                         << formatShape(labels) << " and " << formatShape(out);
  return success();
}

LogicalResult ScatterAddRowsOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  ArrayRef<int64_t> updates = tensorOf(getUpdates()).getShape();
  ArrayRef<int64_t> indices = tensorOf(getIndices()).getShape();
  ArrayRef<int64_t> out = tensorOf(getResult()).getShape();
  if (updates.size() != 2 || indices.size() != 1 || out.size() != 2 ||
      indices[0] != updates[0] || out[1] != updates[1])
    return emitOpError() << "expects updates [N, D], indices [N] and a "
                            "result [V, D], but found "
                         << formatShape(updates) << ", " << formatShape(indices)
                         << " and " << formatShape(out);
  return success();
}

LogicalResult CheckIndicesOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  ArrayRef<int64_t> indices = tensorOf(getIndices()).getShape();
  ArrayRef<int64_t> status = tensorOf(getStatus()).getShape();
  ArrayRef<int64_t> poison = tensorOf(getPoison()).getShape();
  if (indices.size() != 1 || status != ArrayRef<int64_t>{2} || !poison.empty())
    return emitOpError() << "expects indices [N], a status [2] and a poison "
                            "[], but found "
                         << formatShape(indices) << ", " << formatShape(status)
                         << " and " << formatShape(poison);
  // I64Attr's accessor is unsigned: read the signed value.
  int64_t bound = getBoundAttr().getInt();
  if (bound < 0)
    return emitOpError() << "expects a bound >= 0, got " << bound;
  if (getOp().empty())
    return emitOpError() << "expects the name of the indexing op in 'op'";
  return success();
}
