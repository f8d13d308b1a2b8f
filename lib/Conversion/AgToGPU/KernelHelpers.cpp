//===- KernelHelpers.cpp - Index math shared by the kernel emitters -------===//

#include "KernelEmitters.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

Value capture::kernels::indexConst(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

Value capture::kernels::f32Const(OpBuilder &b, Location loc, double value) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
}

MemRefType capture::kernels::vec4Memref(MLIRContext *ctx, int64_t elements) {
  return MemRefType::get({(elements + 3) / 4},
                         VectorType::get({4}, Float32Type::get(ctx)));
}

SmallVector<Value> capture::kernels::loadLanes(OpBuilder &b, Location loc,
                                               Value memref, Value index) {
  Value v = memref::LoadOp::create(b, loc, memref, ValueRange{index});
  auto type = cast<VectorType>(v.getType());
  SmallVector<Value> lanes;
  for (int64_t l = 0; l < type.getNumElements(); ++l)
    lanes.push_back(vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{l}));
  return lanes;
}

SmallVector<Value> capture::kernels::delinearize(OpBuilder &b, Location loc,
                                                 Value linear,
                                                 ArrayRef<int64_t> shape) {
  SmallVector<Value> indices(shape.size());
  int64_t stride = 1;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    Value index = linear;
    if (stride != 1)
      index = arith::DivUIOp::create(b, loc, index, indexConst(b, loc, stride));
    // The outermost index needs no remainder: `linear` is in range.
    if (d != 0)
      index =
          arith::RemUIOp::create(b, loc, index, indexConst(b, loc, shape[d]));
    indices[d] = index;
    stride *= shape[d];
  }
  return indices;
}

SmallVector<Value> capture::kernels::broadcastIndices(OpBuilder &b,
                                                      Location loc,
                                                      ValueRange indices,
                                                      ArrayRef<int64_t> shape) {
  SmallVector<Value> result;
  size_t skip = indices.size() - shape.size();
  for (auto [d, dim] : llvm::enumerate(shape))
    result.push_back(dim == 1 ? indexConst(b, loc, 0) : indices[skip + d]);
  return result;
}

Value capture::kernels::loadClampedIndex(OpBuilder &b, Location loc,
                                         Value memref, ValueRange indices,
                                         int64_t bound) {
  Value raw = memref::LoadOp::create(b, loc, memref, indices);
  // index_cast sign-extends, so a negative i32 stays negative and clamps
  // to 0 (SPIR-V's index is i32 anyway).
  Value index = arith::IndexCastOp::create(b, loc, b.getIndexType(), raw);
  index = arith::MaxSIOp::create(b, loc, index, indexConst(b, loc, 0));
  return arith::MinSIOp::create(b, loc, index, indexConst(b, loc, bound - 1));
}

Value capture::kernels::foldRange(
    OpBuilder &b, Location loc, int64_t count, Value init,
    function_ref<Value(OpBuilder &, Location, Value, Value)> body) {
  auto loop = scf::ForOp::create(
      b, loc, indexConst(b, loc, 0), indexConst(b, loc, count),
      indexConst(b, loc, 1), ValueRange{init},
      [&](OpBuilder &nb, Location nloc, Value j, ValueRange acc) {
        scf::YieldOp::create(nb, nloc, ValueRange{body(nb, nloc, j, acc[0])});
      });
  return loop.getResult(0);
}

void capture::kernels::forRange(
    OpBuilder &b, Location loc, int64_t count,
    function_ref<void(OpBuilder &, Location, Value)> body) {
  scf::ForOp::create(b, loc, indexConst(b, loc, 0), indexConst(b, loc, count),
                     indexConst(b, loc, 1), ValueRange(),
                     [&](OpBuilder &nb, Location nloc, Value j, ValueRange) {
                       body(nb, nloc, j);
                       scf::YieldOp::create(nb, nloc);
                     });
}

SmallVector<Value> capture::kernels::insertAt(ValueRange indices, int64_t axis,
                                              Value index) {
  SmallVector<Value> result(indices);
  result.insert(result.begin() + axis, index);
  return result;
}

void capture::kernels::ifBelow(OpBuilder &b, Location loc, Value index,
                               int64_t bound, bool always,
                               function_ref<void(OpBuilder &, Location)> body) {
  if (always) {
    body(b, loc);
    return;
  }
  Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, index,
                                       indexConst(b, loc, bound));
  scf::IfOp::create(b, loc, inside, [&](OpBuilder &nb, Location nloc) {
    body(nb, nloc);
    scf::YieldOp::create(nb, nloc);
  });
}
