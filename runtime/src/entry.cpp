//===- entry.cpp - Forward entries and training steps as objects ----------===//

#include "capture/rt/entry.h"

using namespace capture::rt;

/// The entry `name` of `module` if it has kind `kind`, else an error naming
/// what was asked for and what was found.
static Result<const EntryDesc *>
openEntry(const std::shared_ptr<Module> &module, std::string_view name,
          EntryKind kind) {
  if (!module)
    return Status::error("cannot open entry '" + std::string(name) +
                         "': the module is null");
  Result<const EntryDesc *> entry = module->findEntry(name);
  if (entry.isError())
    return entry.status();
  if (entry.value()->kind != kind)
    return Status::error("entry '" + std::string(name) + "' is a " +
                         entryKindName(entry.value()->kind) +
                         " entry, expected a " + entryKindName(kind) +
                         " entry (" +
                         (kind == EntryKind::Train ? "open it as a ForwardEntry"
                                                   : "open it as a TrainStep") +
                         ")");
  return entry.value();
}

Result<ForwardEntry> ForwardEntry::open(std::shared_ptr<Module> module,
                                        std::string_view name) {
  Result<const EntryDesc *> entry = openEntry(module, name, EntryKind::Forward);
  if (entry.isError())
    return entry.status();
  size_t index =
      static_cast<size_t>(entry.value() - module->desc().entries.data());
  return ForwardEntry(std::move(module), entry.value(), index);
}

Result<std::vector<NamedTensor>>
ForwardEntry::run(const std::vector<NamedTensor> &inputs,
                  const RunOptions &options) const {
  return module_->runAt(index_, inputs, options);
}

Result<RunResult> ForwardEntry::runFull(const std::vector<NamedTensor> &inputs,
                                        const RunOptions &options) const {
  return module_->runFullAt(index_, inputs, options);
}

Result<TrainStep> TrainStep::open(std::shared_ptr<Module> module,
                                  std::string_view name) {
  Result<const EntryDesc *> entry = openEntry(module, name, EntryKind::Train);
  if (entry.isError())
    return entry.status();
  size_t index =
      static_cast<size_t>(entry.value() - module->desc().entries.data());
  return TrainStep(std::move(module), entry.value(), index);
}

Result<std::vector<NamedTensor>>
TrainStep::step(const std::vector<NamedTensor> &inputs,
                const RunOptions &options) const {
  return module_->runAt(index_, inputs, options);
}

Status TrainStep::setLearningRate(float lr) const {
  return module_->setLearningRateAt(index_, 0, lr);
}

Status TrainStep::setMaxGradNorm(float maxGradNorm) const {
  return module_->setMaxGradNormAt(index_, maxGradNorm);
}

Status TrainStep::setAdamW(const AdamWDesc &adamw) const {
  return module_->setAdamWAt(index_, adamw);
}

Result<TrainState> TrainStep::state() const {
  return module_->trainStateAt(index_);
}

Result<AdamWMoments> TrainStep::moments() const {
  return module_->readMomentsAt(index_);
}

Result<TrainGradients> TrainStep::gradients() const {
  return module_->readGradientsAt(index_);
}

Status TrainStep::restoreOptimizer(const AdamWMoments &moments,
                                   uint64_t step) const {
  CAPTURE_RT_RETURN_IF_ERROR(module_->writeMomentsAt(index_, moments));
  module_->setTrainStepAt(index_, step);
  return Status::ok();
}

Status TrainStep::resetOptimizer() const {
  return module_->resetOptimizerAt(index_);
}
