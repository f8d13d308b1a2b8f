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
#include "capture/rt/capmod.h"
#include "capture/rt/census.h"
#include "capture/rt/cpu_threads_advice.h"
#include "capture/rt/device.h"
#include "capture/rt/environment.h"

#include "convert.h"
#include "tracer.h"

#include <pybind11/stl.h>

#include <cstring>
#include <map>
#include <memory>
#include <string>

using namespace capture::python;
using namespace capture::rt;

namespace {

/// A loaded module with its device kept alive.
struct PyModule {
  /// The module.
  std::shared_ptr<Module> module;
};

/// Options with `selector`, else CAPTURE_DEVICE's, as in the tools (the
/// validation the caller's, not the environment's).
DeviceOptions selectorOptions(const std::string &selector) {
  DeviceOptions options;
  options.selector = selector;
  if (selector.empty()) {
    DeviceOptions env = deviceOptionsFromEnvironment();
    options.selector = env.selector;
    options.selectorSource = env.selectorSource;
  }
  return options;
}

std::shared_ptr<Device> makeDevice(const std::string &selector, bool validation,
                                   std::optional<int> cpuThreads,
                                   const std::string &wait) {
  DeviceOptions options = selectorOptions(selector);
  options.validation = validation;
  options.cpuThreads = cpuThreads;
  options.waitPolicy = take(parseWaitPolicy(wait, "Device(wait=)"));
  return take(Device::create(options));
}

/// Whether two contiguous buffers hold the same bytes (a buffer that is
/// not contiguous raises, as the buffer protocol does).
bool sameBytes(const py::handle &a, const py::handle &b) {
  Py_buffer x, y;
  if (PyObject_GetBuffer(a.ptr(), &x, PyBUF_C_CONTIGUOUS) != 0)
    throw py::error_already_set();
  if (PyObject_GetBuffer(b.ptr(), &y, PyBUF_C_CONTIGUOUS) != 0) {
    PyBuffer_Release(&x);
    throw py::error_already_set();
  }
  bool same = x.len == y.len && std::memcmp(x.buf, y.buf, x.len) == 0;
  PyBuffer_Release(&x);
  PyBuffer_Release(&y);
  return same;
}

} // namespace

PYBIND11_MODULE(_capture, m) {
  m.doc() = "Capture's Vulkan runtime: replay compiled training steps and "
            "forward passes as one queue submission per call.";

  m.def(
      "register_errors",
      [](py::object error, py::object refused, py::object oom) {
        setErrorTypes(std::move(error), std::move(refused), std::move(oom));
      },
      "Sets the exception classes (capture/__init__.py calls this).");
  m.def("set_package_dir", &setPackageDir,
        "Ops are located at the first frame outside this directory.");
  bindTracer(m);

  m.def(
      "changed_buffers",
      [](const py::list &live, const py::list &kept) {
        if (live.size() != kept.size())
          throw py::value_error(
              "changed_buffers: " + std::to_string(live.size()) +
              " buffers against " + std::to_string(kept.size()) + " kept");
        py::list out;
        for (size_t i = 0; i < live.size(); ++i)
          if (!sameBytes(live[i], kept[i]))
            out.append(i);
        return out;
      },
      py::arg("live"), py::arg("kept"),
      "The indices i where live[i]'s bytes differ from kept[i]'s (two lists "
      "of contiguous buffers, numpy arrays say): capture.fx's check that "
      "the user's tensors still hold what the device has, one call for a "
      "model instead of a torch.equal per tensor.");
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

  m.def(
      "advise_cpu_threads",
      [](py::object source) {
        ModuleDesc desc;
        if (py::isinstance<py::bytes>(source)) {
          std::string bytes = py::cast<std::string>(source);
          desc = take(readCapmod(
              reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()));
        } else {
          desc = take(readCapmodFile(py::cast<std::string>(py::str(source))));
        }
        CpuThreadsAdvice a = adviseCpuThreads(desc);
        return py::dict(py::arg("threads") = a.threads,
                        py::arg("pool") = a.threads != 0,
                        py::arg("entry") = a.entry,
                        py::arg("work_per_dispatch") = a.workPerDispatch,
                        py::arg("reason") = a.reason);
      },
      py::arg("source"),
      "llvmpipe's threads for a module (its bytes or a path), from the "
      "compiler's work estimates: pass ['threads'] as Device(cpu_threads=).");

  py::class_<Device, std::shared_ptr<Device>>(m, "Device")
      .def(py::init(&makeDevice), py::arg("selector") = "",
           py::arg("validation") = false, py::arg("cpu_threads") = py::none(),
           py::arg("wait") = "auto",
           "A device: an index, 'cpu' (lavapipe), 'gpu', 'vulkan' (a GPU, "
           "else lavapipe), 'host' (native code) or part of a name ('': env "
           "CAPTURE_DEVICE, else a GPU, else the host device; .choice says "
           "why); cpu_threads sets the host device's or llvmpipe's threads "
           "(None: one per core on the host, 0 on llvmpipe; -1: llvmpipe's "
           "pool; advise_cpu_threads chooses for a module); "
           "wait how the host waits for each step: 'auto', 'block' or "
           "'spin'.")
      .def_property_readonly("name",
                             [](const Device &d) { return d.info().name; })
      .def_property_readonly("cpu_threads",
                             [](const Device &d) {
                               return describeCpuThreads(d.cpuThreadsSetting());
                             })
      .def_property_readonly(
          "wait", [](const Device &d) { return describeWait(d.waitSetting()); })
      .def_property_readonly(
          "choice", [](const Device &d) { return d.choice(); },
          "Why this device was chosen: 'selector 'host'', 'default: no "
          "Vulkan GPU, so the host device', ...")
      .def_property_readonly(
          "submit_count", &Device::submitCount,
          "vkQueueSubmit calls made on this device so far, by all its "
          "modules (a submission of deferred calls counts once).")
      .def_property_readonly("deferred_count", &Device::deferredCount,
                             "Deferred calls waiting for submission.")
      .def(
          "submit_deferred", [](Device &d) { check(d.submitDeferred()); },
          "Submits the waiting deferred calls in one submission; their "
          "results (or errors) wait in their capture.Deferred.");

  py::class_<PyModule>(m, "Module")
      .def_static(
          "load",
          [](std::shared_ptr<Device> device, py::object source,
             PyModule *shareWeightsWith) {
            LoadOptions options;
            options.shareWeightsWith =
                shareWeightsWith ? shareWeightsWith->module.get() : nullptr;
            ModuleDesc desc;
            if (py::isinstance<py::bytes>(source)) {
              std::string bytes = py::cast<std::string>(source);
              desc = take(
                  readCapmod(reinterpret_cast<const uint8_t *>(bytes.data()),
                             bytes.size()));
            } else {
              desc =
                  take(readCapmodFile(py::cast<std::string>(py::str(source))));
            }
            if (!device) {
              if (shareWeightsWith)
                throw py::value_error(
                    "Module.load: share_weights_with needs the device of the "
                    "module to share with; expected device=that device, got "
                    "None");
              // What the module can run on: CAPTURE_DEVICE, else a GPU,
              // else the host device when it has host code, else lavapipe.
              device = take(
                  Device::create(deviceOptionsFor(desc, selectorOptions(""))));
            }
            return PyModule{std::shared_ptr<Module>(
                take(Module::load(device, std::move(desc), options)))};
          },
          py::arg("device"), py::arg("source"),
          py::arg("share_weights_with") = nullptr,
          "Loads a .capmod file (a path) or its bytes on `device`; None: "
          "the device the module can run on (env CAPTURE_DEVICE, else a "
          "GPU, else the host device when the module has host code, "
          "capture-aot --target=cpu, else lavapipe).")
      .def_property_readonly(
          "device_name",
          [](const PyModule &m) { return m.module->device().info().name; },
          "The name of the device the module is loaded on.")
      .def_property_readonly(
          "device_choice",
          [](const PyModule &m) { return m.module->device().choice(); },
          "Why that device was chosen (Device.choice).")
      .def_property_readonly(
          "entries", [](const PyModule &p) { return p.module->entryNames(); })
      .def(
          "run",
          [](PyModule &p, const std::string &entry, py::dict inputs,
             std::vector<std::string> probes, bool eager, bool profiled) {
            Profile profile;
            RunOptions options =
                runOptions(std::move(probes), eager, profiled, profile);
            InputViews views(inputs);
            RunResult r =
                take(p.module->runViews(entry, views.views(), {}, options));
            py::dict out = toDict(std::move(r.outputs));
            if (!options.probes.empty())
              out["probes"] = toDict(std::move(r.probes));
            if (profiled)
              out["profile"] = profileDict(profile);
            return out;
          },
          py::arg("entry"), py::arg("inputs"),
          py::arg("probes") = std::vector<std::string>(),
          py::arg("eager") = false, py::arg("profile") = false,
          "Replays an entry (for a training entry: one step) on a dict of "
          "numpy arrays; returns a dict of the outputs (and 'probes', and "
          "with profile=True 'profile': host stages and device times). "
          "eager=True runs one submission per kernel instead.")
      .def(
          "census", [](const PyModule &p) { return censusDict(*p.module); },
          "What the module contains: kernels, dispatches, barriers, buffer "
          "bytes and the scratch liveness bound, per entry.")
      .def(
          "entry_graph",
          [](const PyModule &p, const std::string &entry) {
            return take(formatEntryGraph(p.module->desc(), entry));
          },
          py::arg("entry"),
          "The entry's schedule, one line per dispatch and barrier.")
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
            return trainStateDict(take(p.module->trainState(entry)));
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
