//===- MatmulTile.cpp - One tile of the matmul template -------------------===//
//
// The loads, multiply-adds and stores of one work item's tile; the
// template, its tails and its shared loads are described in
// MatmulKernels.cpp.
//
//===----------------------------------------------------------------------===//

#include "MatmulTile.h"

#include "KernelEmitters.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace capture::kernels;
using namespace capture::kernels::matmul;

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

TileEmitter::TileEmitter(const MatmulPlan &p, OpBuilder &b, Location loc,
                         Value item, Value a, Value bm, Value c,
                         Epilogue epilogue, Value sums)
    : p(p), b(b), loc(loc), a(a), bm(bm), c(c), sums(sums), epilogue(epilogue) {
  if (p.groupRows > 0) {
    // Groups of kShareLanes consecutive work items, each groupRows x
    // groupCols tiles, walk the tiles row by row (column by column).
    Value lanes = indexConst(b, loc, kShareLanes);
    Value group = arith::DivUIOp::create(b, loc, item, lanes);
    Value t = arith::RemUIOp::create(b, loc, item, lanes);
    Value gRow, gCol;
    if (p.columnMajor) {
      Value groupsM = indexConst(b, loc, p.tilesM() / p.groupRows);
      gRow = arith::RemUIOp::create(b, loc, group, groupsM);
      gCol = arith::DivUIOp::create(b, loc, group, groupsM);
    } else {
      Value groupsN = indexConst(b, loc, p.tilesN() / p.groupCols);
      gRow = arith::DivUIOp::create(b, loc, group, groupsN);
      gCol = arith::RemUIOp::create(b, loc, group, groupsN);
    }
    Value cols = indexConst(b, loc, p.groupCols);
    firstTileRow = affine(b, loc, gRow, p.groupRows, 0);
    firstTileCol = affine(b, loc, gCol, p.groupCols, 0);
    tileRow = arith::AddIOp::create(b, loc, firstTileRow,
                                    arith::DivUIOp::create(b, loc, t, cols));
    tileCol = arith::AddIOp::create(b, loc, firstTileCol,
                                    arith::RemUIOp::create(b, loc, t, cols));
  } else if (p.columnMajor) {
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
  if (p.shares()) {
    Value lane = gpu::LaneIdOp::create(b, loc, /*upper_bound=*/nullptr);
    laneInGroup =
        arith::RemUIOp::create(b, loc, lane, indexConst(b, loc, kShareLanes));
    groupFirstLane = arith::IndexCastOp::create(
        b, loc, b.getI32Type(),
        arith::SubIOp::create(b, loc, lane, laneInGroup));
  }
  if (p.sharesA())
    planShared(/*isA=*/true);
  if (p.sharesB())
    planShared(/*isA=*/false);
}

void TileEmitter::emit() {
  SmallVector<Value> acc(p.tileM * p.tileN, f32Const(b, loc, 0.0));
  walkK(acc, [&](Value kb, int64_t count, SmallVector<Value> &next) {
    block(kb, count, next);
  });
  store(acc);
  if (sums)
    storeSums();
}

void TileEmitter::walkK(
    SmallVector<Value> &acc,
    function_ref<void(Value, int64_t, SmallVector<Value> &)> step) {
  int64_t blocks = p.k / kVec, rest = p.k % kVec;
  if (blocks > 0) {
    auto loop = scf::ForOp::create(
        b, loc, indexConst(b, loc, 0), indexConst(b, loc, blocks),
        indexConst(b, loc, 1), acc,
        [&](OpBuilder &nb, Location nloc, Value kb, ValueRange iter) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
          SmallVector<Value> next(iter);
          step(kb, kVec, next);
          scf::YieldOp::create(b, nloc, next);
        });
    acc.assign(loop.getResults().begin(), loop.getResults().end());
  }
  if (rest > 0)
    step(indexConst(b, loc, blocks), rest, acc);
}

void TileEmitter::planShared(bool isA) {
  SharedLoads &sh = isA ? sharedA : sharedB;
  // The group's tiles along this operand's dimension: each lane loads
  // `per` of their 8 * per vectors, lane l the vectors of tile l % per.
  int64_t per = isA ? p.groupRows : p.groupCols;
  int64_t spread = kShareLanes / per;
  Value t = laneInGroup;
  Value myTile = arith::RemUIOp::create(b, loc, t, indexConst(b, loc, per));
  Value myJ = arith::DivUIOp::create(b, loc, t, indexConst(b, loc, per));
  sh.operand = isA ? a : bm;
  sh.extent = isA ? p.m : p.n;
  Value first = isA ? firstTileRow : firstTileCol;
  Value tile = arith::AddIOp::create(b, loc, first, myTile);
  // Stored with K contiguous (A, or B with transpose_b): vector j of a
  // tile's block is its row (column) j's vector kb; stored [K, M] ([K, N]):
  // k = 4 kb + j / 2, the tile's 4-group j % 2.
  bool kContiguous = isA ? !p.ta : p.tb;
  for (int64_t q = 0; q < per; ++q) {
    Value j = affine(b, loc, myJ, 1, q * spread);
    if (kContiguous) {
      Value index =
          clamped(arith::AddIOp::create(
                      b, loc, affine(b, loc, tile, kShareLanes, 0), j),
                  sh.extent);
      sh.laneVector.push_back(affine(b, loc, index, p.k / kVec, 0));
      continue;
    }
    Value two = indexConst(b, loc, 2);
    sh.laneVector.push_back(
        clamped(arith::AddIOp::create(b, loc, affine(b, loc, tile, 2, 0),
                                      arith::RemUIOp::create(b, loc, j, two)),
                (sh.extent + kVec - 1) / kVec));
    sh.laneK.push_back(arith::DivUIOp::create(b, loc, j, two));
  }
  // Vector j of this lane's tile is load j / spread of lane
  // (j % spread) * per + its tile's position in the group.
  Value position;
  if (per > 1) {
    Value cols = indexConst(b, loc, p.groupCols);
    position = arith::IndexCastOp::create(
        b, loc, b.getI32Type(),
        isA ? arith::DivUIOp::create(b, loc, t, cols).getResult()
            : arith::RemUIOp::create(b, loc, t, cols).getResult());
  }
  for (int64_t j = 0; j < kShareLanes; ++j) {
    sh.fromLoad.push_back(j / spread);
    Value from = arith::AddIOp::create(
        b, loc, groupFirstLane,
        arith::ConstantOp::create(
            b, loc,
            b.getI32IntegerAttr(static_cast<int32_t>((j % spread) * per))));
    if (position)
      from = arith::AddIOp::create(b, loc, from, position);
    sh.fromLane.push_back(from);
  }
}

SmallVector<Value> TileEmitter::sharedBlock(bool isA, Value kb) {
  SharedLoads &sh = isA ? sharedA : sharedB;
  SmallVector<Value> mine;
  for (auto [q, vector] : llvm::enumerate(sh.laneVector)) {
    Value at;
    if (sh.laneK.empty()) {
      at = arith::AddIOp::create(b, loc, vector, kb);
    } else {
      Value k = arith::AddIOp::create(b, loc, affine(b, loc, kb, kVec, 0),
                                      sh.laneK[q]);
      at = arith::AddIOp::create(b, loc, affine(b, loc, k, sh.extent / kVec, 0),
                                 vector);
    }
    mine.push_back(memref::LoadOp::create(b, loc, sh.operand, ValueRange{at}));
  }
  Value width = arith::ConstantOp::create(
      b, loc, b.getI32IntegerAttr(static_cast<int32_t>(kShareLanes)));
  SmallVector<Value> vectors;
  for (auto [load, from] : llvm::zip(sh.fromLoad, sh.fromLane))
    vectors.push_back(gpu::ShuffleOp::create(b, loc, mine[load], from, width,
                                             gpu::ShuffleMode::IDX)
                          .getShuffleResult());
  return vectors;
}

Value TileEmitter::clamped(Value index, int64_t bound) {
  return arith::MinUIOp::create(b, loc, index, indexConst(b, loc, bound - 1));
}

Value TileEmitter::scalarA(int64_t r, Value k) {
  return memref::LoadOp::create(
      b, loc, a, p.ta ? ValueRange{k, rows[r]} : ValueRange{rows[r], k});
}

Value TileEmitter::scalarB(Value k, int64_t cc) {
  return memref::LoadOp::create(
      b, loc, bm, p.tb ? ValueRange{cols[cc], k} : ValueRange{k, cols[cc]});
}

SmallVector<SmallVector<Value>> TileEmitter::loadA(Value kb,
                                                   ArrayRef<Value> ks) {
  int64_t count = ks.size();
  SmallVector<SmallVector<Value>> av(p.tileM);
  // The K remainder (count < 4) loads directly: no vector per lane.
  bool full = count == kVec;
  if (full && p.sharesA()) {
    SmallVector<Value> vectors = sharedBlock(/*isA=*/true, kb);
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
  return av;
}

SmallVector<SmallVector<Value>> TileEmitter::loadB(Value kb,
                                                   ArrayRef<Value> ks) {
  int64_t count = ks.size();
  SmallVector<SmallVector<Value>> bv(count);
  bool full = count == kVec;
  if (full && p.sharesB()) {
    SmallVector<Value> vectors = sharedBlock(/*isA=*/false, kb);
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
  return bv;
}

void TileEmitter::block(Value kb, int64_t count, SmallVector<Value> &acc) {
  Value k0 = affine(b, loc, kb, kVec, 0);
  SmallVector<Value> ks;
  for (int64_t kk = 0; kk < count; ++kk)
    ks.push_back(affine(b, loc, k0, 1, kk));
  // av[r][kk] and bv[kk][cc].
  SmallVector<SmallVector<Value>> av = loadA(kb, ks);
  SmallVector<SmallVector<Value>> bv = loadB(kb, ks);

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

void TileEmitter::store(ArrayRef<Value> acc) {
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
        return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, index,
                                     indexConst(b, loc, bound));
      };
      if (p.m % p.tileM != 0)
        inside = below(row, p.m);
      // With N % 4 == 0 a vec4 lies wholly inside or outside the result.
      if (p.n % p.tileN != 0) {
        Value colOk = below(col, p.n);
        inside = inside ? arith::AndIOp::create(b, loc, inside, colOk) : colOk;
      }
      auto emitStore = [&](OpBuilder &sb, Location sloc) {
        if (!p.cVec) {
          memref::StoreOp::create(sb, sloc, values[0], c, ValueRange{row, col});
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

void TileEmitter::storeSums() {
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tileCol,
                                      indexConst(b, loc, 0));
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

SmallVector<Value> TileEmitter::columnOfA(Value k) {
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

void TileEmitter::addColumn(Value k, SmallVector<Value> &acc) {
  for (auto [r, value] : llvm::enumerate(columnOfA(k)))
    acc[r] = arith::AddFOp::create(b, loc, acc[r], value);
}
