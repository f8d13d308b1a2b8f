//===- WorkgroupKernels.cpp - The workgroup-region template ---------------===//
//
// One kernel of one workgroup for an ag.workgroup_region (a loss head and
// its gradient): the region's reductions run in body order, each a stage
// whose output elements the invocations share (element o on invocation
// o mod W), stored in its result binding or a scratch binding and followed
// by a workgroup barrier; then every yielded value that is not a stored
// reduction is computed per element and stored. Everything between
// stages is recomputed from the inputs and the stored reductions, in
// registers, never stored: a loss head of twenty small ops is one dispatch
// instead of twenty, with a handful of barriers.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitters.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "llvm/Support/MathExtras.h"

#include <map>

using namespace mlir;
using namespace capture;
using namespace capture::ag;
using namespace capture::kernels;

SmallVector<Type>
capture::kernels::workgroupRegionArgTypes(WorkgroupRegionOp op) {
  auto memrefOf = [](Type type) {
    auto tensor = cast<RankedTensorType>(type);
    return MemRefType::get(tensor.getShape(), tensor.getElementType());
  };
  SmallVector<Type> types;
  for (Type t : op.getInputs().getTypes())
    types.push_back(memrefOf(t));
  for (Type t : op.getResultTypes())
    types.push_back(memrefOf(t));
  for (Value v : op.getUnyieldedStages())
    types.push_back(memrefOf(v.getType()));
  return types;
}

/// The memref of the labels a member reads: a region input (the region's
/// verifier holds to it), so always stored.
static Value storedLabels(Operation *op, const DenseMap<Value, Value> &stored) {
  Value labels = stored.lookup(WorkgroupRegionOp::labelsOf(op));
  assert(labels && "labels are not a region input");
  return labels;
}

namespace {

/// Emits the element of a body value at given indices: a load where the
/// value is stored (an input, a stored reduction), else its op evaluated on
/// its operands' elements. Within one block each (value, indices) pair is
/// computed once.
class ElementEvaluator {
public:
  ElementEvaluator(const DenseMap<Value, Value> &stored) : stored(stored) {}

  Value element(OpBuilder &b, Location loc, Value value, ValueRange at) {
    Key key{value.getAsOpaquePointer(), {}};
    for (Value index : at)
      key.second.push_back(index.getAsOpaquePointer());
    Block *block = b.getInsertionBlock();
    auto &memo = memos[block];
    if (auto it = memo.find(key); it != memo.end())
      return it->second;
    Value result = compute(b, loc, value, at);
    memo[key] = result;
    return result;
  }

private:
  using Key = std::pair<void *, SmallVector<void *, 4>>;

  Value zero(OpBuilder &b, Location loc) {
    Block *block = b.getInsertionBlock();
    Value &z = zeros[block];
    if (!z)
      z = indexConst(b, loc, 0);
    return z;
  }

  /// Indices into an operand of `shape` broadcast to `at` (numpy rules).
  SmallVector<Value> broadcast(OpBuilder &b, Location loc, ValueRange at,
                               ArrayRef<int64_t> shape) {
    SmallVector<Value> result;
    size_t skip = at.size() - shape.size();
    for (auto [d, dim] : llvm::enumerate(shape))
      result.push_back(dim == 1 ? zero(b, loc) : at[skip + d]);
    return result;
  }

  Value compute(OpBuilder &b, Location loc, Value value, ValueRange at) {
    if (Value memref = stored.lookup(value))
      return memref::LoadOp::create(b, loc, memref, at);
    Operation *def = value.getDefiningOp();
    if (auto constant = dyn_cast<ConstantOp>(def)) {
      auto dense = cast<DenseElementsAttr>(constant.getValue());
      return arith::ConstantOp::create(
          b, loc,
          b.getF32FloatAttr(dense.getSplatValue<APFloat>().convertToFloat()));
    }
    if (auto reshape = dyn_cast<ReshapeOp>(def)) {
      // Same elements in row-major order: through the linear index.
      ArrayRef<int64_t> shape = tensorType(value).getShape();
      Value linear = zero(b, loc);
      for (auto [index, dim] : llvm::zip(at, shape))
        linear = arith::AddIOp::create(
            b, loc,
            arith::MulIOp::create(b, loc, linear, indexConst(b, loc, dim)),
            index);
      Value input = reshape.getInput();
      return element(b, loc, input,
                     delinearize(b, loc, linear, tensorType(input).getShape()));
    }
    if (isa<OneHotOp>(def))
      return oneHotElement(b, loc, storedLabels(def, stored), at);
    SmallVector<Value> operands;
    for (Value operand : def->getOperands())
      operands.push_back(
          element(b, loc, operand,
                  broadcast(b, loc, at, tensorType(operand).getShape())));
    return emitScalar(def, b, loc, operands);
  }

  /// Where stored values live: inputs and reductions.
  const DenseMap<Value, Value> &stored;
  /// Elements already computed, per block.
  DenseMap<Block *, std::map<Key, Value>> memos;
  /// An index 0 per block.
  DenseMap<Block *, Value> zeros;
};

} // namespace

/// Runs `body` for the elements [t, t + W, ...) of a tensor of `count`
/// elements: invocation `t` of a workgroup of `lanes`.
static void
forEachOwned(OpBuilder &b, Location loc, Value t, int64_t lanes, int64_t count,
             function_ref<void(OpBuilder &, Location, Value)> body) {
  scf::ForOp::create(b, loc, t, indexConst(b, loc, count),
                     indexConst(b, loc, lanes), ValueRange(),
                     [&](OpBuilder &nb, Location nloc, Value e, ValueRange) {
                       body(nb, nloc, e);
                       scf::YieldOp::create(nb, nloc);
                     });
}

/// The terms a full sum, mean or mse adds up: its input's elements, or the
/// squared differences of its operands.
static Value sumTerm(Operation *op, ElementEvaluator &eval, OpBuilder &b,
                     Location loc, ValueRange at) {
  if (auto mse = dyn_cast<MseOp>(op)) {
    Value d =
        arith::SubFOp::create(b, loc, eval.element(b, loc, mse.getLhs(), at),
                              eval.element(b, loc, mse.getRhs(), at));
    return arith::MulFOp::create(b, loc, d, d);
  }
  return eval.element(b, loc, op->getOperand(0), at);
}

/// A full sum, mean or mse as a stage of all `lanes` invocations: each sums
/// the terms t, t + lanes, ...; a subgroup reduction adds the subgroup's
/// sums; each subgroup's first invocation stores its total in `partials`
/// (workgroup memory, one slot per subgroup) and, after a barrier,
/// invocation 0 adds those up (in subgroup order) and stores the result.
/// Correct for any subgroup size the device has; on llvmpipe and on GPUs
/// whose subgroups are at least `lanes` wide it is one subgroup.
static void emitFullSum(Operation *op, const DenseMap<Value, Value> &stored,
                        int64_t lanes, Value partials, OpBuilder &b,
                        Location loc, Value t, Value out) {
  RankedTensorType type = tensorType(op->getOperand(0));
  int64_t n = type.getNumElements();
  // Padded to whole rounds of the lanes so that every invocation runs at
  // least once: the SPIR-V lowering of a loop result is undefined after
  // zero iterations (a sum of fewer elements than lanes read garbage where
  // the driver does not zero function variables).
  auto strided = scf::ForOp::create(
      b, loc, t, indexConst(b, loc, llvm::alignTo(n, lanes)),
      indexConst(b, loc, lanes), ValueRange{f32Const(b, loc, 0.0)},
      [&](OpBuilder &nb, Location nloc, Value e, ValueRange acc) {
        ElementEvaluator eval(stored);
        Value inside = arith::CmpIOp::create(
            nb, nloc, arith::CmpIPredicate::slt, e, indexConst(nb, nloc, n));
        Value at =
            arith::MinSIOp::create(nb, nloc, e, indexConst(nb, nloc, n - 1));
        Value term = sumTerm(op, eval, nb, nloc,
                             delinearize(nb, nloc, at, type.getShape()));
        term = arith::SelectOp::create(nb, nloc, inside, term,
                                       f32Const(nb, nloc, 0.0));
        scf::YieldOp::create(
            nb, nloc,
            ValueRange{arith::AddFOp::create(nb, nloc, acc[0], term)});
      });
  Value own = gpu::SubgroupReduceOp::create(b, loc, strided.getResult(0),
                                            gpu::AllReduceOperation::ADD,
                                            /*uniform=*/false);
  Value lane = gpu::LaneIdOp::create(b, loc, /*upper_bound=*/nullptr);
  Value subgroup = gpu::SubgroupIdOp::create(b, loc, /*upper_bound=*/nullptr);
  Value zero = indexConst(b, loc, 0);
  auto ifZero = [&](Value index, function_ref<void(OpBuilder &, Location)> fn) {
    Value isZero =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, index, zero);
    scf::IfOp::create(b, loc, isZero, [&](OpBuilder &nb, Location nloc) {
      fn(nb, nloc);
      scf::YieldOp::create(nb, nloc);
    });
  };
  ifZero(lane, [&](OpBuilder &nb, Location nloc) {
    memref::StoreOp::create(nb, nloc, own, partials, ValueRange{subgroup});
  });
  gpu::BarrierOp::create(b, loc);
  ifZero(t, [&](OpBuilder &nb, Location nloc) {
    Value subgroups = gpu::NumSubgroupsOp::create(nb, nloc, nullptr);
    auto total = scf::ForOp::create(
        nb, nloc, zero, subgroups, indexConst(nb, nloc, 1),
        ValueRange{f32Const(nb, nloc, 0.0)},
        [&](OpBuilder &fb, Location floc, Value s, ValueRange acc) {
          Value part = memref::LoadOp::create(fb, floc, partials, s);
          scf::YieldOp::create(
              fb, floc,
              ValueRange{arith::AddFOp::create(fb, floc, acc[0], part)});
        });
    Value value = total.getResult(0);
    if (isa<MeanOp, MseOp>(op))
      value = arith::DivFOp::create(nb, nloc, value,
                                    f32Const(nb, nloc, static_cast<double>(n)));
    // One element, of whatever rank (an axis sum of a [1, n] tensor too).
    SmallVector<Value> at(tensorType(op->getResult(0)).getRank(), zero);
    memref::StoreOp::create(nb, nloc, value, out, at);
  });
}

void capture::kernels::emitWorkgroupRegion(WorkgroupRegionOp op, int64_t lanes,
                                           OpBuilder &b, Location loc, Value t,
                                           ValueRange args) {
  Block &body = op.getBlock();
  size_t inputs = op.getInputs().size();
  ValueRange yielded = op.getYielded();
  SmallVector<Value> scratch = op.getUnyieldedStages();

  DenseMap<Value, Value> stored;
  for (auto [arg, memref] : llvm::zip(body.getArguments(), args))
    stored[arg] = memref;
  // Where each stage's result goes: its first result binding, or scratch.
  auto homeOf = [&](Value value) -> Value {
    for (auto [i, y] : llvm::enumerate(yielded))
      if (y == value)
        return args[inputs + i];
    auto it = llvm::find(scratch, value);
    return args[inputs + yielded.size() + (it - scratch.begin())];
  };

  // The subgroups' partials of a full sum (one per subgroup at most),
  // made on first use.
  Value partials;
  for (Operation &inner : body.without_terminator()) {
    if (!WorkgroupRegionOp::isStage(&inner))
      continue;
    Value result = inner.getResult(0);
    Value out = homeOf(result);
    int64_t count = tensorType(result).getNumElements();
    if (count == 1 && isa<SumOp, MeanOp, MseOp>(inner)) {
      if (!partials)
        partials = memref::AllocOp::create(
            b, loc,
            MemRefType::get(
                {lanes}, b.getF32Type(), AffineMap(),
                spirv::StorageClassAttr::get(b.getContext(),
                                             spirv::StorageClass::Workgroup)));
      emitFullSum(&inner, stored, lanes, partials, b, loc, t, out);
      stored[result] = out;
      gpu::BarrierOp::create(b, loc);
      continue;
    }
    // A softmax stage owns rows: each needs its max and sum first.
    if (isa<SoftmaxOp, LogSoftmaxOp>(inner))
      count = softmaxRows(&inner);
    forEachOwned(
        b, loc, t, lanes, count, [&](OpBuilder &nb, Location nloc, Value o) {
          // A fresh evaluator per stage: what earlier stages computed inside
          // their loops is out of scope here.
          ElementEvaluator eval(stored);
          auto elementOf = [&](Value value) {
            return [&eval, value](OpBuilder &eb, Location eloc,
                                  ValueRange at) -> Value {
              return eval.element(eb, eloc, value, at);
            };
          };
          if (isa<SoftmaxOp, LogSoftmaxOp>(inner)) {
            emitSoftmaxRowOf(&inner, elementOf(inner.getOperand(0)), nb, nloc,
                             o, out);
            return;
          }
          if (auto loss = dyn_cast<CrossEntropyOp>(inner)) {
            // As the cross-entropy kernel: one serial pass over the rows.
            emitCrossEntropyOf(loss, elementOf(loss.getLogits()),
                               storedLabels(loss, stored), nb, nloc, out);
            return;
          }
          if (auto mse = dyn_cast<MseOp>(inner)) {
            // As the mse kernel: one serial sum of squared differences.
            RankedTensorType type = tensorType(mse.getLhs());
            int64_t n = type.getNumElements();
            Value total = foldRange(
                nb, nloc, n, f32Const(nb, nloc, 0.0),
                [&](OpBuilder &fb, Location floc, Value j, Value acc) -> Value {
                  SmallVector<Value> idx =
                      delinearize(fb, floc, j, type.getShape());
                  Value d = arith::SubFOp::create(
                      fb, floc, eval.element(fb, floc, mse.getLhs(), idx),
                      eval.element(fb, floc, mse.getRhs(), idx));
                  return arith::AddFOp::create(
                      fb, floc, acc, arith::MulFOp::create(fb, floc, d, d));
                });
            Value mean = arith::DivFOp::create(
                nb, nloc, total, f32Const(nb, nloc, static_cast<double>(n)));
            memref::StoreOp::create(nb, nloc, mean, out, ValueRange());
            return;
          }
          emitReductionOf(
              &inner,
              [&](OpBuilder &eb, Location eloc, ValueRange at) {
                return eval.element(eb, eloc, inner.getOperand(0), at);
              },
              nb, nloc, o, out);
        });
    stored[result] = out;
    // The stage's stores are visible to every invocation after this.
    gpu::BarrierOp::create(b, loc);
  }

  // The other results, element by element.
  for (auto [i, value] : llvm::enumerate(yielded)) {
    Value out = args[inputs + i];
    if (stored.lookup(value) == out)
      continue;
    RankedTensorType type = tensorType(value);
    forEachOwned(b, loc, t, lanes, type.getNumElements(),
                 [&](OpBuilder &nb, Location nloc, Value e) {
                   ElementEvaluator eval(stored);
                   SmallVector<Value> at =
                       delinearize(nb, nloc, e, type.getShape());
                   memref::StoreOp::create(
                       nb, nloc, eval.element(nb, nloc, value, at), out, at);
                 });
  }
}
