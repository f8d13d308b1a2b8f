//===- TrainSteps.cpp - capture-interp --steps ----------------------------===//

#include "TrainSteps.h"

#include "capture/Dialect/Ag/IR/AgOps.h"
#include "capture/InitAll.h"
#include "capture/Reference/Training.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace capture;
using namespace capture::interp;
using namespace capture::reference;

/// The passes that turn a training step into the form the device runs.
static constexpr llvm::StringLiteral kSplitPipeline =
    "builtin.module(ag-autodiff,ag-pack-params,ag-insert-clip-scale,"
    "ag-split-update)";

/// The files of --dump-state that hold the pack's moments.
static constexpr llvm::StringLiteral kMomentFiles[] = {"adam.m", "adam.v"};

LogicalResult interp::splitTrainSteps(ModuleOp module) {
  capture::registerAllPasses();
  std::string errors;
  llvm::raw_string_ostream os(errors);
  FailureOr<OpPassManager> pipeline = parsePassPipeline(kSplitPipeline, os);
  if (failed(pipeline)) {
    fail("cannot build the pipeline " + kSplitPipeline +
         " that splits the training step: " + errors);
    return failure();
  }
  // The pipeline is anchored on builtin.module itself: it runs on `module`,
  // not on modules nested in it.
  PassManager pm(module.getContext(), ModuleOp::getOperationName());
  static_cast<OpPassManager &>(pm) = *pipeline;
  return pm.run(module);
}

bool interp::checkNoRuntimeInputs(Entry entry, ArrayRef<std::string> args,
                                  StringRef option) {
  for (const std::string &arg : args) {
    StringRef name = StringRef(arg).split('=').first;
    if (option == "input-at")
      name = name.split(':').second;
    for (unsigned i = 0, e = entry.getNumArguments(); i < e; ++i) {
      StringRef kind = entry.getHyperKind(i);
      if (kind.empty() || entry.getInputName(i) != name)
        continue;
      bool adamw = kind == kAdamWHyperKind;
      fail("--" + option + " gives input '" + name +
           "', which capture-interp fills as the runtime does (ag.hyper = \"" +
           kind + "\": " +
           (adamw ? "the AdamW hyperparameters and the bias corrections of "
                    "the step counter"
                  : "the gradient clipping limit") +
           "); expected only the step's other inputs (set it with " +
           (adamw ? "--lr-at" : "--max-grad-norm-at") + " instead)");
      return false;
    }
  }
  return true;
}

/// The param groups of training step `entry` (1 without param_groups).
static unsigned paramGroupCount(Entry entry) {
  auto step = dyn_cast<ag::TrainStepOp>(entry.getOperation().getOperation());
  return step ? static_cast<unsigned>(step.getGroups().size()) + 1 : 1;
}

namespace {
/// One step's settings from the command line.
struct StepPlan {
  /// `--lr-at` values by step (1-based), then param group.
  std::map<uint64_t, std::map<unsigned, double>> lr;
  /// `--max-grad-norm-at` values by step (group 0).
  std::map<uint64_t, std::map<unsigned, double>> maxGradNorm;
  /// `--input-at` tensors by step, then input name.
  std::map<uint64_t, std::map<std::string, Tensor>> inputs;
};
} // namespace

/// Parses the K of `--<option> K...` (`text`) as a step in [1, steps];
/// `arg` is the whole argument, for messages.
static std::optional<uint64_t> parseStep(StringRef text, StringRef arg,
                                         StringRef option, uint64_t steps) {
  uint64_t step = 0;
  if (text.getAsInteger(10, step) || step < 1 || step > steps) {
    fail("--" + option + " " + arg + ": the step must be a number from 1 to " +
         Twine(steps) + " (--steps), got '" + text + "'");
    return std::nullopt;
  }
  return step;
}

/// Parses `--<option> K=VALUE` arguments into `values`: a step and a
/// finite value (> 0 when `positive`, else >= 0) that stays finite as a
/// float, as the runtime stores it; `what` names the value. With `groups`
/// (the step's param groups, 0 for an option that takes none), VALUE@G
/// names the group, and must when there are several: the same value for
/// every group would silently undo their differences.
static bool
parseStepValues(ArrayRef<std::string> args, StringRef option, StringRef what,
                bool positive, uint64_t steps, unsigned groups,
                std::map<uint64_t, std::map<unsigned, double>> &values) {
  for (const std::string &arg : args) {
    auto [stepText, valueText] = StringRef(arg).split('=');
    if (valueText.empty() || stepText.size() == arg.size()) {
      fail("--" + option + " expects K=VALUE (K: a step from 1 to " +
           Twine(steps) + "), got '" + arg + "'");
      return false;
    }
    std::optional<uint64_t> step = parseStep(stepText, arg, option, steps);
    if (!step)
      return false;
    unsigned group = 0;
    if (groups > 0) {
      auto [number, groupText] = valueText.split('@');
      if (number.size() == valueText.size() && groups > 1) {
        fail("--" + option + " " + arg + ": the step has " + Twine(groups) +
             " param groups, each with its own " + what +
             "; expected the group: " + stepText + "=" + valueText +
             "@G with G from 0 to " + Twine(groups - 1));
        return false;
      }
      if (number.size() != valueText.size() &&
          (groupText.getAsInteger(10, group) || group >= groups)) {
        fail("--" + option + " " + arg + ": the group must be a number " +
             "from 0 to " + Twine(groups - 1) +
             " (the step's param groups), got '" + groupText + "'");
        return false;
      }
      valueText = number;
    }
    double value = 0.0;
    bool bad = valueText.getAsDouble(value) ||
               !std::isfinite(static_cast<float>(value)) ||
               !(positive ? value > 0 : value >= 0);
    if (bad) {
      fail("--" + option + " " + arg + ": the " + what +
           " must be a finite number " + (positive ? "> 0" : ">= 0") +
           ", got '" + valueText + "'");
      return false;
    }
    if (!values[*step].emplace(group, value).second) {
      fail("--" + option + " gives step " + Twine(*step) +
           (groups > 1 ? " of group " + Twine(group) : Twine()) + " twice");
      return false;
    }
  }
  return true;
}

/// Parses the `--input-at K:NAME=FILE.npy` arguments into `plan`.
static bool parseInputsAt(Entry entry, ArrayRef<std::string> args,
                          uint64_t steps, StepPlan &plan) {
  for (const std::string &arg : args) {
    auto [stepText, rest] = StringRef(arg).split(':');
    auto [name, path] = rest.split('=');
    if (name.empty() || path.empty() || stepText.size() == arg.size() ||
        name.size() == rest.size()) {
      fail("--input-at expects K:NAME=FILE.npy (K: a step from 1 to " +
           Twine(steps) + "), got '" + arg + "'");
      return false;
    }
    std::optional<uint64_t> step = parseStep(stepText, arg, "input-at", steps);
    if (!step)
      return false;
    std::optional<unsigned> index;
    std::string names;
    for (unsigned i = 0, e = entry.getNumArguments(); i < e; ++i) {
      if (!entry.getHyperKind(i).empty())
        continue;
      if (entry.getInputName(i) == name)
        index = i;
      names +=
          (names.empty() ? "'" : ", '") + entry.getInputName(i).str() + "'";
    }
    if (!index) {
      fail("--input-at " + arg + ": @" + entry.getSymName() +
           " has no input '" + name + "'; its inputs are " +
           (names.empty() ? "none" : names));
      return false;
    }
    std::map<std::string, Tensor> &inputs = plan.inputs[*step];
    if (inputs.count(name.str())) {
      fail("--input-at gives input '" + name + "' of step " + Twine(*step) +
           " twice");
      return false;
    }
    std::optional<Tensor> tensor = readTensor(
        path.str(), ("input '" + name + "' of step " + Twine(*step)).str(),
        dtypeOf(entry.getArgument(*index).getType()));
    if (!tensor)
      return false;
    inputs[name.str()] = std::move(*tensor);
  }
  return true;
}

/// The only `ag.param_pack` of `module`, whose moments --dump-state writes.
static std::optional<ag::ParamPackOp> dumpedPack(ModuleOp module) {
  SmallVector<ag::ParamPackOp> packs(module.getOps<ag::ParamPackOp>());
  if (packs.size() == 1)
    return packs.front();
  std::string names;
  for (ag::ParamPackOp pack : packs)
    names += (names.empty() ? "@" : ", @") + pack.getSymName().str();
  fail("--dump-state writes the moments of one ag.param_pack as " +
       kMomentFiles[0] + ".npy and " + kMomentFiles[1] +
       ".npy, but the module has " + Twine(packs.size()) + " (" +
       (names.empty() ? "none" : names) + ")");
  return std::nullopt;
}

/// Checks that every weight can be written as `<dir>/<name>.npy` beside the
/// moment files (`withMoments`); `option` names the directory's option.
static bool checkWeightFileNames(const TrainingState &state, StringRef option,
                                 bool withMoments) {
  for (const auto &[name, tensor] : state.weights) {
    if (!isSafeFileName(name)) {
      fail("--" + option + ": weight @" + name +
           " cannot be used as a file name");
      return false;
    }
    if (withMoments && llvm::is_contained(kMomentFiles, name)) {
      fail("--" + option + ": weight @" + name + " would be written to " +
           name + ".npy, where the AdamW moments go; rename the weight");
      return false;
    }
  }
  return true;
}

/// Writes every weight of `state` to `dir/<name>.npy`.
static bool writeWeights(StringRef dir, const TrainingState &state) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
    fail("cannot create directory " + dir + ": " + ec.message());
    return false;
  }
  for (const auto &[name, tensor] : state.weights)
    if (!writeTensor(npyPath(dir, name), tensor, rt::DType::F32))
      return false;
  return true;
}

/// Writes the state after step `step` to `<dir>/step-<step>/`: every
/// weight, the moments of `pack` (zeros before the first update) and t.
static bool dumpState(StringRef dir, uint64_t step, ag::ParamPackOp pack,
                      const TrainingState &state) {
  llvm::SmallString<256> stepDir(dir);
  llvm::sys::path::append(stepDir, "step-" + Twine(step));
  if (!writeWeights(stepDir, state))
    return false;
  auto size = static_cast<int64_t>(pack.getSize());
  AdamWMoments zeros{Tensor::filled({size}, 0.0), Tensor::filled({size}, 0.0)};
  auto it = state.moments.find(pack.getSymName().str());
  const AdamWMoments &moments = it == state.moments.end() ? zeros : it->second;
  if (!writeTensor(npyPath(stepDir, kMomentFiles[0]), moments.m,
                   rt::DType::F32) ||
      !writeTensor(npyPath(stepDir, kMomentFiles[1]), moments.v,
                   rt::DType::F32))
    return false;
  llvm::SmallString<256> path(stepDir);
  llvm::sys::path::append(path, "t.txt");
  std::error_code ec;
  llvm::raw_fd_ostream file(path, ec);
  if (!ec) {
    file << state.step << '\n';
    file.close();
    ec = file.error();
  }
  if (ec) {
    fail("cannot write " + path + ": " + ec.message());
    return false;
  }
  return true;
}

std::optional<StepsOutcome> interp::runSteps(
    ModuleOp module, Entry entry, const std::map<std::string, Tensor> &inputs,
    std::map<std::string, Tensor> params, const StepsOptions &options) {
  FailureOr<TrainingHyper> hyper = getCompiledHyper(entry);
  if (failed(hyper))
    return std::nullopt;
  StepPlan plan;
  if (!checkNoRuntimeInputs(entry, options.inputAt, "input-at") ||
      !parseStepValues(options.lrAt, "lr-at", "learning rate",
                       /*positive=*/false, options.steps,
                       paramGroupCount(entry), plan.lr) ||
      !parseStepValues(options.maxGradNormAt, "max-grad-norm-at", "clip limit",
                       /*positive=*/true, options.steps, /*groups=*/0,
                       plan.maxGradNorm) ||
      !parseInputsAt(entry, options.inputAt, options.steps, plan))
    return std::nullopt;
  if (!plan.maxGradNorm.empty() && !hyper->maxGradNorm) {
    fail("--max-grad-norm-at: @" + entry.getSymName() +
         " does not clip gradients (it has no max_grad_norm attribute), "
         "expected a training step that clips");
    return std::nullopt;
  }
  std::optional<ag::ParamPackOp> pack;
  if (!options.dumpState.empty() && !(pack = dumpedPack(module)))
    return std::nullopt;

  TrainingState state;
  state.weights = std::move(params);
  if (failed(initializeWeights(module, state, options.precision)) ||
      !checkWeightFileNames(state, "dump-state", pack.has_value()) ||
      !checkWeightFileNames(state, "save-params", false))
    return std::nullopt;

  StepsOutcome outcome;
  std::vector<uint64_t> refused;
  for (uint64_t step = 1; step <= options.steps; ++step) {
    // A new value applies from its step on, as a runtime setter would.
    if (auto it = plan.lr.find(step); it != plan.lr.end())
      for (auto [group, lr] : it->second)
        (group ? hyper->groupLr[group] : hyper->lr) = lr;
    if (auto it = plan.maxGradNorm.find(step); it != plan.maxGradNorm.end())
      hyper->maxGradNorm = it->second.at(0);
    std::map<std::string, Tensor> stepInputs = inputs;
    for (auto &[name, tensor] : plan.inputs[step])
      stepInputs[name] = tensor;

    FailureOr<StepResult> result =
        trainStep(module, entry.getSymName(), stepInputs, state, *hyper,
                  options.precision);
    if (failed(result))
      return std::nullopt;
    if (result->applied) {
      llvm::outs() << "step " << step
                   << ": loss=" << formatValue(result->loss, "%.9g")
                   << " grad_norm=" << formatValue(result->gradNorm, "%.9g")
                   << '\n';
    } else {
      llvm::outs() << "step " << step << ": update not applied: grad_norm is "
                   << formatValue(result->gradNorm, "%.9g")
                   << "; weights, moments and the step counter are "
                      "unchanged\n";
      refused.push_back(step);
    }
    outcome.last = std::move(result->eval);
    if (pack && !dumpState(options.dumpState, step, *pack, state))
      return std::nullopt;
    if (!result->applied && !options.keepGoing)
      break;
  }
  llvm::outs().flush();

  if (!options.saveParams.empty() && !writeWeights(options.saveParams, state))
    return std::nullopt;
  if (refused.empty())
    return outcome;
  outcome.exitCode = 1;
  if (!options.keepGoing) {
    fail("step " + Twine(refused.front()) +
         ": the update was not applied (non-finite gradient norm); stopped "
         "after step " +
         Twine(refused.front()) + " of " + Twine(options.steps) +
         " (pass --keep-going to run the remaining steps)");
    return outcome;
  }
  std::string list;
  for (uint64_t s : refused)
    list += (list.empty() ? "" : ", ") + std::to_string(s);
  fail(Twine(refused.size()) + " of " + Twine(options.steps) +
       " steps were not applied (non-finite gradient norm): step" +
       (refused.size() == 1 ? " " : "s ") + list);
  return outcome;
}
