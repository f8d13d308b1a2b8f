//===- capi_internal.cpp - Shared checks of the C API ---------------------===//

#include "capi_internal.h"

#include <algorithm>
#include <iterator>
#include <new>

namespace capture::capi {

using namespace rt;

namespace {

/// "[2, 4] (f32)" for a caller's view.
std::string viewType(const capture_tensor_view &v) {
  // A rank that matches nothing may not be the length of `shape` either.
  if (v.rank > 32)
    return "rank " + std::to_string(v.rank);
  std::string s = "[";
  for (int32_t i = 0; i < v.rank; ++i)
    s += (i ? ", " : "") + std::to_string(v.shape[i]);
  std::string dtype = v.dtype == CAPTURE_DTYPE_F32 ? "f32"
                      : v.dtype == CAPTURE_DTYPE_I32
                          ? "i32"
                          : "dtype " + std::to_string(v.dtype);
  return s + "] (" + dtype + ")";
}

} // namespace

capture_status_s *outOfMemoryStatus() {
  static capture_status_s status{CAPTURE_STATUS_OUT_OF_MEMORY, std::string()};
  return &status;
}

capture_status fail(capture_code code, const char *fn,
                    const std::string &message) noexcept {
#if CAPTURE_CAPI_EXCEPTIONS
  try {
#endif
    auto *s = new (std::nothrow) capture_status_s{code, std::string()};
    if (!s)
      return outOfMemoryStatus();
    s->message = std::string(fn) + ": " + message;
    return s;
#if CAPTURE_CAPI_EXCEPTIONS
  } catch (...) {
    return outOfMemoryStatus();
  }
#endif
}

capture_status fromStatus(const char *fn, const Status &s, capture_code code) {
  if (s.isOk())
    return nullptr;
  // The runtime's own code wins over the caller's guess; its values are
  // capture_code's (static_asserts in capi.cpp).
  if (s.code() != StatusCode::Error)
    code = static_cast<capture_code>(s.code());
  return fail(code, fn, s.message());
}

capture_status nullArg(const char *fn, const char *what) {
  return fail(CAPTURE_STATUS_INVALID_ARGUMENT, fn,
              std::string(what) + " is NULL");
}

bool isRuntimeFilled(const EntryDesc &entry, const std::string &name) {
  return entry.train && (name == entry.train->hyperInput ||
                         (!entry.train->maxGradNormInput.empty() &&
                          name == entry.train->maxGradNormInput));
}

bool isIndexCheckOutput(const EntryDesc &entry, const std::string &name) {
  for (const IndexCheckDesc &c : entry.indexChecks)
    if (c.output == name)
      return true;
  return false;
}

std::string describeSlots(const std::vector<TensorSlotDesc> &slots,
                          const EntryDesc *skipRuntimeFilledOf) {
  std::string s;
  for (const TensorSlotDesc &slot : slots) {
    if (skipRuntimeFilledOf && isRuntimeFilled(*skipRuntimeFilledOf, slot.name))
      continue;
    s += (s.empty() ? "'" : ", '") + slot.name + "' " +
         formatType(slot.shape, slot.dtype);
  }
  return s.empty() ? "none" : s;
}

const EntryDesc *findEntry(const char *fn, const Module &module,
                           const char *name, capture_status &err) {
  Result<const EntryDesc *> e = module.findEntry(name);
  if (e.isOk())
    return e.value();
  err = fromStatus(fn, e.status(), CAPTURE_STATUS_NOT_FOUND);
  return nullptr;
}

const EntryDesc *findTrainEntry(const char *fn, const Module &module,
                                const char *name, capture_status &err) {
  const EntryDesc *e = findEntry(fn, module, name, err);
  if (e && !e->train) {
    err = fail(CAPTURE_STATUS_INVALID_ARGUMENT, fn,
               "entry '" + e->name + "' is a " + entryKindName(e->kind) +
                   " entry, expected a Train entry");
    return nullptr;
  }
  return e;
}

void fillInfo(capture_tensor_info *out, const std::string &name, DType dtype,
              const std::vector<int64_t> &shape, uint64_t size,
              uint32_t flags) {
  out->name = name.c_str();
  out->dtype = static_cast<int32_t>(dtype);
  out->rank = static_cast<int32_t>(shape.size());
  out->shape = shape.empty() ? nullptr : shape.data();
  out->byte_size = static_cast<size_t>(size);
  out->flags = flags;
}

capture_status checkView(const char *fn, const std::string &what,
                         const capture_tensor_view &v, DType dtype,
                         const std::vector<int64_t> &shape, uint64_t size) {
  if (v.rank < 0)
    return fail(CAPTURE_STATUS_INVALID_ARGUMENT, fn,
                what + " has rank " + std::to_string(v.rank) + ", expected " +
                    formatType(shape, dtype));
  if (v.rank > 0 && !v.shape)
    return fail(CAPTURE_STATUS_INVALID_ARGUMENT, fn,
                what + " has rank " + std::to_string(v.rank) +
                    " but its shape is NULL");
  bool same = v.dtype == static_cast<int32_t>(dtype) &&
              static_cast<size_t>(v.rank) == shape.size();
  for (int32_t i = 0; same && i < v.rank; ++i)
    same = v.shape[i] == shape[i];
  if (!same)
    return fail(CAPTURE_STATUS_INVALID_ARGUMENT, fn,
                what + " has shape " + formatType(shape, dtype) + ", got " +
                    viewType(v));
  if (v.byte_size != size)
    return fail(CAPTURE_STATUS_INVALID_ARGUMENT, fn,
                what + " of shape " + formatType(shape, dtype) + " needs " +
                    std::to_string(size) + " bytes, got a buffer of " +
                    std::to_string(v.byte_size));
  if (size && !v.data)
    return fail(CAPTURE_STATUS_INVALID_ARGUMENT, fn, what + " has NULL data");
  return nullptr;
}

capture_status checkBuffer(const char *fn, const std::string &what,
                           const void *data, size_t byteSize, uint64_t size) {
  if (byteSize != size)
    return fail(CAPTURE_STATUS_INVALID_ARGUMENT, fn,
                what + " needs a buffer of " + std::to_string(size) +
                    " bytes, got " + std::to_string(byteSize));
  if (size && !data)
    return fail(CAPTURE_STATUS_INVALID_ARGUMENT, fn, what + " has NULL data");
  return nullptr;
}

size_t slotIndex(const std::vector<TensorSlotDesc> &slots, const char *name) {
  size_t i = 0;
  while (i < slots.size() && slots[i].name != name)
    ++i;
  return i;
}

capture_status matchViews(const char *fn, const EntryDesc &entry,
                          const std::vector<TensorSlotDesc> &slots,
                          const char *kind, const capture_tensor_view *views,
                          size_t n,
                          std::vector<const capture_tensor_view *> &given) {
  std::string where = "entry '" + entry.name + "': ";
  bool inputs = &slots == &entry.inputs;
  bool outputs = &slots == &entry.outputs;
  // An index check's status is the runtime's: not a caller's output.
  auto nameable = [&](const TensorSlotDesc &slot) {
    return !outputs || !isIndexCheckOutput(entry, slot.name);
  };
  given.assign(slots.size(), nullptr);
  for (size_t i = 0; i < n; ++i) {
    const capture_tensor_view &v = views[i];
    if (!v.name)
      return fail(CAPTURE_STATUS_INVALID_ARGUMENT, fn,
                  where + kind + "s[" + std::to_string(i) + "].name is NULL");
    size_t j = slotIndex(slots, v.name);
    if (j == slots.size() || !nameable(slots[j])) {
      std::vector<TensorSlotDesc> known;
      std::copy_if(slots.begin(), slots.end(), std::back_inserter(known),
                   nameable);
      return fail(CAPTURE_STATUS_NOT_FOUND, fn,
                  where + "unknown " + kind + " '" + v.name + "'; expected " +
                      kind +
                      "s: " + describeSlots(known, inputs ? &entry : nullptr));
    }
    const TensorSlotDesc &slot = slots[j];
    if (inputs && isRuntimeFilled(entry, slot.name))
      return fail(CAPTURE_STATUS_INVALID_ARGUMENT, fn,
                  where + "input '" + slot.name +
                      "' is filled by the runtime; set it with " +
                      (slot.name == entry.train->hyperInput
                           ? "capture_module_set_learning_rate or "
                             "capture_module_set_adamw"
                           : "capture_module_set_max_grad_norm"));
    if (given[j])
      return fail(CAPTURE_STATUS_INVALID_ARGUMENT, fn,
                  where + kind + " '" + slot.name + "' given twice");
    if (capture_status s = checkView(fn, where + kind + " '" + slot.name + "'",
                                     v, slot.dtype, slot.shape, slot.size))
      return s;
    given[j] = &v;
  }
  if (!inputs)
    return nullptr;
  std::vector<TensorSlotDesc> missing;
  for (size_t j = 0; j < slots.size(); ++j)
    if (!given[j] && !isRuntimeFilled(entry, slots[j].name))
      missing.push_back(slots[j]);
  if (!missing.empty())
    return fail(CAPTURE_STATUS_INVALID_ARGUMENT, fn,
                where + "missing input" + (missing.size() > 1 ? "s " : " ") +
                    describeSlots(missing));
  return nullptr;
}

const WeightDesc *findWeight(const char *fn, const Module &module,
                             const char *name, capture_status &err) {
  std::string names;
  for (const WeightDesc &w : module.desc().weights) {
    if (w.name == name)
      return &w;
    names += (names.empty() ? "'" : ", '") + w.name + "'";
  }
  err =
      fail(CAPTURE_STATUS_NOT_FOUND, fn,
           "unknown weight '" + std::string(name) +
               "'; the module's weights: " + (names.empty() ? "none" : names));
  return nullptr;
}

capture_status checkIndex(const char *fn, const std::string &what, size_t index,
                          size_t count) {
  if (index < count)
    return nullptr;
  return fail(CAPTURE_STATUS_INVALID_ARGUMENT, fn,
              what + " index " + std::to_string(index) + " is out of range (" +
                  std::to_string(count) +
                  (count == 1 ? " exists)" : " exist)"));
}

std::vector<rt::TensorView>
inputViews(const rt::EntryDesc &entry,
           const std::vector<const capture_tensor_view *> &given) {
  std::vector<rt::TensorView> in;
  for (size_t j = 0; j < entry.inputs.size(); ++j)
    if (const capture_tensor_view *v = given[j])
      in.push_back({entry.inputs[j].name, entry.inputs[j].dtype,
                    entry.inputs[j].shape.data(), entry.inputs[j].shape.size(),
                    v->data, v->byte_size});
  return in;
}

} // namespace capture::capi
