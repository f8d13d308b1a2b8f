//===- SplitUpdate.cpp - AdamW as the second graph of a training step -----===//
//
// The update writes the weights that the forward and backward passes read,
// so it must run after all of them: it becomes the step's last op, which the
// lowering turns into the second graph (one AdamW kernel after a barrier).
// Its hyperparameters, and the bias corrections that depend on the step
// counter the host keeps, are a runtime input: changing the learning rate
// rewrites bytes of the input buffer instead of recompiling or re-recording.
//
//===----------------------------------------------------------------------===//

#include "capture/Transforms/Passes.h"

#include "EntryAttrs.h"

namespace capture {
#define GEN_PASS_DEF_SPLITUPDATE
#include "capture/Transforms/Passes.h.inc"
} // namespace capture

using namespace mlir;
using namespace capture;
using namespace capture::ag;

namespace {
struct SplitUpdatePass
    : public capture::impl::SplitUpdateBase<SplitUpdatePass> {
  void runOnOperation() override;
};
} // namespace

static bool isSplit(TrainStepOp step) {
  return !step.getBody().front().getOps<ApplyAdamWOp>().empty();
}

static LogicalResult splitUpdate(TrainStepOp step) {
  MLIRContext *ctx = step.getContext();
  std::optional<unsigned> gradsResult, normResult;
  for (unsigned i = 0, e = step.getNumResults(); i < e; ++i) {
    if (step.getResultAttr(i, kPackedGradsAttr))
      gradsResult = i;
    if (step.getResultAttr(i, kGradNormAttr))
      normResult = i;
  }
  if (!gradsResult)
    return step.emitOpError() << "has no packed gradients: run "
                                 "ag-autodiff and ag-pack-params before "
                                 "ag-split-update";
  if (!normResult)
    return step.emitOpError() << "has no gradient norm: run "
                                 "ag-insert-clip-scale before ag-split-update";
  for (unsigned i = 0, e = step.getNumArguments(); i < e; ++i)
    if (step.getInputName(i) == kAdamWInputName)
      return step.emitOpError()
             << "has an input named \"" << kAdamWInputName
             << "\", which the AdamW update needs for its runtime "
                "hyperparameters; rename it";

  Block &body = step.getBody().front();
  auto ret = cast<ReturnOp>(body.getTerminator());
  auto pack = cast<FlatSymbolRefAttr>(
      step.getResultAttr(*gradsResult, kPackedGradsAttr));
  auto paramPack =
      SymbolTable::lookupNearestSymbolFrom<ParamPackOp>(step, pack);
  if (!paramPack)
    return step.emitOpError() << "packs its gradients as " << pack
                              << ", which is not an ag.param_pack";
  if (paramPack.getNumGroups() !=
      static_cast<int64_t>(step.getGroupAdamWs().size()))
    return step.emitOpError()
           << "has " << step.getGroupAdamWs().size() << " param groups, but "
           << pack << " holds weights of " << paramPack.getNumGroups();
  auto hyperType = RankedTensorType::get(
      {kAdamWHyperValues * paramPack.getNumGroups()}, Float32Type::get(ctx));
  BlockArgument hyper = body.addArgument(hyperType, step.getLoc());
  OpBuilder b(ret);
  ApplyAdamWOp::create(b, step.getLoc(), pack, ret.getOperand(*gradsResult),
                       ret.getOperand(*normResult), hyper);

  // The gradients stay on the device: no longer an output.
  SmallVector<Value> results(ret.getOperands());
  results.erase(results.begin() + *gradsResult);
  SmallVector<Attribute> resAttrs = resultAttrDicts(step);
  resAttrs.erase(resAttrs.begin() + *gradsResult);
  SmallVector<Type> resultTypes(step.getResultTypes());
  resultTypes.erase(resultTypes.begin() + *gradsResult);
  ReturnOp::create(b, ret.getLoc(), results);
  ret.erase();

  SmallVector<Type> inputs(step.getArgumentTypes());
  inputs.push_back(hyperType);
  SmallVector<Attribute> argAttrs = argAttrDicts(step);
  argAttrs.push_back(DictionaryAttr::get(
      ctx, {NamedAttribute(StringAttr::get(ctx, ForwardOp::getNameAttrName()),
                           StringAttr::get(ctx, kAdamWInputName)),
            NamedAttribute(StringAttr::get(ctx, kHyperAttr),
                           StringAttr::get(ctx, kAdamWInputName))}));
  step.setFunctionType(FunctionType::get(ctx, inputs, resultTypes));
  step.setAllResultAttrs(resAttrs);
  step.setAllArgAttrs(argAttrs);
  return success();
}

void SplitUpdatePass::runOnOperation() {
  for (TrainStepOp step : getOperation().getOps<TrainStepOp>())
    if (!isSplit(step) && failed(splitUpdate(step)))
      return signalPassFailure();
}
