//===- OpEval.cpp - Evaluation of ag compute ops --------------------------===//

#include "OpEval.h"

#include "Kernels.h"
#include "capture/Dialect/Ag/IR/AgOps.h"

#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"

#include <cmath>

using namespace mlir;
using namespace capture;
using namespace capture::reference;
namespace kernels = capture::reference::detail;
using namespace capture::reference::detail;
using capture::ag::formatShape;

//===----------------------------------------------------------------------===//
// Scalar math of the elementwise ops, in double (the kernels round to float
// in F32 precision)
//===----------------------------------------------------------------------===//

static double scalarNeg(double x) { return -x; }
static double scalarExp(double x) { return std::exp(x); }
static double scalarLog(double x) { return std::log(x); }
// std::tanh saturates to +-1, where an exp-based formula would give inf/inf.
static double scalarTanh(double x) { return std::tanh(x); }
static double scalarSigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
// NaN is passed through, as in PyTorch, rather than clamped to 0.
static double scalarRelu(double x) { return std::isnan(x) || x > 0 ? x : 0.0; }
static double scalarSqrt(double x) { return std::sqrt(x); }
static double scalarSquare(double x) { return x * x; }
static double scalarFloor(double x) { return std::floor(x); }
static double scalarCeil(double x) { return std::ceil(x); }
static double scalarErf(double x) { return std::erf(x); }
static double scalarAdd(double a, double b) { return a + b; }
static double scalarSub(double a, double b) { return a - b; }
static double scalarMul(double a, double b) { return a * b; }
static double scalarDiv(double a, double b) { return a / b; }

/// 1.0 where `a <predicate> b` holds, else 0.0. Every ordered comparison
/// with NaN is false, so only `ne` holds for a NaN operand (IEEE, as in
/// PyTorch).
static double scalarCompare(ag::ComparePredicate predicate, double a,
                            double b) {
  bool holds = false;
  switch (predicate) {
  case ag::ComparePredicate::eq:
    holds = a == b;
    break;
  case ag::ComparePredicate::ne:
    holds = a != b;
    break;
  case ag::ComparePredicate::lt:
    holds = a < b;
    break;
  case ag::ComparePredicate::le:
    holds = a <= b;
    break;
  case ag::ComparePredicate::gt:
    holds = a > b;
    break;
  case ag::ComparePredicate::ge:
    holds = a >= b;
    break;
  }
  return holds ? 1.0 : 0.0;
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// An index value for a message: integers without a fraction or exponent
/// (they may exceed %g's 6 digits), anything else (only reachable through
/// the C++ API) as %g.
static std::string formatIndex(double value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (std::isfinite(value) && std::floor(value) == value &&
      std::fabs(value) < 0x1p53)
    os << static_cast<int64_t>(value);
  else
    os << llvm::format("%g", value);
  return text;
}

/// Emits the error for an entry of `indices` outside [0, limit): the op,
/// the bad value, its position and the valid range; `what` and `whats` are
/// e.g. "label" and "labels", `why` says where the limit comes from.
static LogicalResult checkIndices(Operation *op, const Tensor &indices,
                                  int64_t limit, StringRef what,
                                  StringRef whats, const Twine &why) {
  std::optional<BadIndex> bad = findBadIndex(indices, limit);
  if (!bad)
    return success();
  InFlightDiagnostic diag =
      op->emitError() << "'" << op->getName() << "' " << what << " "
                      << formatIndex(bad->value) << " at position "
                      << bad->position << " is out of range: " << whats
                      << " must lie in [0, " << limit << ") (" << why << ")";
  // PyTorch's default ignore_index; a trace from PyTorch code may use it.
  if (isa<ag::CrossEntropyOp>(op) && bad->value == -100)
    diag << "; ag.cross_entropy has no ignore_index";
  return diag;
}

//===----------------------------------------------------------------------===//
// Evaluation of each op kind
//===----------------------------------------------------------------------===//

namespace {
/// The operands' tensors and the precision of one evaluation.
struct OpEvaluator {
  llvm::function_ref<const Tensor &(Value)> get;
  Precision precision;

  FailureOr<Tensor> unary(Operation *op, llvm::function_ref<double(double)> fn);
  FailureOr<Tensor> binary(Operation *op,
                           llvm::function_ref<double(double, double)> fn);
  FailureOr<Tensor> matmul(ag::MatmulOp op);
  FailureOr<Tensor> reduction(Operation *op, std::optional<int64_t> axis,
                              bool keepdim, Reduction kind);
  FailureOr<Tensor> broadcastTo(ag::BroadcastToOp op);
  FailureOr<Tensor> reshape(ag::ReshapeOp op);
  FailureOr<Tensor> transpose(ag::TransposeOp op);
  FailureOr<Tensor> concat(ag::ConcatOp op);
  FailureOr<Tensor> slice(ag::SliceOp op);
  FailureOr<Tensor> softmax(Operation *op, int64_t axis, bool log);
  FailureOr<Tensor> crossEntropy(ag::CrossEntropyOp op);
  FailureOr<Tensor> mse(ag::MseOp op);
  FailureOr<Tensor> getRows(ag::GetRowsOp op);
  FailureOr<Tensor> oneHot(ag::OneHotOp op);
  FailureOr<Tensor> scatterAddRows(ag::ScatterAddRowsOp op);
};
} // namespace

/// The declared shape of `op`'s result.
static ArrayRef<int64_t> resultShape(Operation *op) {
  return cast<RankedTensorType>(op->getResult(0).getType()).getShape();
}

/// The error of a kernel that refused operands verified IR cannot produce.
static LogicalResult internalError(Operation *op, const Twine &what) {
  return op->emitError() << "internal error: the reference interpreter "
                            "cannot evaluate this op on "
                         << what;
}

FailureOr<Tensor> OpEvaluator::unary(Operation *op,
                                     llvm::function_ref<double(double)> fn) {
  return mapUnary(get(op->getOperand(0)), precision, fn);
}

FailureOr<Tensor>
OpEvaluator::binary(Operation *op,
                    llvm::function_ref<double(double, double)> fn) {
  const Tensor &lhs = get(op->getOperand(0)), &rhs = get(op->getOperand(1));
  std::optional<Tensor> value = mapBinary(lhs, rhs, precision, fn);
  if (!value)
    return op->emitError() << "cannot broadcast shapes "
                           << formatShape(lhs.shape) << " and "
                           << formatShape(rhs.shape);
  return std::move(*value);
}

FailureOr<Tensor> OpEvaluator::matmul(ag::MatmulOp op) {
  const Tensor &lhs = get(op.getLhs()), &rhs = get(op.getRhs());
  std::optional<Tensor> value = kernels::matmul(lhs, rhs, op.getTransposeA(),
                                                op.getTransposeB(), precision);
  if (!value)
    return op.emitError() << "cannot multiply " << formatShape(lhs.shape)
                          << " by " << formatShape(rhs.shape);
  return std::move(*value);
}

FailureOr<Tensor> OpEvaluator::reduction(Operation *op,
                                         std::optional<int64_t> axis,
                                         bool keepdim, Reduction kind) {
  const Tensor &input = get(op->getOperand(0));
  std::optional<Tensor> value = reduce(input, axis, keepdim, kind, precision);
  if (value)
    return std::move(*value);
  if (kind == Reduction::Max && (!axis || *axis < int64_t(input.shape.size())))
    return op->emitError() << "'" << op->getName()
                           << "' of zero elements (input "
                           << formatShape(input.shape)
                           << (axis ? " along axis " + std::to_string(*axis)
                                    : std::string())
                           << ") has no value; torch.amax refuses it too";
  return op->emitError() << "axis " << (axis ? *axis : -1)
                         << " is out of range for shape "
                         << formatShape(input.shape);
}

FailureOr<Tensor> OpEvaluator::broadcastTo(ag::BroadcastToOp op) {
  const Tensor &input = get(op.getInput());
  std::optional<Tensor> value = kernels::broadcastTo(input, resultShape(op));
  if (!value)
    return internalError(op, "shape " + formatShape(input.shape));
  return std::move(*value);
}

FailureOr<Tensor> OpEvaluator::reshape(ag::ReshapeOp op) {
  const Tensor &input = get(op.getInput());
  std::optional<Tensor> value = kernels::reshape(input, resultShape(op));
  if (!value)
    return internalError(op, "shape " + formatShape(input.shape));
  return std::move(*value);
}

FailureOr<Tensor> OpEvaluator::transpose(ag::TransposeOp op) {
  const Tensor &input = get(op.getInput());
  std::optional<Tensor> value = kernels::transpose(input, op.getPermutation());
  if (!value)
    return internalError(op, "shape " + formatShape(input.shape));
  return std::move(*value);
}

FailureOr<Tensor> OpEvaluator::concat(ag::ConcatOp op) {
  SmallVector<const Tensor *> inputs;
  for (Value input : op.getInputs())
    inputs.push_back(&get(input));
  std::optional<Tensor> value = kernels::concat(inputs, op.getNormalizedAxis());
  if (!value)
    return internalError(op, "these shapes");
  return std::move(*value);
}

FailureOr<Tensor> OpEvaluator::slice(ag::SliceOp op) {
  const Tensor &input = get(op.getInput());
  std::optional<Tensor> value =
      kernels::slice(input, op.getNormalizedAxis(), op.getStartAttr().getInt(),
                     op.getEndAttr().getInt());
  if (!value)
    return internalError(op, "shape " + formatShape(input.shape));
  return std::move(*value);
}

FailureOr<Tensor> OpEvaluator::softmax(Operation *op, int64_t axis, bool log) {
  const Tensor &input = get(op->getOperand(0));
  std::optional<Tensor> value = kernels::softmax(input, axis, log, precision);
  if (!value)
    return internalError(op, "shape " + formatShape(input.shape));
  return std::move(*value);
}

FailureOr<Tensor> OpEvaluator::crossEntropy(ag::CrossEntropyOp op) {
  const Tensor &logits = get(op.getLogits()), &labels = get(op.getLabels());
  if (logits.shape.size() == 2 &&
      failed(checkIndices(op, labels, logits.shape[1], "label", "labels",
                          "logits " + formatShape(logits.shape) + " have " +
                              Twine(logits.shape[1]) + " classes")))
    return failure();
  std::optional<Tensor> value =
      kernels::crossEntropy(logits, labels, precision);
  if (!value)
    return internalError(op, "logits " + formatShape(logits.shape) +
                                 " and labels " + formatShape(labels.shape));
  return std::move(*value);
}

FailureOr<Tensor> OpEvaluator::mse(ag::MseOp op) {
  const Tensor &lhs = get(op.getLhs()), &rhs = get(op.getRhs());
  std::optional<Tensor> value = kernels::mse(lhs, rhs, precision);
  if (!value)
    return internalError(op, formatShape(lhs.shape) + " and " +
                                 formatShape(rhs.shape));
  return std::move(*value);
}

FailureOr<Tensor> OpEvaluator::getRows(ag::GetRowsOp op) {
  const Tensor &table = get(op.getTable()), &indices = get(op.getIndices());
  if (table.shape.size() == 2 &&
      failed(checkIndices(op, indices, table.shape[0], "index", "indices",
                          "the table " + formatShape(table.shape) + " has " +
                              Twine(table.shape[0]) + " rows")))
    return failure();
  std::optional<Tensor> value = kernels::getRows(table, indices);
  if (!value)
    return internalError(op, "table " + formatShape(table.shape) +
                                 " and indices " + formatShape(indices.shape));
  return std::move(*value);
}

FailureOr<Tensor> OpEvaluator::oneHot(ag::OneHotOp op) {
  const Tensor &labels = get(op.getLabels());
  int64_t classes = resultShape(op)[1];
  if (failed(checkIndices(op, labels, classes, "label", "labels",
                          "the result " + formatShape(resultShape(op)) +
                              " has " + Twine(classes) + " classes")))
    return failure();
  std::optional<Tensor> value = kernels::oneHot(labels, classes);
  if (!value)
    return internalError(op, "labels " + formatShape(labels.shape));
  return std::move(*value);
}

FailureOr<Tensor> OpEvaluator::scatterAddRows(ag::ScatterAddRowsOp op) {
  const Tensor &updates = get(op.getUpdates()), &indices = get(op.getIndices());
  int64_t rows = resultShape(op)[0];
  if (failed(checkIndices(op, indices, rows, "index", "indices",
                          "the result " + formatShape(resultShape(op)) +
                              " has " + Twine(rows) + " rows")))
    return failure();
  std::optional<Tensor> value =
      kernels::scatterAddRows(updates, indices, rows, precision);
  if (!value)
    return internalError(op, "updates " + formatShape(updates.shape) +
                                 " and indices " + formatShape(indices.shape));
  return std::move(*value);
}

FailureOr<Tensor>
kernels::evalComputeOp(Operation *op,
                       llvm::function_ref<const Tensor &(Value)> get,
                       Precision precision) {
  OpEvaluator eval{get, precision};
  return llvm::TypeSwitch<Operation *, FailureOr<Tensor>>(op)
      .Case([&](ag::NegOp o) { return eval.unary(o, scalarNeg); })
      .Case([&](ag::ExpOp o) { return eval.unary(o, scalarExp); })
      .Case([&](ag::LogOp o) { return eval.unary(o, scalarLog); })
      .Case([&](ag::TanhOp o) { return eval.unary(o, scalarTanh); })
      .Case([&](ag::SigmoidOp o) { return eval.unary(o, scalarSigmoid); })
      .Case([&](ag::ReluOp o) { return eval.unary(o, scalarRelu); })
      .Case([&](ag::SqrtOp o) { return eval.unary(o, scalarSqrt); })
      .Case([&](ag::SquareOp o) { return eval.unary(o, scalarSquare); })
      .Case([&](ag::FloorOp o) { return eval.unary(o, scalarFloor); })
      .Case([&](ag::CeilOp o) { return eval.unary(o, scalarCeil); })
      .Case([&](ag::ErfOp o) { return eval.unary(o, scalarErf); })
      .Case([&](ag::StopGradientOp o) -> FailureOr<Tensor> {
        // The identity: it only stops gradients, which ag-autodiff builds.
        return get(o.getInput());
      })
      .Case([&](ag::ClampOp o) {
        // The bounds are f32 attributes, so both precisions clamp to the
        // same float values. NaN propagates through both steps, so a NaN
        // element (or bound) gives NaN, as in torch.clamp.
        double lo = o.getMinAttr().getValueAsDouble();
        double hi = o.getMaxAttr().getValueAsDouble();
        return eval.unary(
            o, [lo, hi](double x) { return minimumOf(maximumOf(x, lo), hi); });
      })
      .Case([&](ag::AddOp o) { return eval.binary(o, scalarAdd); })
      .Case([&](ag::SubOp o) { return eval.binary(o, scalarSub); })
      .Case([&](ag::MulOp o) { return eval.binary(o, scalarMul); })
      .Case([&](ag::DivOp o) { return eval.binary(o, scalarDiv); })
      .Case([&](ag::MinimumOp o) { return eval.binary(o, minimumOf); })
      .Case([&](ag::MaximumOp o) { return eval.binary(o, maximumOf); })
      .Case([&](ag::MatmulOp o) { return eval.matmul(o); })
      .Case([&](ag::SumOp o) {
        return eval.reduction(o, o.getNormalizedAxis(), o.getKeepdim(),
                              Reduction::Sum);
      })
      .Case([&](ag::MeanOp o) {
        return eval.reduction(o, o.getNormalizedAxis(), o.getKeepdim(),
                              Reduction::Mean);
      })
      .Case([&](ag::MaxOp o) {
        return eval.reduction(o, o.getNormalizedAxis(), o.getKeepdim(),
                              Reduction::Max);
      })
      .Case([&](ag::BroadcastToOp o) { return eval.broadcastTo(o); })
      .Case([&](ag::ReshapeOp o) { return eval.reshape(o); })
      .Case([&](ag::TransposeOp o) { return eval.transpose(o); })
      .Case([&](ag::ConcatOp o) { return eval.concat(o); })
      .Case([&](ag::SliceOp o) { return eval.slice(o); })
      .Case([&](ag::SoftmaxOp o) {
        return eval.softmax(o, o.getNormalizedAxis(), /*log=*/false);
      })
      .Case([&](ag::LogSoftmaxOp o) {
        return eval.softmax(o, o.getNormalizedAxis(), /*log=*/true);
      })
      .Case([&](ag::CrossEntropyOp o) { return eval.crossEntropy(o); })
      .Case([&](ag::MseOp o) { return eval.mse(o); })
      .Case([&](ag::GetRowsOp o) { return eval.getRows(o); })
      .Case([&](ag::CompareOp o) {
        ag::ComparePredicate predicate = o.getPredicate();
        return eval.binary(o, [predicate](double a, double b) {
          return scalarCompare(predicate, a, b);
        });
      })
      .Case([&](ag::OneHotOp o) { return eval.oneHot(o); })
      .Case([&](ag::ScatterAddRowsOp o) { return eval.scatterAddRows(o); })
      .Default([&](Operation *o) -> FailureOr<Tensor> {
        return o->emitError() << "the reference interpreter does not support '"
                              << o->getName() << "'";
      });
}
