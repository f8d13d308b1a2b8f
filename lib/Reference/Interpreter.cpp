//===- Interpreter.cpp - CPU reference interpreter of the ag dialect ------===//

#include "capture/Reference/Interpreter.h"

#include "Kernels.h"
#include "capture/Dialect/Ag/IR/AgOps.h"

#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace capture;
using namespace capture::reference;
using capture::ag::formatShape;
namespace kernels = capture::reference::detail;

/// The largest tensor the interpreter materialises. It keeps a typo'd shape
/// in a test module from exhausting memory (which, without exceptions,
/// would abort) and is far above anything a reference check needs.
static constexpr int64_t kMaxElements = int64_t(1) << 28;

//===----------------------------------------------------------------------===//
// Tensor
//===----------------------------------------------------------------------===//

int64_t Tensor::numElements(ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

Tensor Tensor::filled(std::vector<int64_t> shape, double value) {
  Tensor tensor;
  tensor.data.assign(numElements(shape), value);
  tensor.shape = std::move(shape);
  return tensor;
}

Tensor Tensor::of(std::vector<int64_t> shape, std::vector<double> data) {
  Tensor tensor;
  tensor.shape = std::move(shape);
  tensor.data = std::move(data);
  return tensor;
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Element count of `shape`, or nullopt when a dimension is negative
/// (dynamic) or the count overflows or exceeds kMaxElements.
static std::optional<int64_t> boundedCount(ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (dim < 0 || llvm::MulOverflow(count, dim, count) || count > kMaxElements)
      return std::nullopt;
  }
  return count;
}

/// Checks that `shape` is static and small enough to materialise; `what`
/// names the tensor in the error.
static LogicalResult checkMaterialisable(Operation *op, ArrayRef<int64_t> shape,
                                         const Twine &what) {
  if (boundedCount(shape))
    return success();
  if (llvm::any_of(shape, [](int64_t dim) { return dim < 0; }))
    return op->emitError() << what << " has the non-static shape "
                           << formatShape(shape)
                           << "; the reference interpreter needs static shapes";
  return op->emitError() << what << " of shape " << formatShape(shape)
                         << " exceeds the reference interpreter's limit of "
                         << kMaxElements << " elements";
}

/// `t` rounded as `precision` stores values.
static Tensor rounded(Tensor t, Precision precision) {
  for (double &v : t.data)
    v = kernels::roundTo(precision, v);
  return t;
}

/// Quoted, comma-separated `names`, or `none` when there are none.
static std::string formatNames(ArrayRef<std::string> names, StringRef quote) {
  if (names.empty())
    return "none";
  std::string text;
  for (auto [i, name] : llvm::enumerate(names)) {
    if (i)
      text += ", ";
    text += (quote == "@" ? "@" + name : "'" + name + "'");
  }
  return text;
}

/// Checks a caller-supplied tensor against the declared `shape`: `what` is
/// e.g. "input 'x'".
static LogicalResult checkSupplied(Operation *op, const Tensor &tensor,
                                   ArrayRef<int64_t> shape, const Twine &what) {
  if (ArrayRef<int64_t>(tensor.shape) != shape)
    return op->emitError() << what << " expects shape " << formatShape(shape)
                           << ", got " << formatShape(tensor.shape);
  int64_t expected = Tensor::numElements(shape);
  if (static_cast<int64_t>(tensor.data.size()) != expected)
    return op->emitError() << what << " has " << tensor.data.size()
                           << " values, but its shape " << formatShape(shape)
                           << " holds " << expected;
  return success();
}

/// The value of an elements attribute (a constant, an upload's data, a
/// weight's initial value) as a tensor.
static FailureOr<Tensor> tensorFromElements(Operation *op, ElementsAttr attr,
                                            Precision precision) {
  auto type = dyn_cast<RankedTensorType>(attr.getType());
  if (!type)
    return op->emitError() << "the reference interpreter needs a ranked "
                              "value, but found "
                           << attr.getType();
  if (failed(checkMaterialisable(op, type.getShape(), "the value")))
    return failure();
  Tensor tensor;
  tensor.shape.assign(type.getShape().begin(), type.getShape().end());
  tensor.data.reserve(tensor.numElements());
  if (auto resource = dyn_cast<DenseF32ResourceElementsAttr>(attr)) {
    // Large initial values are often stored as resource blobs, which the
    // generic element iterators do not read.
    std::optional<ArrayRef<float>> data = resource.tryGetAsArrayRef();
    if (!data || static_cast<int64_t>(data->size()) != tensor.numElements())
      return op->emitError() << "the data of " << attr
                             << " is missing or has the wrong size (expected "
                             << tensor.numElements() << " f32 values)";
    tensor.data.assign(data->begin(), data->end());
  } else if (auto values = attr.tryGetValues<APFloat>()) {
    for (const APFloat &value : *values)
      tensor.data.push_back(value.convertToDouble());
  } else if (auto floats = attr.tryGetValues<float>()) {
    for (float value : *floats)
      tensor.data.push_back(value);
  } else {
    return op->emitError() << "the reference interpreter cannot read the "
                              "elements of "
                           << attr
                           << " (only floating-point elements whose data is "
                              "present are supported)";
  }
  return rounded(std::move(tensor), precision);
}

//===----------------------------------------------------------------------===//
// Scalar math of the elementwise ops, in double (the kernels round to float
// in F32 precision)
//===----------------------------------------------------------------------===//

static double scalarNeg(double x) { return -x; }
static double scalarExp(double x) { return std::exp(x); }
static double scalarLog(double x) { return std::log(x); }
// std::tanh saturates to +-1, where an exp-based formula would give inf/inf.
static double scalarTanh(double x) { return std::tanh(x); }
static double scalarSigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
// NaN is passed through, as in PyTorch, rather than clamped to 0.
static double scalarRelu(double x) { return std::isnan(x) || x > 0 ? x : 0.0; }
static double scalarSqrt(double x) { return std::sqrt(x); }
static double scalarSquare(double x) { return x * x; }
static double scalarAdd(double a, double b) { return a + b; }
static double scalarSub(double a, double b) { return a - b; }
static double scalarMul(double a, double b) { return a * b; }
static double scalarDiv(double a, double b) { return a / b; }

//===----------------------------------------------------------------------===//
// lookupEntry
//===----------------------------------------------------------------------===//

FailureOr<ag::ForwardOp> reference::lookupEntry(ModuleOp module,
                                                StringRef entry) {
  SmallVector<ag::ForwardOp> entries(module.getOps<ag::ForwardOp>());
  std::vector<std::string> names;
  for (ag::ForwardOp forward : entries)
    names.push_back(forward.getSymName().str());
  if (entries.empty())
    return module.emitError() << "the module has no ag.forward entry to "
                                 "evaluate";
  if (entry.empty()) {
    if (entries.size() == 1)
      return entries.front();
    return module.emitError()
           << "the module has " << entries.size() << " entries ("
           << formatNames(names, "@") << "); name the one to evaluate";
  }
  for (ag::ForwardOp forward : entries)
    if (forward.getSymName() == entry)
      return forward;
  return module.emitError()
         << "unknown entry @" << entry << "; the module's entries are "
         << formatNames(names, "@");
}

//===----------------------------------------------------------------------===//
// Evaluator
//===----------------------------------------------------------------------===//

namespace {

/// Evaluates one entry, op by op, in program order. Each op kind has a small
/// method computing its result from the tensors of its operands; evalOp
/// dispatches on the op and stores the result.
class Evaluator {
public:
  Evaluator(ModuleOp module, ag::ForwardOp entry, const EvalOptions &options)
      : module(module), entry(entry), precision(options.precision),
        overrides(options.weights) {}

  /// Checks the weight overrides and binds the entry's arguments.
  LogicalResult bind(const std::map<std::string, Tensor> &inputs);
  /// Evaluates the body; on success the result is complete.
  LogicalResult run();
  /// The outputs and probes of a successful run.
  EvalResult takeResult() { return std::move(result); }

private:
  /// Evaluates one op.
  LogicalResult evalOp(Operation *op);
  /// Stores `value` as the result of `op` after checking it has the
  /// declared shape.
  LogicalResult define(Operation *op, FailureOr<Tensor> value);
  /// The tensor bound to `value` (evaluated before its uses: SSA dominance).
  const Tensor &get(Value value) { return values.find(value)->second; }

  FailureOr<Tensor> evalConstant(ag::ConstantOp op);
  FailureOr<Tensor> evalUpload(ag::UploadOp op);
  FailureOr<Tensor> evalReadWeight(ag::ReadWeightOp op);
  FailureOr<Tensor> evalProbe(ag::ProbeOp op);
  FailureOr<Tensor> evalUnary(Operation *op, double (*fn)(double));
  FailureOr<Tensor> evalBinary(Operation *op, double (*fn)(double, double));
  FailureOr<Tensor> evalMatmul(ag::MatmulOp op);
  template <typename OpTy> FailureOr<Tensor> evalReduction(OpTy op, bool mean);
  LogicalResult evalReturn(ag::ReturnOp op);
  LogicalResult rejectHostInteraction(Operation *op, const Twine &what);

  ModuleOp module;
  ag::ForwardOp entry;
  Precision precision;
  const std::map<std::string, Tensor> &overrides;
  /// The tensor of every value evaluated so far.
  llvm::DenseMap<Value, Tensor> values;
  /// Weight values read so far, by symbol name.
  llvm::StringMap<Tensor> weights;
  EvalResult result;
};

} // namespace

LogicalResult Evaluator::bind(const std::map<std::string, Tensor> &inputs) {
  for (const auto &[name, tensor] : overrides) {
    auto weight = dyn_cast_or_null<ag::WeightOp>(
        SymbolTable::lookupSymbolIn(module, name));
    if (!weight) {
      std::vector<std::string> names;
      for (ag::WeightOp w : module.getOps<ag::WeightOp>())
        names.push_back(w.getSymName().str());
      return module.emitError()
             << "unknown weight override '" << name
             << "'; the module's weights are " << formatNames(names, "@");
    }
    if (failed(checkSupplied(weight, tensor, weight.getTensorType().getShape(),
                             "weight override '" + name + "'")))
      return failure();
  }

  std::vector<std::string> names;
  for (unsigned i = 0, e = entry.getNumArguments(); i < e; ++i)
    names.push_back(entry.getInputName(i).str());
  for (const auto &[name, tensor] : inputs)
    if (!llvm::is_contained(names, name))
      return entry.emitError() << "unknown input '" << name << "' for entry @"
                               << entry.getSymName() << "; its inputs are "
                               << formatNames(names, "'");
  for (auto [i, name] : llvm::enumerate(names)) {
    BlockArgument arg = entry.getArgument(i);
    ArrayRef<int64_t> shape = cast<RankedTensorType>(arg.getType()).getShape();
    auto it = inputs.find(name);
    if (it == inputs.end())
      return entry.emitError()
             << "missing input '" << name << "' (shape " << formatShape(shape)
             << ") of entry @" << entry.getSymName();
    if (failed(checkMaterialisable(entry, shape, "input '" + name + "'")) ||
        failed(checkSupplied(entry, it->second, shape, "input '" + name + "'")))
      return failure();
    values[arg] = rounded(it->second, precision);
  }
  return success();
}

LogicalResult Evaluator::run() {
  for (Operation &op : entry.getBody().front())
    if (failed(evalOp(&op)))
      return failure();
  return success();
}

LogicalResult Evaluator::evalOp(Operation *op) {
  for (auto [i, type] : llvm::enumerate(op->getResultTypes())) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (tensor && failed(checkMaterialisable(op, tensor.getShape(),
                                             "result #" + Twine(i))))
      return failure();
  }
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](ag::ConstantOp o) { return define(o, evalConstant(o)); })
      .Case([&](ag::UploadOp o) { return define(o, evalUpload(o)); })
      .Case([&](ag::ReadWeightOp o) { return define(o, evalReadWeight(o)); })
      .Case([&](ag::ProbeOp o) { return define(o, evalProbe(o)); })
      .Case([&](ag::NegOp o) { return define(o, evalUnary(o, scalarNeg)); })
      .Case([&](ag::ExpOp o) { return define(o, evalUnary(o, scalarExp)); })
      .Case([&](ag::LogOp o) { return define(o, evalUnary(o, scalarLog)); })
      .Case([&](ag::TanhOp o) { return define(o, evalUnary(o, scalarTanh)); })
      .Case([&](ag::SigmoidOp o) {
        return define(o, evalUnary(o, scalarSigmoid));
      })
      .Case([&](ag::ReluOp o) { return define(o, evalUnary(o, scalarRelu)); })
      .Case([&](ag::SqrtOp o) { return define(o, evalUnary(o, scalarSqrt)); })
      .Case(
          [&](ag::SquareOp o) { return define(o, evalUnary(o, scalarSquare)); })
      .Case([&](ag::AddOp o) { return define(o, evalBinary(o, scalarAdd)); })
      .Case([&](ag::SubOp o) { return define(o, evalBinary(o, scalarSub)); })
      .Case([&](ag::MulOp o) { return define(o, evalBinary(o, scalarMul)); })
      .Case([&](ag::DivOp o) { return define(o, evalBinary(o, scalarDiv)); })
      .Case([&](ag::MatmulOp o) { return define(o, evalMatmul(o)); })
      .Case([&](ag::SumOp o) { return define(o, evalReduction(o, false)); })
      .Case([&](ag::MeanOp o) { return define(o, evalReduction(o, true)); })
      .Case([&](ag::ReturnOp o) { return evalReturn(o); })
      .Case([&](ag::DownloadOp o) {
        return rejectHostInteraction(
            o, "a read-back of a device value ('ag.download')");
      })
      .Case([&](ag::EagerOp o) {
        return rejectHostInteraction(o, "an eagerly launched op ('ag.eager' "
                                        "of kernel \"" +
                                            o.getKernel() + "\")");
      })
      .Default([&](Operation *o) {
        return o->emitError() << "the reference interpreter does not support '"
                              << o->getName() << "'";
      });
}

LogicalResult Evaluator::define(Operation *op, FailureOr<Tensor> value) {
  if (failed(value))
    return failure();
  Value res = op->getResult(0);
  ArrayRef<int64_t> declared = cast<RankedTensorType>(res.getType()).getShape();
  // Verified IR never trips this; it guards the kernels against each other.
  if (ArrayRef<int64_t>(value->shape) != declared ||
      static_cast<int64_t>(value->data.size()) != value->numElements())
    return op->emitError() << "internal error: the reference interpreter "
                              "computed shape "
                           << formatShape(value->shape) << " ("
                           << value->data.size()
                           << " values) for a result declared "
                           << formatShape(declared);
  values[res] = std::move(*value);
  return success();
}

FailureOr<Tensor> Evaluator::evalConstant(ag::ConstantOp op) {
  return tensorFromElements(op, op.getValue(), precision);
}

FailureOr<Tensor> Evaluator::evalUpload(ag::UploadOp op) {
  // A constant upload is data-independent (e.g. the backward seed), so the
  // guard accepts it and it is as good as ag.constant.
  if (op.getConstant() && op.getValue())
    return tensorFromElements(op, *op.getValue(), precision);
  (void)rejectHostInteraction(
      op, "an upload of host data ('ag.upload' not marked constant)");
  return failure();
}

FailureOr<Tensor> Evaluator::evalReadWeight(ag::ReadWeightOp op) {
  StringRef name = op.getWeight();
  auto cached = weights.find(name);
  if (cached != weights.end())
    return cached->second;
  auto weight = dyn_cast_or_null<ag::WeightOp>(
      SymbolTable::lookupSymbolIn(module, op.getWeightAttr()));
  if (!weight)
    return op.emitError() << "refers to @" << name
                          << ", which is not an ag.weight of this module";
  Tensor value;
  ArrayRef<int64_t> shape = weight.getTensorType().getShape();
  if (auto it = overrides.find(name.str()); it != overrides.end()) {
    value = rounded(it->second, precision);
  } else if (std::optional<ElementsAttr> init = weight.getInitialValue()) {
    FailureOr<Tensor> initial = tensorFromElements(weight, *init, precision);
    if (failed(initial))
      return failure();
    value = std::move(*initial);
  } else {
    if (failed(checkMaterialisable(weight, shape, "weight @" + name)))
      return failure();
    value =
        Tensor::filled(std::vector<int64_t>(shape.begin(), shape.end()), 0.0);
  }
  weights[name] = value;
  return value;
}

FailureOr<Tensor> Evaluator::evalProbe(ag::ProbeOp op) {
  const Tensor &value = get(op.getInput());
  result.probes[op.getProbeName().str()] = value;
  return value;
}

FailureOr<Tensor> Evaluator::evalUnary(Operation *op, double (*fn)(double)) {
  return kernels::mapUnary(get(op->getOperand(0)), precision, fn);
}

FailureOr<Tensor> Evaluator::evalBinary(Operation *op,
                                        double (*fn)(double, double)) {
  const Tensor &lhs = get(op->getOperand(0)), &rhs = get(op->getOperand(1));
  std::optional<Tensor> value = kernels::mapBinary(lhs, rhs, precision, fn);
  if (!value)
    return op->emitError() << "cannot broadcast shapes "
                           << formatShape(lhs.shape) << " and "
                           << formatShape(rhs.shape);
  return std::move(*value);
}

FailureOr<Tensor> Evaluator::evalMatmul(ag::MatmulOp op) {
  const Tensor &lhs = get(op.getLhs()), &rhs = get(op.getRhs());
  std::optional<Tensor> value = kernels::matmul(lhs, rhs, op.getTransposeA(),
                                                op.getTransposeB(), precision);
  if (!value)
    return op.emitError() << "cannot multiply " << formatShape(lhs.shape)
                          << " by " << formatShape(rhs.shape);
  return std::move(*value);
}

template <typename OpTy>
FailureOr<Tensor> Evaluator::evalReduction(OpTy op, bool mean) {
  const Tensor &input = get(op.getInput());
  std::optional<Tensor> value = kernels::reduce(
      input, op.getNormalizedAxis(), op.getKeepdim(), mean, precision);
  if (!value)
    return op.emitError() << "axis " << *op.getAxis()
                          << " is out of range for shape "
                          << formatShape(input.shape);
  return std::move(*value);
}

LogicalResult Evaluator::evalReturn(ag::ReturnOp op) {
  for (auto [i, operand] : llvm::enumerate(op.getOperands()))
    result.outputs[entry.getOutputName(i).str()] = get(operand);
  return success();
}

LogicalResult Evaluator::rejectHostInteraction(Operation *op,
                                               const Twine &what) {
  return op->emitError() << "run ag-verify-capture: the trace contains " << what
                         << ", which a capture cannot replay and the "
                            "reference interpreter cannot evaluate";
}

//===----------------------------------------------------------------------===//
// evaluate
//===----------------------------------------------------------------------===//

FailureOr<EvalResult>
reference::evaluate(ModuleOp module, StringRef entryName,
                    const std::map<std::string, Tensor> &inputs,
                    const EvalOptions &options) {
  FailureOr<ag::ForwardOp> entry = lookupEntry(module, entryName);
  if (failed(entry))
    return failure();
  // The evaluator relies on verified IR (operand shapes, names); a module
  // built in memory may not have been verified yet.
  if (failed(mlir::verify(*entry)))
    return failure();
  if (entry->isPacked())
    return entry->emitError()
           << "entry @" << entry->getSymName()
           << " is packed (ag-pack-io has run); the reference interpreter "
              "evaluates entries before ag-pack-io";

  Evaluator evaluator(module, *entry, options);
  if (failed(evaluator.bind(inputs)) || failed(evaluator.run()))
    return failure();
  return evaluator.takeResult();
}
