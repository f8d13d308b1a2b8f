//===- convert.cpp - Errors and arrays between the runtime and Python -----===//

#include "convert.h"

#include <pybind11/stl.h>

#include <cstring>

using namespace capture;
using namespace capture::rt;
using capture::python::raise;
namespace py = pybind11;

namespace {
/// The exception classes, set by capture/__init__.py (register_errors).
struct Errors {
  /// capture.Error.
  py::object error;
  /// capture.UpdateRefused.
  py::object updateRefused;
  /// capture.OutOfMemory.
  py::object outOfMemory;
};
} // namespace

static Errors &errors() {
  static Errors e; // owned by the module object, released at exit
  return e;
}

void python::setErrorTypes(py::object error, py::object updateRefused,
                           py::object outOfMemory) {
  errors() = {std::move(error), std::move(updateRefused),
              std::move(outOfMemory)};
}

/// Raises the exception of `status`'s code with its message and `.code`.
[[noreturn]] void python::raise(const Status &status) {
  Errors &e = errors();
  py::object type = e.error;
  if (status.code() == StatusCode::UpdateRefused && e.updateRefused)
    type = e.updateRefused;
  if (status.code() == StatusCode::OutOfMemory && e.outOfMemory)
    type = e.outOfMemory;
  if (!type)
    throw std::runtime_error(status.message());
  py::object exc = type(status.message());
  exc.attr("code") = static_cast<int>(status.code());
  PyErr_SetObject(type.ptr(), exc.ptr());
  throw py::error_already_set();
}

/// `value` as a C-contiguous float32 or int32 array (a copy only when it
/// is not contiguous), with its dtype; other dtypes are an error naming
/// input `name`.
static py::array contiguous(const std::string &name, const py::handle &value,
                            DType &dtype) {
  py::array any = py::array::ensure(value);
  if (!any)
    raise(Status::error("input '" + name + "': expected a numpy array, got " +
                            std::string(py::str(py::type::of(value))),
                        StatusCode::InvalidArgument));
  if (any.dtype().is(py::dtype::of<float>())) {
    dtype = DType::F32;
    return py::array_t<float, py::array::c_style | py::array::forcecast>(any);
  }
  if (any.dtype().is(py::dtype::of<int32_t>())) {
    dtype = DType::I32;
    return py::array_t<int32_t, py::array::c_style | py::array::forcecast>(any);
  }
  if (any.dtype().kind() == 'f' || any.dtype().kind() == 'i')
    raise(Status::error(
        "input '" + name + "': dtype " + std::string(py::str(any.dtype())) +
            " is not one a module takes (float32 or int32); convert it with "
            ".astype(numpy.float32) or .astype(numpy.int32), knowing that "
            "a narrowing cast can change the values",
        StatusCode::InvalidArgument));
  raise(Status::error("input '" + name + "': dtype " +
                          std::string(py::str(any.dtype())) +
                          ", expected float32 or int32",
                      StatusCode::InvalidArgument));
}

static std::vector<int64_t> shapeOf(const py::array &a) {
  return std::vector<int64_t>(a.shape(), a.shape() + a.ndim());
}

HostTensor python::toTensor(const std::string &name, const py::handle &value) {
  DType dtype;
  py::array a = contiguous(name, value, dtype);
  return HostTensor::fromRaw(dtype, shapeOf(a), a.data(), a.nbytes());
}

python::InputViews::InputViews(const py::dict &values) {
  size_t n = py::len(values);
  arrays_.reserve(n);
  names_.reserve(n);
  shapes_.reserve(n); // views_ point into these: no reallocation
  for (auto [k, v] : values) {
    names_.push_back(py::str(k));
    DType dtype;
    arrays_.push_back(contiguous(names_.back(), v, dtype));
    const py::array &a = arrays_.back();
    shapes_.push_back(shapeOf(a));
    views_.push_back({names_.back(), dtype, shapes_.back().data(),
                      shapes_.back().size(), a.data(),
                      static_cast<size_t>(a.nbytes())});
  }
}

/// A HostTensor as a numpy array that owns its data (no copy).
py::array python::toArray(HostTensor &&t) {
  std::vector<py::ssize_t> shape(t.shape.begin(), t.shape.end());
  auto *data = new std::vector<uint8_t>(std::move(t.data));
  py::capsule owner(
      data, [](void *p) { delete static_cast<std::vector<uint8_t> *>(p); });
  py::dtype dtype =
      t.dtype == DType::I32 ? py::dtype::of<int32_t>() : py::dtype::of<float>();
  // An empty vector may have no storage: numpy still needs an address.
  static float none = 0;
  void *ptr = data->empty() ? static_cast<void *>(&none) : data->data();
  return py::array(dtype, shape, ptr, owner);
}

/// A HostTensor as a new numpy array (a copy: `t` stays).
py::array python::toArray(const HostTensor &t) {
  return toArray(HostTensor(t));
}

std::vector<NamedTensor> python::toTensors(const py::dict &values) {
  std::vector<NamedTensor> out;
  for (auto [k, v] : values) {
    std::string name = py::str(k);
    out.push_back({name, toTensor(name, v)});
  }
  return out;
}

py::dict python::toDict(std::vector<NamedTensor> &&values) {
  py::dict d;
  for (NamedTensor &t : values)
    d[py::str(t.name)] = toArray(std::move(t.tensor));
  return d;
}

py::dict python::trainStateDict(const TrainState &s) {
  py::dict d(py::arg("step") = s.step,
             py::arg("refused_steps") = s.refusedSteps,
             py::arg("lr") = s.adamw.lr, py::arg("beta1") = s.adamw.beta1,
             py::arg("beta2") = s.adamw.beta2, py::arg("eps") = s.adamw.eps,
             py::arg("weight_decay") = s.adamw.weightDecay,
             py::arg("decoupled_weight_decay") = s.adamw.decoupled);
  d["max_grad_norm"] = s.maxGradNorm ? py::cast(*s.maxGradNorm) : py::none();
  return d;
}

py::dict python::censusDict(const Module &module) {
  Result<ModuleCensus> r = moduleCensus(module.desc());
  if (r.isError())
    raise(r.status());
  const ModuleCensus &c = r.value();
  py::list entries, kernels, buffers;
  for (const EntryCensus &e : c.entries)
    entries.append(py::dict(
        py::arg("name") = e.name, py::arg("kind") = entryKindName(e.kind),
        py::arg("dispatches") = e.dispatches, py::arg("barriers") = e.barriers,
        py::arg("kernels") = e.kernels, py::arg("workgroups") = e.workgroups,
        py::arg("inputs") = e.inputs, py::arg("outputs") = e.outputs,
        py::arg("probes") = e.probes, py::arg("input_bytes") = e.inputBytes,
        py::arg("output_bytes") = e.outputBytes,
        py::arg("scratch_bytes") = e.scratchBytes,
        py::arg("scratch_live_bytes") = e.scratchLiveBytes));
  for (const KernelCensus &k : c.kernels)
    kernels.append(py::dict(py::arg("name") = k.name,
                            py::arg("bindings") = k.numBindings,
                            py::arg("texel_bindings") = k.texelBindings,
                            py::arg("workgroup_size") = k.workgroupSize,
                            py::arg("spirv_bytes") = k.spirvBytes,
                            py::arg("dispatches") = k.dispatches));
  for (const BufferKindCensus &b : c.buffers)
    buffers.append(py::dict(py::arg("kind") = bufferKindName(b.kind),
                            py::arg("buffers") = b.buffers,
                            py::arg("bytes") = b.bytes));
  return py::dict(
      py::arg("producer") = c.producer,
      py::arg("format_version") = c.formatVersion,
      py::arg("binding_alignment") = c.bindingAlignment,
      py::arg("buffer_bytes") = c.bufferBytes, py::arg("weights") = c.weights,
      py::arg("trainable_weights") = c.trainableWeights,
      py::arg("weight_bytes") = c.weightBytes,
      py::arg("host_code_bytes") = c.hostCodeBytes,
      py::arg("host_isa_level") = c.hostIsaLevel, py::arg("entries") = entries,
      py::arg("kernels") = kernels, py::arg("buffers") = buffers);
}

py::dict python::profileDict(const Profile &p) {
  py::list kernels;
  for (const KernelProfile &k : p.kernels)
    kernels.append(py::dict(py::arg("name") = k.name,
                            py::arg("dispatches") = k.dispatches,
                            py::arg("device_us") = k.deviceUs));
  py::dict host(py::arg("pack_us") = p.host.packUs,
                py::arg("record_us") = p.host.recordUs,
                py::arg("submit_us") = p.host.submitUs,
                py::arg("wait_us") = p.host.waitUs,
                py::arg("unpack_us") = p.host.unpackUs);
  return py::dict(
      py::arg("entry") = p.entry, py::arg("eager") = p.eager,
      py::arg("submissions") = p.submissions, py::arg("host") = host,
      py::arg("has_device_times") = p.hasDeviceTimes,
      py::arg("host_clock") = p.hostClock,
      py::arg("no_device_times") = p.noDeviceTimes,
      py::arg("submission_us") = p.submissionUs,
      py::arg("dispatch_us") = p.dispatchUs, py::arg("kernels") = kernels);
}

RunOptions python::runOptions(std::vector<std::string> probes, bool eager,
                              bool profiled, Profile &profile) {
  RunOptions options;
  options.probes = std::move(probes);
  options.eager = eager;
  options.profile = profiled ? &profile : nullptr;
  return options;
}
