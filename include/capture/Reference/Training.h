//===- Training.h - Training steps on the reference interpreter -*- C++ -*-===//
//
// Runs a split `ag.train_step` (after ag-split-update) step after step as the
// runtime replays it on the device: the runtime owns the step counter and
// the hyperparameters and writes them into the step's `ag.hyper` inputs
// before each replay; the step's last op applies AdamW unless the gradient
// norm is not finite, and the counter advances only when it did.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_REFERENCE_TRAINING_H
#define CAPTURE_REFERENCE_TRAINING_H

#include "capture/Reference/Interpreter.h"

#include <map>
#include <optional>

namespace capture::reference {

/// The entry input attribute naming what the runtime fills an input with.
inline constexpr llvm::StringLiteral kHyperAttrName = "ag.hyper";
/// `ag.hyper` of the `tensor<7xf32>` input: lr, beta1, beta2, eps,
/// weight_decay, 1 - beta1^(t+1), 1 - beta2^(t+1).
inline constexpr llvm::StringLiteral kAdamWHyperKind = "adamw";
/// `ag.hyper` of the scalar input holding the clip limit.
inline constexpr llvm::StringLiteral kMaxGradNormHyperKind = "max_grad_norm";

/// The hyperparameters the runtime keeps on the host between steps.
struct TrainingHyper {
  /// Learning rate (finite, >= 0).
  double lr = 0.0;
  /// First-moment decay, in [0, 1).
  double beta1 = 0.0;
  /// Second-moment decay, in [0, 1).
  double beta2 = 0.0;
  /// Denominator term (finite, > 0).
  double eps = 0.0;
  /// Weight decay (finite, >= 0): decoupled, or Adam's L2 term, as the
  /// step's compiled optimizer says (the mode is not a runtime value).
  double weightDecay = 0.0;
  /// Clip limit (finite, > 0); absent exactly when the step does not clip.
  std::optional<double> maxGradNorm;
  /// Learning rates that replace those compiled into param groups 1.., by
  /// group number (the fields above are group 0's); the others keep theirs.
  std::map<unsigned, double> groupLr;
};

/// The hyperparameters compiled into the `ag.train_step` `entry` (its
/// `optimizer` and `max_grad_norm` attributes): the runtime's initial
/// values. Fails with an error on an entry that is not a training step.
mlir::FailureOr<TrainingHyper> getCompiledHyper(Entry entry);

/// Checks `hyper` as the runtime does (the ranges documented on
/// TrainingHyper, a clip limit exactly when `entry` clips); emits an error
/// on `entry` naming the value and the expected range.
mlir::LogicalResult checkHyper(Entry entry, const TrainingHyper &hyper);

/// Adds the inputs the runtime fills (`ag.hyper` "adamw" and
/// "max_grad_norm") of the split training step `entry` to `inputs`, for the
/// step after `state.step` updates. In F32 precision the values are what
/// the runtime writes: every hyperparameter as a float, the bias
/// corrections 1 - beta^(t+1) computed in double from the float betas and
/// then stored as floats; in F64 everything stays double. Fails with an
/// error when `inputs` already holds one of them, `hyper` is invalid
/// (checkHyper), or the entry has no `adamw` input (it is not split).
mlir::LogicalResult fillHyperInputs(Entry entry, const TrainingState &state,
                                    const TrainingHyper &hyper,
                                    Precision precision,
                                    std::map<std::string, Tensor> &inputs);

/// What one training step produced.
struct StepResult {
  /// The step's outputs and probes (values from before the update).
  EvalResult eval;
  /// Output #0, the loss.
  double loss = 0.0;
  /// The gradient norm the update read.
  double gradNorm = 0.0;
  /// Whether the update was applied (the norm was finite); when not, the
  /// weights, the moments and the step counter are unchanged.
  bool applied = false;
};

/// Runs one step of the split training step `entry` of `module` (empty:
/// the only entry) on `inputs` (without the runtime-filled ones, which
/// fillHyperInputs adds from `hyper` and `state`), updating `state` like
/// the device: weights and moments by `ag.apply_adamw`, and `state.step`
/// incremented when the update was applied. On failure (an error is
/// emitted) `state` is unchanged.
mlir::FailureOr<StepResult>
trainStep(mlir::ModuleOp module, llvm::StringRef entry,
          const std::map<std::string, Tensor> &inputs, TrainingState &state,
          const TrainingHyper &hyper, Precision precision = Precision::F32);

} // namespace capture::reference

#endif // CAPTURE_REFERENCE_TRAINING_H
