//===- MatmulTile.h - One work item of the matmul template ------*- C++ -*-===//
//
// Private to lib/Conversion/AgToGPU: the plan of one matmul (its shapes,
// read layout, tile and the operand its lanes share) and the emitter of
// one work item's tile, used by MatmulKernels.cpp. MatmulTile.cpp holds
// the tile's loads, multiply-adds and stores.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_LIB_CONVERSION_AGTOGPU_MATMULTILE_H
#define CAPTURE_LIB_CONVERSION_AGTOGPU_MATMULTILE_H

#include "mlir/IR/Builders.h"

namespace capture::kernels::matmul {

/// Values fetched by one vector load; tile sides are multiples of it.
constexpr int64_t kVec = 4;

/// Lanes that share one operand's loads: 8, the tile side, so that a K
/// block of the shared operand is one vector per lane.
constexpr int64_t kShareLanes = 8;

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
  /// The tiles of a group of kShareLanes consecutive work items, rows by
  /// columns (their product is kShareLanes), whose lanes share their loads;
  /// 0 x 0: no groups, every lane loads its own. The lanes of a group that
  /// own tiles of the same rows need the same vectors of A per K block,
  /// those of the same columns the same vectors of B: with groupRows < 8 the
  /// group loads each of its 8 * groupRows vectors of A once (groupRows per
  /// lane) and the lanes take them with shuffles, and likewise B with
  /// groupCols < 8.
  int64_t groupRows = 0, groupCols = 0;

  int64_t tilesM() const { return (m + tileM - 1) / tileM; }
  int64_t tilesN() const { return (n + tileN - 1) / tileN; }
  bool sharesA() const { return groupRows > 0 && groupRows < kShareLanes; }
  bool sharesB() const { return groupCols > 0 && groupCols < kShareLanes; }
  bool shares() const { return sharesA() || sharesB(); }
};

/// Emits one work item: the loads, the multiply-adds and the stores of one
/// tile.
class TileEmitter {
public:
  /// The epilogue of one element: its accumulator, row and column to the
  /// value stored.
  using Epilogue = llvm::function_ref<mlir::Value(
      mlir::Value acc, mlir::Value row, mlir::Value col)>;

  /// The tile of work item `item` of `p`, reading A from `a` and B from
  /// `bm` and storing into `c` (and the column sums of A into `sums`, when
  /// set) through `epilogue`, when set.
  TileEmitter(const MatmulPlan &p, mlir::OpBuilder &b, mlir::Location loc,
              mlir::Value item, mlir::Value a, mlir::Value bm, mlir::Value c,
              Epilogue epilogue = nullptr, mlir::Value sums = nullptr);

  /// Emits the tile's K walk, its stores and its sums.
  void emit();

private:
  using Values = llvm::SmallVector<mlir::Value>;

  /// Walks K in blocks of 4 (llvmpipe caps an invocation's loop
  /// iterations), then its rest: `step(kb, count, acc)` accumulates the
  /// `count` k from 4 kb into `acc`, carried through the loop.
  void walkK(Values &acc,
             llvm::function_ref<void(mlir::Value, int64_t, Values &)> step);
  /// Plans the loads of a shared operand (A when `isA`, else B): the
  /// vectors this lane loads per K block for its group and the lanes it
  /// takes each of its tile's 8 vectors from.
  void planShared(bool isA);
  /// This lane's tile's 8 vectors of the shared operand (A when `isA`) in
  /// block `kb`, in the order of a tile's block.
  Values sharedBlock(bool isA, mlir::Value kb);
  /// `index` clamped into [0, bound).
  mlir::Value clamped(mlir::Value index, int64_t bound);
  /// Element A(m = rows[r], k) with a scalar load.
  mlir::Value scalarA(int64_t r, mlir::Value k);
  /// Element B(k, n = cols[cc]) with a scalar load.
  mlir::Value scalarB(mlir::Value k, int64_t cc);
  /// A(rows[r], ks[kk]) of block `kb` as av[r][kk].
  llvm::SmallVector<Values> loadA(mlir::Value kb,
                                  llvm::ArrayRef<mlir::Value> ks);
  /// B(ks[kk], cols[cc]) of block `kb` as bv[kk][cc].
  llvm::SmallVector<Values> loadB(mlir::Value kb,
                                  llvm::ArrayRef<mlir::Value> ks);
  /// Accumulates `count` consecutive k (from kVec * kb) into `acc`.
  void block(mlir::Value kb, int64_t count, Values &acc);
  /// Stores the tile's elements that lie inside the result: one element,
  /// or with a vec4 result four columns, per store.
  void store(llvm::ArrayRef<mlir::Value> acc);
  /// The tiles of the first column also sum A (stored [K, M]) over K for
  /// their rows, in k order as the interpreter's ag.sum does, and store
  /// the sums: the bias gradient beside the weight gradient Aᵀ·B.
  void storeSums();
  /// A(k, m) for the tile's rows m, A stored [K, M]: A[k, m..m+3] is one
  /// vector when A is bound as vec4, else scalar loads.
  Values columnOfA(mlir::Value k);
  /// Adds A(k, m) for the tile's rows m to `acc`.
  void addColumn(mlir::Value k, Values &acc);

  const MatmulPlan &p;
  mlir::OpBuilder &b;
  mlir::Location loc;
  /// The kernel's arguments: A, B and the result C.
  mlir::Value a, bm, c;
  /// The column sums of A (a matmul region's second result), or null.
  mlir::Value sums;
  /// Applied to each element before its store, if set.
  Epilogue epilogue;
  /// The tile's row and column among the tiles.
  mlir::Value tileRow, tileCol;
  /// Clamped result rows and columns of the tile.
  Values rows, cols;
  /// Clamped vector indices (along M, along N) of the tile's 4-groups.
  Values rowVecs, colVecs;
  /// With groups: the group's first tile row and column; this lane's place
  /// in its group (lane id % kShareLanes) and the group's first lane (i32,
  /// for the shuffles), shared by both operands' loads.
  mlir::Value firstTileRow, firstTileCol, laneInGroup, groupFirstLane;

  /// The loads of one shared operand.
  struct SharedLoads {
    /// A or B, and its extent along M or N.
    mlir::Value operand;
    int64_t extent = 0;
    /// Per vector this lane loads: its index as an offset from its
    /// block's first (with K contiguous), or as the 4-group of row
    /// k = 4 kb + laneK.
    Values laneVector, laneK;
    /// Per vector j of the tile's block: which of the loaded vectors holds
    /// it, and the lane (i32) it is taken from.
    llvm::SmallVector<int64_t> fromLoad;
    Values fromLane;
  };
  SharedLoads sharedA, sharedB;
};

} // namespace capture::kernels::matmul

#endif // CAPTURE_LIB_CONVERSION_AGTOGPU_MATMULTILE_H
