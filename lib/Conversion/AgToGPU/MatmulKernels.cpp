//===- MatmulKernels.cpp - Register-blocked matmul template ---------------===//
//
// Each work item owns a tileM x tileN (8 or 4) tile of the result and walks
// K in blocks of 4, keeping the tile's accumulators in registers. An operand
// whose contiguous dimension is a multiple of 4 is bound as vector<4xf32>
// elements, so one load fetches four consecutive values along that
// dimension: along K for A (no transpose) and for B with transpose_b (the
// forward A·Wᵀ), along M or N for the outer-product forms of the backward
// (Aᵀ·B, A·B). With ag-spirv-texel-reads those loads are single RGBA32F
// texel reads. With N a multiple of 4 the result is bound the same way and
// stored four columns per store. Every output element still sums its K
// products in order k = 0, 1, ..., as the reference interpreter does.
//
// Tails: rows and columns past M or N are clamped on load (valid data,
// never stored), K % 4 is a scalar remainder; no load leaves its tensor.
//
// Shared loads (`shareLanes`, on llvmpipe): each group of 8 consecutive
// work items (the lanes of a SIMD group) owns 2x4 or 4x2 tiles, or a row
// or column of 8, and the groups walk the tiles row by row (column by
// column with column sums). Lanes whose tiles share rows need the same 8
// vectors of A per K block, those sharing columns the same 8 of B: the
// group loads each such vector once and the lanes take theirs with
// subgroup shuffles, which llvmpipe runs faster than texel fetches. Per
// lane and K block a 2x4 group loads 2 + 4 vectors, a
// row of 8 tiles 1 + 8 and private tiles 8 + 8 (measured: a row of 8 made
// the MLP's large matmuls 10-20% faster than private tiles, 2x4 and 4x2
// another 5-12%). The lanes of a group are 8 consecutive, 8-aligned work
// items (subgroups hold consecutive invocations of a 1-D workgroup), so a
// device whose subgroups are a multiple of 8 lanes runs it right, which
// the kernel records (ag.subgroup_multiple) for the loader to check; its
// ag.tile_group shows the group's tiles in the IR.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitters.h"
#include "MatmulTile.h"

#include "capture/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace capture;
using namespace capture::ag;
using namespace capture::kernels;
using namespace capture::kernels::matmul;

/// The tile side along a result dimension of `size`: 8 (fewer work items,
/// more reuse of each loaded vector; measured best on llvmpipe for the 64-
/// to 256-wide layers of the workloads) unless the dimension is smaller.
static int64_t tileSide(int64_t size) { return size >= 8 ? 8 : kVec; }

static MatmulPlan planOf(MatmulOp op) {
  MatmulPlan p;
  p.ta = op.getTransposeA();
  p.tb = op.getTransposeB();
  auto result = tensorType(op.getResult());
  p.m = result.getDimSize(0);
  p.n = result.getDimSize(1);
  p.k = tensorType(op.getLhs()).getDimSize(p.ta ? 0 : 1);
  p.aVec = p.ta ? p.m % kVec == 0 : p.k % kVec == 0;
  p.bVec = p.tb ? p.k % kVec == 0 : p.n % kVec == 0;
  p.cVec = p.n % kVec == 0;
  p.tileM = tileSide(p.m);
  p.tileN = tileSide(p.n);
  return p;
}

/// Picks the tiles of a group of kShareLanes lanes, when `lanes` (the
/// target's group width, 0 for none) allows groups: 2 x 4 or 4 x 2 tiles
/// share both operands (6 loads per lane and K block where private tiles
/// take 16), a row (column) of 8 tiles shares only A (B: 9 loads). An
/// operand is shared only when bound as vectors with a tile side of 8, and
/// the groups must tile the tiles exactly.
static void planSharing(MatmulPlan &p, int64_t lanes) {
  if (lanes != kShareLanes)
    return;
  bool a = p.aVec && p.tileM == kShareLanes;
  bool b = p.bVec && p.tileN == kShareLanes;
  // With column sums only the first column of tiles sums A, and a group
  // takes as long as its slowest lane: taller groups hold fewer of those
  // lanes' groups, and a row of 8 tiles would put one in every group.
  SmallVector<std::pair<int64_t, int64_t>> shapes;
  if (a && b)
    shapes = p.columnMajor ? decltype(shapes){{4, 2}, {2, 4}}
                           : decltype(shapes){{2, 4}, {4, 2}};
  if (b)
    shapes.push_back({kShareLanes, 1});
  if (a && !p.columnMajor)
    shapes.push_back({1, kShareLanes});
  for (auto [rows, cols] : shapes) {
    if (p.tilesM() % rows != 0 || p.tilesN() % cols != 0)
      continue;
    p.groupRows = rows;
    p.groupCols = cols;
    return;
  }
}

int64_t capture::kernels::matmulWorkItems(MatmulOp op) {
  MatmulPlan p = planOf(op);
  return p.tilesM() * p.tilesN();
}

/// The binding of a matmul operand: vec4 elements or its tensor's memref.
static Type operandBinding(Value operand, bool vec) {
  auto type = tensorType(operand);
  Type f32 = Float32Type::get(operand.getContext());
  if (!vec)
    return MemRefType::get(type.getShape(), f32);
  return vec4Memref(operand.getContext(), type.getNumElements());
}

SmallVector<Type> capture::kernels::matmulArgTypes(MatmulOp op) {
  MatmulPlan p = planOf(op);
  return {operandBinding(op.getLhs(), p.aVec),
          operandBinding(op.getRhs(), p.bVec),
          operandBinding(op.getResult(), p.cVec)};
}

/// Block arguments of a matmul region that its epilogue reads, in order.
static SmallVector<BlockArgument> epilogueInputs(DispatchRegionOp op) {
  MatmulOp matmul = op.getMatmul();
  SmallVector<BlockArgument> inputs;
  for (Operation &inner : op.getBlock().without_terminator()) {
    if (&inner == matmul.getOperation())
      continue;
    for (Value operand : inner.getOperands())
      if (auto arg = dyn_cast<BlockArgument>(operand);
          arg && !llvm::is_contained(inputs, arg))
        inputs.push_back(arg);
  }
  return inputs;
}

SmallVector<unsigned>
capture::kernels::matmulRegionBindings(DispatchRegionOp op) {
  MatmulOp matmul = op.getMatmul();
  SmallVector<unsigned> bindings = {
      cast<BlockArgument>(matmul.getLhs()).getArgNumber(),
      cast<BlockArgument>(matmul.getRhs()).getArgNumber()};
  for (BlockArgument arg : epilogueInputs(op))
    bindings.push_back(arg.getArgNumber());
  return bindings;
}

SmallVector<Type> capture::kernels::matmulRegionArgTypes(DispatchRegionOp op) {
  MatmulOp matmul = op.getMatmul();
  SmallVector<Type> types = matmulArgTypes(matmul);
  Type result = types.pop_back_val();
  Type f32 = Float32Type::get(op.getContext());
  for (BlockArgument arg : epilogueInputs(op))
    types.push_back(MemRefType::get(tensorType(arg).getShape(), f32));
  types.push_back(result);
  if (Value sums = op.getYieldedSums())
    types.push_back(MemRefType::get(tensorType(sums).getShape(), f32));
  return types;
}

/// Marks the kernel being built as relying on groups of kShareLanes lanes
/// (the loader checks the device's subgroup size is a multiple of it) and
/// records the tiles of a group.
static void markSharing(OpBuilder &b, const MatmulPlan &p) {
  if (!p.shares())
    return;
  auto func = b.getInsertionBlock()->getParentOp();
  if (!isa<gpu::GPUFuncOp>(func))
    func = func->getParentOfType<gpu::GPUFuncOp>();
  func->setAttr(kSubgroupMultipleAttr, b.getI64IntegerAttr(kShareLanes));
  func->setAttr(kTileGroupAttr,
                b.getDenseI64ArrayAttr({p.groupRows, p.groupCols}));
}

void capture::kernels::emitTiledMatmul(MatmulOp op, int64_t shareLanes,
                                       OpBuilder &b, Location loc, Value i,
                                       ValueRange args) {
  MatmulPlan p = planOf(op);
  planSharing(p, shareLanes);
  markSharing(b, p);
  TileEmitter(p, b, loc, i, args[0], args[1], args[2]).emit();
}

void capture::kernels::emitMatmulRegion(DispatchRegionOp op, int64_t shareLanes,
                                        OpBuilder &b, Location loc, Value i,
                                        ValueRange args) {
  MatmulOp matmul = op.getMatmul();
  MatmulPlan p = planOf(matmul);
  Value sums = op.getYieldedSums() ? args.back() : Value();
  p.columnMajor = static_cast<bool>(sums);
  planSharing(p, shareLanes);
  markSharing(b, p);
  Value c = args[args.size() - (sums ? 2 : 1)];
  SmallVector<BlockArgument> inputs = epilogueInputs(op);
  // One load per distinct (input, indices) of the tile: a bias row is
  // loaded once per column, not once per element.
  DenseMap<std::pair<unsigned, std::pair<Value, Value>>, Value> loaded;
  auto epilogue = [&](Value acc, Value row, Value col) -> Value {
    DenseMap<Value, Value> scalar;
    scalar[matmul.getResult()] = acc;
    for (auto [k, arg] : llvm::enumerate(inputs)) {
      ArrayRef<int64_t> shape = tensorType(arg).getShape();
      SmallVector<Value> at =
          broadcastIndices(b, loc, ValueRange{row, col}, shape);
      Value r = shape.size() == 2 && shape[0] != 1 ? row : Value();
      Value c = !shape.empty() && shape.back() != 1 ? col : Value();
      Value &v = loaded[{static_cast<unsigned>(k), {r, c}}];
      if (!v)
        v = memref::LoadOp::create(b, loc, args[2 + k], at);
      scalar[arg] = v;
    }
    evaluateBody(op, b, loc, scalar);
    return scalar.lookup(op.getYielded());
  };
  TileEmitter(p, b, loc, i, args[0], args[1], c, epilogue, sums).emit();
}
