//===- capi_run.cpp - The C API: replays, weights, probes, training -------===//

#include "capi_internal.h"

#include <cstring>

using namespace capture::rt;
using namespace capture::capi;

capture_status
capture::capi::runEntry(const char *fn, capture_module *module,
                        const char *entry, const capture_tensor_view *inputs,
                        size_t n_inputs, const capture_tensor_view *outputs,
                        size_t n_outputs, const capture_tensor_view *probes,
                        size_t n_probes) {
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, module);
    CAPTURE_CHECK_NOT_NULL(fn, entry);
    if (n_inputs)
      CAPTURE_CHECK_NOT_NULL(fn, inputs);
    if (n_outputs)
      CAPTURE_CHECK_NOT_NULL(fn, outputs);
    if (n_probes)
      CAPTURE_CHECK_NOT_NULL(fn, probes);
    Module &m = *module->module;
    capture_status err = nullptr;
    const EntryDesc *e = findEntry(fn, m, entry, err);
    if (!e)
      return err;
    std::vector<const capture_tensor_view *> givenIn, givenOut, givenProbe;
    if (capture_status s =
            matchViews(fn, *e, e->inputs, "input", inputs, n_inputs, givenIn))
      return s;
    if (capture_status s = matchViews(fn, *e, e->outputs, "output", outputs,
                                      n_outputs, givenOut))
      return s;
    RunOptions options;
    if (n_probes) {
      if (e->probes.empty())
        return fail(CAPTURE_STATUS_INVALID_ARGUMENT, fn,
                    "entry '" + e->name +
                        "' has no probes; add one in the traced entry with "
                        "`ag.probe \"name\" %value` and recompile");
      if (capture_status s = matchViews(fn, *e, e->probes, "probe", probes,
                                        n_probes, givenProbe))
        return s;
      for (size_t j = 0; j < e->probes.size(); ++j)
        if (givenProbe[j])
          options.probes.push_back(e->probes[j].name);
    }

    // The caller's buffers are read and written in place: the one copy in
    // is into the upload's staging, the one copy out from the download's.
    std::vector<TensorView> in = inputViews(*e, givenIn);
    std::vector<OutputView> out;
    for (size_t j = 0; j < e->outputs.size(); ++j)
      if (const capture_tensor_view *v = givenOut[j])
        out.push_back({e->outputs[j].name, v->data, v->byte_size});

    // A refused step carries StatusCode::UpdateRefused.
    Result<RunResult> result = m.runViews(e->name, in, out, options);
    if (result.isError())
      return fromStatus(fn, result.status(), CAPTURE_STATUS_ERROR);
    // The probes come back in declaration order (the request was built so).
    size_t k = 0;
    for (size_t j = 0; j < e->probes.size() && n_probes; ++j)
      if (const capture_tensor_view *v = givenProbe[j]) {
        const HostTensor &t = result->probes[k++].tensor;
        if (v->byte_size && t.data.size() == v->byte_size)
          std::memcpy(v->data, t.data.data(), v->byte_size);
      }
    return nullptr;
  });
}

capture_status capture_module_run(capture_module *module, const char *entry,
                                  const capture_tensor_view *inputs,
                                  size_t n_inputs,
                                  const capture_tensor_view *outputs,
                                  size_t n_outputs) {
  return runEntry("capture_module_run", module, entry, inputs, n_inputs,
                  outputs, n_outputs, nullptr, 0);
}

capture_status capture_module_run_with_probes(
    capture_module *module, const char *entry,
    const capture_tensor_view *inputs, size_t n_inputs,
    const capture_tensor_view *outputs, size_t n_outputs,
    const capture_tensor_view *probes, size_t n_probes) {
  return runEntry("capture_module_run_with_probes", module, entry, inputs,
                  n_inputs, outputs, n_outputs, probes, n_probes);
}

capture_status capture_module_last_upload_bytes(const capture_module *module,
                                                uint64_t *out_bytes) {
  const char *fn = "capture_module_last_upload_bytes";
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, module);
    CAPTURE_CHECK_NOT_NULL(fn, out_bytes);
    *out_bytes = module->module->counters().lastUploadBytes;
    return nullptr;
  });
}

capture_status capture_module_set_param(capture_module *module,
                                        const capture_tensor_view *value) {
  const char *fn = "capture_module_set_param";
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, module);
    CAPTURE_CHECK_NOT_NULL(fn, value);
    if (!value->name)
      return nullArg(fn, "value->name");
    capture_status err = nullptr;
    const WeightDesc *w = findWeight(fn, *module->module, value->name, err);
    if (!w)
      return err;
    if (capture_status s = checkView(fn, "weight '" + w->name + "'", *value,
                                     w->dtype, w->shape, w->size))
      return s;
    return fromStatus(
        fn, module->module->setParam(
                w->name, HostTensor::fromRaw(w->dtype, w->shape, value->data,
                                             value->byte_size)));
  });
}

capture_status capture_module_get_param(capture_module *module,
                                        const char *name, void *data,
                                        size_t byte_size) {
  const char *fn = "capture_module_get_param";
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, module);
    CAPTURE_CHECK_NOT_NULL(fn, name);
    capture_status err = nullptr;
    const WeightDesc *w = findWeight(fn, *module->module, name, err);
    if (!w)
      return err;
    if (capture_status s = checkBuffer(fn, "weight '" + w->name + "'", data,
                                       byte_size, w->size))
      return s;
    Result<HostTensor> t = module->module->getParam(w->name);
    if (t.isError())
      return fromStatus(fn, t.status());
    if (byte_size)
      std::memcpy(data, t->data.data(), byte_size);
    return nullptr;
  });
}

capture_status capture_module_read_probe(capture_module *module,
                                         const char *entry, const char *probe,
                                         void *data, size_t byte_size) {
  const char *fn = "capture_module_read_probe";
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, module);
    CAPTURE_CHECK_NOT_NULL(fn, entry);
    CAPTURE_CHECK_NOT_NULL(fn, probe);
    capture_status err = nullptr;
    const EntryDesc *e = findEntry(fn, *module->module, entry, err);
    if (!e)
      return err;
    size_t j = slotIndex(e->probes, probe);
    if (j == e->probes.size())
      return fail(CAPTURE_STATUS_NOT_FOUND, fn,
                  "entry '" + e->name + "' has no probe '" + probe +
                      "'; its probes: " + describeSlots(e->probes));
    const TensorSlotDesc &slot = e->probes[j];
    if (capture_status s = checkBuffer(fn, "probe '" + slot.name + "'", data,
                                       byte_size, slot.size))
      return s;
    Result<HostTensor> t = module->module->readProbe(e->name, slot.name);
    if (t.isError())
      return fromStatus(fn, t.status());
    if (byte_size)
      std::memcpy(data, t->data.data(), byte_size);
    return nullptr;
  });
}

capture_status capture_module_record_count(const capture_module *module,
                                           uint64_t *out_count) {
  const char *fn = "capture_module_record_count";
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, module);
    CAPTURE_CHECK_NOT_NULL(fn, out_count);
    *out_count = module->module->recordCount();
    return nullptr;
  });
}

//===--- Training ---------------------------------------------------------===//

namespace {

/// Shared shape of the training setters: checks, finds the training entry,
/// then applies `set`, whose errors are value checks (INVALID_ARGUMENT).
template <typename Set>
capture_status trainSetter(const char *fn, capture_module *module,
                           const char *entry, Set &&set) {
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, module);
    CAPTURE_CHECK_NOT_NULL(fn, entry);
    capture_status err = nullptr;
    const EntryDesc *e = findTrainEntry(fn, *module->module, entry, err);
    if (!e)
      return err;
    return fromStatus(fn, set(*module->module, e->name),
                      CAPTURE_STATUS_INVALID_ARGUMENT);
  });
}

} // namespace

capture_status capture::capi::moduleSetLearningRate(const char *fn,
                                                    capture_module *module,
                                                    const char *entry,
                                                    float lr) {
  return trainSetter(fn, module, entry, [&](Module &m, const std::string &e) {
    return m.setLearningRate(e, lr);
  });
}

capture_status capture_module_set_learning_rate(capture_module *module,
                                                const char *entry, float lr) {
  return capture::capi::moduleSetLearningRate(
      "capture_module_set_learning_rate", module, entry, lr);
}

capture_status capture_module_set_group_learning_rate(capture_module *module,
                                                      const char *entry,
                                                      size_t group, float lr) {
  return trainSetter("capture_module_set_group_learning_rate", module, entry,
                     [&](Module &m, const std::string &e) {
                       return m.setLearningRate(e, group, lr);
                     });
}

capture_status capture::capi::moduleSetMaxGradNorm(const char *fn,
                                                   capture_module *module,
                                                   const char *entry,
                                                   float max_grad_norm) {
  return trainSetter(fn, module, entry, [&](Module &m, const std::string &e) {
    return m.setMaxGradNorm(e, max_grad_norm);
  });
}

capture_status capture_module_set_max_grad_norm(capture_module *module,
                                                const char *entry,
                                                float max_grad_norm) {
  return capture::capi::moduleSetMaxGradNorm("capture_module_set_max_grad_norm",
                                             module, entry, max_grad_norm);
}

capture_status capture::capi::moduleSetAdamw(const char *fn,
                                             capture_module *module,
                                             const char *entry,
                                             const capture_adamw *adamw) {
  return trainSetter(fn, module, entry, [&](Module &m, const std::string &e) {
    if (!adamw)
      return Status::error("adamw is NULL");
    // capture_adamw has no weight-decay mode: the compiled one stays. An
    // entry without a state is refused by setAdamW, in its own words.
    Result<TrainState> state = m.trainState(e);
    bool decoupled = state.isOk() ? state->adamw.decoupled : true;
    return m.setAdamW(e, AdamWDesc{adamw->lr, adamw->beta1, adamw->beta2,
                                   adamw->eps, adamw->weight_decay, decoupled});
  });
}

capture_status capture_module_set_adamw(capture_module *module,
                                        const char *entry,
                                        const capture_adamw *adamw) {
  return capture::capi::moduleSetAdamw("capture_module_set_adamw", module,
                                       entry, adamw);
}

capture_status capture::capi::moduleSetTrainStep(const char *fn,
                                                 capture_module *module,
                                                 const char *entry,
                                                 uint64_t step) {
  return trainSetter(fn, module, entry, [&](Module &m, const std::string &e) {
    return m.setTrainStep(e, step);
  });
}

capture_status capture_module_set_train_step(capture_module *module,
                                             const char *entry, uint64_t step) {
  return capture::capi::moduleSetTrainStep("capture_module_set_train_step",
                                           module, entry, step);
}

capture_status capture::capi::moduleTrainState(const char *fn,
                                               const capture_module *module,
                                               const char *entry,
                                               capture_train_state *out) {
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, module);
    CAPTURE_CHECK_NOT_NULL(fn, entry);
    CAPTURE_CHECK_NOT_NULL(fn, out);
    capture_status err = nullptr;
    const EntryDesc *e = findTrainEntry(fn, *module->module, entry, err);
    if (!e)
      return err;
    Result<TrainState> state = module->module->trainState(e->name);
    if (state.isError())
      return fromStatus(fn, state.status());
    const AdamWDesc &a = state->adamw;
    out->step = state->step;
    out->refused_steps = state->refusedSteps;
    out->adamw = capture_adamw{a.lr, a.beta1, a.beta2, a.eps, a.weightDecay};
    out->clips = state->maxGradNorm ? 1 : 0;
    out->max_grad_norm = state->maxGradNorm.value_or(0.0f);
    out->moment_count = static_cast<size_t>(e->train->moment1.size / 4);
    return nullptr;
  });
}

capture_status capture_module_train_state(const capture_module *module,
                                          const char *entry,
                                          capture_train_state *out) {
  return capture::capi::moduleTrainState("capture_module_train_state", module,
                                         entry, out);
}

/// The training entry `entry` when `m` and `v` are buffers of its moments'
/// size; else null with `err` set.
static const EntryDesc *momentsEntry(const char *fn, Module &module,
                                     const char *entry, const void *m,
                                     const void *v, size_t byte_size,
                                     capture_status &err) {
  const EntryDesc *e = findTrainEntry(fn, module, entry, err);
  if (!e)
    return nullptr;
  std::string what = "moment of entry '" + e->name + "'";
  uint64_t size = e->train->moment1.size;
  err = checkBuffer(fn, "the first " + what + " (m)", m, byte_size, size);
  if (!err)
    err = checkBuffer(fn, "the second " + what + " (v)", v, byte_size, size);
  return err ? nullptr : e;
}

capture_status capture::capi::moduleReadMoments(const char *fn,
                                                capture_module *module,
                                                const char *entry, void *m,
                                                void *v, size_t byte_size) {
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, module);
    CAPTURE_CHECK_NOT_NULL(fn, entry);
    capture_status err = nullptr;
    const EntryDesc *e =
        momentsEntry(fn, *module->module, entry, m, v, byte_size, err);
    if (!e)
      return err;
    Result<AdamWMoments> moments = module->module->readMoments(e->name);
    if (moments.isError())
      return fromStatus(fn, moments.status());
    if (byte_size) {
      std::memcpy(m, moments->m.data.data(), byte_size);
      std::memcpy(v, moments->v.data.data(), byte_size);
    }
    return nullptr;
  });
}

capture_status capture_module_read_moments(capture_module *module,
                                           const char *entry, void *m, void *v,
                                           size_t byte_size) {
  return capture::capi::moduleReadMoments("capture_module_read_moments", module,
                                          entry, m, v, byte_size);
}

capture_status capture::capi::moduleWriteMoments(const char *fn,
                                                 capture_module *module,
                                                 const char *entry,
                                                 const void *m, const void *v,
                                                 size_t byte_size) {
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, module);
    CAPTURE_CHECK_NOT_NULL(fn, entry);
    capture_status err = nullptr;
    const EntryDesc *e =
        momentsEntry(fn, *module->module, entry, m, v, byte_size, err);
    if (!e)
      return err;
    std::vector<int64_t> shape = {
        static_cast<int64_t>(e->train->moment1.size / 4)};
    AdamWMoments moments{HostTensor::fromRaw(DType::F32, shape, m, byte_size),
                         HostTensor::fromRaw(DType::F32, shape, v, byte_size)};
    return fromStatus(fn, module->module->writeMoments(e->name, moments));
  });
}

capture_status capture_module_write_moments(capture_module *module,
                                            const char *entry, const void *m,
                                            const void *v, size_t byte_size) {
  return capture::capi::moduleWriteMoments("capture_module_write_moments",
                                           module, entry, m, v, byte_size);
}
