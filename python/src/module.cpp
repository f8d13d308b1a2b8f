//===- module.cpp - The runtime as the Python module capture._capture -----===//
//
// A thin pybind11 layer over capture::rt: devices, modules, forward entries
// and training steps taking and returning numpy arrays, parameters, the
// optimizer state (for exact resume) and the hyperparameters. Every error
// becomes a Python exception carrying the runtime's message and its code
// (capture.Error, and its subclasses UpdateRefused and OutOfMemory, which
// capture/__init__.py defines and registers here).
//
//===----------------------------------------------------------------------===//

#include "capture/rt/module.h"
#include "capture/rt/device.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <map>
#include <memory>
#include <string>

namespace py = pybind11;
using namespace capture::rt;

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

Errors &errors() {
  static Errors e; // owned by the module object, released at exit
  return e;
}

/// Raises the exception of `status`'s code with its message and `.code`.
[[noreturn]] void raise(const Status &status) {
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

void check(const Status &s) {
  if (s.isError())
    raise(s);
}

template <typename T> T take(Result<T> r) {
  if (r.isError())
    raise(r.status());
  return std::move(r).value();
}

/// A numpy array as a HostTensor: f32 or i32, any layout (made C-contiguous
/// here); other dtypes are an error naming the input.
HostTensor toTensor(const std::string &name, const py::handle &value) {
  py::array any = py::array::ensure(value);
  if (!any)
    raise(Status::error("input '" + name + "': expected a numpy array, got " +
                            std::string(py::str(py::type::of(value))),
                        StatusCode::InvalidArgument));
  std::vector<int64_t> shape(any.shape(), any.shape() + any.ndim());
  if (py::isinstance<py::array_t<float>>(any) ||
      any.dtype().is(py::dtype::of<float>())) {
    auto a = py::array_t<float, py::array::c_style | py::array::forcecast>(any);
    return HostTensor::fromRaw(DType::F32, shape, a.data(), a.nbytes());
  }
  if (any.dtype().is(py::dtype::of<int32_t>())) {
    auto a =
        py::array_t<int32_t, py::array::c_style | py::array::forcecast>(any);
    return HostTensor::fromRaw(DType::I32, shape, a.data(), a.nbytes());
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

/// A HostTensor as a new numpy array (one copy out of the staging data).
py::array toArray(const HostTensor &t) {
  std::vector<py::ssize_t> shape(t.shape.begin(), t.shape.end());
  py::array a = t.dtype == DType::I32
                    ? py::array(py::dtype::of<int32_t>(), shape)
                    : py::array(py::dtype::of<float>(), shape);
  if (!t.data.empty())
    std::memcpy(a.mutable_data(), t.data.data(), t.data.size());
  return a;
}

std::vector<NamedTensor> toTensors(const py::dict &values) {
  std::vector<NamedTensor> out;
  for (auto [k, v] : values) {
    std::string name = py::str(k);
    out.push_back({name, toTensor(name, v)});
  }
  return out;
}

py::dict toDict(const std::vector<NamedTensor> &values) {
  py::dict d;
  for (const NamedTensor &t : values)
    d[py::str(t.name)] = toArray(t.tensor);
  return d;
}

/// A loaded module with its device kept alive.
struct PyModule {
  /// The module.
  std::shared_ptr<Module> module;
};

std::shared_ptr<Device> makeDevice(const std::string &selector, bool validation,
                                   std::optional<int> cpuThreads) {
  DeviceOptions options;
  options.selector = selector;
  options.validation = validation;
  options.cpuThreads = cpuThreads;
  return take(Device::create(options));
}

} // namespace

PYBIND11_MODULE(_capture, m) {
  m.doc() = "Capture's Vulkan runtime: replay compiled training steps and "
            "forward passes as one queue submission per call.";

  m.def(
      "register_errors",
      [](py::object error, py::object refused, py::object oom) {
        errors() = {std::move(error), std::move(refused), std::move(oom)};
      },
      "Sets the exception classes (capture/__init__.py calls this).");

  m.def(
      "devices",
      [] {
        py::list out;
        for (const DeviceInfo &d : take(listDevices()))
          out.append(py::dict(py::arg("index") = d.index,
                              py::arg("name") = d.name,
                              py::arg("type") = deviceTypeName(d.type)));
        return out;
      },
      "The Vulkan devices the loader sees.");

  py::class_<Device, std::shared_ptr<Device>>(m, "Device")
      .def(py::init(&makeDevice), py::arg("selector") = "",
           py::arg("validation") = false, py::arg("cpu_threads") = py::none(),
           "A device: an index, 'cpu', 'gpu' or part of a name ('' picks "
           "the default); cpu_threads sets llvmpipe's threads (0 when None).")
      .def_property_readonly("name",
                             [](const Device &d) { return d.info().name; })
      .def_property_readonly("cpu_threads", [](const Device &d) {
        return describeCpuThreads(d.cpuThreadsSetting());
      });

  py::class_<PyModule>(m, "Module")
      .def_static(
          "load",
          [](std::shared_ptr<Device> device, py::object source,
             PyModule *shareWeightsWith) {
            LoadOptions options;
            options.shareWeightsWith =
                shareWeightsWith ? shareWeightsWith->module.get() : nullptr;
            std::unique_ptr<Module> loaded;
            if (py::isinstance<py::bytes>(source)) {
              std::string bytes = py::cast<std::string>(source);
              loaded = take(Module::loadBytes(
                  device, reinterpret_cast<const uint8_t *>(bytes.data()),
                  bytes.size(), options));
            } else {
              loaded = take(Module::loadFile(
                  device, py::cast<std::string>(py::str(source)), options));
            }
            return PyModule{std::shared_ptr<Module>(std::move(loaded))};
          },
          py::arg("device"), py::arg("source"),
          py::arg("share_weights_with") = nullptr,
          "Loads a .capmod file (a path) or its bytes.")
      .def_property_readonly(
          "entries", [](const PyModule &p) { return p.module->entryNames(); })
      .def(
          "run",
          [](PyModule &p, const std::string &entry, py::dict inputs,
             std::vector<std::string> probes) {
            RunOptions options;
            options.probes = std::move(probes);
            RunResult r =
                take(p.module->runFull(entry, toTensors(inputs), options));
            py::dict out = toDict(r.outputs);
            if (!options.probes.empty())
              out["probes"] = toDict(r.probes);
            return out;
          },
          py::arg("entry"), py::arg("inputs"),
          py::arg("probes") = std::vector<std::string>(),
          "Replays an entry (for a training entry: one step) on a dict of "
          "numpy arrays; returns a dict of the outputs (and 'probes').")
      .def(
          "params",
          [](PyModule &p) { return toDict(take(p.module->getParams())); },
          "Every weight, read back from the device.")
      .def(
          "set_params",
          [](PyModule &p, py::dict values, bool partial) {
            check(p.module->setParams(toTensors(values), {.partial = partial}));
          },
          py::arg("values"), py::arg("partial") = false,
          "Replaces the weights (all of them unless partial), checked first.")
      .def(
          "train_state",
          [](const PyModule &p, const std::string &entry) {
            TrainState s = take(p.module->trainState(entry));
            py::dict d(
                py::arg("step") = s.step,
                py::arg("refused_steps") = s.refusedSteps,
                py::arg("lr") = s.adamw.lr, py::arg("beta1") = s.adamw.beta1,
                py::arg("beta2") = s.adamw.beta2, py::arg("eps") = s.adamw.eps,
                py::arg("weight_decay") = s.adamw.weightDecay);
            d["max_grad_norm"] =
                s.maxGradNorm ? py::cast(*s.maxGradNorm) : py::none();
            return d;
          },
          py::arg("entry"))
      .def(
          "set_learning_rate",
          [](PyModule &p, const std::string &entry, float lr) {
            check(p.module->setLearningRate(entry, lr));
          },
          py::arg("entry"), py::arg("lr"))
      .def(
          "set_max_grad_norm",
          [](PyModule &p, const std::string &entry, float v) {
            check(p.module->setMaxGradNorm(entry, v));
          },
          py::arg("entry"), py::arg("max_grad_norm"))
      .def(
          "set_train_step",
          [](PyModule &p, const std::string &entry, uint64_t t) {
            check(p.module->setTrainStep(entry, t));
          },
          py::arg("entry"), py::arg("step"))
      .def(
          "moments",
          [](PyModule &p, const std::string &entry) {
            AdamWMoments mo = take(p.module->readMoments(entry));
            return py::make_tuple(toArray(mo.m), toArray(mo.v));
          },
          py::arg("entry"), "Both AdamW moments (m, v), bit for bit.")
      .def(
          "set_moments",
          [](PyModule &p, const std::string &entry, py::handle mArr,
             py::handle vArr) {
            AdamWMoments mo{toTensor("m", mArr), toTensor("v", vArr)};
            check(p.module->writeMoments(entry, mo));
          },
          py::arg("entry"), py::arg("m"), py::arg("v"))
      .def(
          "reset_optimizer",
          [](PyModule &p, const std::string &entry) {
            check(p.module->resetOptimizer(entry));
          },
          py::arg("entry"))
      .def_property_readonly("record_count", [](const PyModule &p) {
        return p.module->recordCount();
      });
}
