//===- convert.h - Errors and arrays between the runtime and Python -*- C++
//-*-===//
//
// What the bindings share: a runtime Status raised as capture.Error (or its
// subclasses UpdateRefused and OutOfMemory, set by capture/__init__.py),
// and numpy arrays to and from host tensors.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_PYTHON_CONVERT_H
#define CAPTURE_PYTHON_CONVERT_H

#include "capture/rt/census.h"
#include "capture/rt/module.h"
#include "capture/rt/status.h"
#include "capture/rt/tensor.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

namespace capture::python {

namespace py = pybind11;

/// Sets the exception classes raise() uses (capture.Error, UpdateRefused,
/// OutOfMemory).
void setErrorTypes(py::object error, py::object updateRefused,
                   py::object outOfMemory);

/// Raises the exception of `status`'s code with its message and `.code`.
[[noreturn]] void raise(const rt::Status &status);

/// Raises `s` when it is an error.
inline void check(const rt::Status &s) {
  if (s.isError())
    raise(s);
}

/// The value of `r`, or raises its error.
template <typename T> T take(rt::Result<T> r) {
  if (r.isError())
    raise(r.status());
  return std::move(r).value();
}

/// A numpy array (f32 or i32, any layout) as a host tensor (a copy);
/// another dtype raises an error naming input `name`.
rt::HostTensor toTensor(const std::string &name, const py::handle &value);
/// A host tensor as a numpy array that takes its data (no copy).
py::array toArray(rt::HostTensor &&t);
/// A host tensor as a new numpy array (a copy).
py::array toArray(const rt::HostTensor &t);
/// A dict of numpy arrays as named host tensors (copies), in the dict's
/// order.
std::vector<rt::NamedTensor> toTensors(const py::dict &values);
/// Named host tensors as a dict of numpy arrays that take their data.
py::dict toDict(std::vector<rt::NamedTensor> &&values);

/// A dict of numpy arrays as runtime inputs read in place (a copy only of
/// an array that is not C-contiguous), kept alive while this lives: the
/// one copy of a call's inputs is into the upload's staging.
class InputViews {
public:
  /// Views of `values` (float32 or int32; another dtype raises, naming it).
  explicit InputViews(const py::dict &values);
  /// The views, in the dict's order.
  const std::vector<rt::TensorView> &views() const { return views_; }

private:
  /// The arrays viewed (contiguous).
  std::vector<py::array> arrays_;
  /// Their names.
  std::vector<std::string> names_;
  /// Their shapes.
  std::vector<std::vector<int64_t>> shapes_;
  /// The views, into the above.
  std::vector<rt::TensorView> views_;
};
/// A training step's counter and hyperparameters as a dict.
py::dict trainStateDict(const rt::TrainState &s);
/// What a module contains (rt::moduleCensus of its description) as a dict:
/// module-wide counts, and "entries", "kernels" and "buffers" as lists.
py::dict censusDict(const rt::Module &module);
/// A profiled run's measurements as a dict (host stages and device times
/// in microseconds).
py::dict profileDict(const rt::Profile &p);
/// The run options of a Python call: probes, eager, and a profile into
/// `profile` when `profiled`.
rt::RunOptions runOptions(std::vector<std::string> probes, bool eager,
                          bool profiled, rt::Profile &profile);

} // namespace capture::python

#endif // CAPTURE_PYTHON_CONVERT_H
