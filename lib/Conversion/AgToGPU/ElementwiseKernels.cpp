//===- ElementwiseKernels.cpp - Elementwise and data-movement kernels -----===//
//
// One output element per work item: the element's indices are split from
// the linear output index, mapped to the operands' indices, loaded, and the
// result stored.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitters.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace capture;
using namespace capture::ag;
using namespace capture::kernels;

/// The scalar computation of an elementwise op, given its loaded operands;
/// null for an op that is not elementwise.
static Value emitScalar(Operation *op, OpBuilder &b, Location loc,
                        ValueRange args) {
  return TypeSwitch<Operation *, Value>(op)
      .Case([&](AddOp) {
        return arith::AddFOp::create(b, loc, args[0], args[1]);
      })
      .Case([&](SubOp) {
        return arith::SubFOp::create(b, loc, args[0], args[1]);
      })
      .Case([&](MulOp) {
        return arith::MulFOp::create(b, loc, args[0], args[1]);
      })
      .Case([&](DivOp) {
        return arith::DivFOp::create(b, loc, args[0], args[1]);
      })
      // minimumf/maximumf propagate NaN like torch.minimum/maximum; their
      // SPIR-V lowering adds IsNan selects around GL FMin/FMax, whose result
      // for a NaN operand is undefined.
      .Case([&](MinimumOp) {
        return arith::MinimumFOp::create(b, loc, args[0], args[1]);
      })
      .Case([&](MaximumOp) {
        return arith::MaximumFOp::create(b, loc, args[0], args[1]);
      })
      .Case([&](NegOp) { return arith::NegFOp::create(b, loc, args[0]); })
      .Case([&](ExpOp) { return math::ExpOp::create(b, loc, args[0]); })
      .Case([&](LogOp) { return math::LogOp::create(b, loc, args[0]); })
      .Case([&](SqrtOp) { return math::SqrtOp::create(b, loc, args[0]); })
      .Case([&](SquareOp) {
        return arith::MulFOp::create(b, loc, args[0], args[0]);
      })
      .Case([&](ReluOp) {
        // maximumf propagates NaN, as torch.relu does.
        return arith::MaximumFOp::create(b, loc, args[0], f32Const(b, loc, 0));
      })
      .Case([&](ClampOp clamp) {
        // NaN propagates through both, so clamp(NaN) stays NaN as in
        // torch.clamp (a plain compare-and-select would turn it into min).
        Value lo = arith::ConstantOp::create(b, loc, clamp.getMinAttr());
        Value hi = arith::ConstantOp::create(b, loc, clamp.getMaxAttr());
        return arith::MinimumFOp::create(
            b, loc, arith::MaximumFOp::create(b, loc, args[0], lo), hi);
      })
      .Case([&](BroadcastToOp) { return args[0]; })
      .Case([&](SigmoidOp) {
        // Separate statements: argument evaluation order, hence op order,
        // is unspecified in C++.
        Value one = f32Const(b, loc, 1.0);
        Value e =
            math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, args[0]));
        return arith::DivFOp::create(b, loc, one,
                                     arith::AddFOp::create(b, loc, one, e));
      })
      .Case([&](TanhOp) {
        // tanh(x) = sign(x) * (1 - 2 / (exp(2|x|) + 1)): stays finite for
        // large |x|, where the textbook (e^2x - 1) / (e^2x + 1) gives NaN.
        Value one = f32Const(b, loc, 1.0), two = f32Const(b, loc, 2.0);
        Value ax = math::AbsFOp::create(b, loc, args[0]);
        Value e =
            math::ExpOp::create(b, loc, arith::MulFOp::create(b, loc, ax, two));
        Value q = arith::DivFOp::create(b, loc, two,
                                        arith::AddFOp::create(b, loc, e, one));
        Value t = arith::SubFOp::create(b, loc, one, q);
        return math::CopySignOp::create(b, loc, t, args[0]);
      })
      .Default([](Operation *) { return Value(); });
}

bool capture::kernels::isElementwise(Operation *op) {
  return isa<AddOp, SubOp, MulOp, DivOp, MinimumOp, MaximumOp, NegOp, ExpOp,
             LogOp, SqrtOp, SquareOp, ReluOp, ClampOp, BroadcastToOp, SigmoidOp,
             TanhOp>(op);
}

void capture::kernels::emitElementwise(Operation *op, OpBuilder &b,
                                       Location loc, Value i, ValueRange args) {
  SmallVector<Value> idx =
      delinearize(b, loc, i, tensorType(op->getResult(0)).getShape());
  SmallVector<Value> loaded;
  for (auto [operand, memref] : llvm::zip(op->getOperands(), args)) {
    ArrayRef<int64_t> shape = tensorType(operand).getShape();
    loaded.push_back(memref::LoadOp::create(
        b, loc, memref, broadcastIndices(b, loc, idx, shape)));
  }
  Value value = emitScalar(op, b, loc, loaded);
  memref::StoreOp::create(b, loc, value, args.back(), idx);
}

void capture::kernels::emitTranspose(TransposeOp op, OpBuilder &b, Location loc,
                                     Value i, ValueRange args) {
  SmallVector<Value> out =
      delinearize(b, loc, i, tensorType(op.getResult()).getShape());
  // Result dim d is input dim permutation[d].
  SmallVector<Value> in(out.size());
  for (auto [d, p] : llvm::enumerate(op.getPermutation()))
    in[p] = out[d];
  Value value = memref::LoadOp::create(b, loc, args[0], in);
  memref::StoreOp::create(b, loc, value, args[1], out);
}

/// Loads the element of the concatenation at `idx` from input `k` or a later
/// one: `starts[k]` is where input k begins along `axis`. Nested scf.if
/// rather than a select, because a load may only touch the input that holds
/// the element and SPIR-V's logical addressing cannot select between
/// buffers.
static Value loadConcatElement(OpBuilder &b, Location loc, ValueRange inputs,
                               ArrayRef<int64_t> starts, int64_t axis,
                               ValueRange idx, size_t k) {
  auto loadFrom = [&](OpBuilder &nb, Location nloc, size_t input) -> Value {
    SmallVector<Value> at(idx);
    if (starts[input] != 0)
      at[axis] = arith::SubIOp::create(nb, nloc, idx[axis],
                                       indexConst(nb, nloc, starts[input]));
    return memref::LoadOp::create(nb, nloc, inputs[input], at);
  };
  if (k + 1 == inputs.size())
    return loadFrom(b, loc, k);
  Value inThis =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, idx[axis],
                            indexConst(b, loc, starts[k + 1]));
  auto branch = scf::IfOp::create(
      b, loc, inThis,
      [&](OpBuilder &nb, Location nloc) {
        scf::YieldOp::create(nb, nloc, loadFrom(nb, nloc, k));
      },
      [&](OpBuilder &nb, Location nloc) {
        scf::YieldOp::create(
            nb, nloc,
            loadConcatElement(nb, nloc, inputs, starts, axis, idx, k + 1));
      });
  return branch.getResult(0);
}

void capture::kernels::emitConcat(ConcatOp op, OpBuilder &b, Location loc,
                                  Value i, ValueRange args) {
  int64_t axis = op.getNormalizedAxis();
  SmallVector<int64_t> starts;
  int64_t start = 0;
  for (Value input : op.getInputs()) {
    starts.push_back(start);
    start += tensorType(input).getDimSize(axis);
  }
  SmallVector<Value> idx =
      delinearize(b, loc, i, tensorType(op.getResult()).getShape());
  ValueRange inputs = args.drop_back();
  Value value = loadConcatElement(b, loc, inputs, starts, axis, idx, 0);
  memref::StoreOp::create(b, loc, value, args.back(), idx);
}

void capture::kernels::emitSlice(SliceOp op, OpBuilder &b, Location loc,
                                 Value i, ValueRange args) {
  int64_t axis = op.getNormalizedAxis();
  int64_t start = op.getStartAttr().getInt();
  SmallVector<Value> out =
      delinearize(b, loc, i, tensorType(op.getResult()).getShape());
  SmallVector<Value> in(out);
  if (start != 0)
    in[axis] =
        arith::AddIOp::create(b, loc, out[axis], indexConst(b, loc, start));
  Value value = memref::LoadOp::create(b, loc, args[0], in);
  memref::StoreOp::create(b, loc, value, args[1], out);
}

void capture::kernels::emitGetRows(GetRowsOp op, OpBuilder &b, Location loc,
                                   Value i, ValueRange args) {
  int64_t rows = tensorType(op.getTable()).getDimSize(0);
  SmallVector<Value> out =
      delinearize(b, loc, i, tensorType(op.getResult()).getShape());
  Value row = loadClampedIndex(b, loc, args[1], out[0], rows);
  Value value =
      memref::LoadOp::create(b, loc, args[0], ValueRange{row, out[1]});
  memref::StoreOp::create(b, loc, value, args[2], out);
}
