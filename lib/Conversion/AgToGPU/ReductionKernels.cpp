//===- ReductionKernels.cpp - Reductions, softmax and losses --------------===//
//
// Most reductions are a serial loop in one invocation: a sum, mean or max
// per output element (its input's elements loaded, or computed by a
// reduction region's producers), a whole row for softmax, the whole tensor
// for the scalar losses; full reductions of large tensors run in two passes
// where ag-configure-kernels says so (#ag.two_pass). No workgroup memory or
// subgroup reductions yet.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitters.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

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

/// The reduction's axis, or none for a full reduction.
static std::optional<int64_t> reductionAxis(Operation *op) {
  if (auto sum = dyn_cast<SumOp>(op))
    return sum.getNormalizedAxis();
  if (auto mean = dyn_cast<MeanOp>(op))
    return mean.getNormalizedAxis();
  return cast<MaxOp>(op).getNormalizedAxis();
}

/// Combines an accumulator with one more value.
static Value combine(Operation *op, OpBuilder &b, Location loc, Value acc,
                     Value x) {
  // maximumf propagates NaN, as torch.max does.
  if (isa<MaxOp>(op))
    return arith::MaximumFOp::create(b, loc, acc, x);
  return arith::AddFOp::create(b, loc, acc, x);
}

/// The ElementFn of a stored tensor: a load from `memref`.
static auto loaderOf(Value memref) {
  return [memref](OpBuilder &b, Location loc, ValueRange at) -> Value {
    return memref::LoadOp::create(b, loc, memref, at);
  };
}

void capture::kernels::emitReduction(Operation *op, OpBuilder &b, Location loc,
                                     Value i, ValueRange args) {
  emitReductionOf(op, loaderOf(args[0]), b, loc, i, args[1]);
}

void capture::kernels::emitReductionOf(Operation *op, ElementFn element,
                                       OpBuilder &b, Location loc, Value i,
                                       Value out, EpilogueFn epilogue) {
  RankedTensorType input = tensorType(op->getOperand(0));
  RankedTensorType result = tensorType(op->getResult(0));
  std::optional<int64_t> axis = reductionAxis(op);
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
                  Value x = element(nb, nloc, inIdx);
                  return combine(op, nb, nloc, acc, x);
                });
  if (isa<MeanOp>(op))
    value = arith::DivFOp::create(b, loc, value,
                                  f32Const(b, loc, static_cast<double>(count)));
  if (epilogue)
    value = epilogue(b, loc, value);
  memref::StoreOp::create(b, loc, value, out, outIdx);
}

std::optional<SplitReduction>
capture::kernels::splitReductionOf(Operation *op) {
  auto config = op->getAttrOfType<TwoPassAttr>(kKernelConfigAttr);
  if (!config)
    return std::nullopt;
  return SplitReduction{config.getChunk(), config.getParts()};
}

bool capture::kernels::partialReadsVec4(Operation *op) {
  auto region = dyn_cast<DispatchRegionOp>(op);
  Operation *reduction = region ? regionReduction(region) : op;
  RankedTensorType reduced = tensorType(reduction->getOperand(0));
  return llvm::all_of(op->getOperands(), [&](Value input) {
    auto type = tensorType(input);
    return type.getShape() == reduced.getShape() || type.getNumElements() == 1;
  });
}

SmallVector<Value> capture::kernels::partialPassInputs(Operation *op) {
  auto region = dyn_cast<DispatchRegionOp>(op);
  if (!region)
    return llvm::to_vector(op->getOperands());
  SmallVector<Value> inputs;
  for (auto [input, arg] :
       llvm::zip_equal(region.getInputs(), region.getBlock().getArguments()))
    if (producersRead(region, arg))
      inputs.push_back(input);
  return inputs;
}

SmallVector<Type>
capture::kernels::partialReductionArgTypes(Operation *op,
                                           SplitReduction split) {
  MLIRContext *ctx = op->getContext();
  auto f32 = Float32Type::get(ctx);
  bool vec = partialReadsVec4(op);
  SmallVector<Type> types;
  for (Value input : partialPassInputs(op)) {
    auto type = tensorType(input);
    if (vec && type.getNumElements() != 1)
      types.push_back(vec4Memref(ctx, type.getNumElements()));
    else
      types.push_back(MemRefType::get(type.getShape(), f32));
  }
  types.push_back(MemRefType::get({split.parts}, f32));
  return types;
}

void capture::kernels::emitPartialReductionLanes(Operation *op,
                                                 SplitReduction split,
                                                 LanesFn lanes, OpBuilder &b,
                                                 Location loc, Value i,
                                                 Value partials) {
  int64_t n = tensorType(op->getOperand(0)).getNumElements();
  int64_t chunkVecs = split.chunk / kPartialLanes;
  int64_t wholeVecs = n / kPartialLanes, tail = n % kPartialLanes;
  Value lo = arith::MulIOp::create(b, loc, i, indexConst(b, loc, chunkVecs));
  Value hi = arith::MinSIOp::create(
      b, loc, arith::AddIOp::create(b, loc, lo, indexConst(b, loc, chunkVecs)),
      indexConst(b, loc, wholeVecs));
  // Each vec4's lanes in order: the elements are combined in the order of
  // the scalar loop, so the partials are the same to the bit.
  auto fold = [&](OpBuilder &fb, Location floc, Value v, Value acc,
                  int64_t count) {
    SmallVector<Value> xs = lanes(fb, floc, v);
    for (int64_t l = 0; l < count; ++l)
      acc = combine(op, fb, floc, acc, xs[l]);
    return acc;
  };
  Value init = isa<MaxOp>(op) ? negInfinity(b, loc) : f32Const(b, loc, 0.0);
  auto loop = scf::ForOp::create(
      b, loc, lo, hi, indexConst(b, loc, 1), ValueRange{init},
      [&](OpBuilder &nb, Location nloc, Value v, ValueRange acc) {
        scf::YieldOp::create(
            nb, nloc, ValueRange{fold(nb, nloc, v, acc[0], kPartialLanes)});
      });
  Value acc = loop.getResult(0);
  if (tail) {
    // The last partial ends inside a vec4: its first `tail` lanes.
    Value last = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, i,
                                       indexConst(b, loc, split.parts - 1));
    auto ifOp = scf::IfOp::create(
        b, loc, last,
        [&](OpBuilder &tb, Location tloc) {
          scf::YieldOp::create(
              tb, tloc,
              ValueRange{
                  fold(tb, tloc, indexConst(tb, tloc, wholeVecs), acc, tail)});
        },
        [&](OpBuilder &eb, Location eloc) {
          scf::YieldOp::create(eb, eloc, ValueRange{acc});
        });
    acc = ifOp.getResult(0);
  }
  memref::StoreOp::create(b, loc, acc, partials, ValueRange{i});
}

void capture::kernels::emitPartialReduction(Operation *op, SplitReduction split,
                                            OpBuilder &b, Location loc, Value i,
                                            ValueRange args) {
  if (partialReadsVec4(op)) {
    emitPartialReductionLanes(
        op, split,
        [&](OpBuilder &nb, Location nloc, Value v) {
          return loadLanes(nb, nloc, args[0], v);
        },
        b, loc, i, args[1]);
    return;
  }
  emitPartialReductionOf(op, split, loaderOf(args[0]), b, loc, i, args[1]);
}

void capture::kernels::emitPartialReductionOf(Operation *op,
                                              SplitReduction split,
                                              ElementFn element, OpBuilder &b,
                                              Location loc, Value i,
                                              Value partials) {
  RankedTensorType input = tensorType(op->getOperand(0));
  Value lo = arith::MulIOp::create(b, loc, i, indexConst(b, loc, split.chunk));
  Value hi = arith::MinSIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, lo, indexConst(b, loc, split.chunk)),
      indexConst(b, loc, input.getNumElements()));
  Value init = isa<MaxOp>(op) ? negInfinity(b, loc) : f32Const(b, loc, 0.0);
  auto loop = scf::ForOp::create(
      b, loc, lo, hi, indexConst(b, loc, 1), ValueRange{init},
      [&](OpBuilder &nb, Location nloc, Value j, ValueRange acc) {
        Value x = element(nb, nloc, delinearize(nb, nloc, j, input.getShape()));
        scf::YieldOp::create(nb, nloc,
                             ValueRange{combine(op, nb, nloc, acc[0], x)});
      });
  memref::StoreOp::create(b, loc, loop.getResult(0), partials, ValueRange{i});
}

void capture::kernels::emitFinalReduction(Operation *op, SplitReduction split,
                                          OpBuilder &b, Location loc, Value i,
                                          ValueRange args,
                                          EpilogueFn epilogue) {
  Value init = isa<MaxOp>(op) ? negInfinity(b, loc) : f32Const(b, loc, 0.0);
  Value value =
      foldRange(b, loc, split.parts, init,
                [&](OpBuilder &nb, Location nloc, Value j, Value acc) -> Value {
                  Value x =
                      memref::LoadOp::create(nb, nloc, args[0], ValueRange{j});
                  return combine(op, nb, nloc, acc, x);
                });
  if (isa<MeanOp>(op))
    value = arith::DivFOp::create(
        b, loc, value,
        f32Const(b, loc,
                 static_cast<double>(
                     tensorType(op->getOperand(0)).getNumElements())));
  if (epilogue)
    value = epilogue(b, loc, value);
  // The result has one element (rank 0, or all dims 1 with keepdim).
  SmallVector<Value> zeros(tensorType(op->getResult(0)).getRank(),
                           indexConst(b, loc, 0));
  memref::StoreOp::create(b, loc, value, args[1], zeros);
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

int64_t capture::kernels::softmaxAxis(Operation *op) {
  if (auto softmax = dyn_cast<SoftmaxOp>(op))
    return softmax.getNormalizedAxis();
  return cast<LogSoftmaxOp>(op).getNormalizedAxis();
}

int64_t capture::kernels::softmaxRows(Operation *op) {
  RankedTensorType type = tensorType(op->getResult(0));
  int64_t length = type.getDimSize(softmaxAxis(op));
  return length == 0 ? 0 : type.getNumElements() / length;
}

void capture::kernels::emitSoftmaxRowOf(Operation *op, ElementFn element,
                                        OpBuilder &b, Location loc, Value i,
                                        Value out) {
  RankedTensorType type = tensorType(op->getResult(0));
  int64_t axis = softmaxAxis(op);
  int64_t count = type.getDimSize(axis);
  // Work item `i` is the row of the other dimensions' linear index `i`.
  SmallVector<Value> row =
      delinearize(b, loc, i, dropAxis(type.getShape(), axis));
  auto load = [&](OpBuilder &nb, Location nloc, Value j) -> Value {
    return element(nb, nloc, insertAt(row, axis, j));
  };
  auto [max, sum] = emitMaxAndExpSum(b, loc, count, load);
  // log_softmax = x - max - log(sum) stays accurate where softmax
  // underflows to 0, so it is not log(softmax).
  Value logSum =
      isa<LogSoftmaxOp>(op) ? math::LogOp::create(b, loc, sum) : Value();
  forRange(b, loc, count, [&](OpBuilder &nb, Location nloc, Value j) {
    Value shifted = arith::SubFOp::create(nb, nloc, load(nb, nloc, j), max);
    Value y;
    if (logSum)
      y = arith::SubFOp::create(nb, nloc, shifted, logSum);
    else
      y = arith::DivFOp::create(nb, nloc,
                                math::ExpOp::create(nb, nloc, shifted), sum);
    memref::StoreOp::create(nb, nloc, y, out, insertAt(row, axis, j));
  });
}

void capture::kernels::emitSoftmaxRow(Operation *op, OpBuilder &b, Location loc,
                                      Value i, ValueRange args) {
  emitSoftmaxRowOf(op, loaderOf(args[0]), b, loc, i, args[1]);
}

void capture::kernels::emitCrossEntropyOf(CrossEntropyOp op, ElementFn logit,
                                          Value labels, OpBuilder &b,
                                          Location loc, Value out) {
  // One work item computes the whole loss (KernelBuilder::workItems is 1):
  // fine for batch-sized inputs; a parallel reduction can come later.
  RankedTensorType logits = tensorType(op.getLogits());
  int64_t batch = logits.getDimSize(0), classes = logits.getDimSize(1);
  Value total = foldRange(
      b, loc, batch, f32Const(b, loc, 0.0),
      [&](OpBuilder &nb, Location nloc, Value row, Value acc) -> Value {
        auto load = [&](OpBuilder &lb, Location lloc, Value c) -> Value {
          return logit(lb, lloc, ValueRange{row, c});
        };
        auto [max, sum] = emitMaxAndExpSum(nb, nloc, classes, load);
        // -log_softmax(x)[label] = max + log(sum) - x[label].
        Value label = loadClampedIndex(nb, nloc, labels, row, classes);
        Value lse = arith::AddFOp::create(nb, nloc, max,
                                          math::LogOp::create(nb, nloc, sum));
        Value nll = arith::SubFOp::create(nb, nloc, lse, load(nb, nloc, label));
        return arith::AddFOp::create(nb, nloc, acc, nll);
      });
  Value mean = arith::DivFOp::create(
      b, loc, total, f32Const(b, loc, static_cast<double>(batch)));
  memref::StoreOp::create(b, loc, mean, out, ValueRange());
}

void capture::kernels::emitCrossEntropy(CrossEntropyOp op, OpBuilder &b,
                                        Location loc, Value i,
                                        ValueRange args) {
  emitCrossEntropyOf(op, loaderOf(args[0]), args[1], b, loc, args[2]);
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
