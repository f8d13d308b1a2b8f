//===- capi_internal.h - Handles and shared checks of the C API -*- C++ -*-===//
//
// The objects behind the opaque C handles, and the checks every public
// function shares. Each public function checks its handles and pointers,
// then every argument it can check against the module's description (names,
// dtypes, shapes, buffer sizes) before calling into capture::rt, so that
// what the caller got wrong has its own status code and nothing runs on a
// bad call.
//
// capture::rt reports errors through Status and never throws, but the
// standard containers may throw std::bad_alloc; `guard` turns that into a
// status so that no exception unwinds into a C caller.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_CAPI_INTERNAL_H
#define CAPTURE_CAPI_INTERNAL_H

#include "capture/capture.h"

#include "capture/rt/device.h"
#include "capture/rt/module.h"

#include <exception>
#include <memory>
#include <string>
#include <vector>

struct capture_status_s {
  /// Never CAPTURE_STATUS_OK: success is NULL.
  capture_code code;
  /// "<function>: <what was expected and found>".
  std::string message;
};

struct capture_device_list_s {
  /// The devices, as enumerated at creation.
  std::vector<capture::rt::DeviceInfo> infos;
};

struct capture_device_s {
  /// Shared with every module loaded on it.
  std::shared_ptr<capture::rt::Device> device;
  /// describeCpuThreads of the device's setting, made at creation so that
  /// capture_device_cpu_threads can hand out a pointer into it.
  std::string cpuThreads;
  /// describeWait of the device's setting, for capture_device_wait.
  std::string wait;
};

struct capture_module_s {
  /// Never null; shared with the training-step handles opened on it.
  std::shared_ptr<capture::rt::Module> module;
};

struct capture_train_step_s {
  /// The module the entry belongs to, shared with it: the module may be
  /// destroyed before the handle.
  capture_module_s module;
  /// The training entry's name.
  std::string entry;
};

#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#define CAPTURE_CAPI_EXCEPTIONS 1
#else
#define CAPTURE_CAPI_EXCEPTIONS 0
#endif

namespace capture::capi {

/// The status returned when allocating a status fails: static, immutable
/// and never freed (capture_status_free recognizes it).
capture_status_s *outOfMemoryStatus();

/// A new status with message `fn + ": " + message`; never throws.
capture_status fail(capture_code code, const char *fn,
                    const std::string &message) noexcept;

/// Runs `body`, a public function's implementation; catches what the C++
/// standard library may throw (allocation failures) at the C boundary.
template <typename Body>
capture_status guard(const char *fn, Body &&body) noexcept {
#if CAPTURE_CAPI_EXCEPTIONS
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return outOfMemoryStatus();
  } catch (const std::exception &e) {
    return fail(CAPTURE_STATUS_ERROR, fn,
                std::string("internal error: ") + e.what());
  } catch (...) {
    return fail(CAPTURE_STATUS_ERROR, fn, "internal error: unknown exception");
  }
#else
  (void)fn;
  return body();
#endif
}

/// The error of a C++ call as a status of kind `code`; NULL on success.
capture_status fromStatus(const char *fn, const rt::Status &s,
                          capture_code code = CAPTURE_STATUS_ERROR);

/// CAPTURE_STATUS_INVALID_ARGUMENT: "<what> is NULL".
capture_status nullArg(const char *fn, const char *what);

/// A device made with `options` into *out_device.
capture_status createDevice(const char *fn, const rt::DeviceOptions &options,
                            capture_device **out_device);

/// Returns a NULL-argument status naming parameter `ptr` when it is NULL.
#define CAPTURE_CHECK_NOT_NULL(fn, ptr)                                        \
  do {                                                                         \
    if (!(ptr))                                                                \
      return ::capture::capi::nullArg(fn, #ptr);                               \
  } while (false)

/// Whether input `name` of `entry` is one the runtime fills (training).
bool isRuntimeFilled(const rt::EntryDesc &entry, const std::string &name);

/// Whether output `name` of `entry` is an index check's status, which the
/// runtime reads itself and never returns.
bool isIndexCheckOutput(const rt::EntryDesc &entry, const std::string &name);

/// "'x' [2, 4] (f32), 'b' [2, 4] (f32)", or "none"; without the inputs the
/// runtime fills when `skipRuntimeFilledOf` is given.
std::string describeSlots(const std::vector<rt::TensorSlotDesc> &slots,
                          const rt::EntryDesc *skipRuntimeFilledOf = nullptr);

/// Entry `name` of `module`, or null with CAPTURE_STATUS_NOT_FOUND in `err`.
const rt::EntryDesc *findEntry(const char *fn, const rt::Module &module,
                               const char *name, capture_status &err);

/// Training entry `name`, or null with a status in `err`: NOT_FOUND, or
/// INVALID_ARGUMENT for a forward entry.
const rt::EntryDesc *findTrainEntry(const char *fn, const rt::Module &module,
                                    const char *name, capture_status &err);

/// Weight `name` of `module`, or null with NOT_FOUND in `err`.
const rt::WeightDesc *findWeight(const char *fn, const rt::Module &module,
                                 const char *name, capture_status &err);

/// Index of slot `name` in `slots`, or slots.size().
size_t slotIndex(const std::vector<rt::TensorSlotDesc> &slots,
                 const char *name);

/// Fills `out`; the pointers point into the module's description.
void fillInfo(capture_tensor_info *out, const std::string &name,
              rt::DType dtype, const std::vector<int64_t> &shape, uint64_t size,
              uint32_t flags);

/// Checks view `v` (called `what` in messages) against a description:
/// dtype, rank, shape, byte size, data. Its name is the caller's to check.
capture_status checkView(const char *fn, const std::string &what,
                         const capture_tensor_view &v, rt::DType dtype,
                         const std::vector<int64_t> &shape, uint64_t size);

/// Checks a caller buffer that is to receive `size` bytes.
capture_status checkBuffer(const char *fn, const std::string &what,
                           const void *data, size_t byteSize, uint64_t size);

/// Matches the caller's views to `slots` (the inputs or the outputs of
/// `entry`, `kind` "input" or "output"): known names, each at most once,
/// checked shapes and sizes; for inputs also none that the runtime fills and
/// none missing. `given[j]` becomes the view for slot j, or null.
capture_status matchViews(const char *fn, const rt::EntryDesc &entry,
                          const std::vector<rt::TensorSlotDesc> &slots,
                          const char *kind, const capture_tensor_view *views,
                          size_t n,
                          std::vector<const capture_tensor_view *> &given);

/// The runtime's views of the inputs matchViews gave for `entry`, read in
/// place (the one copy in is into the upload's staging).
std::vector<rt::TensorView>
inputViews(const rt::EntryDesc &entry,
           const std::vector<const capture_tensor_view *> &given);

/// INVALID_ARGUMENT unless index < count; `what` names the list.
capture_status checkIndex(const char *fn, const std::string &what, size_t index,
                          size_t count);

/// capture_module_run, capture_module_run_with_probes and
/// capture_train_step_run: one replay of `entry` on the caller's views.
capture_status runEntry(const char *fn, capture_module *module,
                        const char *entry, const capture_tensor_view *inputs,
                        size_t n_inputs, const capture_tensor_view *outputs,
                        size_t n_outputs, const capture_tensor_view *probes,
                        size_t n_probes);

// The training calls, shared by capture_module_* (an entry name) and
// capture_train_step_* (a handle).
/// capture_module_set_learning_rate, with `fn` naming the public function in
/// errors.
capture_status moduleSetLearningRate(const char *fn, capture_module *module,
                                     const char *entry, float lr);
/// capture_module_set_max_grad_norm, with `fn` naming the public function in
/// errors.
capture_status moduleSetMaxGradNorm(const char *fn, capture_module *module,
                                    const char *entry, float max_grad_norm);
/// capture_module_set_adamw, with `fn` naming the public function in errors.
capture_status moduleSetAdamw(const char *fn, capture_module *module,
                              const char *entry, const capture_adamw *adamw);
/// capture_module_set_train_step, with `fn` naming the public function in
/// errors.
capture_status moduleSetTrainStep(const char *fn, capture_module *module,
                                  const char *entry, uint64_t step);
/// capture_module_train_state, with `fn` naming the public function in errors.
capture_status moduleTrainState(const char *fn, const capture_module *module,
                                const char *entry, capture_train_state *out);
/// capture_module_read_moments, with `fn` naming the public function in errors.
capture_status moduleReadMoments(const char *fn, capture_module *module,
                                 const char *entry, void *m, void *v,
                                 size_t byte_size);
/// capture_module_write_moments, with `fn` naming the public function in
/// errors.
capture_status moduleWriteMoments(const char *fn, capture_module *module,
                                  const char *entry, const void *m,
                                  const void *v, size_t byte_size);
/// capture_module_read_gradients, with `fn` naming the public function in
/// errors.
capture_status moduleReadGradients(const char *fn, capture_module *module,
                                   const char *entry, void *data,
                                   size_t byte_size);
/// capture_module_reset_optimizer, with `fn` naming the public function in
/// errors.
capture_status moduleResetOptimizer(const char *fn, capture_module *module,
                                    const char *entry);

} // namespace capture::capi

#endif // CAPTURE_CAPI_INTERNAL_H
