//===- entry.h - Forward entries and training steps as objects --*- C++ -*-===//
//
// Handles on one entry of a loaded module, for code that holds "the policy"
// or "the training step" rather than a module and an entry name. Each
// handle shares ownership of its module, so the module (and its device)
// lives as long as any handle; destroying the last owner frees every Vulkan
// object. Opening resolves the entry and checks its kind, once: a handle's
// calls never look the entry up by name, nor fail for a wrong-kind or
// unknown entry.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_ENTRY_H
#define CAPTURE_RT_ENTRY_H

#include "capture/rt/module.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace capture::rt {

/// A forward entry (inputs -> outputs) of a loaded module.
class ForwardEntry {
public:
  /// The forward entry `name` of `module`; an error when there is none or
  /// it is a training step.
  static Result<ForwardEntry> open(std::shared_ptr<Module> module,
                                   std::string_view name);

  /// Replays the entry once (Module::run).
  Result<std::vector<NamedTensor>>
  run(const std::vector<NamedTensor> &inputs,
      const RunOptions &options = RunOptions()) const;

  /// Replays the entry once and reads the probes `options.probes` names
  /// back with the outputs (Module::runFull).
  Result<RunResult> runFull(const std::vector<NamedTensor> &inputs,
                            const RunOptions &options) const;

  /// The entry's description: inputs, outputs, probes.
  const EntryDesc &desc() const { return *desc_; }
  /// The module the entry belongs to.
  Module &module() const { return *module_; }

private:
  ForwardEntry(std::shared_ptr<Module> module, const EntryDesc *desc,
               size_t index)
      : module_(std::move(module)), desc_(desc), index_(index) {}
  /// Shared ownership of the module.
  std::shared_ptr<Module> module_;
  /// The entry, owned by the module's description.
  const EntryDesc *desc_;
  /// Its index in the module's entries: calls do not look it up by name.
  size_t index_;
};

/// A training step (forward, backward, clipping, AdamW) of a loaded module.
class TrainStep {
public:
  /// The training entry `name` of `module`; an error when there is none or
  /// it is a forward entry.
  static Result<TrainStep> open(std::shared_ptr<Module> module,
                                std::string_view name);

  /// Runs one step (Module::run): the outputs from before the update, or an
  /// error, e.g. when the gradient norm is not finite and nothing changed.
  Result<std::vector<NamedTensor>>
  step(const std::vector<NamedTensor> &inputs,
       const RunOptions &options = RunOptions()) const;

  /// Sets the learning rate of the next steps.
  Status setLearningRate(float lr) const;
  /// Sets the clip limit of the next steps (entries that clip).
  Status setMaxGradNorm(float maxGradNorm) const;
  /// Sets every AdamW hyperparameter of the next steps; the weight-decay
  /// mode (adamw.decoupled) must stay the compiled one (Module::setAdamW).
  Status setAdamW(const AdamWDesc &adamw) const;
  /// The step counter t and the hyperparameters.
  Result<TrainState> state() const;
  /// Both AdamW moments, read back bit for bit.
  Result<AdamWMoments> moments() const;
  /// Writes both moments (as moments() returns them) and the step counter
  /// t: with the weights (Module::setParams), a saved optimizer state
  /// resumes bit for bit. The moments are checked before anything changes.
  Status restoreOptimizer(const AdamWMoments &moments, uint64_t step) const;
  /// The last step's gradients (before clipping).
  Result<TrainGradients> gradients() const;
  /// Zeroes both moments and t, keeping the weights.
  Status resetOptimizer() const;

  /// The entry's description: inputs, outputs, the train record.
  const EntryDesc &desc() const { return *desc_; }
  /// The module the entry belongs to.
  Module &module() const { return *module_; }

private:
  TrainStep(std::shared_ptr<Module> module, const EntryDesc *desc, size_t index)
      : module_(std::move(module)), desc_(desc), index_(index) {}
  /// Shared ownership of the module.
  std::shared_ptr<Module> module_;
  /// The entry, owned by the module's description.
  const EntryDesc *desc_;
  /// Its index in the module's entries: calls do not look it up by name.
  size_t index_;
};

} // namespace capture::rt

#endif // CAPTURE_RT_ENTRY_H
