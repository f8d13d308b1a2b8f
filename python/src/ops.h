//===- ops.h - The tracer's ops and locations for the bindings --*- C++ -*-===//

#ifndef CAPTURE_PYTHON_OPS_H
#define CAPTURE_PYTHON_OPS_H

#include "capture/Tracer/Tracer.h"

#include "tracer.h"

#include <pybind11/pybind11.h>

#include <string>

namespace capture::python {

namespace py = pybind11;

/// The location of an op: `loc` when given as (file, line), else the first
/// Python frame outside the capture package.
SourceLoc locate(const py::object &loc);
/// Whether `h` is a Python number that stands for a constant (not a bool).
bool isScalar(const py::handle &h);
/// The name of `h`'s type, for messages.
std::string typeName(const py::handle &h);

/// The operators (+ - * / @, unary -, ** 2, .T) and the op methods of a
/// tensor operand's class.
void addOperators(py::class_<Tensor> &c);
/// As for Tensor: a Weight as an operand is a read of it.
void addOperators(py::class_<Weight> &c);
/// Every op as a function of module `m` (capture.tanh, capture.linear, ...).
void bindOps(py::module_ &m);

} // namespace capture::python

#endif // CAPTURE_PYTHON_OPS_H
