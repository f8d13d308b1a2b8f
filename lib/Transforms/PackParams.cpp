//===- PackParams.cpp - Flat parameter, gradient and moment arrays --------===//
//
// AdamW and the global gradient norm touch every parameter: laid out as one
// flat array (with the gradients and both moments in the same layout) they
// become one kernel and one reduction instead of one per weight. Each weight
// starts at an aligned element offset so the forward kernels still bind it
// directly; the padding between weights is zero in every array and stays so.
//
//===----------------------------------------------------------------------===//

#include "capture/Transforms/Passes.h"

#include "EntryAttrs.h"

#include "llvm/Support/MathExtras.h"

namespace capture {
#define GEN_PASS_DEF_PACKPARAMS
#include "capture/Transforms/Passes.h.inc"
} // namespace capture

using namespace mlir;
using namespace capture;
using namespace capture::ag;

namespace {
struct PackParamsPass : public capture::impl::PackParamsBase<PackParamsPass> {
  using PackParamsBase::PackParamsBase;
  void runOnOperation() override;
};
} // namespace

static LogicalResult packParams(TrainStepOp step, int64_t alignElems,
                                llvm::StringMap<StringRef> &trainedBy) {
  MLIRContext *ctx = step.getContext();
  SmallVector<unsigned> gradResults;
  for (unsigned i = 0, e = step.getNumResults(); i < e; ++i) {
    if (step.getResultAttr(i, kPackedGradsAttr))
      return success(); // already packed
    if (step.getResultAttr(i, kGradOfAttr))
      gradResults.push_back(i);
  }
  if (gradResults.empty())
    return step.emitOpError()
           << "has no gradients: run ag-autodiff before ag-pack-params";
  for (unsigned i = 0, e = step.getNumResults(); i < e; ++i)
    if (step.getOutputName(i) == kPackedGradsName)
      return step.emitOpError()
             << "has an output named \"" << kPackedGradsName
             << "\", which ag-pack-params needs for the packed gradients; "
                "rename it";

  // Each weight's param group (0: listed in none).
  llvm::DenseMap<Attribute, int64_t> groupOf;
  for (auto [g, group] : llvm::enumerate(step.getGroups()))
    for (Attribute w : group.getWeights())
      groupOf[w] = static_cast<int64_t>(g) + 1;

  // The layout: weights in gradient order, each at an aligned offset; a
  // weight that starts another group than the one before starts a vec4 of
  // the update kernel.
  SmallVector<Attribute> weights;
  SmallVector<int64_t> offsets, groups;
  SmallVector<Value> grads;
  int64_t size = 0;
  auto ret = cast<ReturnOp>(step.getBody().front().getTerminator());
  for (unsigned i : gradResults) {
    auto weight = cast<FlatSymbolRefAttr>(step.getResultAttr(i, kGradOfAttr));
    int64_t group = groupOf.lookup(weight);
    int64_t align = !groups.empty() && groups.back() != group
                        ? std::max<int64_t>(alignElems, 4)
                        : alignElems;
    groups.push_back(group);
    auto [it, inserted] =
        trainedBy.try_emplace(weight.getValue(), step.getSymName());
    if (!inserted)
      return step.emitOpError()
             << "trains " << weight << ", which @" << it->second
             << " trains too: a weight can belong to one training step's "
                "optimizer state only";
    Value grad = ret.getOperand(i);
    offsets.push_back(llvm::alignTo(size, align));
    size = offsets.back() +
           cast<RankedTensorType>(grad.getType()).getNumElements();
    weights.push_back(weight);
    grads.push_back(grad);
  }

  for (auto [g, group] : llvm::enumerate(step.getGroups()))
    for (Attribute w : group.getWeights())
      if (!llvm::is_contained(weights, w))
        return step.emitOpError()
               << "param group " << g + 1 << " lists " << w
               << ", which the step does not train (its loss does not reach "
                  "it, or it is not trainable)";

  // The pack, named after the step, before it.
  OpBuilder b(step);
  std::string name = (step.getSymName() + ".params").str();
  auto module = step->getParentOfType<ModuleOp>();
  for (unsigned n = 1; module.lookupSymbol(name); ++n)
    name = (step.getSymName() + ".params." + Twine(n)).str();
  auto pack = ParamPackOp::create(
      b, step.getLoc(), name, b.getArrayAttr(weights), offsets, size,
      step.getParamGroups() ? b.getDenseI64ArrayAttr(groups)
                            : DenseI64ArrayAttr());

  // One flat gradient output replaces the per-weight ones.
  b.setInsertionPoint(ret);
  auto flatType = RankedTensorType::get({size}, b.getF32Type());
  Value flat = PackGradsOp::create(b, ret.getLoc(), flatType,
                                   FlatSymbolRefAttr::get(pack), grads);
  SmallVector<Value> results;
  SmallVector<Type> types;
  SmallVector<Attribute> resAttrs;
  SmallVector<Attribute> oldAttrs = resultAttrDicts(step);
  for (unsigned i = 0, e = step.getNumResults(); i < e; ++i) {
    if (llvm::is_contained(gradResults, i))
      continue;
    results.push_back(ret.getOperand(i));
    types.push_back(results.back().getType());
    resAttrs.push_back(oldAttrs[i]);
  }
  results.push_back(flat);
  types.push_back(flatType);
  resAttrs.push_back(DictionaryAttr::get(
      ctx, {NamedAttribute(StringAttr::get(ctx, ForwardOp::getNameAttrName()),
                           StringAttr::get(ctx, kPackedGradsName)),
            NamedAttribute(StringAttr::get(ctx, kPackedGradsAttr),
                           FlatSymbolRefAttr::get(pack))}));
  ReturnOp::create(b, ret.getLoc(), results);
  ret.erase();
  step.setFunctionType(FunctionType::get(ctx, step.getArgumentTypes(), types));
  step.setAllResultAttrs(resAttrs);
  return success();
}

void PackParamsPass::runOnOperation() {
  if (alignment < 4 || !llvm::isPowerOf2_64(alignment)) {
    getOperation().emitError()
        << "ag-pack-params: alignment must be a power of two >= 4, got "
        << alignment.getValue();
    return signalPassFailure();
  }
  llvm::StringMap<StringRef> trainedBy;
  for (TrainStepOp step : getOperation().getOps<TrainStepOp>())
    if (failed(packParams(step, alignment / 4, trainedBy)))
      return signalPassFailure();
}
