//===- module.h - A loaded module: pipelines, buffers, replays --*- C++ -*-===//
//
// Loading verifies the whole file (capmod.h) and the device limits before
// creating any Vulkan object, then creates one compute pipeline per kernel,
// the buffers, uploads weights and constants once, and records each entry's
// command buffer once. A replay packs the inputs into the entry's mapped
// staging buffer, submits the recorded command buffer (one vkQueueSubmit),
// waits for its fence and unpacks the outputs.
//
// A training entry (EntryKind::Train) replays the same way, as one submit:
// the runtime fills its hyperparameter inputs (AdamW values with the bias
// corrections of the step counter t, the clip limit) into the same staging
// buffer, and the entry's AdamW kernel updates the weights and the moments
// in place. After the submit the runtime reads the pre-clip gradient norm:
// finite, t += 1; not finite, the kernel wrote nothing, t stays and run()
// returns an error saying so. Changing a hyperparameter only changes what
// is written into the staging buffer, never the recorded command buffer.
//
// Eager mode (RunOptions::eager) runs the same kernels with the same
// descriptor sets one submission per dispatch (record, submit, wait), the
// baseline a replay is measured against. Profiling (RunOptions::profile)
// times the host stages of a run and, with timestamp queries, each
// dispatch on the device; an entry's profiled command buffer is recorded on
// its first profiled replay, so unprofiled use records and allocates
// nothing for it.
//
// Not thread-safe: one replay, parameter update or read-back at a time.
// Destroying a Module destroys every Vulkan object it created.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_MODULE_H
#define CAPTURE_RT_MODULE_H

#include "capture/rt/device.h"
#include "capture/rt/module_desc.h"
#include "capture/rt/status.h"
#include "capture/rt/tensor.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace capture::rt {

/// The optimizer state of a training entry, as the runtime holds it.
struct TrainState {
  /// Applied updates so far (t): the next step uses the bias corrections
  /// 1 - beta^(t+1).
  uint64_t step = 0;
  /// Steps refused since load because the gradient norm was not finite.
  uint64_t refusedSteps = 0;
  /// The hyperparameters the next step uses, and the compiled weight-decay
  /// mode (adamw.decoupled): param group 0's.
  AdamWDesc adamw;
  /// Those of param groups 1.. (TrainDesc::groups), as adamw.
  std::vector<AdamWDesc> groups;
  /// The clip limit the next step uses; absent when the entry does not clip.
  std::optional<float> maxGradNorm;
};

/// The AdamW moments of a training entry: flat f32 arrays of the size of its
/// parameter range (TrainDesc::params), element i belonging to the f32 at
/// byte params.offset + 4 * i of the Weights buffer.
struct AdamWMoments {
  /// First moments (torch's exp_avg), shape [params.size / 4].
  HostTensor m;
  /// Second moments (torch's exp_avg_sq), shape [params.size / 4].
  HostTensor v;
};

/// Host time of the stages of one run, in microseconds (steady_clock).
struct HostStages {
  /// Matching the inputs and copying them into the mapped input staging
  /// buffer, with a training entry's hyperparameters.
  double packUs = 0;
  /// Recording the per-dispatch command buffers of an eager run; 0 for a
  /// replay, whose command buffer is recorded in advance.
  double recordUs = 0;
  /// vkQueueSubmit (summed over the submissions of an eager run).
  double submitUs = 0;
  /// Waiting for the fence (summed likewise).
  double waitUs = 0;
  /// Copying the outputs out of the mapped output staging buffer and, for
  /// a training entry, checking the gradient norm.
  double unpackUs = 0;
};

/// The dispatches of one kernel in a profiled run.
struct KernelProfile {
  /// Index into ModuleDesc::kernels.
  uint32_t kernel = 0;
  /// KernelDesc::name.
  std::string name;
  /// Number of dispatches of the kernel in the run.
  uint64_t dispatches = 0;
  /// Their device time, summed, in microseconds; 0 without device times.
  double deviceUs = 0;
};

/// What a profiled run measured (RunOptions::profile).
struct Profile {
  /// The entry that ran.
  std::string entry;
  /// Whether the run was eager.
  bool eager = false;
  /// Queue submissions of the run: 1 for a replay; for an eager run one
  /// per dispatch (one when the entry has no dispatch).
  uint64_t submissions = 0;
  /// Host time of each stage.
  HostStages host;
  /// Whether device times were measured: the compute queue has timestamp
  /// queries (timestampValidBits > 0, timestampPeriod > 0), or the run was
  /// on the host device (hostClock).
  bool hasDeviceTimes = false;
  /// Whether the device times are the host's clock around each launch:
  /// on the host device, whose kernels are calls (no submission, no
  /// timestamps; submissionUs is the launches' sum).
  bool hostClock = false;
  /// Why there are no device times, when hasDeviceTimes is false.
  std::string noDeviceTimes;
  /// Nanoseconds per timestamp tick (VkPhysicalDeviceLimits).
  double timestampPeriodNs = 0;
  /// Valid bits of the queue family's timestamps.
  uint32_t timestampValidBits = 0;
  /// Device time from the first to the last command of the submission,
  /// copies and barriers included; for an eager run, summed over its
  /// submissions (so the host's gaps between them are left out).
  double submissionUs = 0;
  /// Device time of each dispatch in schedule order (barriers skipped),
  /// from the completion of every earlier command to its own completion,
  /// so that dispatches overlapping on a GPU are not counted twice; empty
  /// without device times.
  std::vector<double> dispatchUs;
  /// One per kernel the entry dispatches, in order of first dispatch.
  std::vector<KernelProfile> kernels;
};

class DeferredRun;

/// How Module::run runs an entry.
struct RunOptions {
  /// Runs each dispatch as its own submission (record a command buffer,
  /// submit, wait), the input copy with the first and the output copy with
  /// the last, instead of the one recorded submission. Same kernels,
  /// descriptor sets and results; every command buffer starts with a
  /// barrier against all earlier device writes, so the entry's barriers
  /// are honoured.
  bool eager = false;
  /// When set, the run is profiled into *profile, which is also filled when
  /// a training step is refused (the submission ran). A profiled replay
  /// submits the entry's profiled command buffer, recorded (and counted by
  /// recordCount) on the entry's first profiled replay on a device with
  /// timestamps; the one-off recording is not part of the host stages.
  Profile *profile = nullptr;
  /// Probes of the entry to read back with this call's outputs, in the same
  /// submission (Module::runFull returns them; run() refuses a request,
  /// having nowhere to put them). Without a request nothing extra is
  /// copied or allocated: the entry's probe staging buffer is created on
  /// its first request.
  std::vector<std::string> probes;
  /// When set, the run is deferred (deferred.h): checked and its inputs
  /// packed now, submitted later together with the device's other deferred
  /// runs; *deferred receives its handle, which gives the outputs, and the
  /// call returns none. Not with eager, profile, probes or output views.
  DeferredRun *deferred = nullptr;
};

/// What Module::runFull returns.
struct RunResult {
  /// The entry's outputs, in declaration order.
  std::vector<NamedTensor> outputs;
  /// The requested probes (RunOptions::probes), in request order.
  std::vector<NamedTensor> probes;
};

/// How Module::setParams matches the tensors it is given.
struct SetParamsOptions {
  /// When false, every weight of the module must be given (a missing one is
  /// an error naming it); when true, only the given ones are replaced.
  /// Unknown names and wrong shapes are errors either way.
  bool partial = false;
};

/// The gradients of a training entry's last step (Module::readGradients).
struct TrainGradients {
  /// The flat gradients (before clipping), f32 of shape [params.size / 4]:
  /// element i belongs to the f32 at byte params.offset + 4 * i of the Weights
  /// buffer, as for the moments.
  HostTensor flat;
  /// One tensor per weight inside the parameter range, named and shaped as
  /// the weight: the slice of `flat` at (weight.offset - params.offset).
  std::vector<NamedTensor> perWeight;
};

/// Counters of what replays moved and allocated, for tests and profiling.
struct ReplayCounters {
  /// Bytes copied from the input staging into the Input buffer by the last
  /// replay (inputs unchanged since the entry's last successful replay are
  /// not sent again).
  uint64_t lastUploadBytes = 0;
  /// Copy regions of that upload (one per run of changed bytes).
  uint64_t lastUploadRegions = 0;
  /// vkQueueSubmit calls made by the last run (1 for a replay).
  uint64_t lastSubmits = 0;
  /// Probe staging buffers created so far (one per entry, on its first
  /// probe request).
  uint64_t probeStagingBuffers = 0;
  /// Times the input upload's command buffer was recorded so far: a replay
  /// that sends the same ranges of the same entry as the last one
  /// resubmits it as it is.
  uint64_t uploadRecordings = 0;
};

class Module;

/// How Module::load* creates the module.
struct LoadOptions {
  /// When set, the new module uses this module's Weights buffer instead of
  /// allocating its own: both read and write the same device memory, so a
  /// training step of one is seen by the other with no copy. Every weight
  /// of the new module must exist in `shareWeightsWith` by name with the
  /// same dtype, shape and offset, and both modules must live on the same
  /// device. The buffer is owned jointly: the last module using it frees
  /// it. The new module's initial weight values are not uploaded (the
  /// shared buffer's current values win).
  const Module *shareWeightsWith = nullptr;
};

/// A module loaded on a device, ready to replay its entries.
class Module {
public:
  /// Reads, verifies and loads the module file at `path`.
  static Result<std::unique_ptr<Module>>
  loadFile(std::shared_ptr<Device> device, const std::string &path);

  /// Verifies and loads a module file held in memory.
  static Result<std::unique_ptr<Module>>
  loadBytes(std::shared_ptr<Device> device, const uint8_t *data, size_t size);

  /// Verifies and loads an already parsed module.
  static Result<std::unique_ptr<Module>> load(std::shared_ptr<Device> device,
                                              ModuleDesc desc);

  /// As loadFile, with options (shared weights).
  static Result<std::unique_ptr<Module>>
  loadFile(std::shared_ptr<Device> device, const std::string &path,
           const LoadOptions &options);

  /// As loadBytes, with options (shared weights).
  static Result<std::unique_ptr<Module>>
  loadBytes(std::shared_ptr<Device> device, const uint8_t *data, size_t size,
            const LoadOptions &options);

  /// As load, with options (shared weights).
  static Result<std::unique_ptr<Module>> load(std::shared_ptr<Device> device,
                                              ModuleDesc desc,
                                              const LoadOptions &options);

  ~Module();
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  /// The verified contents of the module file.
  const ModuleDesc &desc() const;

  /// The device the module lives on.
  const Device &device() const;

  /// Entry names, in file order.
  std::vector<std::string> entryNames() const;

  /// The entry named `name`, or an error listing the available entries.
  Result<const EntryDesc *> findEntry(std::string_view name) const;

  /// Replays entry `entry`: every input of the entry must be given exactly
  /// once with the declared shape and dtype (errors name expected and got).
  /// Returns the outputs in declaration order.
  ///
  /// For a training entry, one step: the inputs the runtime fills
  /// (TrainDesc::hyperInput, TrainDesc::maxGradNormInput) must not be
  /// given. The outputs (loss first, grad norm among them) are forward
  /// values from before the update. When the gradient norm is not finite the
  /// update is not applied, the step counter stays, and the result is an
  /// error naming the norm's value; the next call works normally.
  Result<std::vector<NamedTensor>> run(std::string_view entry,
                                       const std::vector<NamedTensor> &inputs);

  /// As run(entry, inputs), eager and/or profiled as `options` say; a
  /// training step keeps its semantics (runtime-filled inputs, refusal of a
  /// non-finite gradient norm, the step counter).
  Result<std::vector<NamedTensor>> run(std::string_view entry,
                                       const std::vector<NamedTensor> &inputs,
                                       const RunOptions &options);

  /// As run(entry, inputs, options), also returning the probes requested in
  /// options.probes, copied out in the same submission. Asking for probes
  /// of an entry without any, or for an unknown probe, is an error (the
  /// latter lists the entry's probes).
  Result<RunResult> runFull(std::string_view entry,
                            const std::vector<NamedTensor> &inputs,
                            const RunOptions &options);

  /// As runFull, reading every input where the caller keeps it (no copy but
  /// the one into the upload's staging) and copying each output named in
  /// `outputs` (any subset, each once, of exactly its size) out of the
  /// download's staging straight into the caller's memory; RunResult then
  /// holds only the outputs not given. Everything is checked before the
  /// submission: a bad view changes nothing.
  Result<RunResult> runViews(std::string_view entry,
                             const std::vector<TensorView> &inputs,
                             const std::vector<OutputView> &outputs,
                             const RunOptions &options);

  /// Sets the learning rate of training entry `entry` for its next steps;
  /// finite and >= 0. Of param group 0, when the entry has several.
  Status setLearningRate(std::string_view entry, float lr);
  /// Sets the learning rate of param group `group` (0: the first) of
  /// training entry `entry`, as setLearningRate; an error naming the
  /// groups there are for one it does not have.
  Status setLearningRate(std::string_view entry, size_t group, float lr);

  /// Sets the gradient clipping limit of training entry `entry` for its next
  /// steps; finite and > 0. An error for an entry compiled without clipping.
  Status setMaxGradNorm(std::string_view entry, float maxGradNorm);

  /// Sets every AdamW hyperparameter of training entry `entry`, checked as
  /// the loader checks the compiled ones (checkAdamW). `adamw.decoupled`
  /// must be the entry's (trainState's): the weight-decay mode is compiled
  /// into its update kernel, so a change is refused.
  Status setAdamW(std::string_view entry, const AdamWDesc &adamw);

  /// Sets the step counter t of training entry `entry`, e.g. to resume
  /// training from saved weights and moments.
  Status setTrainStep(std::string_view entry, uint64_t step);

  /// The step counter and hyperparameters of training entry `entry`.
  Result<TrainState> trainState(std::string_view entry) const;

  /// Reads the AdamW moments of training entry `entry` back from the device,
  /// bit for bit.
  Result<AdamWMoments> readMoments(std::string_view entry);

  /// Writes both AdamW moments of training entry `entry`, each as
  /// readMoments returns them (f32 of shape [params.size / 4]), e.g. to
  /// resume training: with setTrainStep, the optimizer state is restored
  /// bit for bit. Both are checked before either is written.
  Status writeMoments(std::string_view entry, const AdamWMoments &moments);

  /// Reads the flat gradients (before clipping) of the last step of training
  /// entry `entry` back from the device, bit for bit, with a per-weight view.
  /// An error when the module does not describe its gradient range
  /// (TrainDesc::grads) or when the entry has not stepped since load.
  Result<TrainGradients> readGradients(std::string_view entry);

  /// Restarts the optimizer of training entry `entry` without reloading:
  /// both moments are zeroed on the device and the step counter t becomes
  /// 0; the weights, the hyperparameters and the refused-step count (a
  /// count since load) are kept.
  Status resetOptimizer(std::string_view entry);

  /// Makes training entry `entry` continue the optimizer of training entry
  /// `fromEntry` of `from` (another recording of the same step, e.g. at
  /// another batch size, sharing its weights): both moments are copied on
  /// the device, in one submission with no host transit, and the step
  /// counter t is taken. An error, changing nothing, when the modules live
  /// on different devices or the moments differ in size. The
  /// hyperparameters stay this entry's.
  Status copyOptimizerState(std::string_view entry, const Module &from,
                            std::string_view fromEntry);

  /// What the last run moved and what probe requests allocated.
  const ReplayCounters &counters() const;

  /// Number of entry command buffers recorded since the module was created:
  /// the one recording per entry at load, plus one per entry on its first
  /// profiled replay on a device with timestamps (one-shot copies for
  /// parameters and read-backs and the per-dispatch command buffers of eager
  /// runs are not counted). Stays constant while replaying and changing
  /// hyperparameters.
  uint64_t recordCount() const;

  /// Replaces the value of weight `name`; shape and dtype must match.
  Status setParam(std::string_view name, const HostTensor &value);

  /// Reads the current value of weight `name` back from the device.
  Result<HostTensor> getParam(std::string_view name);

  /// Replaces the weights named in `params` in one upload. Every tensor is
  /// checked first (unknown or repeated name, dtype, shape, byte count; and
  /// without options.partial, every weight given), so on error nothing has
  /// changed; the message names the weight.
  Status setParams(const std::vector<NamedTensor> &params,
                   const SetParamsOptions &options = SetParamsOptions());

  /// Reads every weight back in one read-back, in module order.
  Result<std::vector<NamedTensor>> getParams();

  /// Reads probe `probe` of entry `entry` as left by the last replay. Fails
  /// when the last replay was of another entry (which may have overwritten
  /// the scratch memory probes live in) or when there was none.
  Result<HostTensor> readProbe(std::string_view entry, std::string_view probe);

  /// Internal state; defined in src/module_impl.h.
  struct Impl;

private:
  /// Test-only access to the internals (runtime/test/module_access.h).
  friend struct ModuleTestAccess;
  /// The handles (entry.h) resolve their entry once and call the *At
  /// methods with its index.
  friend class ForwardEntry;
  friend class TrainStep;
  explicit Module(std::unique_ptr<Impl> impl);

  // The per-entry calls on the entry at `index` (in desc().entries), which
  // the caller resolved: the name-taking methods above, or a handle once
  // when opened. The training calls need a Train entry there.

  /// run() on the entry at `index`.
  Result<std::vector<NamedTensor>> runAt(size_t index,
                                         const std::vector<NamedTensor> &inputs,
                                         const RunOptions &options);
  /// runFull() on the entry at `index`.
  Result<RunResult> runFullAt(size_t index,
                              const std::vector<NamedTensor> &inputs,
                              const RunOptions &options);
  /// runViews() on the entry at `index`.
  Result<RunResult> runViewsAt(size_t index,
                               const std::vector<TensorView> &inputs,
                               const std::vector<OutputView> &outputs,
                               const RunOptions &options);
  /// setLearningRate() of param group `group` of the entry at `index`.
  Status setLearningRateAt(size_t index, size_t group, float lr);
  /// setMaxGradNorm() on the entry at `index`.
  Status setMaxGradNormAt(size_t index, float maxGradNorm);
  /// setAdamW() on the entry at `index`.
  Status setAdamWAt(size_t index, const AdamWDesc &adamw);
  /// setTrainStep() on the entry at `index`.
  void setTrainStepAt(size_t index, uint64_t step);
  /// trainState() of the entry at `index`.
  TrainState trainStateAt(size_t index) const;
  /// readMoments() of the entry at `index`.
  Result<AdamWMoments> readMomentsAt(size_t index);
  /// writeMoments() on the entry at `index`.
  Status writeMomentsAt(size_t index, const AdamWMoments &moments);
  /// readGradients() of the entry at `index`.
  Result<TrainGradients> readGradientsAt(size_t index);
  /// resetOptimizer() on the entry at `index`.
  Status resetOptimizerAt(size_t index);

  /// Vulkan objects and per-entry state.
  std::unique_ptr<Impl> impl_;
};

} // namespace capture::rt

#endif // CAPTURE_RT_MODULE_H
