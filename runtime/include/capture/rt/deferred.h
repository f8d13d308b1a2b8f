//===- deferred.h - Runs submitted later, together, in one submission -----===//
//
// A run made with RunOptions::deferred is checked and its inputs packed at
// once, but its submission waits: the deferred runs of a device go to the
// queue together, in the order deferred, in ONE vkQueueSubmit with one wait,
// when something needs them:
//   - a DeferredRun's take() (its outputs, or its error);
//   - any other submission on the device, by any of its modules (a run that
//     is not deferred, a weight read or write, a moments read or write),
//     which takes the waiting runs along, ahead of its own commands;
//   - a host read or change of what they change: trainState, setTrainStep,
//     resetOptimizer, readGradients, readProbe;
//   - a second deferred run of a module that has one waiting (the waiting
//     one holds the module's input staging and upload command buffer);
//   - Device::submitDeferred, or the destruction of a module with a run
//     waiting.
// So several modules stepping over shared weights (SAC's critics, actor and
// temperature, then the target networks' soft update) cost one submission
// and one wait, and no work ever sees state from before a run deferred
// ahead of it. Each entry command buffer starts with a barrier against all
// earlier commands (recordSubmissionStart), so the runs are ordered on the
// device as they would be in separate submissions.
//
// Hyperparameters (setLearningRate, setMaxGradNorm, setAdamW) are packed
// with the inputs: a change made after a step was deferred applies from the
// next step on, as it would after a run that was not deferred.
//
// Errors: everything a run checks before submitting (inputs, unset weights)
// is an error of the deferring call. What the submission finds (a refused
// training step, an index out of range, a failed submission) is the error
// of that run's take(); a refused step leaves its state unchanged as
// always, and the runs deferred after it still ran (on that unchanged
// state). A DeferredRun destroyed before take() drops its result; the run
// itself still happens.
//
// Like the rest of a Device, the queue of waiting runs is not locked:
// defer and submit from one thread.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_DEFERRED_H
#define CAPTURE_RT_DEFERRED_H

#include "capture/rt/module.h"

#include <memory>

namespace capture::rt {

/// The handle of one deferred run (RunOptions::deferred): its result, once
/// its submission has happened.
class DeferredRun {
public:
  DeferredRun() = default;
  /// Handles are moved, not copied: a result is taken once.
  DeferredRun(DeferredRun &&other) noexcept;
  DeferredRun &operator=(DeferredRun &&other) noexcept;
  DeferredRun(const DeferredRun &) = delete;
  DeferredRun &operator=(const DeferredRun &) = delete;
  /// Drops the result when it was not taken (the run still happens).
  ~DeferredRun();

  /// Whether this handle holds a run whose result was not taken yet.
  bool valid() const { return ticket_ != 0; }

  /// Whether the run's submission has completed, so that take() will not
  /// submit.
  bool done() const;

  /// The run's outputs or error, submitting the device's deferred runs
  /// first when they still wait. Once: the handle is empty afterwards, and
  /// an empty handle's take() is an error.
  Result<RunResult> take();

private:
  friend class Module;
  DeferredRun(std::shared_ptr<Device> device, uint64_t ticket);
  /// Forgets the result (destructor and move-assignment).
  void reset();

  /// The device whose queue holds the run.
  std::shared_ptr<Device> device_;
  /// Its ticket on that device; 0 when empty.
  uint64_t ticket_ = 0;
};

} // namespace capture::rt

#endif // CAPTURE_RT_DEFERRED_H
