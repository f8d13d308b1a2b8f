//===- TrainingOps.cpp - ag.pack_grads and ag.apply_adamw -----------------===//

#include "TrainingOps.h"

#include "Kernels.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SmallVectorExtras.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace capture;
using namespace capture::reference;
namespace kernels = capture::reference::detail;
using capture::ag::formatShape;
using kernels::roundTo;

FailureOr<ag::ParamPackOp> kernels::lookupParamPack(Operation *op,
                                                    FlatSymbolRefAttr ref) {
  auto pack = dyn_cast_or_null<ag::ParamPackOp>(
      SymbolTable::lookupNearestSymbolFrom(op, ref));
  if (!pack)
    return op->emitError() << "refers to " << ref
                           << ", which is not an ag.param_pack of this module";
  return pack;
}

/// `x` flushed to zero of its sign when its magnitude is below the least
/// normal f32 (2^-126): the AdamW kernel's rule for the moments, at every
/// precision.
static double flushDenormal(double x) {
  if (x != 0 && std::fabs(x) < std::numeric_limits<float>::min())
    return std::copysign(0.0, x);
  return x;
}

/// Elements of `pack` (the attribute reads back unsigned).
static int64_t packSize(ag::ParamPackOp pack) {
  return static_cast<int64_t>(pack.getSize());
}

FailureOr<Tensor> kernels::evalPackGrads(ag::PackGradsOp op,
                                         ArrayRef<const Tensor *> grads) {
  FailureOr<ag::ParamPackOp> pack =
      kernels::lookupParamPack(op, op.getPackAttr());
  if (failed(pack))
    return failure();
  ArrayRef<int64_t> offsets = pack->getOffsets();
  int64_t size = packSize(*pack);
  if (grads.size() != offsets.size())
    return op.emitError() << "packs " << grads.size() << " gradients, but @"
                          << pack->getSymName() << " has " << offsets.size()
                          << " weights";
  Tensor flat = Tensor::filled({size}, 0.0);
  for (auto [i, grad] : llvm::enumerate(grads)) {
    int64_t end = offsets[i] + grad->numElements();
    // The verifier checks the layout against the weights' types; this
    // guards the copy against a gradient of another size.
    if (end > size)
      return op.emitError()
             << "gradient #" << i << " of shape " << formatShape(grad->shape)
             << " at offset " << offsets[i] << " ends at element " << end
             << ", past the pack size " << size;
    llvm::copy(grad->data, flat.data.begin() + offsets[i]);
  }
  return flat;
}

/// Moments of `size` elements for `pack`, zeros when the state has none;
/// an error on `op` when the state's have another size.
static LogicalResult prepareMoments(ag::ApplyAdamWOp op, StringRef pack,
                                    int64_t size, TrainingState &state) {
  auto [it, inserted] = state.moments.try_emplace(pack.str());
  if (inserted) {
    it->second.m = Tensor::filled({size}, 0.0);
    it->second.v = Tensor::filled({size}, 0.0);
    return success();
  }
  for (auto [name, moment] :
       {std::pair<StringRef, const Tensor *>("m", &it->second.m),
        std::pair<StringRef, const Tensor *>("v", &it->second.v)}) {
    if (moment->shape != std::vector<int64_t>{size} ||
        static_cast<int64_t>(moment->data.size()) != size)
      return op.emitError()
             << "the training state's moment " << name << " of @" << pack
             << " has shape " << formatShape(moment->shape) << " ("
             << moment->data.size() << " values), expected [" << size
             << "] (the pack's size)";
  }
  return success();
}

FailureOr<AdamWUpdate>
kernels::applyAdamW(ag::ApplyAdamWOp op, ag::ParamPackOp pack,
                    const Tensor &grads, const Tensor &gradNorm,
                    const Tensor &hyper, TrainingState &state,
                    Precision precision) {
  AdamWUpdate update;
  update.pack = pack.getSymName().str();
  update.gradNorm = gradNorm.data.front();
  // The device kernel makes the same test: a non-finite norm writes nothing,
  // so a refused step leaves every bit of the state as it was.
  if (!std::isfinite(update.gradNorm))
    return update;
  int64_t size = packSize(pack);
  if (failed(prepareMoments(op, update.pack, size, state)))
    return failure();

  auto r = [precision](double x) { return roundTo(precision, x); };
  // Every operation rounded on its own, in the kernel's order, so that F32
  // precision reproduces the device's float arithmetic. Each param group
  // has its seven values; an element (padding too) is in the group of the
  // weight it belongs to or follows.
  struct Group {
    double lr, beta1, beta2, eps, wd, decay, keep1, keep2, sqrtBc2, stepSize;
  };
  SmallVector<Group> groups;
  for (size_t at = 0; at + ag::kAdamWHyperValues <= hyper.data.size();
       at += ag::kAdamWHyperValues) {
    ArrayRef<double> h = ArrayRef<double>(hyper.data).slice(at);
    double lr = h[rt::kHyperLr], beta1 = h[rt::kHyperBeta1],
           beta2 = h[rt::kHyperBeta2], wd = h[rt::kHyperWeightDecay];
    groups.push_back({lr, beta1, beta2, h[rt::kHyperEps], wd,
                      r(1.0 - r(lr * wd)), r(1.0 - beta1), r(1.0 - beta2),
                      r(std::sqrt(h[rt::kHyperBiasCorrection2])),
                      r(lr / h[rt::kHyperBiasCorrection1])});
  }
  bool decoupled = op.isDecoupled();

  // The pack's weights as one flat array, zero in the padding as on the
  // device: Adam's L2 term reads them.
  ArrayRef<int64_t> offsets = pack.getOffsets();
  std::vector<const Group *> groupAt(size, &groups[pack.getGroupOf(0)]);
  for (size_t w = 1; w < offsets.size(); ++w)
    std::fill(groupAt.begin() + offsets[w], groupAt.end(),
              &groups[pack.getGroupOf(w)]);
  auto weights = llvm::map_to_vector(
      pack.getWeights().getAsRange<FlatSymbolRefAttr>(),
      [&](FlatSymbolRefAttr ref) {
        return &state.weights.find(ref.getValue().str())->second;
      });
  std::vector<double> flat(size, 0.0);
  for (auto [w, param] : llvm::enumerate(weights))
    llvm::copy(param->data, flat.begin() + offsets[w]);

  // The moments over the whole pack, padding included (its gradients are
  // zero and so is its L2 term, so it stays zero as on the device).
  AdamWMoments &moments = state.moments[update.pack];
  for (int64_t i = 0; i < size; ++i) {
    const Group &h = *groupAt[i];
    double g = grads.data[i];
    if (!decoupled)
      g = r(g + r(h.wd * flat[i]));
    double &m = moments.m.data[i], &v = moments.v.data[i];
    // Denormal moments are flushed to zero of their sign, as the AdamW
    // kernel does (docs/architecture.md, "Training steps").
    m = flushDenormal(r(r(h.beta1 * m) + r(h.keep1 * g)));
    v = flushDenormal(r(r(h.beta2 * v) + r(h.keep2 * r(g * g))));
  }
  for (auto [w, param] : llvm::enumerate(weights)) {
    const Group &h = groups[pack.getGroupOf(w)];
    for (size_t j = 0, e = param->data.size(); j < e; ++j) {
      int64_t i = offsets[w] + static_cast<int64_t>(j);
      double m = moments.m.data[i], v = moments.v.data[i];
      double denom = r(r(r(std::sqrt(v)) / h.sqrtBc2) + h.eps);
      double p = decoupled ? r(param->data[j] * h.decay) : param->data[j];
      param->data[j] = r(p - r(h.stepSize * r(m / denom)));
    }
  }
  update.applied = true;
  return update;
}
