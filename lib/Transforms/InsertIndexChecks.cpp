//===- InsertIndexChecks.cpp - Device statuses for index operands ---------===//
//
// Index kernels clamp an out-of-range index so that they stay inside their
// tensors; the interpreter reports it. This pass gives the device the same
// voice: one ag.check_indices per distinct (index value, bound), its status
// an entry output the runtime reads, and in a training step its poison
// added to the gradient norm so that the update is refused on the device.
//
//===----------------------------------------------------------------------===//

#include "capture/Transforms/Passes.h"

#include "EntryAttrs.h"

#include "llvm/Support/raw_ostream.h"

namespace capture {
#define GEN_PASS_DEF_INSERTINDEXCHECKS
#include "capture/Transforms/Passes.h.inc"
} // namespace capture

using namespace mlir;
using namespace capture;
using namespace capture::ag;

namespace {
struct InsertIndexChecksPass
    : public capture::impl::InsertIndexChecksBase<InsertIndexChecksPass> {
  void runOnOperation() override;
};

/// One index operand to check.
struct IndexUse {
  /// The i32 indices.
  Value indices;
  /// Their range is [0, bound).
  int64_t bound;
  /// The first op (in program order) indexing with them.
  Operation *op;
};
} // namespace

/// The index operand of `op` and its bound, when `op` indexes.
static std::optional<IndexUse> indexUseOf(Operation *op) {
  auto dim = [](Value v, unsigned d) {
    return cast<RankedTensorType>(v.getType()).getDimSize(d);
  };
  if (auto ce = dyn_cast<CrossEntropyOp>(op))
    return IndexUse{ce.getLabels(), dim(ce.getLogits(), 1), op};
  if (auto rows = dyn_cast<GetRowsOp>(op))
    return IndexUse{rows.getIndices(), dim(rows.getTable(), 0), op};
  if (auto hot = dyn_cast<OneHotOp>(op))
    return IndexUse{hot.getLabels(), dim(hot.getResult(), 1), op};
  if (auto scatter = dyn_cast<ScatterAddRowsOp>(op))
    return IndexUse{scatter.getIndices(), dim(scatter.getResult(), 0), op};
  return std::nullopt;
}

/// "file:line:col" of `loc`'s first file location, or "".
static std::string locationText(Location loc) {
  std::string text;
  loc->walk([&](Location inner) {
    if (auto file = dyn_cast<FileLineColLoc>(inner)) {
      llvm::raw_string_ostream(text)
          << file.getFilename().getValue() << ":" << file.getLine() << ":"
          << file.getColumn();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return text;
}

/// A builder right after the later of `a` and `b` in `body` (values of
/// its top level or its arguments), or before `fallback` when either is
/// nested deeper.
static OpBuilder afterBoth(Block &body, Value a, Value b, Operation *fallback) {
  OpBuilder builder(fallback);
  Operation *later = nullptr;
  for (Value v : {a, b}) {
    Operation *def = v.getDefiningOp();
    if (!def) {
      if (cast<BlockArgument>(v).getOwner() != &body)
        return builder;
      continue;
    }
    if (def->getBlock() != &body)
      return builder;
    if (!later || later->isBeforeInBlock(def))
      later = def;
  }
  if (later)
    builder.setInsertionPointAfter(later);
  else
    builder.setInsertionPointToStart(&body);
  return builder;
}

static LogicalResult insertIndexChecks(FunctionOpInterface entry) {
  MLIRContext *ctx = entry.getContext();
  Block &body = entry.getFunctionBody().front();
  auto ret = cast<ReturnOp>(body.getTerminator());
  auto nameOf = [&](unsigned i, bool result) -> StringRef {
    auto name = result ? entry.getResultAttrOfType<StringAttr>(
                             i, ForwardOp::getNameAttrName())
                       : entry.getArgAttrOfType<StringAttr>(
                             i, ForwardOp::getNameAttrName());
    return name ? name.getValue() : StringRef();
  };
  if (entry->hasAttr(kIndexChecksAttr))
    return success(); // already done
  for (unsigned i = 0, e = entry.getNumResults(); i < e; ++i) {
    if (nameOf(i, true).starts_with(kIndexCheckPrefix))
      return entry->emitOpError()
             << "has an output named \"" << nameOf(i, true)
             << "\"; names starting with \"" << kIndexCheckPrefix
             << "\" are for ag-insert-index-checks' statuses: rename it";
  }

  SmallVector<IndexUse> uses;
  body.walk([&](Operation *op) {
    std::optional<IndexUse> use = indexUseOf(op);
    // No indices, nothing to check (and no bytes to bind).
    if (!use ||
        cast<RankedTensorType>(use->indices.getType()).getNumElements() == 0)
      return;
    for (const IndexUse &seen : uses)
      if (seen.indices == use->indices && seen.bound == use->bound)
        return;
    uses.push_back(*use);
  });
  if (uses.empty())
    return success();

  OpBuilder b(ret);
  auto statusType = RankedTensorType::get({2}, b.getI32Type());
  auto scalarType = RankedTensorType::get({}, b.getF32Type());
  SmallVector<Value> results(ret.getOperands());
  SmallVector<Attribute> resAttrs = resultAttrDicts(entry);
  SmallVector<Type> resultTypes(entry.getResultTypes());
  SmallVector<Attribute> checks;
  Value poison;
  for (auto [k, use] : llvm::enumerate(uses)) {
    // Right after the indices exist: the check depends on nothing else.
    OpBuilder at(ctx);
    if (isa<BlockArgument>(use.indices))
      at.setInsertionPointToStart(&body);
    else
      at.setInsertionPointAfter(use.indices.getDefiningOp());
    StringRef opName = use.op->getName().getStringRef();
    auto check = CheckIndicesOp::create(
        at, use.op->getLoc(), statusType, scalarType, use.indices,
        at.getI64IntegerAttr(use.bound), at.getStringAttr(opName));
    StringRef input;
    if (auto arg = dyn_cast<BlockArgument>(use.indices))
      input = nameOf(arg.getArgNumber(), false);
    results.push_back(check.getStatus());
    resultTypes.push_back(statusType);
    std::string name = (kIndexCheckPrefix + Twine(k)).str();
    resAttrs.push_back(b.getDictionaryAttr(
        {b.getNamedAttr(ForwardOp::getNameAttrName(), b.getStringAttr(name))}));
    checks.push_back(IndexCheckAttr::get(ctx, name, opName, input, use.bound,
                                         locationText(use.op->getLoc())));
    // Each sum as early as its terms allow, so that the norm can take it
    // where the norm is computed.
    if (!poison) {
      poison = check.getPoison();
      continue;
    }
    OpBuilder sum = afterBoth(body, poison, check.getPoison(), ret);
    poison = AddOp::create(sum, check.getLoc(), scalarType, poison,
                           check.getPoison());
  }

  // A training step: a bad index makes the norm NaN, which refuses the
  // update on the device (ag-split-update hands the norm output to it).
  // Every use of the norm (the clip scale too) reads the poisoned one: it
  // is the same value when every index is in range (norm + 0), and a
  // refused step writes nothing whatever its scale. With one user left,
  // ag-form-dispatch-regions adds the poison in the norm's final pass.
  if (isa<TrainStepOp>(entry.getOperation())) {
    for (unsigned i = 0, e = entry.getNumResults(); i < e; ++i) {
      if (!entry.getResultAttr(i, kGradNormAttr))
        continue;
      Value norm = results[i];
      OpBuilder at = afterBoth(body, norm, poison, ret);
      auto poisoned = AddOp::create(at, ret.getLoc(), scalarType, norm, poison);
      norm.replaceAllUsesExcept(poisoned, poisoned);
      for (Value &result : results)
        if (result == norm)
          result = poisoned;
      break;
    }
  }
  ReturnOp::create(b, ret.getLoc(), results);
  ret.erase();
  entry.setType(FunctionType::get(ctx, entry.getArgumentTypes(), resultTypes));
  entry.setAllResultAttrs(resAttrs);
  entry->setAttr(kIndexChecksAttr, b.getArrayAttr(checks));
  return success();
}

void InsertIndexChecksPass::runOnOperation() {
  ModuleOp module = getOperation();
  for (Operation &op : module.getBody()->getOperations()) {
    if (!isa<ForwardOp, TrainStepOp>(op))
      continue;
    auto entry = cast<FunctionOpInterface>(op);
    if (isa<TrainStepOp>(op) &&
        llvm::none_of(llvm::seq(0u, entry.getNumResults()), [&](unsigned i) {
          return entry.getResultAttr(i, kGradNormAttr) != nullptr;
        })) {
      // Before ag-insert-clip-scale there is no norm to refuse with.
      bool indexes = false;
      entry.getFunctionBody().walk(
          [&](Operation *inner) { indexes |= indexUseOf(inner).has_value(); });
      if (indexes) {
        op.emitOpError() << "has index operands but no gradient norm: run "
                            "ag-insert-clip-scale before "
                            "ag-insert-index-checks";
        return signalPassFailure();
      }
    }
    if (failed(insertIndexChecks(entry)))
      return signalPassFailure();
  }
}
