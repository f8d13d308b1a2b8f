//===- InsertClipScale.cpp - Global-norm gradient clipping ----------------===//
//
// clip_grad_norm_(params, max_norm): total = sqrt(sum of squares of every
// gradient); coef = min(1, max_norm / (total + 1e-6)); every gradient *=
// coef. Written without branches so that the whole step stays one graph.
//
//===----------------------------------------------------------------------===//

#include "capture/Transforms/Passes.h"

#include "EntryAttrs.h"

namespace capture {
#define GEN_PASS_DEF_INSERTCLIPSCALE
#include "capture/Transforms/Passes.h.inc"
} // namespace capture

using namespace mlir;
using namespace capture;
using namespace capture::ag;

namespace {
struct InsertClipScalePass
    : public capture::impl::InsertClipScaleBase<InsertClipScalePass> {
  void runOnOperation() override;
};
} // namespace

static LogicalResult insertClipScale(TrainStepOp step) {
  MLIRContext *ctx = step.getContext();
  SmallVector<unsigned> gradResults;
  for (unsigned i = 0, e = step.getNumResults(); i < e; ++i)
    if (step.getResultAttr(i, kGradNormAttr))
      return success(); // already done
  // The gradients: per weight after ag-autodiff, or one flat array after
  // ag-pack-params (then the norm is a single reduction).
  for (unsigned i = 0, e = step.getNumResults(); i < e; ++i) {
    if (step.getOutputName(i) == kGradNormName)
      return step.emitOpError()
             << "has an output named \"" << kGradNormName
             << "\", which ag-insert-clip-scale needs for the gradient norm; "
                "rename it";
    if (step.getResultAttr(i, kGradOfAttr) ||
        step.getResultAttr(i, kPackedGradsAttr))
      gradResults.push_back(i);
  }
  if (gradResults.empty())
    return step.emitOpError()
           << "has no gradients: run ag-autodiff before ag-insert-clip-scale";
  bool clip = step.getMaxGradNorm().has_value();
  if (clip)
    for (unsigned i = 0, e = step.getNumArguments(); i < e; ++i)
      if (step.getInputName(i) == kMaxGradNormName)
        return step.emitOpError()
               << "has an input named \"" << kMaxGradNormName
               << "\", which clipping needs for its runtime limit; rename it";

  Block &body = step.getBody().front();
  auto ret = cast<ReturnOp>(body.getTerminator());
  OpBuilder b(ret);
  Location loc = step.getLoc();
  auto scalarType = RankedTensorType::get({}, b.getF32Type());
  auto scalar = [&](float v) -> Value {
    return ConstantOp::create(b, loc, scalarType,
                              DenseElementsAttr::get(scalarType, APFloat(v)));
  };

  Value total;
  for (unsigned i : gradResults) {
    Value g = ret.getOperand(i);
    Value squares = MulOp::create(b, loc, g.getType(), g, g);
    Value sum = SumOp::create(b, loc, scalarType, squares, IntegerAttr(),
                              /*keepdim=*/false);
    total =
        total ? AddOp::create(b, loc, scalarType, total, sum).getResult() : sum;
  }
  Value norm = SqrtOp::create(b, loc, scalarType, total);

  SmallVector<Value> results(ret.getOperands());
  if (clip) {
    BlockArgument maxNorm = body.addArgument(scalarType, loc);
    Value denom = AddOp::create(b, loc, scalarType, norm, scalar(1e-6f));
    Value coef = DivOp::create(b, loc, scalarType, maxNorm, denom);
    Value scale = MinimumOp::create(b, loc, scalarType, coef, scalar(1.0f));
    for (unsigned i : gradResults)
      results[i] =
          MulOp::create(b, loc, results[i].getType(), results[i], scale);
  }
  results.push_back(norm);
  ReturnOp::create(b, ret.getLoc(), results);
  ret.erase();

  SmallVector<Attribute> resAttrs = resultAttrDicts(step);
  auto nameAttr = [&](StringRef name) {
    return NamedAttribute(StringAttr::get(ctx, ForwardOp::getNameAttrName()),
                          StringAttr::get(ctx, name));
  };
  resAttrs.push_back(DictionaryAttr::get(
      ctx, {nameAttr(kGradNormName),
            NamedAttribute(StringAttr::get(ctx, kGradNormAttr),
                           UnitAttr::get(ctx))}));
  SmallVector<Type> resultTypes(step.getResultTypes());
  resultTypes.push_back(scalarType);
  SmallVector<Type> inputs(step.getArgumentTypes());
  SmallVector<Attribute> argAttrs = argAttrDicts(step);
  if (clip) {
    inputs.push_back(scalarType);
    argAttrs.push_back(DictionaryAttr::get(
        ctx, {nameAttr(kMaxGradNormName),
              NamedAttribute(StringAttr::get(ctx, kHyperAttr),
                             StringAttr::get(ctx, kMaxGradNormName))}));
  }
  step.setFunctionType(FunctionType::get(ctx, inputs, resultTypes));
  step.setAllResultAttrs(resAttrs);
  step.setAllArgAttrs(argAttrs);
  return success();
}

void InsertClipScalePass::runOnOperation() {
  for (TrainStepOp step : getOperation().getOps<TrainStepOp>())
    if (failed(insertClipScale(step)))
      return signalPassFailure();
}
