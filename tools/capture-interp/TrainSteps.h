//===- TrainSteps.h - capture-interp --steps --------------------*- C++ -*-===//
//
// Runs a training step for many steps, with the options of the device
// runner, so that the same tests drive both.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_TOOLS_CAPTURE_INTERP_TRAINSTEPS_H
#define CAPTURE_TOOLS_CAPTURE_INTERP_TRAINSTEPS_H

#include "ToolSupport.h"

#include "mlir/IR/BuiltinOps.h"

#include <vector>

namespace capture::interp {

/// The options of a --steps run.
struct StepsOptions {
  /// Number of steps (>= 1).
  uint64_t steps = 1;
  /// `--lr-at K=VALUE` arguments.
  std::vector<std::string> lrAt;
  /// `--max-grad-norm-at K=VALUE` arguments.
  std::vector<std::string> maxGradNormAt;
  /// `--input-at K:NAME=FILE.npy` arguments.
  std::vector<std::string> inputAt;
  /// Whether a refused step lets the run continue.
  bool keepGoing = false;
  /// Where to write every weight after the last step; empty: nowhere.
  std::string saveParams;
  /// Where to write the state after every step; empty: nowhere.
  std::string dumpState;
  /// Arithmetic of the steps.
  reference::Precision precision = reference::Precision::F32;
};

/// How a --steps run ended.
struct StepsOutcome {
  /// 0, or 1 when a step's update was refused.
  int exitCode = 0;
  /// The outputs and probes of the last step run.
  reference::EvalResult last;
};

/// Runs ag-autodiff, ag-pack-params, ag-insert-clip-scale and
/// ag-split-update on `module` (whose training step is not split yet);
/// their errors are emitted as diagnostics.
mlir::LogicalResult splitTrainSteps(mlir::ModuleOp module);

/// Fails with an error naming the option when one of the `name=...`
/// arguments of `--<option>` names an input of `entry` that the runtime
/// fills (`ag.hyper`).
bool checkNoRuntimeInputs(reference::Entry entry,
                          llvm::ArrayRef<std::string> args,
                          llvm::StringRef option);

/// Runs `options.steps` steps of the split training step `entry` from the
/// weights `params` (others at their initial values) on `inputs`, printing
/// one line per step. Returns nullopt after printing an error when the run
/// could not be carried out (bad options, an evaluation error, a file that
/// cannot be written).
std::optional<StepsOutcome>
runSteps(mlir::ModuleOp module, reference::Entry entry,
         const std::map<std::string, Tensor> &inputs,
         std::map<std::string, Tensor> params, const StepsOptions &options);

} // namespace capture::interp

#endif // CAPTURE_TOOLS_CAPTURE_INTERP_TRAINSTEPS_H
