//===- ReductionKernels.cpp - Matmul, reductions, softmax and losses ------===//
//
// Every reduction is a serial loop in one invocation: a sum, mean or max
// per output element, a whole row for softmax, the whole tensor for the
// scalar losses. No workgroup memory or tree reductions yet: correctness
// first, and the summation order stays that of the reference interpreter.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitters.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <limits>

using namespace mlir;
using namespace capture;
using namespace capture::ag;
using namespace capture::kernels;

static Value negInfinity(OpBuilder &b, Location loc) {
  return f32Const(b, loc, -std::numeric_limits<double>::infinity());
}

/// `shape` without dimension `axis`.
static SmallVector<int64_t> dropAxis(ArrayRef<int64_t> shape, int64_t axis) {
  SmallVector<int64_t> result(shape);
  result.erase(result.begin() + axis);
  return result;
}

void capture::kernels::emitMatmul(MatmulOp op, OpBuilder &b, Location loc,
                                  Value i, ValueRange args) {
  bool ta = op.getTransposeA(), tb = op.getTransposeB();
  int64_t k = tensorType(op.getLhs()).getDimSize(ta ? 0 : 1);
  SmallVector<Value> mn =
      delinearize(b, loc, i, tensorType(op.getResult()).getShape());
  Value dot = foldRange(
      b, loc, k, f32Const(b, loc, 0.0),
      [&](OpBuilder &nb, Location nloc, Value kk, Value acc) -> Value {
        Value a = memref::LoadOp::create(nb, nloc, args[0],
                                         ta ? ValueRange{kk, mn[0]}
                                            : ValueRange{mn[0], kk});
        Value bv = memref::LoadOp::create(nb, nloc, args[1],
                                          tb ? ValueRange{mn[1], kk}
                                             : ValueRange{kk, mn[1]});
        return arith::AddFOp::create(nb, nloc, acc,
                                     arith::MulFOp::create(nb, nloc, a, bv));
      });
  memref::StoreOp::create(b, loc, dot, args[2], mn);
}

void capture::kernels::emitReduction(Operation *op, OpBuilder &b, Location loc,
                                     Value i, ValueRange args) {
  RankedTensorType input = tensorType(op->getOperand(0));
  RankedTensorType result = tensorType(op->getResult(0));
  std::optional<int64_t> axis;
  if (auto sum = dyn_cast<SumOp>(op))
    axis = sum.getNormalizedAxis();
  else if (auto mean = dyn_cast<MeanOp>(op))
    axis = mean.getNormalizedAxis();
  else
    axis = cast<MaxOp>(op).getNormalizedAxis();
  bool isMax = isa<MaxOp>(op);

  int64_t count = axis ? input.getDimSize(*axis) : input.getNumElements();
  SmallVector<Value> outIdx = delinearize(b, loc, i, result.getShape());
  // The output's indices without the kept unit dimension: the input's
  // indices minus the reduced axis.
  SmallVector<Value> kept(outIdx);
  if (axis && result.getRank() == input.getRank())
    kept.erase(kept.begin() + *axis);

  Value init = isMax ? negInfinity(b, loc) : f32Const(b, loc, 0.0);
  Value value =
      foldRange(b, loc, count, init,
                [&](OpBuilder &nb, Location nloc, Value j, Value acc) -> Value {
                  SmallVector<Value> inIdx =
                      axis ? insertAt(kept, *axis, j)
                           : delinearize(nb, nloc, j, input.getShape());
                  Value x = memref::LoadOp::create(nb, nloc, args[0], inIdx);
                  // maximumf propagates NaN, as torch.max does.
                  if (isMax)
                    return arith::MaximumFOp::create(nb, nloc, acc, x);
                  return arith::AddFOp::create(nb, nloc, acc, x);
                });
  if (isa<MeanOp>(op))
    value = arith::DivFOp::create(b, loc, value,
                                  f32Const(b, loc, static_cast<double>(count)));
  memref::StoreOp::create(b, loc, value, args[1], outIdx);
}

/// The max and the sum of exp(x - max) of the `count` elements `load`
/// returns: the numerically stable parts of softmax and log-sum-exp. A NaN
/// in the row makes the max, hence every result, NaN, as in PyTorch.
static std::pair<Value, Value>
emitMaxAndExpSum(OpBuilder &b, Location loc, int64_t count,
                 function_ref<Value(OpBuilder &, Location, Value)> load) {
  Value max = foldRange(b, loc, count, negInfinity(b, loc),
                        [&](OpBuilder &nb, Location nloc, Value j, Value acc) {
                          return arith::MaximumFOp::create(nb, nloc, acc,
                                                           load(nb, nloc, j))
                              .getResult();
                        });
  Value sum = foldRange(
      b, loc, count, f32Const(b, loc, 0.0),
      [&](OpBuilder &nb, Location nloc, Value j, Value acc) {
        Value shifted = arith::SubFOp::create(nb, nloc, load(nb, nloc, j), max);
        return arith::AddFOp::create(nb, nloc, acc,
                                     math::ExpOp::create(nb, nloc, shifted))
            .getResult();
      });
  return {max, sum};
}

void capture::kernels::emitSoftmaxRow(Operation *op, OpBuilder &b, Location loc,
                                      Value i, ValueRange args) {
  RankedTensorType type = tensorType(op->getResult(0));
  int64_t axis = isa<SoftmaxOp>(op)
                     ? cast<SoftmaxOp>(op).getNormalizedAxis()
                     : cast<LogSoftmaxOp>(op).getNormalizedAxis();
  int64_t count = type.getDimSize(axis);
  // Work item `i` is the row of the other dimensions' linear index `i`.
  SmallVector<Value> row =
      delinearize(b, loc, i, dropAxis(type.getShape(), axis));
  auto load = [&](OpBuilder &nb, Location nloc, Value j) -> Value {
    return memref::LoadOp::create(nb, nloc, args[0], insertAt(row, axis, j));
  };
  auto [max, sum] = emitMaxAndExpSum(b, loc, count, load);
  // log_softmax = x - max - log(sum) stays accurate where softmax
  // underflows to 0, so it is not log(softmax).
  Value logSum =
      isa<LogSoftmaxOp>(op) ? math::LogOp::create(b, loc, sum) : Value();
  scf::ForOp::create(
      b, loc, indexConst(b, loc, 0), indexConst(b, loc, count),
      indexConst(b, loc, 1), ValueRange(),
      [&](OpBuilder &nb, Location nloc, Value j, ValueRange) {
        Value shifted = arith::SubFOp::create(nb, nloc, load(nb, nloc, j), max);
        Value y;
        if (logSum)
          y = arith::SubFOp::create(nb, nloc, shifted, logSum);
        else
          y = arith::DivFOp::create(
              nb, nloc, math::ExpOp::create(nb, nloc, shifted), sum);
        memref::StoreOp::create(nb, nloc, y, args[1], insertAt(row, axis, j));
        scf::YieldOp::create(nb, nloc);
      });
}

void capture::kernels::emitCrossEntropy(CrossEntropyOp op, OpBuilder &b,
                                        Location loc, Value i,
                                        ValueRange args) {
  // One work item computes the whole loss (KernelBuilder::workItems is 1):
  // fine for batch-sized inputs; a parallel reduction can come later.
  RankedTensorType logits = tensorType(op.getLogits());
  int64_t batch = logits.getDimSize(0), classes = logits.getDimSize(1);
  Value total = foldRange(
      b, loc, batch, f32Const(b, loc, 0.0),
      [&](OpBuilder &nb, Location nloc, Value row, Value acc) -> Value {
        auto load = [&](OpBuilder &lb, Location lloc, Value c) -> Value {
          return memref::LoadOp::create(lb, lloc, args[0], ValueRange{row, c});
        };
        auto [max, sum] = emitMaxAndExpSum(nb, nloc, classes, load);
        // -log_softmax(x)[label] = max + log(sum) - x[label].
        Value label = loadClampedIndex(nb, nloc, args[1], row, classes);
        Value lse = arith::AddFOp::create(nb, nloc, max,
                                          math::LogOp::create(nb, nloc, sum));
        Value nll = arith::SubFOp::create(nb, nloc, lse, load(nb, nloc, label));
        return arith::AddFOp::create(nb, nloc, acc, nll);
      });
  Value mean = arith::DivFOp::create(
      b, loc, total, f32Const(b, loc, static_cast<double>(batch)));
  memref::StoreOp::create(b, loc, mean, args[2], ValueRange());
}

void capture::kernels::emitMse(MseOp op, OpBuilder &b, Location loc, Value i,
                               ValueRange args) {
  // One work item computes the whole loss (KernelBuilder::workItems is 1).
  RankedTensorType type = tensorType(op.getLhs());
  int64_t count = type.getNumElements();
  Value total = foldRange(
      b, loc, count, f32Const(b, loc, 0.0),
      [&](OpBuilder &nb, Location nloc, Value j, Value acc) -> Value {
        SmallVector<Value> idx = delinearize(nb, nloc, j, type.getShape());
        Value a = memref::LoadOp::create(nb, nloc, args[0], idx);
        Value bv = memref::LoadOp::create(nb, nloc, args[1], idx);
        Value d = arith::SubFOp::create(nb, nloc, a, bv);
        return arith::AddFOp::create(nb, nloc, acc,
                                     arith::MulFOp::create(nb, nloc, d, d));
      });
  Value mean = arith::DivFOp::create(
      b, loc, total, f32Const(b, loc, static_cast<double>(count)));
  memref::StoreOp::create(b, loc, mean, args[2], ValueRange());
}
