//===- Interpreter.cpp - CPU reference interpreter of the ag dialect ------===//

#include "capture/Reference/Interpreter.h"
#include "capture/Dialect/Ag/IR/AgInitializer.h"
#include "capture/rt/initializer.h"

#include "Kernels.h"
#include "OpEval.h"
#include "TrainingOps.h"
#include "capture/Dialect/Ag/IR/AgOps.h"

#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
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
// Evaluator
//===----------------------------------------------------------------------===//

namespace {

/// Evaluates one entry, op by op, in program order. The evaluator handles
/// the ops that touch module state, the host or the entry's outputs; the
/// compute ops go to evalComputeOp (OpEval.cpp), the training-state ops to
/// TrainingOps.cpp. evalOp stores each result. Weights are read from, and
/// updated in, `state`, which the caller commits or discards.
class Evaluator {
public:
  Evaluator(ModuleOp module, Entry entry, TrainingState &state,
            Precision precision)
      : module(module), entry(entry), precision(precision), state(state) {}

  /// Binds the entry's arguments (the state was checked by
  /// prepareState).
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
  /// The current value of the weight `ref` names (`op` reports a bad
  /// reference), loaded into the state on first use.
  FailureOr<const Tensor *> loadWeight(Operation *op, FlatSymbolRefAttr ref);
  FailureOr<Tensor> evalPackGrads(ag::PackGradsOp op);
  LogicalResult evalApplyAdamW(ag::ApplyAdamWOp op);
  LogicalResult evalAssignWeight(ag::AssignWeightOp op);
  FailureOr<Tensor> evalProbe(ag::ProbeOp op);
  LogicalResult evalCheckIndices(ag::CheckIndicesOp op);
  LogicalResult evalReturn(ag::ReturnOp op);
  LogicalResult rejectHostInteraction(Operation *op, const Twine &what);

  ModuleOp module;
  Entry entry;
  Precision precision;
  /// The weights (every one read so far, and the caller's) and moments.
  TrainingState &state;
  /// The tensor of every value evaluated so far.
  llvm::DenseMap<Value, Tensor> values;
  EvalResult result;
};

} // namespace

/// Whether `weight` has no initial value: the caller must give one.
static bool isUnset(ag::WeightOp weight) {
  return !weight.getInitialValue() && !weight.getInitializer();
}

/// The initial value of `weight` (which is not unset), rounded to
/// `precision`: its elements, or its #ag.init rule evaluated by the
/// runtime's own code, so that both start from the same bits.
static FailureOr<Tensor> initialWeight(ag::WeightOp weight,
                                       Precision precision) {
  if (std::optional<ElementsAttr> init = weight.getInitialValue())
    return tensorFromElements(weight, *init, precision);
  ArrayRef<int64_t> shape = weight.getTensorType().getShape();
  if (failed(
          checkMaterialisable(weight, shape, "weight @" + weight.getSymName())))
    return failure();
  std::vector<int64_t> dims(shape.begin(), shape.end());
  std::vector<float> values(weight.getTensorType().getNumElements());
  rt::evaluateInitializer(ag::toInitializerDesc(*weight.getInitializer()),
                          values.size(), values.data());
  return rounded(Tensor::of(std::move(dims),
                            std::vector<double>(values.begin(), values.end())),
                 precision);
}

/// Checks the caller's weights and moments of `state` against `module` and
/// rounds the weights to `precision`.
static LogicalResult prepareState(ModuleOp module, TrainingState &state,
                                  Precision precision) {
  for (auto &[name, tensor] : state.weights) {
    auto weight = dyn_cast_or_null<ag::WeightOp>(
        SymbolTable::lookupSymbolIn(module, name));
    if (!weight) {
      std::vector<std::string> names;
      for (ag::WeightOp w : module.getOps<ag::WeightOp>())
        names.push_back(w.getSymName().str());
      return module.emitError()
             << "unknown weight override '" << name << "'"
             << ag::suggestName(
                    name, SmallVector<StringRef>(names.begin(), names.end()))
             << "; the module's weights are " << formatNames(names, "@");
    }
    if (failed(checkSupplied(weight, tensor, weight.getTensorType().getShape(),
                             "weight override '" + name + "'")))
      return failure();
    tensor = rounded(std::move(tensor), precision);
  }
  for (const auto &[name, moments] : state.moments) {
    if (isa_and_nonnull<ag::ParamPackOp>(
            SymbolTable::lookupSymbolIn(module, name)))
      continue;
    std::vector<std::string> names;
    for (ag::ParamPackOp p : module.getOps<ag::ParamPackOp>())
      names.push_back(p.getSymName().str());
    return module.emitError()
           << "the training state has moments of '" << name
           << "', which is not an ag.param_pack; the module's packs are "
           << formatNames(names, "@");
  }
  return success();
}

LogicalResult reference::initializeWeights(ModuleOp module,
                                           TrainingState &state,
                                           Precision precision) {
  TrainingState updated = state;
  if (failed(prepareState(module, updated, precision)))
    return failure();
  for (ag::WeightOp weight : module.getOps<ag::WeightOp>()) {
    // An unset weight stays absent: reading it is the error.
    if (updated.weights.count(weight.getSymName().str()) || isUnset(weight))
      continue;
    FailureOr<Tensor> value = initialWeight(weight, precision);
    if (failed(value))
      return failure();
    updated.weights[weight.getSymName().str()] = std::move(*value);
  }
  state = std::move(updated);
  return success();
}

LogicalResult Evaluator::bind(const std::map<std::string, Tensor> &inputs) {
  std::vector<std::string> names;
  for (unsigned i = 0, e = entry.getNumArguments(); i < e; ++i)
    names.push_back(entry.getInputName(i).str());
  for (const auto &[name, tensor] : inputs)
    if (!llvm::is_contained(names, name))
      return entry.getOperation().emitError()
             << "unknown input '" << name << "'"
             << ag::suggestName(
                    name, SmallVector<StringRef>(names.begin(), names.end()))
             << " for entry @" << entry.getSymName() << "; its inputs are "
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
      .Case([&](ag::PackGradsOp o) { return define(o, evalPackGrads(o)); })
      .Case([&](ag::ApplyAdamWOp o) { return evalApplyAdamW(o); })
      .Case([&](ag::AssignWeightOp o) { return evalAssignWeight(o); })
      .Case([&](ag::ProbeOp o) { return define(o, evalProbe(o)); })
      .Case([&](ag::CheckIndicesOp o) { return evalCheckIndices(o); })
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
  FailureOr<const Tensor *> value = loadWeight(op, op.getWeightAttr());
  if (failed(value))
    return failure();
  return **value;
}

FailureOr<const Tensor *> Evaluator::loadWeight(Operation *op,
                                                FlatSymbolRefAttr ref) {
  StringRef name = ref.getValue();
  auto known = state.weights.find(name.str());
  if (known != state.weights.end())
    return &known->second;
  auto weight =
      dyn_cast_or_null<ag::WeightOp>(SymbolTable::lookupSymbolIn(module, ref));
  if (!weight)
    return op->emitError() << "refers to @" << name
                           << ", which is not an ag.weight of this module";
  if (isUnset(weight)) {
    InFlightDiagnostic diag =
        op->emitError()
        << "reads weight @" << name
        << ", which has no initial value and was not given: give it (--param "
        << name
        << "=FILE.npy) or an initializer in the model (= #ag.init<...>)";
    diag.attachNote(weight.getLoc()) << "@" << name << " is declared here";
    return failure();
  }
  FailureOr<Tensor> value = initialWeight(weight, precision);
  if (failed(value))
    return failure();
  return &(state.weights[name.str()] = std::move(*value));
}

FailureOr<Tensor> Evaluator::evalPackGrads(ag::PackGradsOp op) {
  SmallVector<const Tensor *> grads;
  for (Value grad : op.getGrads())
    grads.push_back(&get(grad));
  return kernels::evalPackGrads(op, grads);
}

LogicalResult Evaluator::evalApplyAdamW(ag::ApplyAdamWOp op) {
  FailureOr<ag::ParamPackOp> pack =
      kernels::lookupParamPack(op, op.getPackAttr());
  if (failed(pack))
    return failure();
  // The update reads every weight of the pack, read by the step or not.
  for (auto ref : pack->getWeights().getAsRange<FlatSymbolRefAttr>())
    if (failed(loadWeight(*pack, ref)))
      return failure();
  FailureOr<AdamWUpdate> update =
      kernels::applyAdamW(op, *pack, get(op.getGrads()), get(op.getGradNorm()),
                          get(op.getHyper()), state, precision);
  if (failed(update))
    return failure();
  result.updates.push_back(std::move(*update));
  return success();
}

LogicalResult Evaluator::evalAssignWeight(ag::AssignWeightOp op) {
  // As the runtime, which counts the weight among those the entry binds:
  // an unset weight is refused here too, not set by the assign.
  if (failed(loadWeight(op, op.getWeightAttr())))
    return failure();
  state.weights[op.getWeight().str()] = get(op.getValue());
  return success();
}

/// As the device computes it: the first index outside [0, bound) and its
/// value, or [-1, 0]; the poison NaN exactly then. (The indexing ops
/// themselves report a bad index here, before any status is read.)
LogicalResult Evaluator::evalCheckIndices(ag::CheckIndicesOp op) {
  const Tensor &indices = get(op.getIndices());
  double position = -1, value = 0;
  for (size_t i = 0; i < indices.data.size(); ++i) {
    double v = indices.data[i];
    if (v < 0 || v >= static_cast<double>(op.getBound())) {
      position = static_cast<double>(i);
      value = v;
      break;
    }
  }
  values[op.getStatus()] = Tensor::of({2}, {position, value});
  values[op.getPoison()] = Tensor::of({}, {position < 0 ? 0.0 : std::nan("")});
  return success();
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
  TrainingState scratch;
  scratch.weights = options.weights;
  return evaluate(module, entryName, inputs, scratch, options.precision);
}

FailureOr<EvalResult>
reference::evaluate(ModuleOp module, StringRef entryName,
                    const std::map<std::string, Tensor> &inputs,
                    TrainingState &state, Precision precision) {
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

  // Evaluated on a copy, so that a failure leaves the caller's state as it
  // was; on success the copy holds the updates.
  TrainingState updated = state;
  if (failed(prepareState(module, updated, precision)))
    return failure();
  Evaluator evaluator(module, *entry, updated, precision);
  if (failed(evaluator.bind(inputs)) || failed(evaluator.run()))
    return failure();
  state = std::move(updated);
  return evaluator.takeResult();
}
