//===- Interpreter.cpp - CPU reference interpreter of the ag dialect ------===//

#include "capture/Reference/Interpreter.h"

#include "Kernels.h"
#include "OpEval.h"
#include "capture/Dialect/Ag/IR/AgOps.h"

#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
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

/// Checks that every value of the i32 tensor `tensor` is an integer
/// representable as a 32-bit signed integer; `what` names the tensor.
static LogicalResult checkInt32(Operation *op, const Tensor &tensor,
                                const Twine &what) {
  for (auto [i, value] : llvm::enumerate(tensor.data)) {
    // Written so that NaN fails too.
    if (value >= -0x1p31 && value < 0x1p31 && std::floor(value) == value)
      continue;
    std::string text;
    llvm::raw_string_ostream(text) << llvm::format("%.17g", value);
    return op->emitError() << what << " is i32, but its value " << text
                           << " at position " << i
                           << " is not a 32-bit integer";
  }
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
// lookupEntry
//===----------------------------------------------------------------------===//

Entry Entry::dynCast(Operation *op) {
  if (isa_and_nonnull<ag::ForwardOp, ag::TrainStepOp>(op))
    return Entry(cast<FunctionOpInterface>(op));
  return Entry();
}

StringRef Entry::getKindName() { return fn->getName().getStringRef(); }

StringRef Entry::getSymName() { return fn.getName(); }

unsigned Entry::getNumArguments() { return fn.getNumArguments(); }

BlockArgument Entry::getArgument(unsigned i) { return fn.getArgument(i); }

unsigned Entry::getNumResults() { return fn.getNumResults(); }

ArrayRef<Type> Entry::getResultTypes() { return fn.getResultTypes(); }

StringRef Entry::getInputName(unsigned i) {
  if (auto forward = dyn_cast<ag::ForwardOp>(fn.getOperation()))
    return forward.getInputName(i);
  return cast<ag::TrainStepOp>(fn.getOperation()).getInputName(i);
}

StringRef Entry::getOutputName(unsigned i) {
  if (auto forward = dyn_cast<ag::ForwardOp>(fn.getOperation()))
    return forward.getOutputName(i);
  return cast<ag::TrainStepOp>(fn.getOperation()).getOutputName(i);
}

bool Entry::isPacked() {
  return fn->hasAttr(ag::ForwardOp::getInputLayoutAttrName());
}

Block &Entry::getBody() { return fn.getFunctionBody().front(); }

FailureOr<Entry> reference::lookupEntry(ModuleOp module, StringRef entry) {
  SmallVector<Entry> entries;
  for (Operation &op : *module.getBody())
    if (Entry e = Entry::dynCast(&op))
      entries.push_back(e);
  if (entries.empty())
    return module.emitError() << "the module has no entry to evaluate "
                                 "(an ag.forward or an ag.train_step)";
  // Each entry with its kind, e.g. "@predict (ag.forward)".
  std::string names;
  for (auto [i, e] : llvm::enumerate(entries))
    names += (i ? ", @" : "@") + e.getSymName().str() + " (" +
             e.getKindName().str() + ")";
  if (entry.empty()) {
    if (entries.size() == 1)
      return entries.front();
    return module.emitError()
           << "the module has " << entries.size() << " entries (" << names
           << "); name the one to evaluate";
  }
  for (Entry e : entries)
    if (e.getSymName() == entry)
      return e;
  return module.emitError() << "unknown entry @" << entry
                            << "; the module's entries are " << names;
}

//===----------------------------------------------------------------------===//
// Evaluator
//===----------------------------------------------------------------------===//

namespace {

/// Evaluates one entry, op by op, in program order. The evaluator handles
/// the ops that touch module state, the host or the entry's outputs; the
/// compute ops go to evalComputeOp (OpEval.cpp). evalOp stores each result.
class Evaluator {
public:
  Evaluator(ModuleOp module, Entry entry, const EvalOptions &options)
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
  LogicalResult evalReturn(ag::ReturnOp op);
  LogicalResult rejectHostInteraction(Operation *op, const Twine &what);

  ModuleOp module;
  Entry entry;
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
      return entry.getOperation().emitError()
             << "unknown input '" << name << "' for entry @"
             << entry.getSymName() << "; its inputs are "
             << formatNames(names, "'");
  for (auto [i, name] : llvm::enumerate(names)) {
    BlockArgument arg = entry.getArgument(i);
    ArrayRef<int64_t> shape = cast<RankedTensorType>(arg.getType()).getShape();
    auto it = inputs.find(name);
    if (it == inputs.end())
      return entry.getOperation().emitError()
             << "missing input '" << name << "' (shape " << formatShape(shape)
             << ") of entry @" << entry.getSymName();
    Operation *op = entry.getOperation();
    if (failed(checkMaterialisable(op, shape, "input '" + name + "'")) ||
        failed(checkSupplied(op, it->second, shape, "input '" + name + "'")))
      return failure();
    if (cast<RankedTensorType>(arg.getType()).getElementType().isInteger(32)) {
      // Labels and indices must stay exact: rounding 16777217 to float
      // would pick another row. They are checked here, once, so that every
      // op can rely on i32 values being integers.
      if (failed(checkInt32(op, it->second, "input '" + name + "'")))
        return failure();
      values[arg] = it->second;
    } else {
      values[arg] = rounded(it->second, precision);
    }
  }
  return success();
}

LogicalResult Evaluator::run() {
  for (Operation &op : entry.getBody())
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
        return define(o,
                      kernels::evalComputeOp(
                          o, [&](Value v) -> const Tensor & { return get(v); },
                          precision));
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
  FailureOr<Entry> entry = lookupEntry(module, entryName);
  if (failed(entry))
    return failure();
  // The evaluator relies on verified IR (operand shapes, names); a module
  // built in memory may not have been verified yet.
  if (failed(mlir::verify(entry->getOperation())))
    return failure();
  if (entry->isPacked())
    return entry->getOperation().emitError()
           << "entry @" << entry->getSymName()
           << " is packed (ag-pack-io has run); the reference interpreter "
              "evaluates entries before ag-pack-io";

  Evaluator evaluator(module, *entry, options);
  if (failed(evaluator.bind(inputs)) || failed(evaluator.run()))
    return failure();
  return evaluator.takeResult();
}
