//===- tracer.cpp - The C++ tracer bound into capture._capture ------------===//
//
// The tracer from Python is the C++ tracer itself, not a second
// implementation: Params, Weight and Tensor are the C++ objects, every op
// calls the C++ op, and capture() / capture_step() / Tracer record, compile
// and replay exactly as from C++. Each op is located at the first Python
// frame outside the capture package (or at the `loc=(file, line)` a
// frontend such as capture.fx passes), so errors and the capture guard name
// the user's own line. A Python exception raised inside a traced function
// drops the recording and propagates unchanged. The ops themselves are
// bound in ops.cpp.
//
//===----------------------------------------------------------------------===//

#include "capture/Tracer/Capture.h"
#include "capture/rt/deferred.h"

#include "convert.h"
#include "ops.h"
#include "tracer.h"

#include <pybind11/stl.h>

#include <memory>
#include <string>

using namespace capture;
using namespace capture::python;

namespace {

/// A dtype given as a string or a numpy dtype: float32 or int32.
ElemType elemTypeOf(const std::string &input, const py::handle &dtype) {
  py::dtype d = py::dtype::from_args(py::reinterpret_borrow<py::object>(dtype));
  if (d.is(py::dtype::of<float>()))
    return ElemType::F32;
  if (d.is(py::dtype::of<int32_t>()))
    return ElemType::I32;
  throw py::type_error("input '" + input + "': dtype " +
                       std::string(py::str(d)) + "; expected float32 or int32");
}

/// Entry inputs from {name: shape} or {name: (shape, dtype)}.
std::vector<Tracer::InputSpec> inputSpecs(const py::dict &inputs) {
  std::vector<Tracer::InputSpec> specs;
  for (auto [k, v] : inputs) {
    Tracer::InputSpec spec;
    spec.name = py::str(k);
    if (py::isinstance<py::tuple>(v) && py::len(v) == 2 &&
        !isScalar(py::reinterpret_borrow<py::tuple>(v)[0])) {
      auto pair = py::reinterpret_borrow<py::tuple>(v);
      spec.shape = py::cast<std::vector<int64_t>>(pair[0]);
      spec.type = elemTypeOf(spec.name, pair[1]);
    } else {
      spec.shape = py::cast<std::vector<int64_t>>(v);
    }
    specs.push_back(std::move(spec));
  }
  return specs;
}

/// A Python exception raised inside a traced function, kept to re-raise
/// once the C++ tracer has dropped the recording.
struct PendingError {
  /// The exception, when one was raised.
  std::unique_ptr<py::error_already_set> error;

  /// Raises the kept exception, if any.
  void reraise() {
    if (!error)
      return;
    std::unique_ptr<py::error_already_set> e = std::move(error);
    e->restore();
    throw py::error_already_set();
  }
};

/// The function's result as outputs: a dict {name: Tensor} (in order), a
/// list of (name, Tensor) pairs, or one Tensor named `single`.
Tracer::Outputs toOutputs(const py::object &result, const char *single) {
  Tracer::Outputs out;
  if (py::isinstance<Tensor>(result)) {
    out.emplace_back(single, py::cast<Tensor>(result));
    return out;
  }
  auto add = [&](const py::handle &name, const py::handle &value) {
    if (!py::isinstance<Tensor>(value))
      throw py::type_error("output '" + std::string(py::str(name)) +
                           "': expected a capture.Tensor, got " +
                           typeName(value));
    out.emplace_back(py::str(name), py::cast<Tensor>(value));
  };
  if (py::isinstance<py::dict>(result)) {
    for (auto [k, v] : py::reinterpret_borrow<py::dict>(result))
      add(k, v);
    return out;
  }
  if (py::isinstance<py::list>(result) || py::isinstance<py::tuple>(result)) {
    for (const py::handle &item : result) {
      auto pair = py::cast<py::tuple>(item);
      if (pair.size() != 2)
        throw py::type_error("outputs: expected (name, tensor) pairs");
      add(pair[0], pair[1]);
    }
    return out;
  }
  throw py::type_error("the traced function returned " + typeName(result) +
                       "; expected a capture.Tensor, a dict {name: Tensor} "
                       "or a list of (name, Tensor) pairs");
}

/// `fn` (a Python callable taking {name: Tensor}) as a tracer function.
/// A Python exception inside it is kept in `pending`.
Tracer::Fn wrap(py::object fn, std::shared_ptr<PendingError> pending,
                const char *single) {
  return [fn = std::move(fn), pending = std::move(pending),
          single](Tracer::Inputs &in) -> Tracer::Outputs {
    try {
      py::dict args;
      for (const auto &[name, t] : in.all())
        args[py::str(name)] = t;
      return toOutputs(fn(args), single);
    } catch (py::error_already_set &e) {
      std::string what = e.what();
      pending->error = std::make_unique<py::error_already_set>(std::move(e));
      throw std::runtime_error(what);
    } catch (py::builtin_exception &e) { // a TypeError of the bindings
      std::string what = e.what();
      e.set_error();
      pending->error = std::make_unique<py::error_already_set>();
      throw std::runtime_error(what);
    }
  };
}

/// The inputs of a call: a dict of arrays, or keyword arguments.
py::dict callInputs(const py::object &inputs, const py::kwargs &kwargs) {
  py::dict all;
  if (!inputs.is_none()) {
    if (!py::isinstance<py::dict>(inputs))
      throw py::type_error("inputs: expected a dict {name: numpy array}, got " +
                           typeName(inputs));
    for (auto [k, v] : py::reinterpret_borrow<py::dict>(inputs))
      all[k] = v;
  }
  for (auto [k, v] : kwargs) {
    if (all.contains(k))
      throw py::type_error("input '" + std::string(py::str(k)) +
                           "' given twice");
    all[k] = v;
  }
  return all;
}

py::dict statsDict(const CaptureStats &s) {
  return py::dict(
      py::arg("calls") = s.calls, py::arg("recordings") = s.recordings,
      py::arg("replays") = s.replays, py::arg("evictions") = s.evictions,
      py::arg("cache_hits") = s.cacheHits, py::arg("cached") = s.cached);
}

/// Where a call of `c` is made, when it matters: only a call inside a trace
/// over the same Params is recorded at its location, and finding the
/// caller's line costs much of a replay's microseconds.
SourceLoc callerLoc(const CapturedFunction &c) {
  return c.tracing() ? locate(py::none()) : SourceLoc("<python>", 0);
}

/// A captured callable (Captured or CapturedStep) with the error slot of
/// its Python function.
template <typename C> struct PyCallable {
  /// The callable.
  C callable;
  /// Where its function's exceptions wait.
  std::shared_ptr<PendingError> pending;

  /// One call: the outputs, or the Python exception its trace raised, or
  /// the error.
  py::dict call(const py::object &inputs, const py::kwargs &kwargs) {
    InputViews views(callInputs(inputs, kwargs));
    auto r = callable.run(views.views(), rt::RunOptions(), callerLoc(callable));
    if (r.isError())
      pending->reraise();
    return toDict(take(std::move(r)).outputs);
  }
};
using PyCaptured = PyCallable<Captured>;

/// A deferred call (capture.Deferred): its outputs once the device's
/// deferred runs were submitted (runtime deferred.h).
struct PyDeferred {
  /// The runtime's handle; empty once its result was taken.
  rt::DeferredRun run;
  /// The outputs, once taken.
  std::optional<py::dict> outputs;
  /// The error, once taken.
  std::optional<rt::Status> error;

  /// The outputs, submitting the waiting runs first if need be; raises the
  /// run's error (again on every call).
  py::dict result() {
    if (!outputs && !error) {
      rt::Result<rt::RunResult> r = run.take();
      if (r.isError())
        error = r.status();
      else
        outputs = toDict(std::move(r.value().outputs));
    }
    if (error)
      raise(*error);
    return *outputs;
  }
};

/// Defers one call of `w` (RunOptions::deferred): checked, recorded if
/// need be and its inputs packed now; submitted with the device's other
/// deferred runs when something needs them.
template <typename C>
PyDeferred deferCall(PyCallable<C> &w, const py::object &inputs,
                     const py::kwargs &kwargs) {
  InputViews views(callInputs(inputs, kwargs));
  PyDeferred d;
  rt::RunOptions options;
  options.deferred = &d.run;
  auto r = w.callable.run(views.views(), options, callerLoc(w.callable));
  if (r.isError()) {
    w.pending->reraise();
    raise(r.status());
  }
  return d;
}
using PyCapturedStep = PyCallable<CapturedStep>;

/// What both callables' bindings share: why_recorded, stats, free, and the
/// recording's census, entry graph and a profiled or eager call.
template <typename C> void addShared(py::class_<PyCallable<C>> &c) {
  using W = PyCallable<C>;
  c.def("__call__", &W::call, py::arg("inputs") = py::none())
      .def("defer", &deferCall<C>, py::arg("inputs") = py::none(),
           "As a call, deferred: returns a capture.Deferred at once; the "
           "device's deferred calls are submitted together, in order, when "
           "something needs them (a result, any other work on the device).")
      .def_property_readonly(
          "why_recorded", [](const W &w) { return w.callable.whyRecorded(); },
          "Why the last call traced the function ('' when it replayed).")
      .def_property_readonly(
          "stats", [](const W &w) { return statsDict(w.callable.stats()); })
      .def("free", [](W &w) { check(w.callable.free()); })
      .def(
          "census",
          [](const W &w) { return censusDict(*take(w.callable.module())); },
          "The census of the most recently used recording's module.")
      .def(
          "entry_graph",
          [](const W &w) {
            const rt::Module *m = take(w.callable.module());
            return take(rt::formatEntryGraph(m->desc(),
                                             m->desc().entries.front().name));
          },
          "The recording's schedule, one line per dispatch and barrier.")
      .def(
          "profile",
          [](W &w, const py::object &inputs, bool eager,
             const py::kwargs &kwargs) {
            rt::Profile profile;
            InputViews views(callInputs(inputs, kwargs));
            auto r = w.callable.run(views.views(),
                                    runOptions({}, eager, true, profile),
                                    locate(py::none()));
            if (r.isError())
              w.pending->reraise();
            py::dict out = toDict(take(std::move(r)).outputs);
            out["profile"] = profileDict(profile);
            return out;
          },
          py::arg("inputs") = py::none(), py::kw_only(),
          py::arg("eager") = false,
          "A profiled call (eager=True: one submission per kernel): the "
          "outputs and 'profile', the host stages and device times.");
}

AdamW adamwOf(double lr, std::pair<double, double> betas, double eps,
              double weightDecay, bool decoupledWeightDecay) {
  AdamW a;
  a.lr = lr;
  a.beta1 = betas.first;
  a.beta2 = betas.second;
  a.eps = eps;
  a.weightDecay = weightDecay;
  a.decoupledWeightDecay = decoupledWeightDecay;
  return a;
}

/// capture_step's param_groups: a list of dicts, each 'weights' and any of
/// 'lr', 'betas', 'eps', 'weight_decay' (the step's where unset). Raises
/// TypeError or ValueError naming what is wrong.
static std::vector<ParamGroup> paramGroupsOf(const py::object &groups,
                                             double lr,
                                             std::pair<double, double> betas,
                                             double eps, double weightDecay,
                                             bool decoupledWeightDecay) {
  std::vector<ParamGroup> out;
  if (!py::isinstance<py::list>(groups) && !py::isinstance<py::tuple>(groups))
    throw py::type_error("param_groups: expected a list of dicts, got " +
                         typeName(groups));
  size_t g = 0;
  for (py::handle item : groups) {
    ++g;
    std::string where = "param_groups[" + std::to_string(g - 1) + "]";
    if (!py::isinstance<py::dict>(item))
      throw py::type_error(where + ": expected a dict, got " + typeName(item));
    auto group = py::reinterpret_borrow<py::dict>(item);
    for (auto [key, _] : group) {
      std::string k = py::str(key);
      if (k != "weights" && k != "lr" && k != "betas" && k != "eps" &&
          k != "weight_decay")
        throw py::value_error(where + ": unknown key '" + k +
                              "', expected weights, lr, betas, eps, "
                              "weight_decay");
    }
    if (!group.contains("weights"))
      throw py::value_error(where + ": expected its 'weights' (names)");
    ParamGroup p;
    p.weights = py::cast<std::vector<std::string>>(group["weights"]);
    p.adamw = adamwOf(
        group.contains("lr") ? py::cast<double>(group["lr"]) : lr,
        group.contains("betas")
            ? py::cast<std::pair<double, double>>(group["betas"])
            : betas,
        group.contains("eps") ? py::cast<double>(group["eps"]) : eps,
        group.contains("weight_decay") ? py::cast<double>(group["weight_decay"])
                                       : weightDecay,
        decoupledWeightDecay);
    out.push_back(std::move(p));
  }
  return out;
}

CompileOptions compileOptionsOf(const std::string &target, bool fuse) {
  CompileOptions c;
  c.target = target;
  c.fuse = fuse;
  return c;
}

} // namespace

void capture::python::bindTracer(py::module_ &m) {
  m.attr("DEFAULT_TARGET") = CompileOptions().target;
  py::class_<Init>(m, "Init", "A weight's initial value (PyTorch's rules).")
      .def_static("zeros", &Init::zeros)
      .def_static("constant", &Init::constant, py::arg("value"))
      .def_static("uniform", &Init::uniform, py::arg("low"), py::arg("high"),
                  py::arg("seed"))
      .def_static("normal", &Init::normal, py::arg("mean"), py::arg("std"),
                  py::arg("seed"))
      .def_static("linear", &Init::linear, py::arg("fan_in"), py::arg("seed"),
                  "torch.nn.Linear's default: U(-1/sqrt(fan_in), "
                  "1/sqrt(fan_in)).");

  py::class_<Tensor> tensor(m, "Tensor",
                            "A value of the function being traced.");
  tensor.def_property_readonly("shape", &Tensor::shape)
      .def_property_readonly("dtype",
                             [](const Tensor &t) {
                               return t.type() == ElemType::I32 ? "int32"
                                                                : "float32";
                             })
      .def(
          "item", [](const Tensor &t) { return t.item(locate(py::none())); },
          "A read-back: recorded, not performed (the guard refuses it).")
      .def("__repr__", [](const Tensor &t) {
        std::string s = "capture.Tensor(shape=[";
        for (size_t i = 0; i < t.shape().size(); ++i)
          s += (i ? ", " : "") + std::to_string(t.shape()[i]);
        return s + "])";
      });
  addOperators(tensor);

  py::class_<Weight> weight(m, "Weight",
                            "A declared weight; as an operand, a read of it.");
  weight.def_property_readonly("name", &Weight::name)
      .def_property_readonly("shape", &Weight::shape)
      .def("__repr__", [](const Weight &w) {
        return "capture.Weight('" + w.name() + "')";
      });
  addOperators(weight);

  py::class_<PyDeferred>(m, "Deferred",
                         "A deferred call: its outputs come with the "
                         "device's next submission of deferred calls.")
      .def_property_readonly(
          "done",
          [](const PyDeferred &d) {
            return d.outputs || d.error || d.run.done();
          },
          "Whether its submission ran (result() will not submit).")
      .def("result", &PyDeferred::result,
           "The outputs (a dict of numpy arrays), submitting the waiting "
           "calls first if need be; raises the call's error (a refused "
           "step).");

  py::class_<Params>(m, "Params",
                     "A model's weights, shared by every function captured "
                     "over them.")
      .def(py::init([](std::shared_ptr<rt::Device> device) {
             return std::make_unique<Params>(std::move(device));
           }),
           py::arg("device") = nullptr)
      .def(
          "weight",
          [](Params &p, const std::string &name, std::vector<int64_t> shape,
             Init init, bool trainable, py::object loc) {
            return p.weight(name, std::move(shape), init, trainable,
                            locate(loc));
          },
          py::arg("name"), py::arg("shape"), py::arg("init") = Init::zeros(),
          py::arg("trainable") = true, py::arg("loc") = py::none(),
          py::keep_alive<0, 1>())
      .def(
          "recreate",
          [](Params &p, const std::string &name, std::vector<int64_t> shape,
             Init init, bool trainable, py::object loc) {
            return p.recreate(name, std::move(shape), init, trainable,
                              locate(loc));
          },
          py::arg("name"), py::arg("shape"), py::arg("init") = Init::zeros(),
          py::arg("trainable") = true, py::arg("loc") = py::none(),
          py::keep_alive<0, 1>())
      .def("names", &Params::names)
      .def_property_readonly(
          "device", [](Params &p) { return take(p.device()); },
          "The device the weights live on (created on first use).")
      .def(
          "values", [](Params &p) { return toDict(take(p.values())); },
          "Every weight's current value, in declaration order.")
      .def(
          "set_values",
          [](Params &p, const py::dict &values) {
            check(p.setValues(toTensors(values)));
          },
          py::arg("values"));

  bindOps(m);

  py::class_<PyCaptured> captured(m, "Captured",
                                  "A forward function captured by capture().");
  addShared(captured);

  py::class_<PyCapturedStep> step(
      m, "CapturedStep", "A training step captured by capture_step().");
  addShared(step);
  step.def(
          "set_learning_rate",
          [](PyCapturedStep &c, double lr, size_t group) {
            check(c.callable.setLearningRate(group, lr));
          },
          py::arg("lr"), py::arg("group") = 0)
      .def(
          "set_max_grad_norm",
          [](PyCapturedStep &c, double v) {
            check(c.callable.setMaxGradNorm(v));
          },
          py::arg("max_grad_norm"))
      .def("train_state",
           [](const PyCapturedStep &c) {
             return trainStateDict(take(c.callable.trainState()));
           })
      .def(
          "optimizer_state",
          [](const PyCapturedStep &c) {
            OptimizerState o = take(c.callable.optimizerState());
            return py::dict(py::arg("m") = toArray(std::move(o.moments.m)),
                            py::arg("v") = toArray(std::move(o.moments.v)),
                            py::arg("step") = o.step);
          },
          "Both AdamW moments and the step counter, bit for bit: with the "
          "weights (Params.values), what resumes the step exactly.")
      .def(
          "restore_optimizer",
          [](PyCapturedStep &c, const py::handle &m, const py::handle &v,
             uint64_t step) {
            OptimizerState o{{toTensor("m", m), toTensor("v", v)}, step};
            check(c.callable.restoreOptimizer(o));
          },
          py::arg("m"), py::arg("v"), py::arg("step"),
          "Restores a saved optimizer_state(); with the weights "
          "(Params.set_values) the next steps continue bit for bit.")
      .def(
          "take_optimizer_from",
          [](PyCapturedStep &c, const PyCapturedStep &other) {
            check(c.callable.takeOptimizerFrom(other.callable));
          },
          py::arg("other"),
          "Continues the optimizer of `other`, a step over the same Params "
          "(another batch size): moments and step counter, copied on the "
          "device when both are recorded; the hyperparameters stay this "
          "step's.");

  m.def(
      "capture",
      [](py::object fn, Params &params, size_t maxRecordings,
         const std::string &target, bool fuse) {
        auto pending = std::make_shared<PendingError>();
        CaptureOptions options;
        options.maxRecordings = maxRecordings;
        options.compile = compileOptionsOf(target, fuse);
        Captured c = capture::capture(wrap(std::move(fn), pending, "output"),
                                      params, options, locate(py::none()));
        return PyCaptured{std::move(c), std::move(pending)};
      },
      py::arg("fn"), py::arg("params"), py::arg("max_recordings") = 8,
      py::arg("target") = CompileOptions().target, py::arg("fuse") = true,
      py::keep_alive<0, 2>(),
      "Captures fn(inputs: {name: Tensor}) -> {name: Tensor} over params: "
      "recorded once per input signature, replayed afterwards.");
  m.def(
      "capture_step",
      [](py::object fn, Params &params, double lr,
         std::pair<double, double> betas, double eps, double weightDecay,
         std::optional<double> maxGradNorm, const std::string &target,
         bool fuse, bool decoupledWeightDecay,
         std::optional<std::vector<std::string>> trains,
         const py::object &paramGroups) {
        auto pending = std::make_shared<PendingError>();
        CaptureOptions options;
        options.compile = compileOptionsOf(target, fuse);
        StepOptions step;
        step.maxGradNorm = maxGradNorm;
        step.trains = std::move(trains);
        if (!paramGroups.is_none())
          step.paramGroups = paramGroupsOf(paramGroups, lr, betas, eps,
                                           weightDecay, decoupledWeightDecay);
        CapturedStep c = capture::captureStep(
            wrap(std::move(fn), pending, "loss"), params,
            adamwOf(lr, betas, eps, weightDecay, decoupledWeightDecay), step,
            options, locate(py::none()));
        return PyCapturedStep{std::move(c), std::move(pending)};
      },
      py::arg("fn"), py::arg("params"), py::arg("lr") = 1e-3,
      py::arg("betas") = std::make_pair(0.9, 0.999), py::arg("eps") = 1e-8,
      py::arg("weight_decay") = 0.01, py::arg("max_grad_norm") = py::none(),
      py::arg("target") = CompileOptions().target, py::arg("fuse") = true,
      py::arg("decoupled_weight_decay") = true, py::arg("trains") = py::none(),
      py::arg("param_groups") = py::none(), py::keep_alive<0, 2>(),
      "Captures a training step: fn's first output is the loss; the "
      "compiler adds the backward pass, the clipping and AdamW "
      "(decoupled_weight_decay=False: torch.optim.Adam's L2 weight decay, "
      "fixed for the step's life). trains: the weights this step's "
      "optimizer holds, when several steps share params (default: every "
      "trainable weight). param_groups: [{'weights': [names], 'lr': ..., "
      "'betas': ..., 'eps': ..., 'weight_decay': ...}] (torch.optim's "
      "param_groups after the first; unset values are the step's).");

  py::class_<Tracer>(m, "Tracer",
                     "Records a module (weights and entries) for capture-aot "
                     "or an in-process compile.")
      .def(py::init([](Params *params) {
             return params ? std::make_unique<Tracer>(*params)
                           : std::make_unique<Tracer>();
           }),
           py::arg("params") = nullptr, py::keep_alive<1, 2>())
      .def_property_readonly(
          "params", [](Tracer &t) -> Params & { return t.params(); },
          py::return_value_policy::reference_internal)
      .def(
          "forward",
          [](Tracer &t, const std::string &name, const py::dict &inputs,
             py::object fn) {
            auto pending = std::make_shared<PendingError>();
            rt::Status s = t.forward(name, inputSpecs(inputs),
                                     wrap(std::move(fn), pending, "output"),
                                     locate(py::none()));
            if (s.isError())
              pending->reraise();
            check(s);
          },
          py::arg("name"), py::arg("inputs"), py::arg("fn"),
          "Records a forward entry; inputs are {name: shape} or "
          "{name: (shape, dtype)}.")
      .def(
          "train_step",
          [](Tracer &t, const std::string &name, const py::dict &inputs,
             py::object fn, double lr, std::pair<double, double> betas,
             double eps, double weightDecay, std::optional<double> maxGradNorm,
             bool decoupledWeightDecay, const py::object &paramGroups) {
            auto pending = std::make_shared<PendingError>();
            StepOptions step;
            step.maxGradNorm = maxGradNorm;
            if (!paramGroups.is_none())
              step.paramGroups =
                  paramGroupsOf(paramGroups, lr, betas, eps, weightDecay,
                                decoupledWeightDecay);
            rt::Status s = t.trainStep(
                name, inputSpecs(inputs), wrap(std::move(fn), pending, "loss"),
                adamwOf(lr, betas, eps, weightDecay, decoupledWeightDecay),
                step, locate(py::none()));
            if (s.isError())
              pending->reraise();
            check(s);
          },
          py::arg("name"), py::arg("inputs"), py::arg("fn"),
          py::arg("lr") = 1e-3, py::arg("betas") = std::make_pair(0.9, 0.999),
          py::arg("eps") = 1e-8, py::arg("weight_decay") = 0.01,
          py::arg("max_grad_norm") = py::none(),
          py::arg("decoupled_weight_decay") = true,
          py::arg("param_groups") = py::none())
      .def("to_mlir", [](const Tracer &t) { return take(t.toMlir()); })
      .def(
          "compile",
          [](const Tracer &t, const std::string &target, bool fuse) {
            std::vector<uint8_t> bytes =
                take(t.compile(compileOptionsOf(target, fuse)));
            return py::bytes(reinterpret_cast<const char *>(bytes.data()),
                             bytes.size());
          },
          py::arg("target") = CompileOptions().target, py::arg("fuse") = true,
          "Compiles in-process into module-file bytes (Module.load).")
      .def_property_readonly("entries", &Tracer::entries);
}
