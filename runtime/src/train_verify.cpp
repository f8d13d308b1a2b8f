//===- train_verify.cpp - Checks of training entries and AdamW values -----===//
//
// A training step writes the parameters and the moments in place on every
// replay, so a range that is off by a few bytes corrupts state that outlives
// the replay: every range is checked here, before the device is touched,
// and so are the hyperparameters, which the runtime feeds the kernel as is.
//
//===----------------------------------------------------------------------===//

#include "train_verify.h"

#include "capture/rt/capmod.h"

#include "check_util.h"

#include <cmath>

namespace capture::rt {
namespace {

/// "'a', 'b'" or "none".
std::string slotNames(const std::vector<TensorSlotDesc> &slots) {
  std::string s;
  for (const TensorSlotDesc &slot : slots)
    s += (s.empty() ? "'" : ", '") + slot.name + "'";
  return s.empty() ? "none" : s;
}

/// Checks of one train table, with the context every message needs.
class TrainVerifier {
public:
  TrainVerifier(const ModuleDesc &desc, const EntryDesc &entry)
      : desc(desc), entry(entry), train(*entry.train) {}

  Status run() const {
    if (Status s = checkAdamW(train.adamw); s.isError())
      return fail("train.adamw." + s.message());
    for (size_t g = 0; g < train.groups.size(); ++g) {
      std::string field = "train.groups[" + str(g) + "]";
      if (Status s = checkAdamW(train.groups[g]); s.isError())
        return fail(field + "." + s.message());
      if (train.groups[g].decoupled != train.adamw.decoupled)
        return fail(field + ".decoupled differs from train.adamw.decoupled; "
                            "expected one weight-decay mode for every param "
                            "group (the kernel is compiled for one)");
    }
    if (train.maxGradNorm)
      if (Status s = checkMaxGradNorm(*train.maxGradNorm); s.isError())
        return fail("train." + s.message());
    CAPTURE_RT_RETURN_IF_ERROR(checkNamedSlot(
        "train.hyper_input", train.hyperInput, entry.inputs, "input",
        {static_cast<int64_t>(kAdamWHyperValues * (1 + train.groups.size()))},
        "the runtime fills with lr, beta1, beta2, eps, weight_decay and the "
        "two bias corrections of each param group"));
    if (train.maxGradNorm) {
      CAPTURE_RT_RETURN_IF_ERROR(checkNamedSlot(
          "train.max_grad_norm_input", train.maxGradNormInput, entry.inputs,
          "input", {}, "the runtime fills with max_grad_norm"));
    } else if (!train.maxGradNormInput.empty()) {
      return fail("train.max_grad_norm_input is '" + train.maxGradNormInput +
                  "', but train.max_grad_norm is absent (the step does not "
                  "clip); expected no max_grad_norm_input");
    }
    CAPTURE_RT_RETURN_IF_ERROR(checkNamedSlot(
        "train.grad_norm_output", train.gradNormOutput, entry.outputs, "output",
        {}, "the pre-clip gradient norm"));
    const TensorSlotDesc &loss = entry.outputs.front();
    if (!loss.shape.empty() || loss.dtype != DType::F32 ||
        loss.name == train.gradNormOutput)
      return fail("output 0 of a Train entry is its loss, expected a " +
                  formatType({}, DType::F32) + " output other than " +
                  "train.grad_norm_output, found '" + loss.name + "' " +
                  formatType(loss.shape, loss.dtype));
    CAPTURE_RT_RETURN_IF_ERROR(checkParams());
    CAPTURE_RT_RETURN_IF_ERROR(checkMoment("train.moment1", train.moment1));
    CAPTURE_RT_RETURN_IF_ERROR(checkMoment("train.moment2", train.moment2));
    const BufferRangeDesc &m1 = train.moment1, &m2 = train.moment2;
    if (m1.buffer == m2.buffer &&
        rangesOverlap(m1.offset, m1.size, m2.offset, m2.size))
      return fail("train.moment1 " + formatRange(m1.offset, m1.size) +
                  " and train.moment2 " + formatRange(m2.offset, m2.size) +
                  " overlap in " + bufferName(desc, m1.buffer) +
                  ", expected disjoint ranges");
    if (train.grads) {
      const BufferRangeDesc &g = *train.grads;
      CAPTURE_RT_RETURN_IF_ERROR(checkMoment("train.grads", g));
      for (const BufferRangeDesc *m : {&m1, &m2})
        if (g.buffer == m->buffer &&
            rangesOverlap(g.offset, g.size, m->offset, m->size))
          return fail(
              "train.grads " + formatRange(g.offset, g.size) +
              " overlaps train." + (m == &m1 ? "moment1 " : "moment2 ") +
              formatRange(m->offset, m->size) + " in " +
              bufferName(desc, g.buffer) + ", expected disjoint ranges");
    }
    return Status::ok();
  }

private:
  Status fail(const std::string &msg) const {
    return Status::error("capmod: entry '" + entry.name + "': " + msg);
  }

  /// `field` must name a slot of `slots` of type `shape` (f32).
  Status checkNamedSlot(const std::string &field, const std::string &name,
                        const std::vector<TensorSlotDesc> &slots,
                        const std::string &what,
                        const std::vector<int64_t> &shape,
                        const std::string &role) const {
    std::string expected = formatType(shape, DType::F32);
    if (name.empty())
      return fail(field + " is empty, expected the name of the " + expected +
                  " " + what + " " + role);
    for (const TensorSlotDesc &slot : slots) {
      if (slot.name != name)
        continue;
      if (slot.shape != shape || slot.dtype != DType::F32)
        return fail(field + " names " + what + " '" + name + "' " +
                    formatType(slot.shape, slot.dtype) + ", expected " +
                    expected + " (" + role + ")");
      return Status::ok();
    }
    return fail(field + " is '" + name + "', but the entry has no " + what +
                " of that name; its " + what + "s: " + slotNames(slots));
  }

  /// Index, size, alignment and bounds of a range the update binds.
  Status checkRange(const std::string &field, const BufferRangeDesc &r) const {
    if (r.buffer >= desc.buffers.size())
      return fail(field + ": buffer index " + str(r.buffer) +
                  " out of range (module has " + str(desc.buffers.size()) +
                  " buffers)");
    if (r.size == 0 || r.size % 4 != 0)
      return fail(field + " has size " + str(r.size) +
                  " bytes, expected a positive multiple of 4 (f32 values)");
    uint32_t align = desc.target.bindingAlignment;
    if (r.offset % align != 0)
      return fail(field + " offset " + str(r.offset) +
                  " is not a multiple of target.binding_alignment " +
                  str(align));
    if (!rangeInside(r.offset, r.size, desc.buffers[r.buffer].size))
      return fail(field + " range " + formatRange(r.offset, r.size) +
                  " exceeds " + bufferName(desc, r.buffer));
    return Status::ok();
  }

  Status checkParams() const {
    const BufferRangeDesc &p = train.params;
    if (p.buffer < desc.buffers.size() &&
        (desc.weightsBuffer < 0 ||
         p.buffer != static_cast<uint32_t>(desc.weightsBuffer)))
      return fail("train.params is in " + bufferName(desc, p.buffer) +
                  ", expected the Weights buffer " +
                  (desc.weightsBuffer < 0
                       ? std::string("(the module has none)")
                       : str(static_cast<uint32_t>(desc.weightsBuffer))));
    CAPTURE_RT_RETURN_IF_ERROR(checkRange("train.params", p));
    // The update rewrites every byte of the range: a weight there must be
    // one it is meant to train, entirely.
    for (const WeightDesc &w : desc.weights) {
      if (!rangesOverlap(w.offset, w.size, p.offset, p.size))
        continue;
      std::string what =
          "weight '" + w.name + "' " + formatRange(w.offset, w.size) + " ";
      std::string params = "train.params " + formatRange(p.offset, p.size);
      if (w.offset < p.offset || w.offset + w.size > p.offset + p.size)
        return fail(what + "lies partly outside " + params +
                    ", expected each weight wholly inside or wholly outside");
      if (!w.trainable)
        return fail(what + "lies inside " + params +
                    " but is not trainable, expected only trainable weights "
                    "there (the update would change it)");
      if (w.dtype != DType::F32)
        return fail(what + "lies inside " + params + " but is " +
                    dtypeName(w.dtype) + ", expected f32");
    }
    return Status::ok();
  }

  Status checkMoment(const std::string &field, const BufferRangeDesc &m) const {
    if (m.buffer < desc.buffers.size() &&
        desc.buffers[m.buffer].kind != BufferKind::Optimizer)
      return fail(field + " is in " + bufferName(desc, m.buffer) +
                  ", expected a buffer of kind Optimizer");
    if (m.size != train.params.size)
      return fail(field + " has size " + str(m.size) + " bytes, expected " +
                  str(train.params.size) + " (the size of train.params)");
    return checkRange(field, m);
  }

  /// The module the entry belongs to.
  const ModuleDesc &desc;
  /// The entry being checked.
  const EntryDesc &entry;
  /// entry.train.
  const TrainDesc &train;
};

/// `value` must be finite and >= 0 (or > 0 when `positive`).
Status checkNonNegative(const char *field, float value, bool positive) {
  if (std::isfinite(value) && (positive ? value > 0 : value >= 0))
    return Status::ok();
  return Status::error(std::string(field) + " is " + formatFloat(value) +
                       ", expected a finite value " +
                       (positive ? "> 0" : ">= 0"));
}

/// `value` must be in [0, 1).
Status checkBeta(const char *field, float value) {
  if (value >= 0 && value < 1)
    return Status::ok();
  return Status::error(std::string(field) + " is " + formatFloat(value) +
                       ", expected a value in [0, 1)");
}

} // namespace

Status checkAdamW(const AdamWDesc &adamw) {
  CAPTURE_RT_RETURN_IF_ERROR(checkNonNegative("lr", adamw.lr, false));
  CAPTURE_RT_RETURN_IF_ERROR(checkBeta("beta1", adamw.beta1));
  CAPTURE_RT_RETURN_IF_ERROR(checkBeta("beta2", adamw.beta2));
  CAPTURE_RT_RETURN_IF_ERROR(checkNonNegative("eps", adamw.eps, true));
  return checkNonNegative("weight_decay", adamw.weightDecay, false);
}

Status checkMaxGradNorm(float maxGradNorm) {
  return checkNonNegative("max_grad_norm", maxGradNorm, true);
}

Status verifyTrainEntry(const ModuleDesc &desc, const EntryDesc &entry) {
  return TrainVerifier(desc, entry).run();
}

} // namespace capture::rt
