//===- Interpreter.h - CPU reference interpreter of ag ----------*- C++ -*-===//
//
// Evaluates an unpacked `ag.forward` or `ag.train_step` entry on the host. It
// is the oracle the end-to-end tests compare device results against, so it
// favours obviously correct loops over speed. In F32 precision it rounds like
// the device (every op's result and every accumulation step to float); in F64
// precision it computes everything in double, which finite-difference gradient
// checks need.
//
// A training step split by ag-split-update ends with `ag.apply_adamw`, which
// updates weights and AdamW moments in place: the `evaluate` overload taking
// a TrainingState carries them from one step to the next, as the device does
// (Training.h runs whole steps).
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_REFERENCE_INTERPRETER_H
#define CAPTURE_REFERENCE_INTERPRETER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace capture::reference {

/// The arithmetic the interpreter uses.
enum class Precision {
  /// Every op's result, and every step of a reduction or matmul
  /// accumulation, is rounded to float, as on the device.
  F32,
  /// Everything is computed in double.
  F64,
};

/// A dense host tensor: row-major values, held as double in both precisions.
/// For an f32 value in F32 precision each value is exactly representable as
/// a float; an i32 value (labels, row indices) holds integers, exactly, in
/// both precisions (the IR type says which a value is).
struct Tensor {
  /// Dimensions, outermost first; empty for a scalar.
  std::vector<int64_t> shape;
  /// Row-major values; data.size() == numElements(shape).
  std::vector<double> data;

  /// Number of elements a tensor of `shape` holds (1 for a scalar).
  static int64_t numElements(llvm::ArrayRef<int64_t> shape);
  /// Number of elements this tensor's shape implies.
  int64_t numElements() const { return numElements(shape); }
  /// A tensor of `shape` filled with `value`.
  static Tensor filled(std::vector<int64_t> shape, double value);
  /// A tensor of `shape` holding `data` (sizes must agree).
  static Tensor of(std::vector<int64_t> shape, std::vector<double> data);
};

/// How to evaluate an entry.
struct EvalOptions {
  /// Arithmetic to use.
  Precision precision = Precision::F32;
  /// Values replacing the initial values of `ag.weight`s, by symbol name
  /// (without `@`). Reading a weight neither overridden nor initialised is
  /// an error.
  std::map<std::string, Tensor> weights;
};

/// What one `ag.apply_adamw` did.
struct AdamWUpdate {
  /// The symbol name (without `@`) of the `ag.param_pack` it updates.
  std::string pack;
  /// The gradient norm it read.
  double gradNorm = 0.0;
  /// Whether it updated the weights and moments: false exactly when
  /// `gradNorm` is NaN or infinite, and then nothing changed.
  bool applied = false;
};

/// What evaluating an entry produced.
struct EvalResult {
  /// Every output, by its `ag.name`.
  std::map<std::string, Tensor> outputs;
  /// Every probe the entry evaluated, by probe name.
  std::map<std::string, Tensor> probes;
  /// Every `ag.apply_adamw` the entry evaluated, in program order.
  std::vector<AdamWUpdate> updates;
};

/// The two AdamW moments of one `ag.param_pack`: flat `[size]` tensors in
/// the pack's layout (weight i at offsets[i], zero padding between).
struct AdamWMoments {
  /// First moments (exp_avg).
  Tensor m;
  /// Second moments (exp_avg_sq).
  Tensor v;
};

/// What a training run carries from one step to the next, as the device
/// keeps it between replays.
struct TrainingState {
  /// Current weight values, by symbol name (without `@`); a weight missing
  /// here is at its module initial value (zeros without one). Evaluating an
  /// entry adds every weight it reads, so that later steps see the same
  /// (updated) values.
  std::map<std::string, Tensor> weights;
  /// The moments of each `ag.param_pack`, by pack symbol name; a pack
  /// missing here has zero moments (the first update adds them).
  std::map<std::string, AdamWMoments> moments;
  /// Updates applied so far (torch's `t`): the bias corrections of the next
  /// step use t + 1. `evaluate` never changes it; trainStep counts the
  /// steps whose update was applied.
  int64_t step = 0;
};

/// An entry the interpreter evaluates: an `ag.forward`, or an
/// `ag.train_step` (whose body has the same semantics; the interpreter
/// evaluates its outputs, loss and `grad/<weight>` alike, and ignores the
/// optimizer attributes). Every input and output carries an `ag.name`.
class Entry {
public:
  /// A null entry.
  Entry() = default;
  /// `op` as an entry, or a null entry when it is neither an `ag.forward`
  /// nor an `ag.train_step`.
  static Entry dynCast(mlir::Operation *op);

  /// Whether this is an entry (not null).
  explicit operator bool() const { return fn != nullptr; }
  /// The entry op.
  mlir::FunctionOpInterface getOperation() { return fn; }
  /// The op's name: `ag.forward` or `ag.train_step`.
  llvm::StringRef getKindName();
  /// The entry's symbol name (without `@`).
  llvm::StringRef getSymName();
  /// Number of inputs.
  unsigned getNumArguments();
  /// Input `i` as a block argument of the body.
  mlir::BlockArgument getArgument(unsigned i);
  /// Number of outputs.
  unsigned getNumResults();
  /// The output types.
  llvm::ArrayRef<mlir::Type> getResultTypes();
  /// The `ag.name` of input `i`, or empty.
  llvm::StringRef getInputName(unsigned i);
  /// The `ag.name` of output `i`, or empty.
  llvm::StringRef getOutputName(unsigned i);
  /// Whether `ag-pack-io` has run on the entry.
  bool isPacked();
  /// Whether this is an `ag.train_step`.
  bool isTrainStep();
  /// Whether `ag-split-update` has run: the body updates weights with
  /// `ag.apply_adamw`.
  bool hasUpdate();
  /// The `ag.hyper` of input `i` (e.g. "adamw", "max_grad_norm": an input
  /// the runtime fills), or empty for an input the caller supplies.
  llvm::StringRef getHyperKind(unsigned i);
  /// The body's only block.
  mlir::Block &getBody();

private:
  explicit Entry(mlir::FunctionOpInterface fn) : fn(fn) {}
  mlir::FunctionOpInterface fn;
};

/// Finds the entry (`ag.forward` or `ag.train_step`) named `entry` in
/// `module`; an empty name picks the module's only entry. Emits an error
/// listing the available entries of both kinds and fails when there is no
/// such entry (or no unique one).
mlir::FailureOr<Entry> lookupEntry(mlir::ModuleOp module,
                                   llvm::StringRef entry);

/// Evaluates the unpacked entry `entry` (an `ag.forward` or an
/// `ag.train_step`) of `module` (empty: the only entry) on `inputs`, keyed
/// by the entry's input `ag.name`s. An `ag.apply_adamw` of a split step
/// updates a scratch state that is then discarded (use the TrainingState
/// overload to keep it); its `adamw` input must be among `inputs`.
/// The values of an i32 input must be integers in the int32 range; they are
/// never rounded. Every problem (unknown entry, missing/unknown/ill-shaped
/// input or weight override, an i32 input value that is not an int32, a
/// cross-entropy or one-hot label or get_rows or scatter_add_rows index out
/// of range, unsupported or host-interaction op, packed entry) is emitted
/// as an MLIR diagnostic on the offending op naming what was expected and
/// what was found.
mlir::FailureOr<EvalResult>
evaluate(mlir::ModuleOp module, llvm::StringRef entry,
         const std::map<std::string, Tensor> &inputs,
         const EvalOptions &options = {});

/// Evaluates `entry` like the overload above, with the weights of `state`
/// (in place of EvalOptions::weights, checked the same way) and its AdamW
/// moments: on success `state` holds every weight the entry read and the
/// weights and moments each `ag.apply_adamw` updated (its outputs are the
/// values from before the update). `state.step` is left alone. On failure
/// `state` is unchanged.
mlir::FailureOr<EvalResult>
evaluate(mlir::ModuleOp module, llvm::StringRef entry,
         const std::map<std::string, Tensor> &inputs, TrainingState &state,
         Precision precision = Precision::F32);

/// Adds every `ag.weight` of `module` that `state.weights` lacks, at its
/// initial value (one without stays absent: reading it is an error), and
/// rounds the weights present to
/// `precision`. Emits an error and fails on a weight the module does not
/// declare or one of the wrong shape, leaving `state` unchanged.
mlir::LogicalResult initializeWeights(mlir::ModuleOp module,
                                      TrainingState &state,
                                      Precision precision = Precision::F32);

} // namespace capture::reference

#endif // CAPTURE_REFERENCE_INTERPRETER_H
