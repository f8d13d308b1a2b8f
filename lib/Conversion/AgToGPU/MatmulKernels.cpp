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
// Shared loads (`shareLanes`, on llvmpipe): consecutive work items walk
// along a row of tiles (down a column with column sums), so the 8 lanes of
// a SIMD group own tiles of the same rows (columns) and need the same 8
// vectors of A (B) per K block. Each lane then loads one of them and the
// tile takes all 8 with subgroup shuffles, which llvmpipe does in about a
// third of a texel fetch's time (measured: a standalone 128x784x256 kernel
// 17-28% faster, the MLP's large matmuls 10-20%). The lanes of a group
// are 8 consecutive, 8-aligned work items (subgroups hold consecutive
// invocations of a 1-D workgroup), so a device whose subgroups are a
// multiple of 8 lanes runs it right, which the kernel records
// (ag.subgroup_multiple) for the loader to check.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitters.h"

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

namespace {

/// Values fetched by one vector load; tile sides are multiples of it.
constexpr int64_t kVec = 4;

/// The shapes and read layout of one matmul.
struct MatmulPlan {
  /// Result rows, columns and the contraction length.
  int64_t m, n, k;
  /// The op's transposes: A is stored [K, M], B is stored [N, K].
  bool ta, tb;
  /// Whether A and B are bound as vector<4xf32> along their contiguous
  /// dimension (K or M for A, K or N for B).
  bool aVec, bVec;
  /// Whether the result is bound as vector<4xf32> along N and stored four
  /// columns at a time: llvmpipe loops over the SIMD lanes once per store,
  /// so a vec4 store costs about what a scalar one does (an 8x8 tile's
  /// stores went from ~9 to ~4 us of a 64x64x64 matmul's ~30).
  bool cVec;
  /// Rows and columns of the result tile of one work item.
  int64_t tileM, tileN;
  /// Whether consecutive work items walk down a column of tiles (rather
  /// than along a row): with column sums, the first column's tiles are
  /// then whole SIMD groups, so only they pay for the sums.
  bool columnMajor = false;
  /// Which operand the lanes of a group of kShareLanes share (A along a
  /// row of tiles, B down a column), each loading one of its block's
  /// vectors for all; None: every lane loads its own.
  enum class Shared { None, A, B } shared = Shared::None;

  int64_t tilesM() const { return (m + tileM - 1) / tileM; }
  int64_t tilesN() const { return (n + tileN - 1) / tileN; }
};

} // namespace

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

/// Lanes that share one operand's loads (see the file comment): 8, the
/// tile side, so that a K block of the shared operand is one vector per
/// lane.
constexpr int64_t kShareLanes = 8;

/// Picks the operand the lanes share, when `lanes` (the target's group
/// width, 0 for none) allows it and the layout makes every group of
/// kShareLanes consecutive work items one tile row (column) with one
/// vector per lane per K block.
static void planSharing(MatmulPlan &p, int64_t lanes) {
  if (lanes != kShareLanes)
    return;
  if (!p.columnMajor && p.aVec && p.tileM == kShareLanes &&
      p.tilesN() % kShareLanes == 0)
    p.shared = MatmulPlan::Shared::A;
  else if (p.columnMajor && p.bVec && p.tileN == kShareLanes &&
           p.tilesM() % kShareLanes == 0)
    p.shared = MatmulPlan::Shared::B;
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

SmallVector<unsigned> capture::kernels::matmulRegionBindings(
    DispatchRegionOp op) {
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

/// `a * b + c` on index values with constant `b` and `c`.
static Value affine(OpBuilder &b, Location loc, Value a, int64_t mul,
                    int64_t add) {
  Value v = a;
  if (mul != 1)
    v = arith::MulIOp::create(b, loc, v, indexConst(b, loc, mul));
  if (add != 0)
    v = arith::AddIOp::create(b, loc, v, indexConst(b, loc, add));
  return v;
}

/// Lane `lane` of a vector<4xf32>.
static Value lane(OpBuilder &b, Location loc, Value vec, int64_t lane) {
  return vector::ExtractOp::create(b, loc, vec, ArrayRef<int64_t>{lane});
}

namespace {

/// Emits one work item: the loads, the multiply-adds and the stores of one
/// tile.
class TileEmitter {
public:
  /// The epilogue of one element: its accumulator, row and column to the
  /// value stored.
  using Epilogue = function_ref<Value(Value acc, Value row, Value col)>;

  TileEmitter(const MatmulPlan &p, OpBuilder &b, Location loc, Value item,
              Value a, Value bm, Value c, Epilogue epilogue = nullptr,
              Value sums = nullptr)
      : p(p), b(b), loc(loc), a(a), bm(bm), c(c), sums(sums),
        epilogue(epilogue) {
    if (p.columnMajor) {
      Value tilesM = indexConst(b, loc, p.tilesM());
      tileRow = arith::RemUIOp::create(b, loc, item, tilesM);
      tileCol = arith::DivUIOp::create(b, loc, item, tilesM);
    } else {
      Value tilesN = indexConst(b, loc, p.tilesN());
      tileRow = arith::DivUIOp::create(b, loc, item, tilesN);
      tileCol = arith::RemUIOp::create(b, loc, item, tilesN);
    }
    // Clamped row/column indices keep every load inside the tensors.
    for (int64_t r = 0; r < p.tileM; ++r)
      rows.push_back(clamped(affine(b, loc, tileRow, p.tileM, r), p.m));
    for (int64_t cc = 0; cc < p.tileN; ++cc)
      cols.push_back(clamped(affine(b, loc, tileCol, p.tileN, cc), p.n));
    // Vector indices along M / N of the tile's 4-groups, clamped.
    for (int64_t r4 = 0; r4 < p.tileM / kVec; ++r4)
      rowVecs.push_back(clamped(affine(b, loc, tileRow, p.tileM / kVec, r4),
                                (p.m + kVec - 1) / kVec));
    for (int64_t c4 = 0; c4 < p.tileN / kVec; ++c4)
      colVecs.push_back(clamped(affine(b, loc, tileCol, p.tileN / kVec, c4),
                                (p.n + kVec - 1) / kVec));
    if (p.shared != MatmulPlan::Shared::None)
      planLaneLoad();
  }

  void emit() {
    SmallVector<Value> acc(p.tileM * p.tileN, f32Const(b, loc, 0.0));
    walkK(acc, [&](Value kb, int64_t count, SmallVector<Value> &next) {
      block(kb, count, next);
    });
    store(acc);
    if (sums)
      storeSums();
  }

private:
  /// Walks K in blocks of 4 (llvmpipe caps an invocation's loop
  /// iterations), then its rest: `step(kb, count, acc)` accumulates the
  /// `count` k from 4 kb into `acc`, carried through the loop.
  void walkK(SmallVector<Value> &acc,
             function_ref<void(Value, int64_t, SmallVector<Value> &)> step) {
    int64_t blocks = p.k / kVec, rest = p.k % kVec;
    if (blocks > 0) {
      auto loop = scf::ForOp::create(
          b, loc, indexConst(b, loc, 0), indexConst(b, loc, blocks),
          indexConst(b, loc, 1), acc,
          [&](OpBuilder &nb, Location nloc, Value kb, ValueRange iter) {
            OpBuilder::InsertionGuard guard(b);
            b.setInsertionPoint(nb.getInsertionBlock(),
                                nb.getInsertionPoint());
            SmallVector<Value> next(iter);
            step(kb, kVec, next);
            scf::YieldOp::create(b, nloc, next);
          });
      acc.assign(loop.getResults().begin(), loop.getResults().end());
    }
    if (rest > 0)
      step(indexConst(b, loc, blocks), rest, acc);
  }

  /// The shared operand's vector this lane loads per K block (vector t of
  /// the block for lane t of its group), and the lanes of its group.
  void planLaneLoad() {
    Value lane = gpu::LaneIdOp::create(b, loc, /*upper_bound=*/nullptr);
    Value group = indexConst(b, loc, kShareLanes);
    Value t = arith::RemUIOp::create(b, loc, lane, group);
    // The lanes of this lane's group, in order (i32, for the shuffles).
    Value base = arith::IndexCastOp::create(
        b, loc, b.getI32Type(), arith::SubIOp::create(b, loc, lane, t));
    for (int64_t l = 0; l < kShareLanes; ++l)
      groupLanes.push_back(arith::AddIOp::create(
          b, loc, base,
          arith::ConstantOp::create(
              b, loc, b.getI32IntegerAttr(static_cast<int32_t>(l)))));
    bool isA = p.shared == MatmulPlan::Shared::A;
    sharedOperand = isA ? a : bm;
    sharedExtent = isA ? p.m : p.n;
    Value tile = isA ? tileRow : tileCol;
    // Stored with K contiguous (A, or B with transpose_b): vector t of a
    // block is row (column) t's vector kb.
    if (isA ? !p.ta : p.tb) {
      Value index =
          clamped(arith::AddIOp::create(
                      b, loc, affine(b, loc, tile, kShareLanes, 0), t),
                  sharedExtent);
      laneVector = affine(b, loc, index, p.k / kVec, 0);
      return;
    }
    // Stored [K, M] ([K, N]): vector t of a block is k = 4 kb + t / 2,
    // the tile's 4-group t % 2.
    Value two = indexConst(b, loc, 2);
    Value group4 =
        clamped(arith::AddIOp::create(b, loc, affine(b, loc, tile, 2, 0),
                                      arith::RemUIOp::create(b, loc, t, two)),
                (sharedExtent + kVec - 1) / kVec);
    laneK = arith::DivUIOp::create(b, loc, t, two);
    laneVector = group4;
  }

  /// This lane's vector of the shared operand in block `kb`, and the
  /// group's 8 such vectors, in lane order.
  SmallVector<Value> sharedBlock(Value kb) {
    Value at;
    if (!laneK) {
      at = arith::AddIOp::create(b, loc, laneVector, kb);
    } else {
      Value k =
          arith::AddIOp::create(b, loc, affine(b, loc, kb, kVec, 0), laneK);
      at = arith::AddIOp::create(
          b, loc, affine(b, loc, k, sharedExtent / kVec, 0), laneVector);
    }
    Value mine = memref::LoadOp::create(b, loc, sharedOperand, ValueRange{at});
    Value width = arith::ConstantOp::create(
        b, loc, b.getI32IntegerAttr(static_cast<int32_t>(kShareLanes)));
    SmallVector<Value> vectors;
    for (Value from : groupLanes)
      vectors.push_back(gpu::ShuffleOp::create(b, loc, mine, from, width,
                                               gpu::ShuffleMode::IDX)
                            .getShuffleResult());
    return vectors;
  }

  Value clamped(Value index, int64_t bound) {
    return arith::MinUIOp::create(b, loc, index, indexConst(b, loc, bound - 1));
  }

  /// Element A(m = rows[r], k) with a scalar load.
  Value scalarA(int64_t r, Value k) {
    return memref::LoadOp::create(b, loc, a,
                                  p.ta ? ValueRange{k, rows[r]}
                                       : ValueRange{rows[r], k});
  }
  /// Element B(k, n = cols[cc]) with a scalar load.
  Value scalarB(Value k, int64_t cc) {
    return memref::LoadOp::create(b, loc, bm,
                                  p.tb ? ValueRange{cols[cc], k}
                                       : ValueRange{k, cols[cc]});
  }

  /// Accumulates `count` consecutive k (from kVec * kb) into `acc`.
  void block(Value kb, int64_t count, SmallVector<Value> &acc) {
    Value k0 = affine(b, loc, kb, kVec, 0);
    SmallVector<Value> ks;
    for (int64_t kk = 0; kk < count; ++kk)
      ks.push_back(affine(b, loc, k0, 1, kk));

    // av[r][kk] and bv[kk][cc].
    SmallVector<SmallVector<Value>> av(p.tileM), bv(count);
    // The K remainder (count < 4) loads directly: no vector per lane.
    bool full = count == kVec;
    if (full && p.shared == MatmulPlan::Shared::A) {
      SmallVector<Value> vectors = sharedBlock(kb);
      for (int64_t r = 0; r < p.tileM; ++r)
        av[r].resize(count);
      for (auto [t, v] : llvm::enumerate(vectors))
        for (int64_t l = 0; l < kVec; ++l) {
          // [K, M]: vector t is k = t / 2, rows 4 (t % 2) .. + 3.
          int64_t t64 = static_cast<int64_t>(t);
          if (p.ta)
            av[(t64 % 2) * kVec + l][t64 / 2] = lane(b, loc, v, l);
          else
            av[t64][l] = lane(b, loc, v, l);
        }
    } else if (p.aVec && !p.ta) {
      // A[m, k..k+3] is one vector: row m, vector kb.
      for (int64_t r = 0; r < p.tileM; ++r) {
        Value at = arith::AddIOp::create(
            b, loc, affine(b, loc, rows[r], p.k / kVec, 0), kb);
        Value v = memref::LoadOp::create(b, loc, a, ValueRange{at});
        for (int64_t kk = 0; kk < count; ++kk)
          av[r].push_back(lane(b, loc, v, kk));
      }
    } else if (p.aVec && p.ta) {
      for (int64_t r = 0; r < p.tileM; ++r)
        av[r].resize(count);
      for (int64_t kk = 0; kk < count; ++kk)
        for (auto [r, value] : llvm::enumerate(columnOfA(ks[kk])))
          av[r][kk] = value;
    } else {
      for (int64_t r = 0; r < p.tileM; ++r)
        for (int64_t kk = 0; kk < count; ++kk)
          av[r].push_back(scalarA(r, ks[kk]));
    }

    if (full && p.shared == MatmulPlan::Shared::B) {
      SmallVector<Value> vectors = sharedBlock(kb);
      for (int64_t kk = 0; kk < count; ++kk)
        bv[kk].resize(p.tileN);
      for (auto [t, v] : llvm::enumerate(vectors))
        for (int64_t l = 0; l < kVec; ++l) {
          // [K, N]: vector t is k = t / 2, columns 4 (t % 2) .. + 3.
          int64_t t64 = static_cast<int64_t>(t);
          if (p.tb)
            bv[l][t64] = lane(b, loc, v, l);
          else
            bv[t64 / 2][(t64 % 2) * kVec + l] = lane(b, loc, v, l);
        }
    } else if (p.bVec && p.tb) {
      // B stored [N, K]: B[n, k..k+3] is one vector.
      for (int64_t kk = 0; kk < count; ++kk)
        bv[kk].resize(p.tileN);
      for (int64_t cc = 0; cc < p.tileN; ++cc) {
        Value at = arith::AddIOp::create(
            b, loc, affine(b, loc, cols[cc], p.k / kVec, 0), kb);
        Value v = memref::LoadOp::create(b, loc, bm, ValueRange{at});
        for (int64_t kk = 0; kk < count; ++kk)
          bv[kk][cc] = lane(b, loc, v, kk);
      }
    } else if (p.bVec && !p.tb) {
      // B stored [K, N]: B[k, n..n+3] is one vector.
      for (int64_t kk = 0; kk < count; ++kk)
        for (Value vec : colVecs) {
          Value at = arith::AddIOp::create(
              b, loc, affine(b, loc, ks[kk], p.n / kVec, 0), vec);
          Value v = memref::LoadOp::create(b, loc, bm, ValueRange{at});
          for (int64_t l = 0; l < kVec; ++l)
            bv[kk].push_back(lane(b, loc, v, l));
        }
    } else {
      for (int64_t kk = 0; kk < count; ++kk)
        for (int64_t cc = 0; cc < p.tileN; ++cc)
          bv[kk].push_back(scalarB(ks[kk], cc));
    }

    // In k order per element, as the interpreter sums. An element's `count`
    // products are added one after another: llvmpipe keeps only some of an
    // 8x8 tile's 64 accumulators in registers, and finishing one before
    // the next spills each once per block instead of once per k (10-15%
    // faster on the MLP's and PPO's matmuls; an FMA instead of the multiply
    // and add gained nothing there).
    for (int64_t r = 0; r < p.tileM; ++r)
      for (int64_t cc = 0; cc < p.tileN; ++cc)
        for (int64_t kk = 0; kk < count; ++kk) {
          Value &sum = acc[r * p.tileN + cc];
          Value prod = arith::MulFOp::create(b, loc, av[r][kk], bv[kk][cc]);
          sum = arith::AddFOp::create(b, loc, sum, prod);
        }
  }

  /// Stores the tile's elements that lie inside the result: one element,
  /// or with a vec4 result four columns, per store.
  void store(ArrayRef<Value> acc) {
    int64_t width = p.cVec ? kVec : 1;
    for (int64_t r = 0; r < p.tileM; ++r)
      for (int64_t cc = 0; cc < p.tileN; cc += width) {
        Value row = affine(b, loc, tileRow, p.tileM, r);
        Value col = affine(b, loc, tileCol, p.tileN, cc);
        SmallVector<Value> values;
        for (int64_t l = 0; l < width; ++l) {
          Value value = acc[r * p.tileN + cc + l];
          // The epilogue's loads use the clamped row and column, which are
          // the real ones wherever the store happens.
          if (epilogue)
            value = epilogue(value, rows[r], cols[cc + l]);
          values.push_back(value);
        }
        Value inside;
        auto below = [&](Value index, int64_t bound) {
          return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                       index, indexConst(b, loc, bound));
        };
        if (p.m % p.tileM != 0)
          inside = below(row, p.m);
        // With N % 4 == 0 a vec4 lies wholly inside or outside the result.
        if (p.n % p.tileN != 0) {
          Value colOk = below(col, p.n);
          inside =
              inside ? arith::AndIOp::create(b, loc, inside, colOk) : colOk;
        }
        auto emitStore = [&](OpBuilder &sb, Location sloc) {
          if (!p.cVec) {
            memref::StoreOp::create(sb, sloc, values[0], c,
                                    ValueRange{row, col});
            return;
          }
          Value vec = vector::FromElementsOp::create(
              sb, sloc, VectorType::get({kVec}, values[0].getType()), values);
          Value at = arith::AddIOp::create(
              sb, sloc, affine(sb, sloc, row, p.n / kVec, 0),
              affine(sb, sloc, tileCol, p.tileN / kVec, cc / kVec));
          memref::StoreOp::create(sb, sloc, vec, c, ValueRange{at});
        };
        if (!inside) {
          emitStore(b, loc);
          continue;
        }
        scf::IfOp::create(b, loc, inside, [&](OpBuilder &nb, Location nloc) {
          emitStore(nb, nloc);
          scf::YieldOp::create(nb, nloc);
        });
      }
  }

  /// The tiles of the first column also sum A (stored [K, M]) over K for
  /// their rows, in k order as the interpreter's ag.sum does, and store
  /// the sums: the bias gradient beside the weight gradient Aᵀ·B.
  void storeSums() {
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        tileCol, indexConst(b, loc, 0));
    scf::IfOp::create(b, loc, first, [&](OpBuilder &nb, Location nloc) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
      SmallVector<Value> acc(p.tileM, f32Const(b, loc, 0.0));
      walkK(acc, [&](Value kb, int64_t count, SmallVector<Value> &next) {
        for (int64_t kk = 0; kk < count; ++kk)
          addColumn(affine(b, loc, kb, kVec, kk), next);
      });
      for (int64_t r = 0; r < p.tileM; ++r) {
        Value row = affine(b, loc, tileRow, p.tileM, r);
        ifBelow(b, loc, row, p.m, p.m % p.tileM == 0,
                [&](OpBuilder &sb, Location sloc) {
                  memref::StoreOp::create(sb, sloc, acc[r], sums,
                                          ValueRange{row});
                });
      }
      scf::YieldOp::create(b, nloc);
    });
  }

  /// A(k, m) for the tile's rows m, A stored [K, M]: A[k, m..m+3] is one
  /// vector when A is bound as vec4, else scalar loads.
  SmallVector<Value> columnOfA(Value k) {
    SmallVector<Value> column(p.tileM);
    if (!p.aVec) {
      for (int64_t r = 0; r < p.tileM; ++r)
        column[r] = scalarA(r, k);
      return column;
    }
    for (auto [r4, vec] : llvm::enumerate(rowVecs)) {
      Value at =
          arith::AddIOp::create(b, loc, affine(b, loc, k, p.m / kVec, 0), vec);
      Value v = memref::LoadOp::create(b, loc, a, ValueRange{at});
      for (int64_t l = 0; l < kVec; ++l)
        column[r4 * kVec + l] = lane(b, loc, v, l);
    }
    return column;
  }

  /// Adds A(k, m) for the tile's rows m to `acc`.
  void addColumn(Value k, SmallVector<Value> &acc) {
    for (auto [r, value] : llvm::enumerate(columnOfA(k)))
      acc[r] = arith::AddFOp::create(b, loc, acc[r], value);
  }

  const MatmulPlan &p;
  OpBuilder &b;
  Location loc;
  /// The kernel's arguments: A, B and the result C.
  Value a, bm, c;
  /// The column sums of A (a matmul region's second result), or null.
  Value sums;
  /// Applied to each element before its store, if set.
  Epilogue epilogue;
  /// The tile's row and column among the tiles.
  Value tileRow, tileCol;
  /// Clamped result rows and columns of the tile.
  SmallVector<Value> rows, cols;
  /// Clamped vector indices (along M, along N) of the tile's 4-groups.
  SmallVector<Value> rowVecs, colVecs;
  /// With a shared operand: the vector this lane loads, as an offset from
  /// its block's first (with K contiguous) or as the 4-group of row k =
  /// 4 kb + laneK.
  Value laneVector, laneK;
  /// The shared operand (A or B) and its extent along M or N.
  Value sharedOperand;
  int64_t sharedExtent = 0;
  /// The lanes of this lane's group (i32), whose vectors it takes.
  SmallVector<Value> groupLanes;
};

/// Marks the kernel being built as relying on groups of kShareLanes lanes
/// (the loader checks the device's subgroup size is a multiple of it).
static void markSharing(OpBuilder &b, const MatmulPlan &p) {
  if (p.shared == MatmulPlan::Shared::None)
    return;
  auto func = b.getInsertionBlock()->getParentOp();
  if (!isa<gpu::GPUFuncOp>(func))
    func = func->getParentOfType<gpu::GPUFuncOp>();
  func->setAttr(kSubgroupMultipleAttr, b.getI64IntegerAttr(kShareLanes));
}

} // namespace

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
