//===- AgTrainingOps.cpp - Param packs, packed gradients, AdamW -----------===//

#include "capture/Dialect/Ag/IR/AgOps.h"

#include "AgOpsVerify.h"

#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace capture::ag;
using namespace capture::ag::detail;

/// The pack `ref` names, or an error on `op`.
static FailureOr<ParamPackOp> lookupPack(Operation *op, FlatSymbolRefAttr ref,
                                         SymbolTableCollection &symbols) {
  auto pack = symbols.lookupNearestSymbolFrom<ParamPackOp>(op, ref);
  if (!pack)
    return op->emitOpError()
           << "refers to " << ref
           << ", which is not an ag.param_pack of this module";
  return pack;
}

/// Elements of a pack (I64Attr reads back unsigned).
static int64_t packSize(ParamPackOp pack) {
  return static_cast<int64_t>(pack.getSize());
}

//===----------------------------------------------------------------------===//
// ParamPackOp
//===----------------------------------------------------------------------===//

LogicalResult ParamPackOp::verify() {
  ArrayRef<int64_t> offsets = getOffsets();
  if (getWeights().empty())
    return emitOpError() << "needs at least one weight";
  if (offsets.size() != getWeights().size())
    return emitOpError() << "has " << getWeights().size() << " weights but "
                         << offsets.size() << " offsets";
  llvm::DenseSet<Attribute> seen;
  for (Attribute weight : getWeights())
    if (!seen.insert(weight).second)
      return emitOpError() << "lists " << weight << " more than once";
  for (auto [i, offset] : llvm::enumerate(offsets))
    if (offset < 0 || (i > 0 && offset <= offsets[i - 1]))
      return emitOpError() << "offsets must be non-negative and increasing, "
                              "but offset #"
                           << i << " is " << offset;
  if (packSize(*this) <= offsets.back())
    return emitOpError() << "size " << packSize(*this)
                         << " does not cover the last offset "
                         << offsets.back();
  if (std::optional<ArrayRef<int64_t>> groups = getGroups()) {
    if (groups->size() != offsets.size())
      return emitOpError() << "has " << offsets.size() << " weights but "
                           << groups->size() << " groups";
    for (auto [i, group] : llvm::enumerate(*groups)) {
      if (group < 0)
        return emitOpError()
               << "groups must be >= 0, but weight #" << i << "'s is " << group;
      // The update kernel takes a group's values per vec4 of elements.
      if (i > 0 && group != (*groups)[i - 1] && offsets[i] % 4 != 0)
        return emitOpError()
               << "weight #" << i << " starts group " << group << " at offset "
               << offsets[i]
               << ", which is not a multiple of 4 elements (one update "
                  "vector holds one group)";
    }
  }
  return success();
}

int64_t ParamPackOp::getNumGroups() {
  int64_t n = 1;
  if (std::optional<ArrayRef<int64_t>> groups = getGroups())
    for (int64_t g : *groups)
      n = std::max(n, g + 1);
  return n;
}

LogicalResult ParamPackOp::verifySymbolUses(SymbolTableCollection &symbols) {
  ArrayRef<int64_t> offsets = getOffsets();
  for (auto [i, ref] :
       llvm::enumerate(getWeights().getAsRange<FlatSymbolRefAttr>())) {
    auto weight = symbols.lookupNearestSymbolFrom<WeightOp>(*this, ref);
    if (!weight)
      return emitOpError() << "lists " << ref
                           << ", which is not an ag.weight of this module";
    if (!weight.getTrainable())
      return emitOpError() << "lists " << ref
                           << ", which is not trainable: a pack holds only "
                              "the weights a training step updates";
    int64_t end = offsets[i] + weight.getTensorType().getNumElements();
    int64_t limit = i + 1 < offsets.size() ? offsets[i + 1] : packSize(*this);
    if (end > limit)
      return emitOpError() << ref << " (" << weight.getTensorType()
                           << ") at offset " << offsets[i]
                           << " overlaps the next weight or the end of the "
                              "pack at element "
                           << limit;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// PackGradsOp
//===----------------------------------------------------------------------===//

LogicalResult PackGradsOp::verifySymbolUses(SymbolTableCollection &symbols) {
  FailureOr<ParamPackOp> pack = lookupPack(*this, getPackAttr(), symbols);
  if (failed(pack))
    return failure();
  ArrayAttr weights = pack->getWeights();
  if (getGrads().size() != weights.size())
    return emitOpError() << "packs " << getGrads().size() << " gradients, but "
                         << getPackAttr() << " has " << weights.size()
                         << " weights";
  for (auto [i, grad] : llvm::enumerate(getGrads())) {
    auto ref = cast<FlatSymbolRefAttr>(weights[i]);
    auto weight = symbols.lookupNearestSymbolFrom<WeightOp>(*this, ref);
    if (weight && weight.getType() != grad.getType())
      return emitOpError() << "gradient #" << i << " has type "
                           << grad.getType() << ", but its weight " << ref
                           << " is " << weight.getType();
  }
  auto expected =
      RankedTensorType::get({packSize(*pack)}, Float32Type::get(getContext()));
  if (getResult().getType() != expected)
    return emitOpError() << "result must be " << expected << " (the size of "
                         << getPackAttr() << "), but is "
                         << getResult().getType();
  return success();
}

//===----------------------------------------------------------------------===//
// ApplyAdamWOp
//===----------------------------------------------------------------------===//

LogicalResult ApplyAdamWOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  if (tensorOf(getGrads()).getRank() != 1)
    return emitOpError() << "grads must be a flat 1-D tensor, but is "
                         << getGrads().getType();
  if (tensorOf(getGradNorm()).getRank() != 0)
    return emitOpError() << "grad_norm must be a scalar tensor<f32>, but is "
                         << getGradNorm().getType();
  ArrayRef<int64_t> hyper = tensorOf(getHyper()).getShape();
  if (hyper.size() != 1 || hyper[0] <= 0 || hyper[0] % kAdamWHyperValues)
    return emitOpError() << "hyper must be tensor<" << kAdamWHyperValues
                         << "xf32> (lr, beta1, beta2, eps, weight_decay and "
                            "the two bias corrections), or that per param "
                            "group, but is "
                         << getHyper().getType();
  return success();
}

bool ApplyAdamWOp::isDecoupled() {
  auto step = (*this)->getParentOfType<TrainStepOp>();
  auto adamw = step ? dyn_cast<AdamWAttr>(step.getOptimizer()) : AdamWAttr();
  return !adamw || adamw.getDecoupled();
}

LogicalResult ApplyAdamWOp::verifySymbolUses(SymbolTableCollection &symbols) {
  FailureOr<ParamPackOp> pack = lookupPack(*this, getPackAttr(), symbols);
  if (failed(pack))
    return failure();
  int64_t size = tensorOf(getGrads()).getDimSize(0);
  if (size != packSize(*pack))
    return emitOpError() << "grads has " << size << " elements, but "
                         << getPackAttr() << " has " << packSize(*pack);
  int64_t values = tensorOf(getHyper()).getDimSize(0);
  int64_t groups = pack->getNumGroups();
  if (values != groups * kAdamWHyperValues)
    return emitOpError() << "hyper has " << values << " values, but "
                         << getPackAttr() << " has " << groups << " param group"
                         << (groups == 1 ? "" : "s") << " ("
                         << kAdamWHyperValues << " values each)";
  return success();
}
