//===- tracer.h - The tracer's bindings -------------------------*- C++ -*-===//

#ifndef CAPTURE_PYTHON_TRACER_H
#define CAPTURE_PYTHON_TRACER_H

#include <pybind11/pybind11.h>

#include <string>

namespace capture::python {

/// Adds the tracer (Params, Weight, Tensor, the ops, capture(),
/// capture_step(), Tracer) to module `m`.
void bindTracer(pybind11::module_ &m);

/// Ops are located at the first Python frame whose file is not under
/// `dir` (the capture package's directory).
void setPackageDir(const std::string &dir);

} // namespace capture::python

#endif // CAPTURE_PYTHON_TRACER_H
