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
  return ForwardEntry(std::move(module), entry.value());
}

Result<std::vector<NamedTensor>>
ForwardEntry::run(const std::vector<NamedTensor> &inputs,
                  const RunOptions &options) const {
  return module_->run(desc_->name, inputs, options);
}

Result<RunResult> ForwardEntry::runFull(const std::vector<NamedTensor> &inputs,
                                        const RunOptions &options) const {
  return module_->runFull(desc_->name, inputs, options);
}

Result<TrainStep> TrainStep::open(std::shared_ptr<Module> module,
                                  std::string_view name) {
  Result<const EntryDesc *> entry = openEntry(module, name, EntryKind::Train);
  if (entry.isError())
    return entry.status();
  return TrainStep(std::move(module), entry.value());
}

Result<std::vector<NamedTensor>>
TrainStep::step(const std::vector<NamedTensor> &inputs,
                const RunOptions &options) const {
  return module_->run(desc_->name, inputs, options);
}

Status TrainStep::setLearningRate(float lr) const {
  return module_->setLearningRate(desc_->name, lr);
}

Status TrainStep::setMaxGradNorm(float maxGradNorm) const {
  return module_->setMaxGradNorm(desc_->name, maxGradNorm);
}

Status TrainStep::setAdamW(const AdamWDesc &adamw) const {
  return module_->setAdamW(desc_->name, adamw);
}

Result<TrainState> TrainStep::state() const {
  return module_->trainState(desc_->name);
}

Result<AdamWMoments> TrainStep::moments() const {
  return module_->readMoments(desc_->name);
}

Result<TrainGradients> TrainStep::gradients() const {
  return module_->readGradients(desc_->name);
}

Status TrainStep::restoreOptimizer(const AdamWMoments &moments,
                                   uint64_t step) const {
  CAPTURE_RT_RETURN_IF_ERROR(module_->writeMoments(desc_->name, moments));
  return module_->setTrainStep(desc_->name, step);
}

Status TrainStep::resetOptimizer() const {
  return module_->resetOptimizer(desc_->name);
}
