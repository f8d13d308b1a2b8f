//===- cli.h - capture-run's options and shared output helpers --*- C++ -*-===//
//
// options.cpp parses the command line; capture-run.cpp loads the module and
// replays forward entries; train_steps.cpp runs the steps of training
// entries; report.cpp prints and writes what a run ends with, as text or
// JSON (json.h), with the profile of profile_report.cpp; info.cpp
// describes a module without running it; progress.h draws the progress
// line.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RUN_CLI_H
#define CAPTURE_RUN_CLI_H

#include "capture/rt/cpu_threads_advice.h"
#include "capture/rt/module.h"

#include "json.h"

#include <cstdint>
#include <map>
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
  /// The param group (--lr-at K=VALUE@G); absent when not given.
  std::optional<size_t> group;
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
  /// --cpu-threads N: llvmpipe's thread count (DeviceOptions::cpuThreads).
  std::optional<int> cpuThreads;
  /// --cpu-threads auto (the default without a count): the count
  /// rt::adviseCpuThreads gives for the module.
  bool cpuThreadsAuto = true;
  /// Whether --cpu-threads was given (a usage error with --info).
  bool cpuThreadsGiven = false;
  /// --wait auto|block|spin (DeviceOptions::waitPolicy); absent: auto.
  std::optional<rt::WaitPolicy> wait;
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
  /// --load-state: a directory --dump-state wrote (DIR/step-K); empty when
  /// not given.
  std::string loadState;
  /// --params-dir: every weight from DIR/<weight>.npy; empty when not given.
  std::string paramsDir;
  /// --inputs-dir: DIR/step-K/<input>.npy replace inputs at step K (a
  /// directory per step); empty when not given.
  std::string inputsDir;
  /// --print NAME...: scalar outputs printed on every step line.
  std::vector<std::string> printOutputs;
  /// --eager: one submission per dispatch.
  bool eager = false;
  /// --profile: host stages and per-kernel device time.
  bool profile = false;
  /// --json: one JSON object on stdout instead of text.
  bool json = false;
  /// --info: describe the module, run nothing.
  bool info = false;
  /// --graph: print entries' dispatches, run nothing.
  bool graph = false;
};

/// One step of a training run, for the JSON report.
struct StepRecord {
  /// 1-based step number.
  uint64_t step = 0;
  /// Whether the update was applied (else refused: non-finite norm).
  bool applied = false;
  /// Output 0, when applied.
  double loss = 0;
  /// The gradient norm output, when applied.
  double gradNorm = 0;
  /// The runtime's message, when refused.
  std::string refusal;
  /// The --print outputs, when applied, in option order.
  std::vector<std::pair<std::string, double>> printed;
};

/// The `q`-quantile (0..1) of `samples`, nearest rank; 0 without samples.
double quantile(std::vector<double> samples, double q);

/// The profiles of every call of a run, summed (profile_report.cpp).
struct ProfileTotals {
  /// Profiled calls.
  uint64_t runs = 0;
  /// Host stages, submission and kernel times and dispatch counts summed
  /// over the calls; the other fields as the last call left them.
  rt::Profile sum;
  /// Each call's host overhead (pack + record + submit + unpack, not the
  /// wait), in microseconds: its median is the figure to compare, since a
  /// first call's one-off work would lift a mean.
  std::vector<double> hostOverheadUs;
  /// Each kernel's device time in each call (by kernel index): the
  /// median per call is what to compare, since a first call includes
  /// llvmpipe's compilation of the kernels and a loaded machine spikes.
  std::map<uint32_t, std::vector<double>> kernelCallUs;
};

/// What a run did, for the report at its end.
struct RunRecord {
  /// Calls of Module::run (replays or steps).
  uint64_t calls = 0;
  /// Host wall-clock time of those calls, summed, in microseconds.
  double totalUs = 0;
  /// The fastest call, in microseconds.
  double minUs = 0;
  /// Every call's time, in order, in microseconds (for percentiles).
  std::vector<double> callUs;
  /// Training steps, in order (empty for a forward entry).
  std::vector<StepRecord> steps;
  /// Present with --profile.
  std::optional<ProfileTotals> profile;

  /// The `q`-quantile (0..1) of the call times, nearest rank; 0 without
  /// calls.
  double quantileUs(double q) const;

  /// Counts one call of `us` microseconds.
  void addCall(double us);
};

/// Parses argv into `opts` (options.cpp); returns an error message for bad
/// usage. Sets `help` for -h/--help.
std::optional<std::string> parseArgs(int argc, char **argv, Options &opts,
                                     bool &help);

/// Options that only make sense for a training entry are usage errors for
/// forward entry `entry` (options.cpp).
std::optional<std::string> checkForwardOptions(const Options &opts,
                                               const rt::EntryDesc &entry);

/// Prints the usage text to stdout (options.cpp).
void printUsage();

/// Prints "capture-run: error: MESSAGE" and a pointer to --help; returns 2.
int usageError(const std::string &message);

/// Prints "capture-run: error: MESSAGE"; returns 1.
int runtimeError(const std::string &message);

/// "spin (auto: llvmpipe runs without its pool and this process may use 4
/// CPUs; --wait block|spin to change)", "block (--wait)".
std::string describeWait(const rt::Device &device);

/// "0 (Capture default; set LP_NUM_THREADS or --cpu-threads to change)":
/// the llvmpipe thread count of `device`, in capture-run's words (report.cpp).
std::string describeCpuThreads(const rt::Device &device);

/// "environment", "option" or "default": where the llvmpipe thread count
/// came from, for --json (report.cpp).
const char *cpuThreadsSourceKey(const rt::CpuThreadsSetting &setting);

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

/// Replaces every weight of the module by DIR/<weight>.npy in one upload;
/// a missing or mismatched file is an error naming it, and then nothing
/// changed.
rt::Status readWeights(rt::Module &module, const std::string &dir,
                       const char *option);

/// Prints and writes what every run ends with: `outputs` (of the last
/// replay that returned them), the --probe values, --output-dir,
/// --save-params, the number of recorded command buffers, the timing and
/// the profile of `record`; with --json all of it (and the steps) as one
/// JSON object. Returns an exit code (0 on success) (report.cpp).
/// `probes` are the --probe values, read with the last call's outputs
/// (RunOptions::probes).
int report(const Options &opts, rt::Module &module, const std::string &entry,
           const std::vector<rt::NamedTensor> &outputs,
           const std::vector<rt::NamedTensor> &probes, const RunRecord &record);

/// Adds the profile of one call to `totals` (profile_report.cpp).
void addProfile(ProfileTotals &totals, const rt::Profile &profile);

/// Prints the profile table: per kernel its dispatches, device time and
/// share, then the submission's device time and the host stages per call
/// (profile_report.cpp).
void printProfile(const ProfileTotals &totals);

/// Writes the profile as a JSON object (profile_report.cpp).
void writeProfileJson(JsonWriter &json, const ProfileTotals &totals);

/// --info and --graph: describes the module without a device; returns the
/// exit code (info.cpp).
int describeModule(const Options &opts);

/// Checks the training options against training entry `entry`; returns a
/// usage error message, if any (train_steps.cpp).
std::optional<std::string> checkTrainOptions(const Options &opts,
                                             rt::Module &module,
                                             const rt::EntryDesc &entry);

/// Runs the --steps of training entry `entry` on `inputs` (the fixed
/// --input values), printing a line per step (unless --json), then reports;
/// returns the exit code: 1 when a step was refused (train_steps.cpp).
int runTrainSteps(const Options &opts, rt::Module &module,
                  const rt::EntryDesc &entry,
                  const std::vector<rt::NamedTensor> &inputs);

} // namespace capture::run

#endif // CAPTURE_RUN_CLI_H
