//===- capi_train_step.cpp - The C API: training-step handles -------------===//
//
// Each call is the capture_module_* one on the handle's module and entry,
// with errors naming the capture_train_step_* function.
//
//===----------------------------------------------------------------------===//

#include "capi_internal.h"

using namespace capture::rt;
using namespace capture::capi;

capture_status capture_train_step_open(capture_module *module,
                                       const char *entry,
                                       capture_train_step **out) {
  const char *fn = "capture_train_step_open";
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, module);
    CAPTURE_CHECK_NOT_NULL(fn, entry);
    CAPTURE_CHECK_NOT_NULL(fn, out);
    capture_status err = nullptr;
    const EntryDesc *e = findTrainEntry(fn, *module->module, entry, err);
    if (!e)
      return err;
    *out = new capture_train_step_s{{module->module}, e->name};
    return nullptr;
  });
}

void capture_train_step_close(capture_train_step *step) { delete step; }

capture_status capture_train_step_run(capture_train_step *step,
                                      const capture_tensor_view *inputs,
                                      size_t n_inputs,
                                      const capture_tensor_view *outputs,
                                      size_t n_outputs) {
  const char *fn = "capture_train_step_run";
  CAPTURE_CHECK_NOT_NULL(fn, step);
  return runEntry(fn, &step->module, step->entry.c_str(), inputs, n_inputs,
                  outputs, n_outputs, nullptr, 0);
}

capture_status capture_train_step_set_learning_rate(capture_train_step *step,
                                                    float lr) {
  const char *fn = "capture_train_step_set_learning_rate";
  CAPTURE_CHECK_NOT_NULL(fn, step);
  return moduleSetLearningRate(fn, &step->module, step->entry.c_str(), lr);
}

capture_status capture_train_step_set_max_grad_norm(capture_train_step *step,
                                                    float max_grad_norm) {
  const char *fn = "capture_train_step_set_max_grad_norm";
  CAPTURE_CHECK_NOT_NULL(fn, step);
  return moduleSetMaxGradNorm(fn, &step->module, step->entry.c_str(),
                              max_grad_norm);
}

capture_status capture_train_step_set_adamw(capture_train_step *step,
                                            const capture_adamw *adamw) {
  const char *fn = "capture_train_step_set_adamw";
  CAPTURE_CHECK_NOT_NULL(fn, step);
  return moduleSetAdamw(fn, &step->module, step->entry.c_str(), adamw);
}

capture_status capture_train_step_state(const capture_train_step *step,
                                        capture_train_state *out) {
  const char *fn = "capture_train_step_state";
  CAPTURE_CHECK_NOT_NULL(fn, step);
  return moduleTrainState(fn, &step->module, step->entry.c_str(), out);
}

capture_status capture_train_step_read_moments(capture_train_step *step,
                                               void *m, void *v,
                                               size_t byte_size) {
  const char *fn = "capture_train_step_read_moments";
  CAPTURE_CHECK_NOT_NULL(fn, step);
  return moduleReadMoments(fn, &step->module, step->entry.c_str(), m, v,
                           byte_size);
}

capture_status capture_train_step_restore_optimizer(capture_train_step *step,
                                                    const void *m,
                                                    const void *v,
                                                    size_t byte_size,
                                                    uint64_t t) {
  const char *fn = "capture_train_step_restore_optimizer";
  CAPTURE_CHECK_NOT_NULL(fn, step);
  // The moments are checked (and written) first: a bad buffer leaves t.
  if (capture_status s = moduleWriteMoments(
          fn, &step->module, step->entry.c_str(), m, v, byte_size))
    return s;
  return moduleSetTrainStep(fn, &step->module, step->entry.c_str(), t);
}

capture_status capture_train_step_read_gradients(capture_train_step *step,
                                                 void *data, size_t byte_size) {
  const char *fn = "capture_train_step_read_gradients";
  CAPTURE_CHECK_NOT_NULL(fn, step);
  return moduleReadGradients(fn, &step->module, step->entry.c_str(), data,
                             byte_size);
}

capture_status capture_train_step_reset_optimizer(capture_train_step *step) {
  const char *fn = "capture_train_step_reset_optimizer";
  CAPTURE_CHECK_NOT_NULL(fn, step);
  return moduleResetOptimizer(fn, &step->module, step->entry.c_str());
}
