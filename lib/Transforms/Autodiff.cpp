//===- Autodiff.cpp - Reverse-mode differentiation of training steps -----===//

#include "capture/Transforms/Passes.h"

#include "EntryAttrs.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"

namespace capture {
#define GEN_PASS_DEF_AUTODIFF
#include "capture/Transforms/Passes.h.inc"
} // namespace capture

using namespace mlir;
using namespace capture;
using namespace capture::ag;

namespace {
struct AutodiffPass : public capture::impl::AutodiffBase<AutodiffPass> {
  void runOnOperation() override;
};
} // namespace

/// The trainable weight `op` reads, if it is such a read.
static WeightOp trainableRead(Operation *op) {
  auto read = dyn_cast<ReadWeightOp>(op);
  if (!read)
    return {};
  auto weight = SymbolTable::lookupNearestSymbolFrom<WeightOp>(
      read, read.getWeightAttr());
  return weight && weight.getTrainable() ? weight : WeightOp();
}

/// Whether the step went through ag-autodiff already (its gradients may be
/// packed, or consumed by the AdamW update since).
static bool isDifferentiated(TrainStepOp step) {
  for (unsigned i = 0, e = step.getNumResults(); i < e; ++i)
    if (step.getResultAttr(i, kGradOfAttr) ||
        step.getResultAttr(i, kPackedGradsAttr) ||
        step.getResultAttr(i, kGradNormAttr))
      return true;
  return !step.getBody().front().getOps<ApplyAdamWOp>().empty();
}

/// An ag.stop_gradient of a weight-dependent (`varied`) value that `loss`
/// depends on, the first found, or null: what a step whose loss reaches no
/// trainable weight is told.
static StopGradientOp stopOnLossPath(Value loss,
                                     const DenseSet<Value> &varied) {
  DenseSet<Operation *> seen;
  SmallVector<Value> worklist = {loss};
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (!def || !seen.insert(def).second)
      continue;
    if (auto stop = dyn_cast<StopGradientOp>(def);
        stop && varied.contains(stop.getInput()))
      return stop;
    llvm::append_range(worklist, def->getOperands());
  }
  return {};
}

/// Replaces every ag.stop_gradient of the module's entries by its operand:
/// once the gradients are built it is the identity, and no kernel computes
/// it.
static void eraseStopGradients(ModuleOp module) {
  for (Operation &entry : module.getBody()->getOperations()) {
    if (!isa<ForwardOp, TrainStepOp>(entry))
      continue;
    entry.walk([](StopGradientOp stop) {
      stop.replaceAllUsesWith(stop.getInput());
      stop.erase();
    });
  }
}

static LogicalResult differentiate(TrainStepOp step) {
  Block &body = step.getBody().front();
  auto ret = cast<ReturnOp>(body.getTerminator());
  Value loss = ret.getOperand(0);

  // Values that depend on a trainable weight (ag.stop_gradient's result
  // counts as a constant: no gradient flows through it)...
  DenseSet<Value> varied;
  SmallVector<Operation *> forward;
  for (Operation &op : body.without_terminator()) {
    forward.push_back(&op);
    bool dependent = static_cast<bool>(trainableRead(&op)) ||
                     llvm::any_of(op.getOperands(),
                                  [&](Value v) { return varied.contains(v); });
    if (dependent && !isa<StopGradientOp>(op))
      varied.insert(op.result_begin(), op.result_end());
  }
  // ...and that the loss depends on: the ops the backward pass visits.
  DenseSet<Operation *> active;
  SmallVector<Value> worklist = {loss};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (!def || !varied.contains(v) || !active.insert(def).second)
      continue;
    llvm::append_range(worklist, def->getOperands());
  }

  // The trained weights in declaration order, not in order of first read:
  // the gradients' order is the parameter pack's layout, and modules that
  // share one Weights buffer (a forward entry traced apart from its
  // training step) lay out their weights in declaration order.
  DenseSet<Operation *> readWeights;
  for (Operation *op : forward)
    if (WeightOp weight = trainableRead(op); weight && active.contains(op))
      readWeights.insert(weight);
  SmallVector<WeightOp> reached;
  for (WeightOp w : step->getParentOfType<ModuleOp>().getOps<WeightOp>())
    if (readWeights.contains(w))
      reached.push_back(w);
  if (reached.empty()) {
    SmallVector<std::string> trainable;
    for (WeightOp w : step->getParentOfType<ModuleOp>().getOps<WeightOp>())
      if (w.getTrainable())
        trainable.push_back("@" + w.getSymName().str());
    InFlightDiagnostic diag =
        step.emitOpError()
        << "has nothing to train: the loss depends on no trainable weight"
        << (trainable.empty()
                ? std::string(" (the module has no trainable weight; "
                              "mark weights `trainable`)")
                : " (trainable weights: " + llvm::join(trainable, ", ") +
                      "; read them with ag.read_weight on the loss's "
                      "path)");
    if (StopGradientOp stop = stopOnLossPath(loss, varied))
      diag.attachNote(stop.getLoc())
          << "the loss reaches a trainable weight only through this "
             "ag.stop_gradient, which passes no gradient";
    return diag;
  }

  // The reverse sweep, appended before the terminator.
  OpBuilder b(ret);
  DenseMap<Value, Value> grads;
  {
    auto type = RankedTensorType::get({}, b.getF32Type());
    grads[loss] = ConstantOp::create(
        b, loss.getLoc(), type, DenseElementsAttr::get(type, APFloat(1.0f)));
  }
  auto accumulate = [&](Value value, Value grad) {
    Value &slot = grads[value];
    slot = slot ? AddOp::create(b, grad.getLoc(), value.getType(), slot, grad)
                      .getResult()
                : grad;
  };
  for (Operation *op : llvm::reverse(forward)) {
    if (!active.contains(op) || isa<ReadWeightOp>(op))
      continue;
    SmallVector<Value> resultGrads;
    for (Value result : op->getResults())
      resultGrads.push_back(grads.lookup(result));
    if (llvm::any_of(resultGrads, [](Value g) { return !g; }))
      continue;
    auto diff = dyn_cast<DifferentiableOpInterface>(op);
    if (!diff) {
      InFlightDiagnostic diag =
          op->emitOpError()
          << "has no vector-Jacobian product, but the loss of @"
          << step.getSymName() << " depends on a trainable weight through it";
      diag.attachNote(step.getLoc()) << "in this training step";
      return diag;
    }
    SmallVector<Value> operandGrads;
    OpBuilder::InsertionGuard guard(b);
    if (failed(diff.buildVJP(b, resultGrads, operandGrads)))
      return failure();
    for (auto [operand, grad] : llvm::zip(op->getOperands(), operandGrads))
      if (grad && varied.contains(operand))
        accumulate(operand, grad);
  }

  // One gradient per reached weight: the sum over its reads.
  MLIRContext *ctx = step.getContext();
  SmallVector<Value> results(ret.getOperands());
  SmallVector<Type> types(step.getResultTypes());
  SmallVector<Attribute> resAttrs = resultAttrDicts(step);
  for (WeightOp weight : reached) {
    Value total;
    for (Operation *op : forward) {
      auto read = dyn_cast<ReadWeightOp>(op);
      if (!read || read.getWeight() != weight.getSymName())
        continue;
      Value g = grads.lookup(read.getResult());
      if (!g)
        continue;
      total = total ? AddOp::create(b, read.getLoc(), g.getType(), total, g)
                          .getResult()
                    : g;
    }
    results.push_back(total);
    types.push_back(total.getType());
    resAttrs.push_back(DictionaryAttr::get(
        ctx,
        {NamedAttribute(StringAttr::get(ctx, ForwardOp::getNameAttrName()),
                        StringAttr::get(ctx, "grad/" + weight.getSymName())),
         NamedAttribute(StringAttr::get(ctx, kGradOfAttr),
                        FlatSymbolRefAttr::get(weight))}));
  }
  ReturnOp::create(b, ret.getLoc(), results);
  ret.erase();
  step.setFunctionType(FunctionType::get(ctx, step.getArgumentTypes(), types));
  step.setAllResultAttrs(resAttrs);
  return success();
}

void AutodiffPass::runOnOperation() {
  for (TrainStepOp step : getOperation().getOps<TrainStepOp>())
    if (!isDifferentiated(step) && failed(differentiate(step)))
      return signalPassFailure();
  // Every step's gradients are built: ag.stop_gradient has done its work.
  eraseStopGradients(getOperation());
}
