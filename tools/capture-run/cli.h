//===- cli.h - capture-run's options and shared output helpers --*- C++ -*-===//
//
// capture-run.cpp parses the command line and replays forward entries;
// train_steps.cpp runs the steps of training entries. Both print and write
// results through the helpers declared here.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RUN_CLI_H
#define CAPTURE_RUN_CLI_H

#include "capture/rt/module.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace capture::run {

/// A NAME=PATH argument.
struct NamedPath {
  /// Tensor name.
  std::string name;
  /// .npy file.
  std::string path;
};

/// A K=VALUE argument (--lr-at, --max-grad-norm-at).
struct StepValue {
  /// 1-based step before which the value applies.
  uint64_t step = 0;
  /// The value.
  float value = 0;
  /// The argument as given, for messages.
  std::string text;
};

/// A K:NAME=FILE.npy argument (--input-at).
struct StepInput {
  /// 1-based step whose input it replaces.
  uint64_t step = 0;
  /// Input name and .npy file.
  NamedPath input;
  /// The argument as given, for messages.
  std::string text;
};

/// Parsed command line.
struct Options {
  /// FILE.capmod.
  std::string module;
  /// --entry; empty when not given.
  std::string entry;
  /// --input, in order.
  std::vector<NamedPath> inputs;
  /// --param, in order.
  std::vector<NamedPath> params;
  /// --output-dir; empty when not given.
  std::string outputDir;
  /// --repeat (forward entries).
  std::optional<uint64_t> repeat;
  /// --device; empty when not given.
  std::string device;
  /// --probe, in order.
  std::vector<std::string> probes;
  /// --steps (training entries).
  std::optional<uint64_t> steps;
  /// --keep-going: run every step even after a refused one.
  bool keepGoing = false;
  /// --lr-at, in order.
  std::vector<StepValue> lrAt;
  /// --max-grad-norm-at, in order.
  std::vector<StepValue> maxGradNormAt;
  /// --input-at, in order.
  std::vector<StepInput> inputAt;
  /// --save-params; empty when not given.
  std::string saveParams;
  /// --dump-state; empty when not given.
  std::string dumpState;
};

/// Prints "capture-run: error: MESSAGE" and the usage text; returns 2.
int usageError(const std::string &message);

/// Prints "capture-run: error: MESSAGE"; returns 1.
int runtimeError(const std::string &message);

/// Prints "KIND NAME [shape]: v0 v1 ..." with at most 8 values.
void printTensor(const char *kind, const std::string &name,
                 const rt::HostTensor &t);

/// Creates directory `dir` (and its parents); `option` names the option
/// that asked for it in the message.
rt::Status makeDirectory(const std::string &dir, const char *option);

/// Writes DIR/NAME.npy, refusing names that are not file names; `option`
/// names the option that asked for it in the message.
rt::Status writeTensor(const std::string &dir, const std::string &name,
                       const rt::HostTensor &t, const char *option);

/// Writes DIR/<weight>.npy for every weight of the module.
rt::Status writeWeights(rt::Module &module, const std::string &dir,
                        const char *option);

/// Prints and writes what every run ends with: `outputs` (of the last
/// replay that returned them), the --probe values, --output-dir,
/// --save-params and the number of recorded command buffers. Returns an
/// exit code (0 on success).
int report(const Options &opts, rt::Module &module, const std::string &entry,
           const std::vector<rt::NamedTensor> &outputs);

/// Checks the training options against training entry `entry`; returns a
/// usage error message, if any (train_steps.cpp).
std::optional<std::string> checkTrainOptions(const Options &opts,
                                             rt::Module &module,
                                             const rt::EntryDesc &entry);

/// Runs the --steps of training entry `entry` on `inputs` (the fixed
/// --input values), printing a line per step, then reports; returns the
/// exit code: 1 when a step was refused (train_steps.cpp).
int runTrainSteps(const Options &opts, rt::Module &module,
                  const rt::EntryDesc &entry,
                  const std::vector<rt::NamedTensor> &inputs);

} // namespace capture::run

#endif // CAPTURE_RUN_CLI_H
