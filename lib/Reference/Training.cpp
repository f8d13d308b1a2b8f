//===- Training.cpp - Training steps on the reference interpreter ---------===//

#include "capture/Reference/Training.h"

#include "Kernels.h"
#include "capture/Dialect/Ag/IR/AgOps.h"

#include "llvm/Support/Format.h"

#include <cmath>

using namespace mlir;
using namespace capture;
using namespace capture::reference;
using capture::ag::formatShape;

/// `value` for a message, with enough digits to tell floats apart.
static std::string formatHyper(double value) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.9g", value);
  return text;
}

FailureOr<TrainingHyper> reference::getCompiledHyper(Entry entry) {
  auto step = dyn_cast<ag::TrainStepOp>(entry.getOperation().getOperation());
  if (!step)
    return entry.getOperation().emitError()
           << "@" << entry.getSymName() << " is an " << entry.getKindName()
           << ", expected an ag.train_step (only training steps have "
              "hyperparameters)";
  ag::AdamWAttr adamw = step.getAdamW();
  TrainingHyper hyper;
  hyper.lr = adamw.getLr().convertToDouble();
  hyper.beta1 = adamw.getBeta1().convertToDouble();
  hyper.beta2 = adamw.getBeta2().convertToDouble();
  hyper.eps = adamw.getEps().convertToDouble();
  hyper.weightDecay = adamw.getWeightDecay().convertToDouble();
  if (std::optional<APFloat> limit = step.getMaxGradNorm())
    hyper.maxGradNorm = limit->convertToDouble();
  return hyper;
}

/// The index of the input of `entry` whose `ag.hyper` is `kind`.
static std::optional<unsigned> findHyperInput(Entry entry, StringRef kind) {
  for (unsigned i = 0, e = entry.getNumArguments(); i < e; ++i)
    if (entry.getHyperKind(i) == kind)
      return i;
  return std::nullopt;
}

LogicalResult reference::checkHyper(Entry entry, const TrainingHyper &hyper) {
  Operation *op = entry.getOperation();
  // The runtime's ranges (torch.optim.AdamW's, with finite values).
  auto atLeastZero = [&](StringRef name, double value,
                         bool positive) -> LogicalResult {
    if (std::isfinite(value) && (positive ? value > 0 : value >= 0))
      return success();
    return op->emitError() << name << " is " << formatHyper(value)
                           << ", expected a finite value "
                           << (positive ? "> 0" : ">= 0");
  };
  auto beta = [&](StringRef name, double value) -> LogicalResult {
    if (value >= 0 && value < 1)
      return success();
    return op->emitError() << name << " is " << formatHyper(value)
                           << ", expected a value in [0, 1)";
  };
  if (failed(atLeastZero("lr", hyper.lr, false)) ||
      failed(beta("beta1", hyper.beta1)) ||
      failed(beta("beta2", hyper.beta2)) ||
      failed(atLeastZero("eps", hyper.eps, true)) ||
      failed(atLeastZero("weight_decay", hyper.weightDecay, false)))
    return failure();
  bool clips = findHyperInput(entry, kMaxGradNormHyperKind).has_value();
  if (hyper.maxGradNorm && !clips)
    return op->emitError() << "a clip limit (max_grad_norm "
                           << formatHyper(*hyper.maxGradNorm)
                           << ") is set, but @" << entry.getSymName()
                           << " does not clip (it has no input with "
                              "ag.hyper = \""
                           << kMaxGradNormHyperKind << "\")";
  if (!hyper.maxGradNorm && clips)
    return op->emitError() << "@" << entry.getSymName()
                           << " clips gradients, but no clip limit "
                              "(max_grad_norm) is set";
  if (hyper.maxGradNorm &&
      failed(atLeastZero("max_grad_norm", *hyper.maxGradNorm, true)))
    return failure();
  return success();
}

/// Checks that input `i` of `entry` has `shape` and f32 elements.
static LogicalResult checkHyperInputType(Entry entry, unsigned i,
                                         ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(entry.getArgument(i).getType());
  if (type.getShape() == shape && type.getElementType().isF32())
    return success();
  return entry.getOperation().emitError()
         << "input '" << entry.getInputName(i) << "' (ag.hyper = \""
         << entry.getHyperKind(i) << "\") must be an f32 tensor of shape "
         << formatShape(shape) << ", but is " << type;
}

LogicalResult
reference::fillHyperInputs(Entry entry, const TrainingState &state,
                           const TrainingHyper &hyper, Precision precision,
                           std::map<std::string, Tensor> &inputs) {
  if (failed(getCompiledHyper(entry)) || failed(checkHyper(entry, hyper)))
    return failure();
  Operation *op = entry.getOperation();
  for (unsigned i = 0, e = entry.getNumArguments(); i < e; ++i) {
    StringRef kind = entry.getHyperKind(i);
    if (kind.empty())
      continue;
    if (kind != kAdamWHyperKind && kind != kMaxGradNormHyperKind)
      return op->emitError()
             << "input '" << entry.getInputName(i) << "' has ag.hyper = \""
             << kind << "\", expected \"" << kAdamWHyperKind << "\" or \""
             << kMaxGradNormHyperKind << "\"";
    if (inputs.count(entry.getInputName(i).str()))
      return op->emitError()
             << "input '" << entry.getInputName(i)
             << "' is filled by the runtime (ag.hyper = \"" << kind
             << "\"), from the "
             << (kind == kAdamWHyperKind
                     ? "AdamW hyperparameters and the step counter"
                     : "clip limit")
             << "; expected it not to be supplied";
  }
  std::optional<unsigned> adamwInput = findHyperInput(entry, kAdamWHyperKind);
  if (!adamwInput)
    return op->emitError() << "@" << entry.getSymName()
                           << " has no input with ag.hyper = \""
                           << kAdamWHyperKind
                           << "\": run ag-split-update (after ag-autodiff, "
                              "ag-pack-params and ag-insert-clip-scale) first";
  // Group 0's values are `hyper`; the other param groups' are compiled in.
  auto step = cast<ag::TrainStepOp>(op);
  SmallVector<ag::ParamGroupAttr> groups = step.getGroups();
  int64_t values =
      ag::kAdamWHyperValues * static_cast<int64_t>(groups.size() + 1);
  if (failed(checkHyperInputType(entry, *adamwInput, {values})))
    return failure();

  // The runtime keeps the hyperparameters as floats; in F64 precision they
  // stay exact. The values are the runtime's (rt::adamWHyperValues).
  auto stored = [&](double value) { return detail::roundTo(precision, value); };
  std::vector<double> data;
  auto add = [&](double lr, double beta1, double beta2, double eps,
                 double weightDecay) {
    for (double h :
         rt::adamWHyperValues(stored(lr), stored(beta1), stored(beta2),
                              stored(eps), stored(weightDecay), state.step))
      data.push_back(stored(h));
  };
  add(hyper.lr, hyper.beta1, hyper.beta2, hyper.eps, hyper.weightDecay);
  for (auto [i, group] : llvm::enumerate(groups)) {
    ag::AdamWAttr a = group.getAdamw();
    auto lr = hyper.groupLr.find(static_cast<unsigned>(i) + 1);
    add(lr != hyper.groupLr.end() ? lr->second : a.getLr().convertToDouble(),
        a.getBeta1().convertToDouble(), a.getBeta2().convertToDouble(),
        a.getEps().convertToDouble(), a.getWeightDecay().convertToDouble());
  }
  inputs[entry.getInputName(*adamwInput).str()] =
      Tensor::of({values}, std::move(data));
  if (std::optional<unsigned> limitInput =
          findHyperInput(entry, kMaxGradNormHyperKind)) {
    if (failed(checkHyperInputType(entry, *limitInput, {})))
      return failure();
    inputs[entry.getInputName(*limitInput).str()] =
        Tensor::of({}, {stored(*hyper.maxGradNorm)});
  }
  return success();
}

FailureOr<StepResult>
reference::trainStep(ModuleOp module, StringRef entryName,
                     const std::map<std::string, Tensor> &inputs,
                     TrainingState &state, const TrainingHyper &hyper,
                     Precision precision) {
  FailureOr<Entry> entry = lookupEntry(module, entryName);
  if (failed(entry))
    return failure();
  if (!entry->isTrainStep())
    return entry->getOperation().emitError()
           << "@" << entry->getSymName() << " is an " << entry->getKindName()
           << ", expected an ag.train_step";
  if (!entry->hasUpdate())
    return entry->getOperation().emitError()
           << "training step @" << entry->getSymName()
           << " has no ag.apply_adamw, so a step would update nothing: run "
              "ag-autodiff, ag-pack-params, ag-insert-clip-scale and "
              "ag-split-update first";
  std::map<std::string, Tensor> stepInputs = inputs;
  if (failed(fillHyperInputs(*entry, state, hyper, precision, stepInputs)))
    return failure();
  TrainingState updated = state;
  FailureOr<EvalResult> eval =
      evaluate(module, entry->getSymName(), stepInputs, updated, precision);
  if (failed(eval))
    return failure();

  StepResult result;
  // A step updates each pack once; the packs share the one gradient norm,
  // so they are applied or refused together.
  result.gradNorm = eval->updates.front().gradNorm;
  result.applied = llvm::all_of(eval->updates,
                                [](const AdamWUpdate &u) { return u.applied; });
  result.loss = eval->outputs.at(entry->getOutputName(0).str()).data.front();
  result.eval = std::move(*eval);
  if (result.applied)
    ++updated.step;
  state = std::move(updated);
  return result;
}
