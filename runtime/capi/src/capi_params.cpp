//===- capi_params.cpp - The C API: all weights, gradients, sharing -------===//

#include "capi_internal.h"

#include <cstring>

using namespace capture::rt;
using namespace capture::capi;

/// The weight view `params[i]` names, or null with `err` set (a null name or
/// an unknown weight).
static const WeightDesc *weightOfView(const char *fn, const Module &m,
                                      const capture_tensor_view *params,
                                      size_t i, capture_status &err) {
  if (!params[i].name) {
    err = nullArg(fn, ("params[" + std::to_string(i) + "].name").c_str());
    return nullptr;
  }
  return findWeight(fn, m, params[i].name, err);
}

capture_status capture_module_set_params(capture_module *module,
                                         const capture_tensor_view *params,
                                         size_t n_params, int32_t partial) {
  const char *fn = "capture_module_set_params";
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, module);
    if (n_params)
      CAPTURE_CHECK_NOT_NULL(fn, params);
    Module &m = *module->module;
    std::vector<NamedTensor> named;
    for (size_t i = 0; i < n_params; ++i) {
      const capture_tensor_view &v = params[i];
      capture_status err = nullptr;
      const WeightDesc *w = weightOfView(fn, m, params, i, err);
      if (!w)
        return err;
      if (capture_status s = checkView(fn, "weight '" + w->name + "'", v,
                                       w->dtype, w->shape, w->size))
        return s;
      named.push_back({w->name, HostTensor::fromRaw(w->dtype, w->shape, v.data,
                                                    v.byte_size)});
    }
    SetParamsOptions options;
    options.partial = partial != 0;
    // What is left (a repeated or missing weight) is the caller's mistake.
    return fromStatus(fn, m.setParams(named, options),
                      CAPTURE_STATUS_INVALID_ARGUMENT);
  });
}

capture_status capture_module_get_params(capture_module *module,
                                         const capture_tensor_view *params,
                                         size_t n_params) {
  const char *fn = "capture_module_get_params";
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, module);
    if (n_params)
      CAPTURE_CHECK_NOT_NULL(fn, params);
    Module &m = *module->module;
    const std::vector<WeightDesc> &weights = m.desc().weights;
    std::vector<const capture_tensor_view *> given(weights.size(), nullptr);
    for (size_t i = 0; i < n_params; ++i) {
      const capture_tensor_view &v = params[i];
      capture_status err = nullptr;
      const WeightDesc *w = weightOfView(fn, m, params, i, err);
      if (!w)
        return err;
      size_t j = static_cast<size_t>(w - weights.data());
      if (given[j])
        return fail(CAPTURE_STATUS_INVALID_ARGUMENT, fn,
                    "weight '" + w->name + "' given twice");
      if (capture_status s = checkView(fn, "weight '" + w->name + "'", v,
                                       w->dtype, w->shape, w->size))
        return s;
      given[j] = &v;
    }
    Result<std::vector<NamedTensor>> values = m.getParams();
    if (values.isError())
      return fromStatus(fn, values.status());
    for (size_t j = 0; j < weights.size(); ++j)
      if (given[j] && given[j]->byte_size &&
          values.value()[j].tensor.data.size() == given[j]->byte_size)
        std::memcpy(given[j]->data, values.value()[j].tensor.data.data(),
                    given[j]->byte_size);
    return nullptr;
  });
}

capture_status capture::capi::moduleReadGradients(const char *fn,
                                                  capture_module *module,
                                                  const char *entry, void *data,
                                                  size_t byte_size) {
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, module);
    CAPTURE_CHECK_NOT_NULL(fn, entry);
    capture_status err = nullptr;
    const EntryDesc *e = findTrainEntry(fn, *module->module, entry, err);
    if (!e)
      return err;
    if (capture_status s =
            checkBuffer(fn, "the gradients of entry '" + e->name + "'", data,
                        byte_size, e->train->params.size))
      return s;
    Result<TrainGradients> g = module->module->readGradients(e->name);
    if (g.isError())
      return fromStatus(fn, g.status());
    if (byte_size && g->flat.data.size() == byte_size)
      std::memcpy(data, g->flat.data.data(), byte_size);
    return nullptr;
  });
}

capture_status capture_module_read_gradients(capture_module *module,
                                             const char *entry, void *data,
                                             size_t byte_size) {
  return capture::capi::moduleReadGradients("capture_module_read_gradients",
                                            module, entry, data, byte_size);
}

capture_status capture::capi::moduleResetOptimizer(const char *fn,
                                                   capture_module *module,
                                                   const char *entry) {
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, module);
    CAPTURE_CHECK_NOT_NULL(fn, entry);
    capture_status err = nullptr;
    const EntryDesc *e = findTrainEntry(fn, *module->module, entry, err);
    if (!e)
      return err;
    return fromStatus(fn, module->module->resetOptimizer(e->name));
  });
}

capture_status capture_module_reset_optimizer(capture_module *module,
                                              const char *entry) {
  return capture::capi::moduleResetOptimizer("capture_module_reset_optimizer",
                                             module, entry);
}

capture_status capture_module_load_bytes_shared(
    capture_device *device, const void *data, size_t size,
    const capture_module *share_weights_with, capture_module **out_module) {
  const char *fn = "capture_module_load_bytes_shared";
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, device);
    CAPTURE_CHECK_NOT_NULL(fn, data);
    CAPTURE_CHECK_NOT_NULL(fn, share_weights_with);
    CAPTURE_CHECK_NOT_NULL(fn, out_module);
    LoadOptions options;
    options.shareWeightsWith = share_weights_with->module.get();
    Result<std::unique_ptr<Module>> m = Module::loadBytes(
        device->device, static_cast<const uint8_t *>(data), size, options);
    if (m.isError())
      return fromStatus(fn, m.status());
    *out_module = new capture_module_s{std::move(m).value()};
    return nullptr;
  });
}

capture_status
capture_module_load_file_shared(capture_device *device, const char *path,
                                const capture_module *share_weights_with,
                                capture_module **out_module) {
  const char *fn = "capture_module_load_file_shared";
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, device);
    CAPTURE_CHECK_NOT_NULL(fn, path);
    CAPTURE_CHECK_NOT_NULL(fn, share_weights_with);
    CAPTURE_CHECK_NOT_NULL(fn, out_module);
    LoadOptions options;
    options.shareWeightsWith = share_weights_with->module.get();
    Result<std::unique_ptr<Module>> m =
        Module::loadFile(device->device, path, options);
    if (m.isError())
      return fromStatus(fn, m.status());
    *out_module = new capture_module_s{std::move(m).value()};
    return nullptr;
  });
}
