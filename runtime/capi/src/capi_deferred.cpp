//===- capi_deferred.cpp - The C API: deferred runs -----------------------===//
//
// rt::RunOptions::deferred behind C handles: a run checked and packed now,
// submitted later together with the device's other deferred runs
// (runtime/include/capture/rt/deferred.h), its outputs taken from its
// handle.
//
//===----------------------------------------------------------------------===//

#include "capi_internal.h"

#include "capture/rt/deferred.h"

#include <cstring>

using namespace capture::rt;
using namespace capture::capi;

struct capture_deferred_s {
  /// The module whose entry was deferred, kept for its outputs'
  /// descriptions (the run itself outlives a destroyed module: its
  /// destruction submits the run first).
  std::shared_ptr<Module> module;
  /// The entry's index in the module's description.
  size_t entry = 0;
  /// The run; empty once its result was taken.
  DeferredRun run;
};

capture_status capture_module_run_deferred(capture_module *module,
                                           const char *entry,
                                           const capture_tensor_view *inputs,
                                           size_t n_inputs,
                                           capture_deferred **out_run) {
  const char *fn = "capture_module_run_deferred";
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, out_run);
    *out_run = nullptr;
    CAPTURE_CHECK_NOT_NULL(fn, module);
    CAPTURE_CHECK_NOT_NULL(fn, entry);
    if (n_inputs)
      CAPTURE_CHECK_NOT_NULL(fn, inputs);
    Module &m = *module->module;
    capture_status err = nullptr;
    const EntryDesc *e = findEntry(fn, m, entry, err);
    if (!e)
      return err;
    std::vector<const capture_tensor_view *> given;
    if (capture_status s =
            matchViews(fn, *e, e->inputs, "input", inputs, n_inputs, given))
      return s;
    std::vector<TensorView> in = inputViews(*e, given);
    auto handle = std::make_unique<capture_deferred_s>();
    handle->module = module->module;
    handle->entry = static_cast<size_t>(e - m.desc().entries.data());
    RunOptions options;
    options.deferred = &handle->run;
    Result<RunResult> deferred = m.runViews(e->name, in, {}, options);
    if (deferred.isError())
      return fromStatus(fn, deferred.status());
    *out_run = handle.release();
    return nullptr;
  });
}

capture_status capture_deferred_take(capture_deferred *run,
                                     const capture_tensor_view *outputs,
                                     size_t n_outputs) {
  const char *fn = "capture_deferred_take";
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, run);
    if (n_outputs)
      CAPTURE_CHECK_NOT_NULL(fn, outputs);
    const EntryDesc &e = run->module->desc().entries[run->entry];
    if (!run->run.valid())
      return fail(CAPTURE_STATUS_INVALID_ARGUMENT, fn,
                  "the deferred run of entry '" + e.name +
                      "' was taken already (a result is taken once)");
    // The views first: a bad one must not lose the result.
    std::vector<const capture_tensor_view *> given;
    if (capture_status s =
            matchViews(fn, e, e.outputs, "output", outputs, n_outputs, given))
      return s;
    // A refused step carries StatusCode::UpdateRefused.
    Result<RunResult> result = run->run.take();
    if (result.isError())
      return fromStatus(fn, result.status());
    for (size_t j = 0; j < e.outputs.size(); ++j) {
      const capture_tensor_view *v = given[j];
      if (!v || !v->byte_size)
        continue;
      for (const NamedTensor &t : result->outputs)
        if (t.name == e.outputs[j].name && t.tensor.data.size() == v->byte_size)
          std::memcpy(v->data, t.tensor.data.data(), v->byte_size);
    }
    return nullptr;
  });
}

int capture_deferred_done(const capture_deferred *run) {
  return run && run->run.done() ? 1 : 0;
}

void capture_deferred_release(capture_deferred *run) { delete run; }

capture_status capture_device_submit_deferred(capture_device *device) {
  const char *fn = "capture_device_submit_deferred";
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, device);
    return fromStatus(fn, device->device->submitDeferred());
  });
}

capture_status capture_device_deferred_count(const capture_device *device,
                                             size_t *out_count) {
  const char *fn = "capture_device_deferred_count";
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, device);
    CAPTURE_CHECK_NOT_NULL(fn, out_count);
    *out_count = device->device->deferredCount();
    return nullptr;
  });
}
