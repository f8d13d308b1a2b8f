//===- capi.cpp - The C API: statuses, devices, modules, descriptions -----===//
//
// Replays, weights, probes and training are in capi_run.cpp; the checks they
// share in capi_internal.cpp.
//
//===----------------------------------------------------------------------===//

#include "capi_internal.h"

#include "capture/rt/environment.h"

using namespace capture::rt;
using namespace capture::capi;

namespace {

/// The slots of `entry` that a *_count / *_info function lists.
enum class SlotKind { Input, Output, Probe };

/// The slots of kind `k` a caller may name: every input and probe, and the
/// outputs but the index checks' statuses, which the runtime reads itself
/// (a bad index is the run's error) and never returns.
std::vector<const TensorSlotDesc *> slotsOf(const EntryDesc &e, SlotKind k) {
  const std::vector<TensorSlotDesc> &all = k == SlotKind::Input    ? e.inputs
                                           : k == SlotKind::Output ? e.outputs
                                                                   : e.probes;
  std::vector<const TensorSlotDesc *> slots;
  for (const TensorSlotDesc &slot : all)
    if (k != SlotKind::Output || !isIndexCheckOutput(e, slot.name))
      slots.push_back(&slot);
  return slots;
}

const char *slotKindName(SlotKind k) {
  return k == SlotKind::Input    ? "input"
         : k == SlotKind::Output ? "output"
                                 : "probe";
}

capture_status slotCount(const char *fn, const capture_module *module,
                         const char *entry, size_t *out_count, SlotKind kind) {
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, module);
    CAPTURE_CHECK_NOT_NULL(fn, entry);
    CAPTURE_CHECK_NOT_NULL(fn, out_count);
    capture_status err = nullptr;
    const EntryDesc *e = findEntry(fn, *module->module, entry, err);
    if (!e)
      return err;
    *out_count = slotsOf(*e, kind).size();
    return nullptr;
  });
}

capture_status slotInfo(const char *fn, const capture_module *module,
                        const char *entry, size_t index,
                        capture_tensor_info *out, SlotKind kind) {
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, module);
    CAPTURE_CHECK_NOT_NULL(fn, entry);
    CAPTURE_CHECK_NOT_NULL(fn, out);
    capture_status err = nullptr;
    const EntryDesc *e = findEntry(fn, *module->module, entry, err);
    if (!e)
      return err;
    std::vector<const TensorSlotDesc *> slots = slotsOf(*e, kind);
    if (capture_status s =
            checkIndex(fn, "entry '" + e->name + "': " + slotKindName(kind),
                       index, slots.size()))
      return s;
    const TensorSlotDesc &slot = *slots[index];
    uint32_t flags = kind == SlotKind::Input && isRuntimeFilled(*e, slot.name)
                         ? CAPTURE_TENSOR_FILLED_BY_RUNTIME
                         : 0;
    fillInfo(out, slot.name, slot.dtype, slot.shape, slot.size, flags);
    return nullptr;
  });
}

// The C enums are the C++ ones, value for value.
static_assert(int(StatusCode::Ok) == CAPTURE_STATUS_OK &&
                  int(StatusCode::Error) == CAPTURE_STATUS_ERROR &&
                  int(StatusCode::InvalidArgument) ==
                      CAPTURE_STATUS_INVALID_ARGUMENT &&
                  int(StatusCode::NotFound) == CAPTURE_STATUS_NOT_FOUND &&
                  int(StatusCode::UpdateRefused) ==
                      CAPTURE_STATUS_UPDATE_REFUSED &&
                  int(StatusCode::OutOfMemory) == CAPTURE_STATUS_OUT_OF_MEMORY,
              "rt::StatusCode and capture_code must match one to one");
static_assert(int(DeviceType::Cpu) == CAPTURE_DEVICE_CPU &&
                  int(DeviceType::DiscreteGpu) == CAPTURE_DEVICE_DISCRETE_GPU &&
                  int(DeviceType::IntegratedGpu) ==
                      CAPTURE_DEVICE_INTEGRATED_GPU &&
                  int(DeviceType::VirtualGpu) == CAPTURE_DEVICE_VIRTUAL_GPU &&
                  int(DeviceType::Other) == CAPTURE_DEVICE_OTHER &&
                  int(DeviceType::Host) == CAPTURE_DEVICE_HOST,
              "capture_device_type must match capture::rt::DeviceType");
static_assert(int(DType::F32) == CAPTURE_DTYPE_F32 &&
                  int(DType::I32) == CAPTURE_DTYPE_I32,
              "capture_dtype must match capture::rt::DType");

void fillDeviceInfo(capture_device_info *out, const DeviceInfo &info) {
  out->index = info.index;
  out->name = info.name.c_str();
  out->type = static_cast<int32_t>(info.type);
  out->type_name = deviceTypeName(info.type);
  out->api_version = info.apiVersion;
  out->has_compute = info.hasCompute ? 1 : 0;
}

} // namespace

//===--- Status -----------------------------------------------------------===//

capture_code capture_status_code(capture_status status) {
  return status ? status->code : CAPTURE_STATUS_OK;
}

const char *capture_status_message(capture_status status) {
  if (!status)
    return "";
  if (status == outOfMemoryStatus())
    return "out of memory";
  return status->message.c_str();
}

void capture_status_free(capture_status status) {
  if (status != outOfMemoryStatus())
    delete status;
}

//===--- Devices ----------------------------------------------------------===//

capture_status capture_device_list_create(capture_device_list **out_list) {
  const char *fn = "capture_device_list_create";
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, out_list);
    Result<std::vector<DeviceInfo>> infos = listDevices();
    if (infos.isError())
      return fromStatus(fn, infos.status());
    *out_list = new capture_device_list_s{std::move(infos).value()};
    return nullptr;
  });
}

capture_status capture_device_list_count(const capture_device_list *list,
                                         size_t *out_count) {
  const char *fn = "capture_device_list_count";
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, list);
    CAPTURE_CHECK_NOT_NULL(fn, out_count);
    *out_count = list->infos.size();
    return nullptr;
  });
}

capture_status capture_device_list_info(const capture_device_list *list,
                                        size_t index,
                                        capture_device_info *out) {
  const char *fn = "capture_device_list_info";
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, list);
    CAPTURE_CHECK_NOT_NULL(fn, out);
    if (capture_status s = checkIndex(fn, "device", index, list->infos.size()))
      return s;
    fillDeviceInfo(out, list->infos[index]);
    return nullptr;
  });
}

void capture_device_list_destroy(capture_device_list *list) { delete list; }

capture_status capture::capi::createDevice(const char *fn,
                                           const DeviceOptions &options,
                                           capture_device **out_device) {
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, out_device);
    Result<std::shared_ptr<Device>> device = Device::create(options);
    if (device.isError())
      return fromStatus(fn, device.status());
    std::string threads =
        describeCpuThreads(device.value()->cpuThreadsSetting());
    std::string wait = describeWait(device.value()->waitSetting());
    *out_device = new capture_device_s{std::move(device).value(),
                                       std::move(threads), std::move(wait)};
    return nullptr;
  });
}

capture_status capture_device_create(const char *selector,
                                     capture_device **out_device) {
  DeviceOptions options;
  if (selector)
    options.selector = selector;
  return createDevice("capture_device_create", options, out_device);
}

capture_status
capture_device_create_from_environment(capture_device **out_device) {
  return createDevice("capture_device_create_from_environment",
                      deviceOptionsFromEnvironment(), out_device);
}

capture_status capture_device_get_info(const capture_device *device,
                                       capture_device_info *out) {
  const char *fn = "capture_device_get_info";
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, device);
    CAPTURE_CHECK_NOT_NULL(fn, out);
    fillDeviceInfo(out, device->device->info());
    return nullptr;
  });
}

capture_status capture_device_choice(const capture_device *device,
                                     const char **out_choice) {
  const char *fn = "capture_device_choice";
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, device);
    CAPTURE_CHECK_NOT_NULL(fn, out_choice);
    *out_choice = device->device->choice().c_str();
    return nullptr;
  });
}

void capture_device_destroy(capture_device *device) { delete device; }

//===--- Modules ----------------------------------------------------------===//

capture_status capture_module_load_file(capture_device *device,
                                        const char *path,
                                        capture_module **out_module) {
  const char *fn = "capture_module_load_file";
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, device);
    CAPTURE_CHECK_NOT_NULL(fn, path);
    CAPTURE_CHECK_NOT_NULL(fn, out_module);
    Result<std::unique_ptr<Module>> m = Module::loadFile(device->device, path);
    if (m.isError())
      return fromStatus(fn, m.status());
    *out_module = new capture_module_s{std::move(m).value()};
    return nullptr;
  });
}

capture_status capture_module_load_bytes(capture_device *device,
                                         const void *data, size_t size,
                                         capture_module **out_module) {
  const char *fn = "capture_module_load_bytes";
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, device);
    CAPTURE_CHECK_NOT_NULL(fn, data);
    CAPTURE_CHECK_NOT_NULL(fn, out_module);
    Result<std::unique_ptr<Module>> m = Module::loadBytes(
        device->device, static_cast<const uint8_t *>(data), size);
    if (m.isError())
      return fromStatus(fn, m.status());
    *out_module = new capture_module_s{std::move(m).value()};
    return nullptr;
  });
}

void capture_module_destroy(capture_module *module) { delete module; }

capture_status capture_module_entry_count(const capture_module *module,
                                          size_t *out_count) {
  const char *fn = "capture_module_entry_count";
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, module);
    CAPTURE_CHECK_NOT_NULL(fn, out_count);
    *out_count = module->module->desc().entries.size();
    return nullptr;
  });
}

capture_status capture_module_entry_name(const capture_module *module,
                                         size_t index, const char **out_name) {
  const char *fn = "capture_module_entry_name";
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, module);
    CAPTURE_CHECK_NOT_NULL(fn, out_name);
    const std::vector<EntryDesc> &entries = module->module->desc().entries;
    if (capture_status s = checkIndex(fn, "entry", index, entries.size()))
      return s;
    *out_name = entries[index].name.c_str();
    return nullptr;
  });
}

capture_status capture_module_entry_kind(const capture_module *module,
                                         const char *entry, int32_t *out_kind) {
  const char *fn = "capture_module_entry_kind";
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, module);
    CAPTURE_CHECK_NOT_NULL(fn, entry);
    CAPTURE_CHECK_NOT_NULL(fn, out_kind);
    capture_status err = nullptr;
    const EntryDesc *e = findEntry(fn, *module->module, entry, err);
    if (!e)
      return err;
    *out_kind = e->train ? CAPTURE_ENTRY_TRAIN : CAPTURE_ENTRY_FORWARD;
    return nullptr;
  });
}

capture_status capture_module_input_count(const capture_module *module,
                                          const char *entry,
                                          size_t *out_count) {
  return slotCount("capture_module_input_count", module, entry, out_count,
                   SlotKind::Input);
}

capture_status capture_module_input_info(const capture_module *module,
                                         const char *entry, size_t index,
                                         capture_tensor_info *out) {
  return slotInfo("capture_module_input_info", module, entry, index, out,
                  SlotKind::Input);
}

capture_status capture_module_output_count(const capture_module *module,
                                           const char *entry,
                                           size_t *out_count) {
  return slotCount("capture_module_output_count", module, entry, out_count,
                   SlotKind::Output);
}

capture_status capture_module_output_info(const capture_module *module,
                                          const char *entry, size_t index,
                                          capture_tensor_info *out) {
  return slotInfo("capture_module_output_info", module, entry, index, out,
                  SlotKind::Output);
}

capture_status capture_module_probe_count(const capture_module *module,
                                          const char *entry,
                                          size_t *out_count) {
  return slotCount("capture_module_probe_count", module, entry, out_count,
                   SlotKind::Probe);
}

capture_status capture_module_probe_info(const capture_module *module,
                                         const char *entry, size_t index,
                                         capture_tensor_info *out) {
  return slotInfo("capture_module_probe_info", module, entry, index, out,
                  SlotKind::Probe);
}

capture_status capture_module_weight_count(const capture_module *module,
                                           size_t *out_count) {
  const char *fn = "capture_module_weight_count";
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, module);
    CAPTURE_CHECK_NOT_NULL(fn, out_count);
    *out_count = module->module->desc().weights.size();
    return nullptr;
  });
}

capture_status capture_module_weight_info(const capture_module *module,
                                          size_t index,
                                          capture_tensor_info *out) {
  const char *fn = "capture_module_weight_info";
  return guard(fn, [&]() -> capture_status {
    CAPTURE_CHECK_NOT_NULL(fn, module);
    CAPTURE_CHECK_NOT_NULL(fn, out);
    const std::vector<WeightDesc> &weights = module->module->desc().weights;
    if (capture_status s = checkIndex(fn, "weight", index, weights.size()))
      return s;
    const WeightDesc &w = weights[index];
    fillInfo(out, w.name, w.dtype, w.shape, w.size,
             w.trainable ? CAPTURE_TENSOR_TRAINABLE : 0);
    return nullptr;
  });
}
