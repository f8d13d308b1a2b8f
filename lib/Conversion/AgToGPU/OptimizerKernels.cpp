//===- OptimizerKernels.cpp - The AdamW update kernel ---------------------===//
//
// torch.optim.AdamW (single-tensor form) per element of the flat parameter
// array. The gradient-norm check happens here, on the device, so that the
// whole step stays one submission: when the norm is NaN or infinite the
// kernel writes nothing and the weights and moments keep their exact bits.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitters.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

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

void capture::kernels::emitAdamW(OpBuilder &b, Location loc, Value i,
                                 ValueRange args) {
  Value grads = args[0], normBuf = args[1], hyper = args[2];
  Value params = args[3], m1 = args[4], m2 = args[5];
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

  Value g = memref::LoadOp::create(b, loc, grads, ValueRange{i});
  Value p = memref::LoadOp::create(b, loc, params, ValueRange{i});
  Value m = memref::LoadOp::create(b, loc, m1, ValueRange{i});
  Value v = memref::LoadOp::create(b, loc, m2, ValueRange{i});
  // Decoupled weight decay, then the moments of the (clipped) gradient.
  p = mul(p, sub(one, mul(lr, wd)));
  m = add(mul(beta1, m), mul(sub(one, beta1), g));
  v = add(mul(beta2, v), mul(sub(one, beta2), mul(g, g)));
  Value denom = add(
      div(math::SqrtOp::create(b, loc, v), math::SqrtOp::create(b, loc, bc2)),
      eps);
  p = sub(p, mul(div(lr, bc1), div(m, denom)));
  memref::StoreOp::create(b, loc, p, params, ValueRange{i});
  memref::StoreOp::create(b, loc, m, m1, ValueRange{i});
  memref::StoreOp::create(b, loc, v, m2, ValueRange{i});
}
