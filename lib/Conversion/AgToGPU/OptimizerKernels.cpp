//===- OptimizerKernels.cpp - The AdamW update kernel ---------------------===//
//
// torch.optim.AdamW (single-tensor form) per element of the flat parameter
// array, sixteen elements (four vec4s) per work item. The parameters and
// moments are read through read-only views (texel buffers on lavapipe) of
// the same ranges the kernel writes, and written one vec4 per store: each
// work item reads its own elements before it writes them, and no other work
// item touches them. The gradient-norm check
// happens here, on the device, so that the whole step stays one submission:
// when the norm is NaN or infinite the kernel writes nothing and the weights
// and moments keep their exact bits. torch.optim.Adam's L2 weight decay is
// the same kernel specialized at compile time (named `adam`). Denormal
// moments are flushed to zero (flushDenormal).
//
//===----------------------------------------------------------------------===//

#include "KernelEmitters.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace capture;
using namespace capture::kernels;

/// Whether f32 `x` is finite, by its exponent bits: unlike `x - x == 0`, no
/// floating-point optimization of the driver's compiler can fold this.
static Value isFinite(OpBuilder &b, Location loc, Value x) {
  Value bits = arith::BitcastOp::create(b, loc, b.getI32Type(), x);
  Value mask = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0x7f800000);
  Value exponent = arith::AndIOp::create(b, loc, bits, mask);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, exponent,
                               mask);
}

/// `x` with a denormal value flushed to zero of its sign, by its exponent
/// bits (no driver optimization can fold this). A moment whose gradients
/// stop decays through the denormals for thousands of steps (v by 0.999 a
/// step), and many CPUs take a microcode assist on every denormal operand;
/// llvmpipe cannot flush them for a shader (no
/// shaderDenormFlushToZeroFloat32).
static Value flushDenormal(OpBuilder &b, Location loc, Value x) {
  Type i32 = b.getI32Type();
  Value bits = arith::BitcastOp::create(b, loc, i32, x);
  auto constant = [&](uint32_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i32, static_cast<int32_t>(v));
  };
  Value exponent = arith::AndIOp::create(b, loc, bits, constant(0x7f800000));
  Value denormal = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         exponent, constant(0));
  Value signedZero = arith::BitcastOp::create(
      b, loc, x.getType(),
      arith::AndIOp::create(b, loc, bits, constant(0x80000000)));
  return arith::SelectOp::create(b, loc, denormal, signedZero, x);
}

void capture::kernels::emitAdamW(int64_t size, bool decoupled,
                                 ArrayRef<GroupRun> runs, GradLanesFn gradLanes,
                                 OpBuilder &b, Location loc, Value i,
                                 ValueRange args) {
  Value normBuf = args[0], hyper = args[1];
  Value paramsIn = args[2], m1In = args[3], m2In = args[4];
  Value params = args[5], m1 = args[6], m2 = args[7];
  Value norm = memref::LoadOp::create(b, loc, normBuf, ValueRange());
  auto ifOp = scf::IfOp::create(b, loc, isFinite(b, loc, norm),
                                /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  // Every group's values, loaded once per work item.
  int64_t groups = 1;
  for (const GroupRun &run : runs)
    groups = std::max(groups, run.group + 1);
  SmallVector<SmallVector<Value>> values(groups);
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t k = 0; k < ag::kAdamWHyperValues; ++k)
      values[g].push_back(memref::LoadOp::create(
          b, loc, hyper,
          ValueRange{indexConst(b, loc, g * ag::kAdamWHyperValues + k)}));
  Value lr, beta1, beta2, eps, wd, bc1, bc2;
  // Vector `vi`'s group's values: the last run starting at or before it.
  auto selectGroup = [&](Value vi) {
    SmallVector<Value> h = values[runs.empty() ? 0 : runs.front().group];
    for (const GroupRun &run : runs.drop_front()) {
      Value inside =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, vi,
                                indexConst(b, loc, run.start / kAdamWLanes));
      for (int64_t k = 0; k < ag::kAdamWHyperValues; ++k)
        h[k] =
            arith::SelectOp::create(b, loc, inside, values[run.group][k], h[k]);
    }
    lr = h[rt::kHyperLr], beta1 = h[rt::kHyperBeta1];
    beta2 = h[rt::kHyperBeta2], eps = h[rt::kHyperEps];
    wd = h[rt::kHyperWeightDecay];
    bc1 = h[rt::kHyperBiasCorrection1], bc2 = h[rt::kHyperBiasCorrection2];
  };
  Value one = f32Const(b, loc, 1.0);
  auto mul = [&](Value x, Value y) -> Value {
    return arith::MulFOp::create(b, loc, x, y);
  };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddFOp::create(b, loc, x, y);
  };
  auto sub = [&](Value x, Value y) -> Value {
    return arith::SubFOp::create(b, loc, x, y);
  };
  auto div = [&](Value x, Value y) -> Value {
    return arith::DivFOp::create(b, loc, x, y);
  };
  auto lane = [&](Value v, int64_t l) -> Value {
    return vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{l});
  };

  // One vector: elements 4 vi .. 4 vi + 3.
  auto emitAdamWVector = [&](Value vi) {
    selectGroup(vi);
    SmallVector<Value> g4 = gradLanes(b, loc, vi);
    Value p4 = memref::LoadOp::create(b, loc, paramsIn, ValueRange{vi});
    Value m4 = memref::LoadOp::create(b, loc, m1In, ValueRange{vi});
    Value v4 = memref::LoadOp::create(b, loc, m2In, ValueRange{vi});
    int64_t tail = size % kAdamWLanes;
    Value first = tail ? arith::MulIOp::create(b, loc, vi,
                                               indexConst(b, loc, kAdamWLanes))
                       : Value();
    SmallVector<Value> ps, ms, vs;
    for (int64_t l = 0; l < kAdamWLanes; ++l) {
      Value g = g4[l], p = lane(p4, l), m = lane(m4, l), v = lane(v4, l);
      // Decoupled weight decay (AdamW), or Adam's L2 term added to the
      // clipped gradient; then the moments of that gradient.
      Value np = p;
      if (decoupled)
        np = mul(p, sub(one, mul(lr, wd)));
      else
        g = add(g, mul(wd, p));
      // The moments are state that persists: flushed (docs/architecture.md,
      // "Training steps").
      Value nm =
          flushDenormal(b, loc, add(mul(beta1, m), mul(sub(one, beta1), g)));
      Value nv = flushDenormal(
          b, loc, add(mul(beta2, v), mul(sub(one, beta2), mul(g, g))));
      Value denom = add(div(math::SqrtOp::create(b, loc, nv),
                            math::SqrtOp::create(b, loc, bc2)),
                        eps);
      np = sub(np, mul(div(lr, bc1), div(nm, denom)));
      // The last vector's lanes past the pack lie in its unowned padding
      // (every array starts 16-byte aligned) and store back the bits they
      // read, so that each array takes one vec4 store per vector.
      if (tail && l >= tail) {
        Value e = arith::AddIOp::create(b, loc, first, indexConst(b, loc, l));
        Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                             e, indexConst(b, loc, size));
        np = arith::SelectOp::create(b, loc, inside, np, p);
        nm = arith::SelectOp::create(b, loc, inside, nm, m);
        nv = arith::SelectOp::create(b, loc, inside, nv, v);
      }
      ps.push_back(np);
      ms.push_back(nm);
      vs.push_back(nv);
    }
    auto vec4 = VectorType::get({kAdamWLanes}, one.getType());
    for (auto [values, array] :
         {std::pair{&ps, params}, std::pair{&ms, m1}, std::pair{&vs, m2}})
      memref::StoreOp::create(
          b, loc, vector::FromElementsOp::create(b, loc, vec4, *values), array,
          ValueRange{vi});
  };

  // kAdamWVectors vectors of four elements per work item, after one load
  // of the hyperparameters: one vec4 read of each array per vector.
  int64_t vectors = (size + kAdamWLanes - 1) / kAdamWLanes;
  for (int64_t j = 0; j < kAdamWVectors; ++j) {
    Value vi = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, i, indexConst(b, loc, kAdamWVectors)),
        indexConst(b, loc, j));
    auto body = [&](OpBuilder &vb, Location vloc) {
      OpBuilder::InsertionGuard vectorGuard(b);
      b.setInsertionPoint(vb.getInsertionBlock(), vb.getInsertionPoint());
      emitAdamWVector(vi);
    };
    // The last work item's vectors past the pack do nothing.
    ifBelow(b, loc, vi, vectors, j == 0 || vectors % kAdamWVectors == 0, body);
  }
}
