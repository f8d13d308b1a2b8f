//===- ops.cpp - The tracer's ops bound into capture._capture -------------===//
//
// Every op of the C++ tracer as a Python function (capture.tanh, ...) and
// as the operators and methods of capture.Tensor and capture.Weight, each
// located at the first Python frame outside the capture package, or at the
// `loc=(file, line)` a frontend such as capture.fx passes.
//
//===----------------------------------------------------------------------===//

#include "ops.h"

#include <pybind11/stl.h>

#include <optional>
#include <string>

using namespace capture;
using namespace capture::python;

/// Files under this directory (the capture package) are never the user's.
static std::string &packageDir() {
  static std::string dir; // set once by capture/__init__.py
  return dir;
}

/// The location of an op: `loc` when given as (file, line), else the first
/// Python frame outside the capture package.
SourceLoc python::locate(const py::object &loc) {
  if (!loc.is_none()) {
    auto pair = py::cast<std::pair<std::string, uint32_t>>(loc);
    return SourceLoc(pair.first, pair.second);
  }
  py::object frame = py::reinterpret_borrow<py::object>(
      reinterpret_cast<PyObject *>(PyEval_GetFrame()));
  const std::string &skip = packageDir();
  while (frame && !frame.is_none()) {
    std::string file = py::str(frame.attr("f_code").attr("co_filename"));
    if (skip.empty() || file.rfind(skip, 0) != 0)
      return SourceLoc(file, py::cast<uint32_t>(frame.attr("f_lineno")));
    frame = frame.attr("f_back");
  }
  return SourceLoc("<python>", 0);
}

/// A float operand (a Python int or float, not a bool).
bool python::isScalar(const py::handle &h) {
  return (py::isinstance<py::float_>(h) || py::isinstance<py::int_>(h)) &&
         !py::isinstance<py::bool_>(h);
}

std::string python::typeName(const py::handle &h) {
  return py::str(py::type::of(h).attr("__name__"));
}

namespace {

/// `h` as a tensor operand located at `loc`: a Tensor or a Weight (read in
/// the entry being traced). Raises TypeError naming what it got.
At operand(const py::handle &h, const SourceLoc &loc, const char *what) {
  if (py::isinstance<Tensor>(h)) {
    const Tensor &t = py::cast<const Tensor &>(h);
    if (t.expired())
      throw py::value_error(std::string(what) +
                            ": this capture.Tensor belongs to a trace that "
                            "has finished (kept from an earlier call); "
                            "compute it inside the traced function");
    return At(t, loc);
  }
  if (py::isinstance<Weight>(h))
    return At(py::cast<const Weight &>(h), loc);
  throw py::type_error(std::string(what) +
                       ": expected a capture.Tensor or capture.Weight, got " +
                       typeName(h));
}

/// The elementwise binary ops.
enum class Binary { Add, Sub, Mul, Div, Minimum, Maximum };

const char *binaryName(Binary op) {
  switch (op) {
  case Binary::Add:
    return "add";
  case Binary::Sub:
    return "sub";
  case Binary::Mul:
    return "mul";
  case Binary::Div:
    return "div";
  case Binary::Minimum:
    return "minimum";
  case Binary::Maximum:
    return "maximum";
  }
  return "?";
}

/// a op b for the arithmetic ops, over the C++ operators' overloads
/// (a float on either side, or two operands).
template <typename A, typename B> Tensor arithmetic(Binary op, A a, B b) {
  switch (op) {
  case Binary::Add:
    return a + b;
  case Binary::Sub:
    return a - b;
  case Binary::Mul:
    return a * b;
  default:
    return a / b;
  }
}

/// a op b, where one side may be a Python number (a constant).
Tensor binary(Binary op, const py::handle &a, const py::handle &b,
              const SourceLoc &loc) {
  const char *name = binaryName(op);
  bool scalarA = isScalar(a), scalarB = isScalar(b);
  if (scalarA && scalarB)
    throw py::type_error(std::string(name) +
                         ": at least one operand must be a tensor");
  if (op == Binary::Minimum || op == Binary::Maximum) {
    if (scalarA || scalarB)
      throw py::type_error(
          std::string(name) +
          ": both operands must be tensors; for a bound use clamp()");
    At x = operand(a, loc, name), y = operand(b, loc, name);
    return op == Binary::Minimum ? minimum(x, y) : maximum(x, y);
  }
  if (scalarA)
    return arithmetic(op, py::cast<float>(a), operand(b, loc, name));
  if (scalarB)
    return arithmetic(op, operand(a, loc, name), py::cast<float>(b));
  return arithmetic(op, operand(a, loc, name), operand(b, loc, name));
}

std::optional<int64_t> axisOf(const py::object &axis) {
  if (axis.is_none())
    return std::nullopt;
  return py::cast<int64_t>(axis);
}
/// The unary ops bound as functions and as Tensor/Weight methods.
struct UnaryOp {
  /// Python name.
  const char *name;
  /// The C++ op.
  Tensor (*fn)(At);
};

const UnaryOp unaryOps[] = {
    {"exp", capture::exp},
    {"log", capture::log},
    {"tanh", capture::tanh},
    {"sigmoid", capture::sigmoid},
    {"relu", capture::relu},
    {"sqrt", capture::sqrt},
    {"square", capture::square},
    {"floor", capture::floor},
    {"ceil", capture::ceil},
    {"erf", capture::erf},
    {"stop_gradient", capture::stopGradient},
};

/// The operators and methods a Tensor and a Weight share.
template <typename C> void addOperatorsTo(py::class_<C> &c) {
  auto bin = [&](const char *name, Binary op, bool reflected) {
    c.def(name, [op, reflected](const py::object &self, const py::object &o) {
      SourceLoc loc = locate(py::none());
      return reflected ? binary(op, o, self, loc) : binary(op, self, o, loc);
    });
  };
  bin("__add__", Binary::Add, false);
  bin("__radd__", Binary::Add, true);
  bin("__sub__", Binary::Sub, false);
  bin("__rsub__", Binary::Sub, true);
  bin("__mul__", Binary::Mul, false);
  bin("__rmul__", Binary::Mul, true);
  bin("__truediv__", Binary::Div, false);
  bin("__rtruediv__", Binary::Div, true);
  c.def("__neg__", [](const py::object &self) {
    return -operand(self, locate(py::none()), "neg");
  });
  c.def("__matmul__", [](const py::object &self, const py::object &o) {
    SourceLoc loc = locate(py::none());
    return matmul(operand(self, loc, "matmul"), operand(o, loc, "matmul"));
  });
  c.def("__pow__", [](const py::object &self, const py::object &e) {
    SourceLoc loc = locate(py::none());
    if (isScalar(e) && py::cast<double>(e) == 2.0)
      return square(operand(self, loc, "pow"));
    throw py::type_error("pow: only the exponent 2 is supported (square), "
                         "got " +
                         std::string(py::str(e)));
  });
  for (const UnaryOp &u : unaryOps)
    c.def(u.name, [fn = u.fn, name = u.name](const py::object &self) {
      return fn(operand(self, locate(py::none()), name));
    });
  c.def(
      "sum",
      [](const py::object &self, const py::object &axis) {
        return sum(operand(self, locate(py::none()), "sum"), axisOf(axis));
      },
      py::arg("axis") = py::none());
  c.def(
      "mean",
      [](const py::object &self, const py::object &axis) {
        return mean(operand(self, locate(py::none()), "mean"), axisOf(axis));
      },
      py::arg("axis") = py::none());
  c.def(
      "max",
      [](const py::object &self, const py::object &axis) {
        return capture::max(operand(self, locate(py::none()), "max"),
                            axisOf(axis));
      },
      py::arg("axis") = py::none());
  c.def("reshape", [](const py::object &self, std::vector<int64_t> shape) {
    return reshape(operand(self, locate(py::none()), "reshape"),
                   std::move(shape));
  });
  c.def_property_readonly("T", [](const py::object &self) {
    return transpose(operand(self, locate(py::none()), "T"), {1, 0});
  });
}

} // namespace

void python::setPackageDir(const std::string &dir) { packageDir() = dir; }

void python::addOperators(py::class_<Tensor> &c) { addOperatorsTo(c); }
void python::addOperators(py::class_<Weight> &c) { addOperatorsTo(c); }

void python::bindOps(py::module_ &m) {
  for (const UnaryOp &u : unaryOps)
    m.def(
        u.name,
        [fn = u.fn, name = u.name](const py::object &x, py::object loc) {
          return fn(operand(x, locate(loc), name));
        },
        py::arg("x"), py::arg("loc") = py::none());
  auto bin = [&](const char *name, Binary op) {
    m.def(
        name,
        [op](const py::object &a, const py::object &b, py::object loc) {
          return binary(op, a, b, locate(loc));
        },
        py::arg("a"), py::arg("b"), py::arg("loc") = py::none());
  };
  bin("add", Binary::Add);
  bin("sub", Binary::Sub);
  bin("mul", Binary::Mul);
  bin("div", Binary::Div);
  bin("minimum", Binary::Minimum);
  bin("maximum", Binary::Maximum);
  m.def(
      "compare",
      [](const std::string &predicate, const py::object &a, const py::object &b,
         py::object loc) {
        static const std::pair<const char *, Compare> names[] = {
            {"eq", Compare::Eq}, {"ne", Compare::Ne}, {"lt", Compare::Lt},
            {"le", Compare::Le}, {"gt", Compare::Gt}, {"ge", Compare::Ge}};
        const Compare *which = nullptr;
        for (const auto &[name, c] : names)
          if (predicate == name)
            which = &c;
        if (!which)
          throw py::value_error("compare: predicate '" + predicate +
                                "'; expected eq, ne, lt, le, gt or ge");
        SourceLoc at = locate(loc);
        At x = operand(a, at, "compare");
        if (isScalar(b))
          return compare(*which, x, py::cast<float>(b));
        return compare(*which, x, operand(b, at, "compare"));
      },
      py::arg("predicate"), py::arg("a"), py::arg("b"),
      py::arg("loc") = py::none(),
      "a <predicate> b as a 0/1 float mask (no gradient).");
  m.def(
      "neg",
      [](const py::object &x, py::object loc) {
        return -operand(x, locate(loc), "neg");
      },
      py::arg("x"), py::arg("loc") = py::none());
  m.def(
      "clamp",
      [](const py::object &x, float lo, float hi, py::object loc) {
        return clamp(operand(x, locate(loc), "clamp"), lo, hi);
      },
      py::arg("x"), py::arg("min"), py::arg("max"),
      py::arg("loc") = py::none());
  m.def(
      "assign",
      [](const Weight &target, const py::object &value, py::object loc) {
        assign(target, operand(value, locate(loc), "assign"));
      },
      py::arg("weight"), py::arg("value"), py::arg("loc") = py::none(),
      "Writes `value` into `weight` when the forward entry ends "
      "(ag.assign_weight): a target network's soft update.");
  m.def(
      "matmul",
      [](const py::object &a, const py::object &b, bool ta, bool tb,
         py::object loc) {
        SourceLoc at = locate(loc);
        return matmul(operand(a, at, "matmul"), operand(b, at, "matmul"),
                      {ta, tb});
      },
      py::arg("a"), py::arg("b"), py::arg("transpose_a") = false,
      py::arg("transpose_b") = false, py::arg("loc") = py::none());
  m.def(
      "linear",
      [](const py::object &x, const py::object &w, const py::object &b,
         py::object loc) {
        SourceLoc at = locate(loc);
        if (b.is_none())
          return linear(operand(x, at, "linear"), operand(w, at, "linear"));
        At bias = operand(b, at, "linear");
        return linear(operand(x, at, "linear"), operand(w, at, "linear"),
                      &bias);
      },
      py::arg("x"), py::arg("weight"), py::arg("bias") = py::none(),
      py::arg("loc") = py::none(), "x @ weight.T + bias (F.linear).");
  using Reduce = Tensor (*)(At, std::optional<int64_t>);
  auto reduce = [&](const char *name, Reduce fn) {
    m.def(
        name,
        [fn, name](const py::object &x, const py::object &axis,
                   py::object loc) {
          return fn(operand(x, locate(loc), name), axisOf(axis));
        },
        py::arg("x"), py::arg("axis") = py::none(),
        py::arg("loc") = py::none());
  };
  reduce("sum", capture::sum);
  reduce("mean", capture::mean);
  reduce("max", capture::max);
  using AlongAxis = Tensor (*)(At, int64_t);
  auto along = [&](const char *name, AlongAxis fn) {
    m.def(
        name,
        [fn, name](const py::object &x, int64_t axis, py::object loc) {
          return fn(operand(x, locate(loc), name), axis);
        },
        py::arg("x"), py::arg("axis"), py::arg("loc") = py::none());
  };
  along("softmax", capture::softmax);
  along("log_softmax", capture::logSoftmax);
  m.def(
      "cross_entropy",
      [](const py::object &logits, const Tensor &labels, py::object loc) {
        return crossEntropy(operand(logits, locate(loc), "cross_entropy"),
                            labels);
      },
      py::arg("logits"), py::arg("labels"), py::arg("loc") = py::none(),
      "Mean softmax cross-entropy of logits [N, C] with int32 labels [N].");
  m.def(
      "mse",
      [](const py::object &a, const py::object &b, py::object loc) {
        SourceLoc at = locate(loc);
        return mse(operand(a, at, "mse"), operand(b, at, "mse"));
      },
      py::arg("a"), py::arg("b"), py::arg("loc") = py::none());
  m.def(
      "get_rows",
      [](const py::object &table, const Tensor &indices, py::object loc) {
        return getRows(operand(table, locate(loc), "get_rows"), indices);
      },
      py::arg("table"), py::arg("indices"), py::arg("loc") = py::none());
  m.def(
      "reshape",
      [](const py::object &x, std::vector<int64_t> shape, py::object loc) {
        return reshape(operand(x, locate(loc), "reshape"), std::move(shape));
      },
      py::arg("x"), py::arg("shape"), py::arg("loc") = py::none());
  m.def(
      "transpose",
      [](const py::object &x, std::vector<int64_t> perm, py::object loc) {
        return transpose(operand(x, locate(loc), "transpose"), std::move(perm));
      },
      py::arg("x"), py::arg("permutation"), py::arg("loc") = py::none());
  m.def(
      "broadcast_to",
      [](const py::object &x, std::vector<int64_t> shape, py::object loc) {
        return broadcastTo(operand(x, locate(loc), "broadcast_to"),
                           std::move(shape));
      },
      py::arg("x"), py::arg("shape"), py::arg("loc") = py::none());
  m.def(
      "slice",
      [](const py::object &x, int64_t axis, int64_t start, int64_t length,
         py::object loc) {
        return slice(operand(x, locate(loc), "slice"), axis, start, length);
      },
      py::arg("x"), py::arg("axis"), py::arg("start"), py::arg("length"),
      py::arg("loc") = py::none());
  m.def(
      "concat",
      [](const py::list &parts, int64_t axis, py::object loc) {
        SourceLoc at = locate(loc);
        std::vector<At> ats;
        for (const py::handle &p : parts)
          ats.push_back(operand(p, at, "concat"));
        return concat(ats, axis);
      },
      py::arg("parts"), py::arg("axis"), py::arg("loc") = py::none());
  m.def(
      "one_hot",
      [](const py::object &labels, int64_t classes, py::object loc) {
        return oneHot(operand(labels, locate(loc), "one_hot"), classes);
      },
      py::arg("labels"), py::arg("classes"), py::arg("loc") = py::none());
}
