//===- entry_io.cpp - Matching a call to an entry, on any driver ----------===//

#include "entry_io.h"

#include "capture/rt/capmod.h"
#include "capture/rt/initializer.h"
#include "capture/rt/suggest.h"
#include "check_util.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

namespace capture::rt {

std::string describeSlots(const std::vector<const TensorSlotDesc *> &slots) {
  std::string s;
  for (const TensorSlotDesc *slot : slots)
    s += (s.empty() ? "'" : ", '") + slot->name + "' " +
         formatType(slot->shape, slot->dtype);
  return s.empty() ? "none" : s;
}

Status checkIndexStatuses(const EntryDesc &entry,
                          const std::vector<size_t> &indexCheckOutputs,
                          const uint8_t *outputBytes,
                          const TrainRuntime *train) {
  for (size_t k = 0; k < entry.indexChecks.size(); ++k) {
    const IndexCheckDesc &c = entry.indexChecks[k];
    const TensorSlotDesc &slot = entry.outputs[indexCheckOutputs[k]];
    int32_t status[2];
    std::memcpy(status, outputBytes + slot.offset, sizeof(status));
    if (status[0] < 0)
      continue;
    std::string what = c.op + (c.location.empty() ? "" : " at " + c.location);
    std::string source = c.input.empty() ? std::string("its (computed) indices")
                                         : "input '" + c.input + "'";
    std::string outcome =
        train ? "the step was refused: weights, moments and the step "
                "counter (t = " +
                    std::to_string(train->state.step) + ") are unchanged"
              : std::string("no outputs are returned");
    // A training step refused for a bad index is a refusal like a
    // non-finite norm (the update was not applied).
    return Status::error("entry '" + entry.name + "': " + what + ": " + source +
                             " has " + std::to_string(status[1]) +
                             " at position " + std::to_string(status[0]) +
                             ", expected an index in [0, " +
                             std::to_string(c.bound) + "); " + outcome,
                         train ? StatusCode::UpdateRefused : StatusCode::Error);
  }
  return Status::ok();
}

Status checkWeightsSet(const ModuleDesc &desc, const EntryDesc &entry,
                       const std::vector<size_t> &weightsRead,
                       const std::set<std::string> &unset) {
  if (unset.empty())
    return Status::ok();
  std::vector<const WeightDesc *> unsetRead;
  for (size_t w : weightsRead)
    if (unset.count(desc.weights[w].name))
      unsetRead.push_back(&desc.weights[w]);
  if (unsetRead.empty())
    return Status::ok();
  bool many = unsetRead.size() > 1;
  std::string names;
  for (const WeightDesc *w : unsetRead)
    names += (names.empty() ? "'" : ", '") + w->name + "' " +
             formatType(w->shape, w->dtype);
  const WeightDesc &first = *unsetRead.front();
  return Status::error(
      "entry '" + entry.name + "' reads weight" + (many ? "s " : " ") + names +
      " that the module gives no initial value and that " +
      (many ? "were" : "was") + " never set: set " + (many ? "them" : "it") +
      " with Module::setParam or setParams (capture-run: --param " +
      first.name + "=FILE.npy), or give " + (many ? "each" : "it") +
      " an initializer in the model (ag.weight @" + first.name +
      " ... = #ag.init<...>)");
}

Status matchInputs(const EntryDesc &entry,
                   const std::vector<TensorView> &inputs,
                   std::vector<const TensorView *> &given) {
  std::string where = "entry '" + entry.name + "': ";
  std::vector<bool> runtimeFilled(entry.inputs.size(), false);
  std::vector<const TensorSlotDesc *> expected;
  for (size_t j = 0; j < entry.inputs.size(); ++j) {
    runtimeFilled[j] = isRuntimeFilled(entry, entry.inputs[j].name);
    if (!runtimeFilled[j])
      expected.push_back(&entry.inputs[j]);
  }
  given.assign(entry.inputs.size(), nullptr);
  for (const TensorView &in : inputs) {
    size_t j = 0;
    while (j < entry.inputs.size() && entry.inputs[j].name != in.name)
      ++j;
    std::string name(in.name);
    if (j == entry.inputs.size())
      return Status::error(where + "unknown input '" + name + "'" +
                           suggestNameIn(name, expected) +
                           "; expected inputs: " + describeSlots(expected));
    CAPTURE_RT_RETURN_IF_ERROR(checkNotRuntimeFilled(entry, name));
    const TensorSlotDesc &slot = entry.inputs[j];
    if (given[j])
      return Status::error(where + "input '" + name + "' given twice");
    if (in.rank != slot.shape.size() ||
        !std::equal(slot.shape.begin(), slot.shape.end(), in.shape) ||
        in.dtype != slot.dtype)
      return Status::error(where + "input '" + slot.name + "' has shape " +
                           formatType(slot.shape, slot.dtype) + ", got " +
                           formatType(in.shapeVector(), in.dtype));
    if (in.bytes != slot.size || (slot.size && !in.data))
      return Status::error(where + "input '" + slot.name + "' of shape " +
                           formatType(slot.shape, slot.dtype) + " needs " +
                           std::to_string(slot.size) + " bytes of data, got " +
                           std::to_string(in.data ? in.bytes : 0));
    given[j] = &in;
  }
  std::vector<const TensorSlotDesc *> missing;
  for (size_t j = 0; j < entry.inputs.size(); ++j)
    if (!given[j] && !runtimeFilled[j])
      missing.push_back(&entry.inputs[j]);
  if (!missing.empty())
    return Status::error(
        where + "missing input" + (missing.size() > 1 ? "s " : " ") +
        describeSlots(missing) + " (got " + std::to_string(inputs.size()) +
        " of " + std::to_string(expected.size()) + " inputs)");
  return Status::ok();
}

Status matchOutputs(const EntryDesc &entry,
                    const std::vector<size_t> &indexCheckOutputs,
                    const std::vector<OutputView> &outputs,
                    std::vector<const OutputView *> &into) {
  std::string where = "entry '" + entry.name + "': ";
  into.assign(entry.outputs.size(), nullptr);
  auto internal = [&](size_t o) {
    return std::find(indexCheckOutputs.begin(), indexCheckOutputs.end(), o) !=
           indexCheckOutputs.end();
  };
  for (const OutputView &out : outputs) {
    size_t o = 0;
    while (o < entry.outputs.size() &&
           (entry.outputs[o].name != out.name || internal(o)))
      ++o;
    std::string name(out.name);
    if (o == entry.outputs.size()) {
      std::vector<const TensorSlotDesc *> known;
      for (size_t k = 0; k < entry.outputs.size(); ++k)
        if (!internal(k))
          known.push_back(&entry.outputs[k]);
      return Status::error(where + "unknown output '" + name +
                           "'; expected outputs: " + describeSlots(known));
    }
    const TensorSlotDesc &slot = entry.outputs[o];
    if (into[o])
      return Status::error(where + "output '" + name + "' given twice");
    if (out.bytes != slot.size || (slot.size && !out.data))
      return Status::error(where + "output '" + name + "' " +
                           formatType(slot.shape, slot.dtype) + " needs " +
                           std::to_string(slot.size) +
                           " bytes of memory, got " +
                           std::to_string(out.data ? out.bytes : 0));
    into[o] = &out;
  }
  return Status::ok();
}

TrainRuntime makeTrainRuntime(const EntryDesc &e) {
  const TrainDesc &t = *e.train;
  TrainRuntime r;
  r.state.adamw = t.adamw;
  r.state.groups = t.groups;
  r.state.maxGradNorm = t.maxGradNorm;
  // The verifier guarantees that every name is found.
  for (size_t i = 0; i < e.inputs.size(); ++i) {
    if (e.inputs[i].name == t.hyperInput)
      r.hyperInput = i;
    else if (t.maxGradNorm && e.inputs[i].name == t.maxGradNormInput)
      r.maxGradNormInput = i;
  }
  for (size_t i = 0; i < e.outputs.size(); ++i)
    if (e.outputs[i].name == t.gradNormOutput)
      r.gradNormOutput = i;
  return r;
}

bool isRuntimeFilled(const EntryDesc &entry, const std::string &name) {
  return entry.train && (name == entry.train->hyperInput ||
                         (!entry.train->maxGradNormInput.empty() &&
                          name == entry.train->maxGradNormInput));
}

Status checkNotRuntimeFilled(const EntryDesc &entry, const std::string &name) {
  if (!isRuntimeFilled(entry, name))
    return Status::ok();
  std::string where = "entry '" + entry.name + "': input '" + name +
                      "' is filled by the runtime ";
  if (name == entry.train->hyperInput)
    return Status::error(where + "(AdamW hyperparameters and bias "
                                 "corrections); set them with "
                                 "setLearningRate or setAdamW");
  return Status::error(where + "(the gradient clipping limit); set it with "
                               "setMaxGradNorm");
}

void writeTrainInputs(const EntryDesc &entry, const TrainRuntime &train,
                      uint8_t *inputBytes) {
  size_t at = entry.inputs[train.hyperInput].offset;
  for (size_t g = 0; g <= train.state.groups.size(); ++g) {
    const AdamWDesc &a = g ? train.state.groups[g - 1] : train.state.adamw;
    std::array<double, kAdamWHyperValues> h = adamWHyperValues(
        a.lr, a.beta1, a.beta2, a.eps, a.weightDecay, train.state.step);
    float values[kAdamWHyperValues];
    for (unsigned k = 0; k < kAdamWHyperValues; ++k)
      values[k] = static_cast<float>(h[k]);
    std::memcpy(inputBytes + at, values, sizeof(values));
    at += sizeof(values);
  }
  if (train.maxGradNormInput) {
    float limit = *train.state.maxGradNorm;
    std::memcpy(inputBytes + entry.inputs[*train.maxGradNormInput].offset,
                &limit, sizeof(limit));
  }
}

Status finishTrainStep(const EntryDesc &entry, TrainRuntime &train,
                       const uint8_t *outputBytes) {
  const TensorSlotDesc &slot = entry.outputs[train.gradNormOutput];
  float norm;
  std::memcpy(&norm, outputBytes + slot.offset, sizeof(norm));
  // Refused or not, the step computed (and left) its gradients.
  train.stepped = true;
  // The AdamW kernel made the same test on the same bits: it wrote nothing.
  if (std::isfinite(norm)) {
    ++train.state.step;
    return Status::ok();
  }
  ++train.state.refusedSteps;
  return Status::error("entry '" + entry.name + "': the gradient norm '" +
                           slot.name + "' is " + formatFloat(norm) +
                           ", so the AdamW update was not applied; weights, "
                           "moments and the step counter (t = " +
                           std::to_string(train.state.step) + ") are unchanged",
                       StatusCode::UpdateRefused);
}

std::vector<size_t> weightsReadBy(const ModuleDesc &desc,
                                  const EntryDesc &entry) {
  std::vector<size_t> read;
  if (desc.weightsBuffer < 0)
    return read;
  auto wb = static_cast<uint32_t>(desc.weightsBuffer);
  for (size_t w = 0; w < desc.weights.size(); ++w) {
    const WeightDesc &weight = desc.weights[w];
    bool bound = false;
    for (const CommandDesc &c : entry.commands) {
      if (c.kind != CommandDesc::Kind::Dispatch)
        continue;
      for (const BufferRangeDesc &r : c.dispatch.bindings)
        bound |= r.buffer == wb && r.offset < weight.offset + weight.size &&
                 weight.offset < r.offset + r.size;
    }
    if (bound)
      read.push_back(w);
  }
  return read;
}

std::vector<size_t> indexCheckOutputsOf(const EntryDesc &entry) {
  std::vector<size_t> outputs;
  for (const IndexCheckDesc &c : entry.indexChecks)
    for (size_t o = 0; o < entry.outputs.size(); ++o)
      if (entry.outputs[o].name == c.output)
        outputs.push_back(o); // verified: exactly one
  return outputs;
}

std::vector<uint8_t> initialWeights(const ModuleDesc &desc,
                                    std::set<std::string> &unset) {
  if (desc.weightsBuffer < 0)
    return {};
  // Unset weights and the gaps between weights are zeros (never read as
  // such: a run reading an unset weight is refused).
  std::vector<uint8_t> image(desc.buffers[desc.weightsBuffer].size, 0);
  std::vector<float> values;
  for (const WeightDesc &w : desc.weights) {
    if (w.init) {
      if (w.size)
        std::memcpy(image.data() + w.offset, w.init->data(), w.size);
    } else if (w.initializer) {
      values.resize(w.size / sizeof(float));
      evaluateInitializer(*w.initializer, values.size(), values.data());
      std::memcpy(image.data() + w.offset, values.data(), w.size);
    } else {
      unset.insert(w.name);
    }
  }
  return image;
}

std::vector<ConstantFill> constantFills(const ModuleDesc &desc) {
  if (desc.constantsBuffer < 0)
    return {};
  uint64_t have = desc.constants ? desc.constants->size() : 0;
  std::vector<ConstantFillDesc> fills = desc.constantFills;
  std::sort(fills.begin(), fills.end(),
            [](const ConstantFillDesc &a, const ConstantFillDesc &b) {
              return a.offset < b.offset;
            });
  std::vector<ConstantFill> ranges;
  // Buffer sizes are multiples of 16, the initial bytes may not be: the
  // first gap starts at the next word.
  uint64_t cursor = (have + 3) / 4 * 4;
  for (const ConstantFillDesc &f : fills) {
    if (f.offset > cursor)
      ranges.push_back({cursor, f.offset - cursor, 0});
    ranges.push_back({f.offset, f.size, f.value});
    cursor = f.offset + f.size;
  }
  uint64_t size = desc.buffers[desc.constantsBuffer].size;
  if (size >= cursor + 4)
    ranges.push_back({cursor, (size - cursor) / 4 * 4, 0});
  return ranges;
}

Status checkTensor(const std::string &what, const std::vector<int64_t> &shape,
                   DType dtype, const HostTensor &got) {
  if (got.shape != shape || got.dtype != dtype)
    return Status::error(what + " has shape " + formatType(shape, dtype) +
                         ", got " + formatType(got.shape, got.dtype));
  std::optional<uint64_t> count = elementCount(shape);
  if (!count || got.data.size() != *count * dtypeSize(dtype))
    return Status::error(
        what + " of shape " + formatType(shape, dtype) + " needs " +
        std::to_string(count.value_or(0) * dtypeSize(dtype)) +
        " bytes of data, got " + std::to_string(got.data.size()));
  return Status::ok();
}

Result<const WeightDesc *> findWeight(const ModuleDesc &desc,
                                      std::string_view name) {
  for (const WeightDesc &w : desc.weights)
    if (w.name == name)
      return &w;
  return Status::error(
      "unknown parameter '" + std::string(name) + "'" +
      suggestNameIn(name, desc.weights) + "; the module's weights: " +
      nameList(desc.weights, [](const WeightDesc &w) { return w.name; }));
}

Result<size_t> findEntryIndex(const ModuleDesc &desc, std::string_view name) {
  for (size_t i = 0; i < desc.entries.size(); ++i)
    if (desc.entries[i].name == name)
      return i;
  return Status::error(
      "unknown entry '" + std::string(name) + "'" +
      suggestNameIn(name, desc.entries) + "; the module has entries: " +
      nameList(desc.entries, [](const EntryDesc &e) { return e.name; }));
}

Status matchProbes(const EntryDesc &entry,
                   const std::vector<std::string> &requested,
                   std::vector<size_t> &indices) {
  indices.clear();
  if (requested.empty())
    return Status::ok();
  if (entry.probes.empty())
    return Status::error("entry '" + entry.name +
                         "' has no probes, so probe '" + requested.front() +
                         "' cannot be read; add one in the traced entry with "
                         "`ag.probe \"name\" %value` and recompile");
  for (const std::string &name : requested) {
    size_t j = 0;
    while (j < entry.probes.size() && entry.probes[j].name != name)
      ++j;
    if (j == entry.probes.size()) {
      std::vector<const TensorSlotDesc *> all;
      for (const TensorSlotDesc &p : entry.probes)
        all.push_back(&p);
      return Status::error("entry '" + entry.name + "' has no probe '" + name +
                           "'" + suggestNameIn(name, all) +
                           "; its probes: " + describeSlots(all));
    }
    indices.push_back(j);
  }
  return Status::ok();
}

NamedTensor slotTensor(const TensorSlotDesc &slot, const uint8_t *bytes) {
  NamedTensor t;
  t.name = slot.name;
  t.tensor.dtype = slot.dtype;
  t.tensor.shape = slot.shape;
  if (slot.size)
    t.tensor.data.assign(bytes, bytes + slot.size);
  return t;
}

std::vector<NamedTensor> unpackOutputs(
    const EntryDesc &entry, const std::vector<size_t> &indexCheckOutputs,
    const uint8_t *outputBytes, const std::vector<const OutputView *> &into) {
  std::vector<NamedTensor> outputs;
  outputs.reserve(entry.outputs.size());
  for (size_t o = 0; o < entry.outputs.size(); ++o) {
    const TensorSlotDesc &slot = entry.outputs[o];
    if (std::find(indexCheckOutputs.begin(), indexCheckOutputs.end(), o) !=
        indexCheckOutputs.end())
      continue;
    const uint8_t *src = outputBytes + slot.offset;
    if (!into[o]) {
      outputs.push_back(slotTensor(slot, src));
      continue;
    }
    if (slot.size)
      std::memcpy(into[o]->data, src, slot.size);
  }
  return outputs;
}

Status matchCall(const ModuleDesc &desc, const EntryDesc &entry,
                 const std::vector<size_t> &weightsRead,
                 const std::set<std::string> &unset,
                 const std::vector<size_t> &indexCheckOutputs,
                 const std::vector<TensorView> &inputs,
                 const std::vector<OutputView> &outputs,
                 const std::vector<std::string> &probes, MatchedCall &call) {
  CAPTURE_RT_RETURN_IF_ERROR(checkWeightsSet(desc, entry, weightsRead, unset));
  CAPTURE_RT_RETURN_IF_ERROR(matchInputs(entry, inputs, call.given));
  CAPTURE_RT_RETURN_IF_ERROR(
      matchOutputs(entry, indexCheckOutputs, outputs, call.into));
  return matchProbes(entry, probes, call.probes);
}

Status runVerdict(const EntryDesc &entry,
                  const std::vector<size_t> &indexCheckOutputs,
                  const uint8_t *outputBytes, TrainRuntime *train) {
  Status step =
      train ? finishTrainStep(entry, *train, outputBytes) : Status::ok();
  // A bad index is the cause of the NaN norm that refused the step: say so.
  Status indices =
      checkIndexStatuses(entry, indexCheckOutputs, outputBytes, train);
  return indices.isError() ? indices : step;
}

Result<const WeightDesc *> checkParam(const ModuleDesc &desc,
                                      std::string_view name,
                                      const HostTensor &value) {
  Result<const WeightDesc *> w = findWeight(desc, name);
  if (w.isError())
    return w.status();
  const WeightDesc &weight = *w.value();
  CAPTURE_RT_RETURN_IF_ERROR(checkTensor("parameter '" + weight.name + "'",
                                         weight.shape, weight.dtype, value));
  return w;
}

} // namespace capture::rt
