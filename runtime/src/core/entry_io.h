//===- entry_io.h - Matching a call to an entry, on any driver --*- C++ -*-===//
//
// The device-independent half of a run: the caller's inputs and outputs
// matched to the entry's slots, the runtime-filled training inputs, the
// verdicts read from the packed outputs (gradient norm, index statuses) and
// the load-time facts every driver needs (which weights an entry reads, the
// initial Weights and Constants bytes). Drivers own only where the bytes
// live and how the schedule runs. Vulkan-free: part of capture-rt-core.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_CORE_ENTRY_IO_H
#define CAPTURE_RT_CORE_ENTRY_IO_H

#include "capture/rt/module.h"

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace capture::rt {

/// What the runtime keeps for a training entry between steps.
struct TrainRuntime {
  /// Step counter, hyperparameters and clip limit of the next step.
  TrainState state;
  /// Index into EntryDesc::inputs of TrainDesc::hyperInput.
  size_t hyperInput = 0;
  /// Index into EntryDesc::inputs of TrainDesc::maxGradNormInput, when the
  /// entry clips.
  std::optional<size_t> maxGradNormInput;
  /// Index into EntryDesc::outputs of TrainDesc::gradNormOutput.
  size_t gradNormOutput = 0;
  /// Whether a step of the entry has run since load (so the gradient range
  /// holds its gradients).
  bool stepped = false;
};

/// "'a', 'b'" or "none": the names `name(item)` of `items`.
template <typename T, typename F>
std::string nameList(const std::vector<T> &items, F name) {
  std::string s;
  for (const T &item : items)
    s += (s.empty() ? "'" : ", '") + name(item) + "'";
  return s.empty() ? "none" : s;
}

/// Index of entry `name` in `desc`, or an error listing the entries.
Result<size_t> findEntryIndex(const ModuleDesc &desc, std::string_view name);

/// Weight `name` of `desc`, or an error with a suggestion and the list.
Result<const WeightDesc *> findWeight(const ModuleDesc &desc,
                                      std::string_view name);

/// Checks that `got` has `shape`, `dtype` and the bytes they need; `what`
/// names the tensor in the error.
Status checkTensor(const std::string &what, const std::vector<int64_t> &shape,
                   DType dtype, const HostTensor &got);

/// The state of a training entry at load, from its TrainDesc.
TrainRuntime makeTrainRuntime(const EntryDesc &e);

/// Whether input `name` of `entry` is one the runtime fills.
bool isRuntimeFilled(const EntryDesc &entry, const std::string &name);

/// When input `name` of `entry` is one the runtime fills, an error saying
/// so and what to call instead.
Status checkNotRuntimeFilled(const EntryDesc &entry, const std::string &name);

/// Writes the hyperparameter and clip-limit inputs of training entry
/// `entry` into `inputBytes`, the packed image of its Input buffer.
void writeTrainInputs(const EntryDesc &entry, const TrainRuntime &train,
                      uint8_t *inputBytes);

/// After a step of training entry `entry` ran: reads the gradient norm from
/// `outputBytes` (the packed image of its Output buffer) and either counts
/// the step (finite) or returns the error that says it was refused.
Status finishTrainStep(const EntryDesc &entry, TrainRuntime &train,
                       const uint8_t *outputBytes);

/// "'a' f32[2], 'b' i32[]" or "none".
std::string describeSlots(const std::vector<const TensorSlotDesc *> &slots);

/// Per EntryDesc::indexChecks, the index of its output in
/// EntryDesc::outputs (the verifier guarantees exactly one each).
std::vector<size_t> indexCheckOutputsOf(const EntryDesc &entry);

/// Matches `inputs` to the entry's input slots: each exactly once, with the
/// declared shape and dtype, except the inputs the runtime fills (training
/// entries), which must not be given. Fills `given` (parallel to
/// entry.inputs; null for runtime-filled inputs).
Status matchInputs(const EntryDesc &entry,
                   const std::vector<TensorView> &inputs,
                   std::vector<const TensorView *> &given);

/// Matches the caller's output views to the entry's outputs (the ones it
/// returns: not `indexCheckOutputs`); fills `into` (parallel to
/// entry.outputs; null where the output is returned instead).
Status matchOutputs(const EntryDesc &entry,
                    const std::vector<size_t> &indexCheckOutputs,
                    const std::vector<OutputView> &outputs,
                    std::vector<const OutputView *> &into);

/// Indices into entry.probes of the `requested` probes, or an error that
/// says how to add one (an entry without probes) or lists them.
Status matchProbes(const EntryDesc &entry,
                   const std::vector<std::string> &requested,
                   std::vector<size_t> &indices);

/// A copy of `slot`'s bytes, which start at `bytes`, named and shaped.
NamedTensor slotTensor(const TensorSlotDesc &slot, const uint8_t *bytes);

/// The outputs of a run whose packed outputs are `outputBytes`: copied into
/// the caller's views `into` (parallel to entry.outputs, from
/// matchOutputs) where given, else returned in declaration order; the
/// index checks' outputs are the runtime's and neither.
std::vector<NamedTensor> unpackOutputs(
    const EntryDesc &entry, const std::vector<size_t> &indexCheckOutputs,
    const uint8_t *outputBytes, const std::vector<const OutputView *> &into);

/// The first index check of the run whose packed outputs are `outputBytes`
/// that found an index out of range, as an error naming the op, its input,
/// the position and value; `train` is the entry's training state, if any
/// (the error is then a refused step).
Status checkIndexStatuses(const EntryDesc &entry,
                          const std::vector<size_t> &indexCheckOutputs,
                          const uint8_t *outputBytes,
                          const TrainRuntime *train);

/// A call matched to an entry (matchCall).
struct MatchedCall {
  /// Parallel to EntryDesc::inputs: the given input, null for the ones the
  /// runtime fills.
  std::vector<const TensorView *> given;
  /// Parallel to EntryDesc::outputs: the caller's view, or null where the
  /// output is returned.
  std::vector<const OutputView *> into;
  /// Indices into EntryDesc::probes of the requested probes.
  std::vector<size_t> probes;
};

/// Everything a run checks before it touches a buffer, in the order every
/// driver reports it: the weights `entry` reads are set (not in `unset`),
/// then matchInputs, matchOutputs, matchProbes.
Status matchCall(const ModuleDesc &desc, const EntryDesc &entry,
                 const std::vector<size_t> &weightsRead,
                 const std::set<std::string> &unset,
                 const std::vector<size_t> &indexCheckOutputs,
                 const std::vector<TensorView> &inputs,
                 const std::vector<OutputView> &outputs,
                 const std::vector<std::string> &probes, MatchedCall &call);

/// The verdict of a run of `entry` whose packed outputs are `outputBytes`:
/// for a training entry the step counted or refused (finishTrainStep), and
/// an out-of-range index (checkIndexStatuses), which is named instead of
/// the non-finite norm it caused.
Status runVerdict(const EntryDesc &entry,
                  const std::vector<size_t> &indexCheckOutputs,
                  const uint8_t *outputBytes, TrainRuntime *train);

/// Weight `name` of `desc` if `value` may be stored in it (findWeight, then
/// checkTensor); what setParam checks on every driver.
Result<const WeightDesc *> checkParam(const ModuleDesc &desc,
                                      std::string_view name,
                                      const HostTensor &value);

/// The weights (indices into ModuleDesc::weights) whose bytes a dispatch of
/// `entry` binds, in module order.
std::vector<size_t> weightsReadBy(const ModuleDesc &desc,
                                  const EntryDesc &entry);

/// Refuses to run `entry` while a weight of `weightsRead` is in `unset`:
/// zeros there would train or predict silently from nothing.
Status checkWeightsSet(const ModuleDesc &desc, const EntryDesc &entry,
                       const std::vector<size_t> &weightsRead,
                       const std::set<std::string> &unset);

/// The Weights buffer's bytes at load: initial values copied, initializers
/// evaluated, zeros elsewhere; the names of weights without a value are
/// added to `unset`. Empty when the module has no Weights buffer.
std::vector<uint8_t> initialWeights(const ModuleDesc &desc,
                                    std::set<std::string> &unset);

/// A range of the Constants buffer filled with one 32-bit word at load.
struct ConstantFill {
  /// First byte; a multiple of 4.
  uint64_t offset = 0;
  /// Bytes; a multiple of 4.
  uint64_t size = 0;
  /// The word written.
  uint32_t value = 0;
};

/// What the Constants buffer holds past its initial bytes
/// (ModuleDesc::constants): the splat fills and the zeros between them,
/// disjoint and in order. Empty when the module has no Constants buffer.
std::vector<ConstantFill> constantFills(const ModuleDesc &desc);

} // namespace capture::rt

#endif // CAPTURE_RT_CORE_ENTRY_IO_H
