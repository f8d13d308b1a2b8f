//===- Tracer.h - Write a step as ordinary C++ tensor code ------*- C++ -*-===//
//
// The tracing frontend: C++ tensor code that records `ag` ops instead of
// computing. A Tracer owns one module (weights and entries); each entry is
// recorded by calling a C++ function once with symbolic inputs. Every op is
// located at the caller's file, line and column (std::source_location), so
// that every diagnostic, from a shape error here to the verifier and the
// capture guard, names the user's own line. Needs C++20.
//
//   capture::Tracer t;
//   capture::Linear fc(t, "fc", 4, 2, /*seed=*/1);
//   rt::Status s = t.forward("predict", {{"x", {8, 4}}},
//       [&](capture::Tracer::Inputs &in) -> capture::Tracer::Outputs {
//         return {{"y", capture::tanh(fc(in.at("x")))}};
//       });
//   rt::Result<std::string> mlir = t.toMlir();
//
// A host interaction inside a traced function (a read-back with item() or
// toVector(), a tensor built from host data with Tracer::fromHost) is
// recorded, not performed: the guard then refuses the entry, naming each
// such line. A failed or throwing trace leaves the module as it was.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_TRACER_TRACER_H
#define CAPTURE_TRACER_TRACER_H

#include "capture/Compiler/CompileCache.h"
#include "capture/Pipelines/CompileOptions.h"
#include "capture/rt/device.h"
#include "capture/rt/module_desc.h"
#include "capture/rt/status.h"
#include "capture/rt/tensor.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <source_location>
#include <string>
#include <utility>
#include <vector>

namespace capture {

/// Where a traced op was written: the caller of a tracer function (taken
/// from std::source_location as a default argument), or a location another
/// frontend names (the Python binding passes its caller's file and line).
class SourceLoc {
public:
  /// No location ("", line 0).
  SourceLoc() = default;
  /// The file, line and column of `here`, by default the caller's.
  static SourceLoc
  current(std::source_location here = std::source_location::current()) {
    SourceLoc loc;
    loc.file_ = here.file_name();
    loc.line_ = here.line();
    loc.column_ = here.column();
    return loc;
  }
  /// A location named by value (the file name is kept by the location).
  SourceLoc(std::string file, uint32_t line, uint32_t column = 0)
      : owned_(std::make_shared<const std::string>(std::move(file))),
        line_(line), column_(column) {
    file_ = owned_->c_str();
  }
  /// The file's name.
  const char *file_name() const { return file_; }
  /// The line (1-based; 0 when unknown).
  uint32_t line() const { return line_; }
  /// The column (1-based; 0 when unknown).
  uint32_t column() const { return column_; }

private:
  /// The file's name: static storage (std::source_location's) or owned_.
  const char *file_ = "";
  /// The file name of a location named by value.
  std::shared_ptr<const std::string> owned_;
  /// Line.
  uint32_t line_ = 0;
  /// Column.
  uint32_t column_ = 0;
};

/// Element types of traced tensors.
enum class ElemType {
  /// 32-bit float: every computed tensor.
  F32,
  /// 32-bit signed integer: labels and row indices (entry inputs only).
  I32,
};

/// A weight's initial value, evaluated when the module is loaded (and by
/// the interpreter), with PyTorch's rules.
struct Init {
  /// The rule: the runtime's kinds, which the module file stores.
  using Kind = rt::InitKind;
  /// Which rule.
  Kind kind = Kind::Zeros;
  /// constant: the value; uniform: low; normal: mean.
  double a = 0;
  /// uniform: high; normal: std.
  double b = 0;
  /// linear: the layer's input features.
  int64_t fanIn = 0;
  /// The random stream's seed (uniform, normal, linear).
  uint64_t seed = 0;

  /// All zeros.
  static Init zeros() { return {}; }
  /// Every element `value`.
  static Init constant(double value) { return {Kind::Constant, value}; }
  /// U(low, high).
  static Init uniform(double low, double high, uint64_t seed) {
    return {Kind::Uniform, low, high, 0, seed};
  }
  /// N(mean, std^2).
  static Init normal(double mean, double std, uint64_t seed) {
    return {Kind::Normal, mean, std, 0, seed};
  }
  /// torch.nn.Linear's default for its weight and bias:
  /// U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
  static Init linear(int64_t fanIn, uint64_t seed) {
    return {Kind::Linear, 0, 0, fanIn, seed};
  }
};

namespace detail {
struct TraceState;
struct ParamsState;
struct ParamsAccess;
} // namespace detail

class Tracer;

/// A value of the entry being traced. Cheap to copy. A Tensor from an
/// entry that has finished (or from another Tracer) is refused by name;
/// like a Weight, it must not outlive its Tracer.
class Tensor {
public:
  /// An empty tensor: an op given one records an error.
  Tensor() = default;

  /// Whether this refers to a value of a trace that is still alive.
  bool valid() const {
    return state_ != nullptr && id_ >= 0 && !alive_.expired();
  }
  /// Whether this refers to a value of a trace that has finished (its
  /// Tracer is gone): such a tensor is never read again.
  bool expired() const { return state_ != nullptr && alive_.expired(); }
  /// Dimensions, outermost first (empty for a scalar or an invalid tensor).
  const std::vector<int64_t> &shape() const;
  /// Element type.
  ElemType type() const;

  /// A read-back of a device value (torch's `.item()`): recorded, not
  /// performed. The capture guard refuses the entry, naming this line;
  /// returns 0.
  float item(SourceLoc loc = SourceLoc::current()) const;
  /// A read-back of every element: recorded like item(); returns zeros,
  /// one per element of shape() (one for an invalid tensor, whose shape is
  /// a scalar's), also after the trace has failed: the failure is reported
  /// in the entry's status, as every tracer error is, never thrown.
  std::vector<float> toVector(SourceLoc loc = SourceLoc::current()) const;

private:
  friend struct detail::TraceState;
  Tensor(detail::TraceState *state, int32_t id, std::weak_ptr<const void> alive)
      : state_(state), id_(id), alive_(std::move(alive)) {}

  /// The trace this value belongs to, while alive_ holds.
  detail::TraceState *state_ = nullptr;
  /// Its index in the trace's value table.
  int32_t id_ = -1;
  /// Expires with the trace: state_ is never read after (a new trace at
  /// the same address does not take this tensor for one of its own).
  std::weak_ptr<const void> alive_;
};

/// A module-level weight: resident on the device, shared by every entry.
/// Using it as an operand inside an entry reads it there. A handle of the
/// Params (or Tracer) that declared it, which it must not outlive.
class Weight {
public:
  /// An empty handle.
  Weight() = default;
  /// The weight's symbol name (PyTorch's parameter naming: `fc1.weight`).
  const std::string &name() const { return name_; }
  /// Its shape.
  const std::vector<int64_t> &shape() const { return shape_; }
  /// Whether this handle refers to a declared weight.
  bool valid() const { return params_ != nullptr; }

private:
  friend struct detail::ParamsState;
  friend struct detail::TraceState;
  /// The parameter set that declared it.
  detail::ParamsState *params_ = nullptr;
  /// Symbol name.
  std::string name_;
  /// Dimensions.
  std::vector<int64_t> shape_;
  /// Which declaration of the name (Params::recreate makes a new one).
  uint64_t generation_ = 0;
};

/// A model's weights: declared once, read by every entry traced over them
/// (Tracer(Params &), capture(), captureStep()), and, once a captured
/// function has run, resident on the device in one Weights buffer that all
/// its recordings share, so a training step's update is what a forward
/// recording reads next. A Weight handle and every callable made over a
/// Params must not outlive it.
class Params {
public:
  /// Weights that live on `device` once a captured function runs (the
  /// default Vulkan device, created on first use, when null).
  explicit Params(std::shared_ptr<rt::Device> device = nullptr);
  ~Params();
  Params(const Params &) = delete;
  Params &operator=(const Params &) = delete;

  /// Declares a weight. Names are unique: declaring a name again is an
  /// error (recreate() replaces a weight on purpose). An invalid name,
  /// shape or initializer records an error, named at `loc`, that every
  /// later trace over these parameters reports.
  Weight weight(const std::string &name, std::vector<int64_t> shape, Init init,
                bool trainable = true, SourceLoc loc = SourceLoc::current());
  /// Replaces the declared weight `name` by a new one (its shape, initial
  /// value and trainability may differ). Every recording over these
  /// parameters is dropped and records again at its next call (the others'
  /// current values are kept; a training step's optimizer state starts
  /// over); handles of the old weight are refused by name.
  Weight recreate(const std::string &name, std::vector<int64_t> shape,
                  Init init, bool trainable = true,
                  SourceLoc loc = SourceLoc::current());
  /// The declared weights' names, in declaration order.
  std::vector<std::string> names() const;
  /// The device the weights live on once a captured function runs
  /// (created here when none was given: env CAPTURE_DEVICE, else the
  /// default, a GPU, else the host device).
  rt::Result<std::shared_ptr<rt::Device>> device();
  /// Every weight's current value, in declaration order: read from the
  /// device when a recording holds them, else the values kept on the host
  /// (set, or saved when the last recording was freed), else the
  /// initializer's (the bits a load computes).
  rt::Result<std::vector<rt::NamedTensor>> values();
  /// Replaces the values of the weights named in `values` (dtype and shape
  /// must match); on error nothing changed.
  rt::Status setValues(const std::vector<rt::NamedTensor> &values);

private:
  friend class Tracer;
  friend struct detail::TraceState;
  friend struct detail::ParamsState;
  friend struct detail::ParamsAccess;
  /// Shared with the tracers and callables made over these parameters.
  std::shared_ptr<detail::ParamsState> state_;
};

/// An operand of a traced op, with the caller's location: built implicitly
/// from a Tensor, a Weight (read in the current entry) or a float (a
/// constant), so that the location is the line of the user's expression.
struct At {
  /// A traced tensor operand.
  At(const Tensor &t, SourceLoc loc = SourceLoc::current())
      : tensor(t), loc(loc) {}
  /// A weight, read in the entry being traced.
  At(const Weight &w, SourceLoc loc = SourceLoc::current())
      : weight(&w), loc(loc) {}

  /// The tensor, unless this is a weight.
  Tensor tensor;
  /// The weight, when this operand is one.
  const Weight *weight = nullptr;
  /// Where the user wrote the operation.
  SourceLoc loc;
};

/// Options of matmul.
struct MatmulOptions {
  /// Use the transpose of the left operand.
  bool transposeA = false;
  /// Use the transpose of the right operand (`x @ W.T` for W[out, in]).
  bool transposeB = false;
};

// Elementwise arithmetic with numpy broadcasting.
Tensor operator+(At a, const At &b);
Tensor operator-(At a, const At &b);
Tensor operator*(At a, const At &b);
Tensor operator/(At a, const At &b);
Tensor operator+(At a, float b);
Tensor operator-(At a, float b);
Tensor operator*(At a, float b);
Tensor operator/(At a, float b);
Tensor operator+(float a, At b);
Tensor operator-(float a, At b);
Tensor operator*(float a, At b);
Tensor operator/(float a, At b);
Tensor operator-(At a);

/// Elementwise minimum / maximum (NaN propagates).
Tensor minimum(At a, const At &b);
Tensor maximum(At a, const At &b);
/// Elementwise functions.
Tensor exp(At x);
Tensor log(At x);
Tensor tanh(At x);
Tensor sigmoid(At x);
Tensor relu(At x);
Tensor sqrt(At x);
Tensor square(At x);
/// torch.floor and torch.ceil; their gradient is zero, as PyTorch's.
Tensor floor(At x);
Tensor ceil(At x);
/// torch.erf (the exact GELU is 0.5 * x * (1 + erf(x / sqrt(2)))).
Tensor erf(At x);
/// `x` itself, but no gradient flows through it (PyTorch's `x.detach()`):
/// a training step's loss counts it as a constant, and a trainable weight
/// the loss reaches only through it gets no gradient (`ag.stop_gradient`).
Tensor stopGradient(At x);

/// Writes `value` into the weight `target` (`ag.assign_weight`): the
/// entry's own reads of `target` see its old value, every later entry the
/// new one (a target network's soft update, tau * p + (1 - tau) * t, or its
/// hard copy). Only a forward entry assigns, each weight once, after every
/// read of it; anything else records an error at this line.
void assign(const Weight &target, At value);

/// The comparisons of compare().
enum class Compare { Eq, Ne, Lt, Le, Gt, Ge };

/// `a <predicate> b` elementwise as a 0/1 f32 mask, broadcasting (torch.lt,
/// le, gt, ge, eq, ne as float); NaN compares false except for Ne. It
/// carries no gradient (a mask is a constant for autodiff).
Tensor compare(Compare predicate, At a, const At &b);
Tensor compare(Compare predicate, At a, float b);
/// Clamps every element to [lo, hi].
Tensor clamp(At x, float lo, float hi);

/// Matrix product of two rank-2 tensors.
Tensor matmul(At a, const At &b, MatmulOptions options = {});
/// torch.nn.functional.linear: x @ weight.T + bias (bias optional).
Tensor linear(At x, const At &weight, const At *bias = nullptr);

/// Sum, mean and max over every element (a scalar), or over one axis (the
/// axis removed).
Tensor sum(At x, std::optional<int64_t> axis = std::nullopt);
Tensor mean(At x, std::optional<int64_t> axis = std::nullopt);
Tensor max(At x, std::optional<int64_t> axis = std::nullopt);
/// Softmax and log-softmax along `axis`.
Tensor softmax(At x, int64_t axis);
Tensor logSoftmax(At x, int64_t axis);
/// Mean softmax cross-entropy of logits [N, C] with i32 labels [N].
Tensor crossEntropy(At logits, const Tensor &labels);
/// Mean squared error (a scalar).
Tensor mse(At a, const At &b);
/// Rows of `table` [V, D] at i32 `indices` [N]: [N, D].
Tensor getRows(At table, const Tensor &indices);

/// The same elements in another shape.
Tensor reshape(At x, std::vector<int64_t> shape);
/// Permutes the dimensions.
Tensor transpose(At x, std::vector<int64_t> permutation);
/// Broadcasts to `shape` (numpy rules).
Tensor broadcastTo(At x, std::vector<int64_t> shape);
/// Elements [start, start + length) along `axis`.
Tensor slice(At x, int64_t axis, int64_t start, int64_t length);
/// `parts` joined along `axis` (negative counts from the end), at the line
/// of the first part; every part has the others' shape off the axis.
Tensor concat(const std::vector<At> &parts, int64_t axis);
/// i32 labels [N] as f32 rows [N, classes] (torch.nn.functional.one_hot).
Tensor oneHot(At labels, int64_t classes);

/// AdamW's settings (torch.optim.AdamW's names and defaults); with
/// decoupledWeightDecay = false, torch.optim.Adam's.
struct AdamW {
  /// Learning rate; the runtime can change it between steps.
  double lr = 1e-3;
  /// First-moment decay.
  double beta1 = 0.9;
  /// Second-moment decay.
  double beta2 = 0.999;
  /// Denominator epsilon.
  double eps = 1e-8;
  /// Weight decay, applied as decoupledWeightDecay says.
  double weightDecay = 0.01;
  /// AdamW's decoupled decay (p *= 1 - lr * weightDecay); false: Adam's L2
  /// term (weightDecay * p added to the clipped gradient), as
  /// torch.optim.Adam(weight_decay=...). Compiled in: fixed per step.
  bool decoupledWeightDecay = true;
};

/// A param group after the first (torch.optim's param_groups[1:]): weights
/// updated with hyperparameters of their own.
struct ParamGroup {
  /// The weights' names.
  std::vector<std::string> weights;
  /// Their AdamW values; decoupledWeightDecay must be the step's.
  AdamW adamw;
};

/// Options of a training step.
struct StepOptions {
  /// clip_grad_norm_'s max_norm over all gradients; none: no clipping.
  std::optional<double> maxGradNorm;
  /// The weights this step's optimizer holds, when several captured steps
  /// share one Params and each trains its own (SAC's critics, actor and
  /// temperature; the others' reads go through stopGradient). None: the
  /// step trains every trainable weight of the Params. Either way, a
  /// recording that would leave one of them untrained, or train another,
  /// is an error naming them.
  std::optional<std::vector<std::string>> trains;
  /// Param groups 1..: the weights listed in none are group 0, updated with
  /// the step's AdamW. A listed weight the step does not train is an error.
  std::vector<ParamGroup> paramGroups;
};

/// Records a module: weights, forward entries and training steps.
class Tracer {
public:
  /// An entry input: name, shape, element type.
  struct InputSpec {
    /// The input's name (what callers pass it by).
    std::string name;
    /// Its shape.
    std::vector<int64_t> shape;
    /// Its element type.
    ElemType type = ElemType::F32;
  };
  /// A traced function's inputs, by name.
  class Inputs {
  public:
    /// The input `name`; throws std::out_of_range naming it and the
    /// entry's inputs when there is none (the trace then fails with it).
    const Tensor &at(const std::string &name) const;
    /// Whether there is an input `name`.
    bool contains(const std::string &name) const {
      return tensors_.count(name) != 0;
    }
    /// The inputs, by name.
    const std::map<std::string, Tensor> &all() const { return tensors_; }

  private:
    friend class Tracer;
    friend struct detail::TraceState;
    /// By name.
    std::map<std::string, Tensor> tensors_;
  };
  /// A traced function's outputs, in order, by name.
  using Outputs = std::vector<std::pair<std::string, Tensor>>;
  /// The function traced for an entry.
  using Fn = std::function<Outputs(Inputs &)>;

  /// A tracer with weights of its own (Tracer::weight declares them).
  Tracer();
  /// A tracer over `params`: its module declares every weight of `params`,
  /// and entries read them through the Params' handles.
  explicit Tracer(Params &params);
  ~Tracer();
  Tracer(const Tracer &) = delete;
  Tracer &operator=(const Tracer &) = delete;

  /// Declares a weight in this tracer's parameters (Params::weight). An
  /// invalid name, shape or initializer records an error that every later
  /// call reports.
  Weight weight(const std::string &name, std::vector<int64_t> shape, Init init,
                bool trainable = true, SourceLoc loc = SourceLoc::current());

  /// Records a forward entry by calling `fn` once. On any error (a shape
  /// error, the guard, an exception from `fn`) the module is left as it
  /// was and the status names the user's line.
  rt::Status forward(const std::string &name,
                     const std::vector<InputSpec> &inputs, const Fn &fn,
                     SourceLoc loc = SourceLoc::current());
  /// Records a training step: `fn`'s first output is the loss (a scalar);
  /// the compiler adds the backward pass, the clipping and the update.
  rt::Status trainStep(const std::string &name,
                       const std::vector<InputSpec> &inputs, const Fn &fn,
                       const AdamW &adamw, const StepOptions &options = {},
                       SourceLoc loc = SourceLoc::current());

  /// A tensor made from host data inside a traced function: recorded as an
  /// upload of host data, which the guard refuses at this line (pass such
  /// data as an input). With `constant`, a data-independent constant.
  Tensor fromHost(std::vector<int64_t> shape, const std::vector<float> &data,
                  bool constant = false, SourceLoc loc = SourceLoc::current());

  /// The module as `.mlir` text (for capture-aot). Fails with the first
  /// recorded error.
  rt::Result<std::string> toMlir() const;
  /// Compiles the module in-process, as capture-aot does (the module is
  /// not changed), into module-file bytes for rt::Module::loadBytes. With
  /// an enabled `cache`, a module compiled before with the same text,
  /// options and compiler is read from it instead (`*hit` says which), and
  /// a new one is stored there.
  rt::Result<std::vector<uint8_t>>
  compile(const CompileOptions &options = {},
          const CompileCache &cache = CompileCache(),
          bool *hit = nullptr) const;
  /// Names of the recorded entries, in order.
  std::vector<std::string> entries() const;

  /// The parameters this tracer's entries read.
  Params &params() { return *params_; }

private:
  friend class Params;
  /// Its own parameters (the default constructor), or null.
  std::unique_ptr<Params> ownParams_;
  /// The parameters entries read.
  Params *params_;
  /// The module and the entry being recorded.
  std::unique_ptr<detail::TraceState> state_;
};

} // namespace capture

#endif // CAPTURE_TRACER_TRACER_H
