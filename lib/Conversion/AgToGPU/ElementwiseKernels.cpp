//===- ElementwiseKernels.cpp - Elementwise and data-movement kernels -----===//
//
// One output element per work item: the element's indices are split from
// the linear output index, mapped to the operands' indices, loaded, and the
// result stored.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitters.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace capture;
using namespace capture::ag;
using namespace capture::kernels;

/// erf(x) in f32. GLSL.std.450 has no Erf, so it is computed from its two
/// regimes, on a = min(|x|, 4), and given x's sign (so erf(-x) = -erf(x)
/// exactly, and erf(-0) = -0):
///   a < 1:  a + a * P(a^2), P fitted to erf(a) / a - 1;
///   a >= 1: 1 - exp(-a^2) * R(a - 2.5), R fitted to erfc(a) * exp(a^2),
///           which is smooth where erfc itself falls by 10^7.
/// Both fits are near-minimax (Lawson-weighted least squares, f32
/// coefficients); evaluated in f32 the result is within 1e-7 of erf (one
/// ulp, on lavapipe; a device's Exp error adds at most its relative error
/// times erfc <= 0.16), where Eigen's and XLA's single rational over
/// [-4, 4] errs by 4e-7. At a = 4 erfc is below half an ulp of 1, so every
/// |x| >= 3.92 gives exactly +-1 (+-inf too, through the clamp); NaN
/// propagates through the clamp's minimumf.
static Value emitErf(OpBuilder &b, Location loc, Value x) {
  auto horner = [&](Value t, ArrayRef<double> coefficients) {
    Value r = f32Const(b, loc, coefficients.front());
    for (double c : coefficients.drop_front()) {
      Value rt = arith::MulFOp::create(b, loc, r, t);
      r = arith::AddFOp::create(b, loc, rt, f32Const(b, loc, c));
    }
    return r;
  };
  Value absX = math::AbsFOp::create(b, loc, x);
  Value a = arith::MinimumFOp::create(b, loc, absX, f32Const(b, loc, 4.0));
  Value s = arith::MulFOp::create(b, loc, a, a);
  // Highest degree first.
  Value p = horner(s, {7.88946854e-05, -0.000802095456, 0.00518954964,
                       -0.0268544536, 0.112836003, -0.37612626, 0.128379166});
  Value ap = arith::MulFOp::create(b, loc, a, p);
  Value small = arith::AddFOp::create(b, loc, a, ap);
  Value t = arith::SubFOp::create(b, loc, a, f32Const(b, loc, 2.5));
  Value r = horner(t, {1.73365186e-06, -6.38592292e-06, 1.40057318e-05,
                       -5.35866384e-05, 0.000213657127, -0.000738996139,
                       0.00246543181, -0.00799934659, 0.024938358,
                       -0.0743476003, 0.210806355});
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, s));
  Value er = arith::MulFOp::create(b, loc, e, r);
  Value large = arith::SubFOp::create(b, loc, f32Const(b, loc, 1.0), er);
  Value isSmall = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, a,
                                        f32Const(b, loc, 1.0));
  Value y = arith::SelectOp::create(b, loc, isSmall, small, large);
  return math::CopySignOp::create(b, loc, y, x);
}

Value capture::kernels::emitScalar(Operation *op, OpBuilder &b, Location loc,
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
      // GLSL.std.450 Floor and Ceil: exact, NaN and +-inf pass through.
      .Case([&](FloorOp) { return math::FloorOp::create(b, loc, args[0]); })
      .Case([&](CeilOp) { return math::CeilOp::create(b, loc, args[0]); })
      .Case([&](ErfOp) { return emitErf(b, loc, args[0]); })
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
      .Case([&](CompareOp compare) {
        // Ordered predicates (and unordered "ne"): NaN compares false except
        // for ne, as in C++ and PyTorch.
        arith::CmpFPredicate predicate = arith::CmpFPredicate::OEQ;
        switch (compare.getPredicate()) {
        case ComparePredicate::eq:
          predicate = arith::CmpFPredicate::OEQ;
          break;
        case ComparePredicate::ne:
          predicate = arith::CmpFPredicate::UNE;
          break;
        case ComparePredicate::lt:
          predicate = arith::CmpFPredicate::OLT;
          break;
        case ComparePredicate::le:
          predicate = arith::CmpFPredicate::OLE;
          break;
        case ComparePredicate::gt:
          predicate = arith::CmpFPredicate::OGT;
          break;
        case ComparePredicate::ge:
          predicate = arith::CmpFPredicate::OGE;
          break;
        }
        Value holds =
            arith::CmpFOp::create(b, loc, predicate, args[0], args[1]);
        return arith::SelectOp::create(b, loc, holds, f32Const(b, loc, 1.0),
                                       f32Const(b, loc, 0.0));
      })
      .Default([](Operation *) { return Value(); });
}

bool capture::kernels::isElementwise(Operation *op) {
  return isElementwiseOp(op);
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

Value capture::kernels::oneHotElement(OpBuilder &b, Location loc, Value labels,
                                      ValueRange at) {
  // An out-of-range label (the interpreter reports it) matches no class.
  Value label = memref::LoadOp::create(b, loc, labels, ValueRange{at[0]});
  Value cls =
      arith::IndexCastOp::create(b, loc, b.getI32Type(), at[1]).getResult();
  Value hit =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, label, cls);
  return arith::SelectOp::create(b, loc, hit, f32Const(b, loc, 1.0),
                                 f32Const(b, loc, 0.0));
}

void capture::kernels::emitOneHot(OneHotOp op, OpBuilder &b, Location loc,
                                  Value i, ValueRange args) {
  SmallVector<Value> out =
      delinearize(b, loc, i, tensorType(op.getResult()).getShape());
  memref::StoreOp::create(b, loc, oneHotElement(b, loc, args[0], out), args[1],
                          out);
}

void capture::kernels::emitScatterAddRows(ScatterAddRowsOp op, OpBuilder &b,
                                          Location loc, Value i,
                                          ValueRange args) {
  // Each output element gathers the updates aimed at its row, in index
  // order: deterministic, and no atomics (which SPIR-V 1.3 float lacks).
  // Indices are clamped as get_rows clamps them, so that the gradient goes
  // to the row the forward pass read.
  auto result = tensorType(op.getResult());
  int64_t rows = result.getDimSize(0);
  int64_t count = tensorType(op.getIndices()).getDimSize(0);
  SmallVector<Value> out = delinearize(b, loc, i, result.getShape());
  Value sum = foldRange(
      b, loc, count, f32Const(b, loc, 0.0),
      [&](OpBuilder &nb, Location nloc, Value n, Value acc) -> Value {
        Value row = loadClampedIndex(nb, nloc, args[1], ValueRange{n}, rows);
        Value hit = arith::CmpIOp::create(nb, nloc, arith::CmpIPredicate::eq,
                                          row, out[0]);
        Value update =
            memref::LoadOp::create(nb, nloc, args[0], ValueRange{n, out[1]});
        Value added = arith::AddFOp::create(nb, nloc, acc, update);
        return arith::SelectOp::create(nb, nloc, hit, added, acc);
      });
  memref::StoreOp::create(b, loc, sum, args[2], out);
}

void capture::kernels::emitCheckIndices(CheckIndicesOp op, OpBuilder &b,
                                        Location loc, Value t,
                                        ValueRange args) {
  int64_t n = tensorType(op.getIndices()).getNumElements();
  int64_t lanes = checkIndicesLanes(n);
  Type i32 = b.getI32Type();
  auto i32Const = [&](OpBuilder &cb, Location cloc, int64_t v) -> Value {
    return arith::ConstantIntOp::create(cb, cloc, i32, v);
  };
  Value none = i32Const(b, loc, std::numeric_limits<int32_t>::max());
  Value bound = i32Const(b, loc, op.getBound());
  // The first bad position of this invocation's share: positions only
  // grow along it, so the first one found stays. The range is padded to
  // whole rounds of the lanes so that every invocation runs at least once:
  // the SPIR-V lowering of a loop result is undefined after zero
  // iterations.
  int64_t padded = llvm::alignTo(n, lanes);
  auto share = scf::ForOp::create(
      b, loc, t, indexConst(b, loc, padded), indexConst(b, loc, lanes),
      ValueRange{none},
      [&](OpBuilder &nb, Location nloc, Value e, ValueRange acc) {
        Value inside = arith::CmpIOp::create(
            nb, nloc, arith::CmpIPredicate::slt, e, indexConst(nb, nloc, n));
        Value at =
            arith::MinSIOp::create(nb, nloc, e, indexConst(nb, nloc, n - 1));
        Value v = memref::LoadOp::create(nb, nloc, args[0], ValueRange{at});
        Value low = arith::CmpIOp::create(nb, nloc, arith::CmpIPredicate::slt,
                                          v, i32Const(nb, nloc, 0));
        Value high = arith::CmpIOp::create(nb, nloc, arith::CmpIPredicate::sge,
                                           v, bound);
        Value bad = arith::AndIOp::create(
            nb, nloc, inside, arith::OrIOp::create(nb, nloc, low, high));
        Value fresh = arith::CmpIOp::create(nb, nloc, arith::CmpIPredicate::eq,
                                            acc[0], none);
        Value here = arith::IndexCastOp::create(nb, nloc, i32, e);
        Value take = arith::AndIOp::create(nb, nloc, bad, fresh);
        scf::YieldOp::create(
            nb, nloc,
            ValueRange{arith::SelectOp::create(nb, nloc, take, here, acc[0])});
      });
  auto firsts = memref::AllocOp::create(
      b, loc,
      MemRefType::get({lanes}, i32, AffineMap(),
                      spirv::StorageClassAttr::get(
                          b.getContext(), spirv::StorageClass::Workgroup)));
  memref::StoreOp::create(b, loc, share.getResult(0), firsts, ValueRange{t});
  gpu::BarrierOp::create(b, loc);
  Value isZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, t,
                                       indexConst(b, loc, 0));
  scf::IfOp::create(b, loc, isZero, [&](OpBuilder &nb, Location nloc) {
    Value first = foldRange(
        nb, nloc, lanes, none,
        [&](OpBuilder &fb, Location floc, Value l, Value acc) -> Value {
          Value f = memref::LoadOp::create(fb, floc, firsts, ValueRange{l});
          return arith::MinSIOp::create(fb, floc, acc, f);
        });
    Value found =
        arith::CmpIOp::create(nb, nloc, arith::CmpIPredicate::ne, first, none);
    // Position 0 when none is found: a load inside the tensor either way.
    Value at = arith::IndexCastOp::create(
        nb, nloc, nb.getIndexType(),
        arith::SelectOp::create(nb, nloc, found, first, i32Const(nb, nloc, 0)));
    Value value = memref::LoadOp::create(nb, nloc, args[0], ValueRange{at});
    memref::StoreOp::create(
        nb, nloc,
        arith::SelectOp::create(nb, nloc, found, first, i32Const(nb, nloc, -1)),
        args[1], ValueRange{indexConst(nb, nloc, 0)});
    memref::StoreOp::create(
        nb, nloc,
        arith::SelectOp::create(nb, nloc, found, value, i32Const(nb, nloc, 0)),
        args[1], ValueRange{indexConst(nb, nloc, 1)});
    memref::StoreOp::create(
        nb, nloc,
        arith::SelectOp::create(nb, nloc, found,
                                f32Const(nb, nloc, std::nan("")),
                                f32Const(nb, nloc, 0.0)),
        args[2], ValueRange());
    scf::YieldOp::create(nb, nloc);
  });
}
