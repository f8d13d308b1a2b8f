//===- OptimizerKernels.cpp - The AdamW update kernel ---------------------===//
//
// torch.optim.AdamW (single-tensor form) per element of the flat parameter
// array, sixteen elements (four vec4s) per work item. The parameters and
// moments are read through read-only views (texel buffers on lavapipe) of
// the same ranges the kernel writes: each work item reads its own elements
// before it writes them, and no other work item touches them. The gradient-norm check
// happens here, on the device, so that the whole step stays one submission:
// when the norm is NaN or infinite the kernel writes nothing and the weights
// and moments keep their exact bits.
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

void capture::kernels::emitAdamW(int64_t size, GradLanesFn gradLanes,
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
  auto h = [&](int64_t k) -> Value {
    return memref::LoadOp::create(b, loc, hyper,
                                  ValueRange{indexConst(b, loc, k)});
  };
  Value lr = h(0), beta1 = h(1), beta2 = h(2), eps = h(3), wd = h(4);
  Value bc1 = h(5), bc2 = h(6);
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
    SmallVector<Value> g4 = gradLanes(b, loc, vi);
    Value p4 = memref::LoadOp::create(b, loc, paramsIn, ValueRange{vi});
    Value m4 = memref::LoadOp::create(b, loc, m1In, ValueRange{vi});
    Value v4 = memref::LoadOp::create(b, loc, m2In, ValueRange{vi});
    Value first =
        arith::MulIOp::create(b, loc, vi, indexConst(b, loc, kAdamWLanes));
    for (int64_t l = 0; l < kAdamWLanes; ++l) {
      Value g = g4[l], p = lane(p4, l), m = lane(m4, l), v = lane(v4, l);
      // Decoupled weight decay, then the moments of the (clipped) gradient.
      p = mul(p, sub(one, mul(lr, wd)));
      m = add(mul(beta1, m), mul(sub(one, beta1), g));
      v = add(mul(beta2, v), mul(sub(one, beta2), mul(g, g)));
      Value denom = add(div(math::SqrtOp::create(b, loc, v),
                            math::SqrtOp::create(b, loc, bc2)),
                        eps);
      p = sub(p, mul(div(lr, bc1), div(m, denom)));
      Value e =
          l == 0 ? first
                 : arith::AddIOp::create(b, loc, first, indexConst(b, loc, l));
      auto store = [&](OpBuilder &sb, Location sloc) {
        memref::StoreOp::create(sb, sloc, p, params, ValueRange{e});
        memref::StoreOp::create(sb, sloc, m, m1, ValueRange{e});
        memref::StoreOp::create(sb, sloc, v, m2, ValueRange{e});
      };
      // The last work item's lanes past the pack read its padding and store
      // nothing.
      ifBelow(b, loc, e, size, l == 0 || size % kAdamWLanes == 0, store);
    }
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
