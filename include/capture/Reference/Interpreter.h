//===- Interpreter.h - CPU reference interpreter of ag ----------*- C++ -*-===//
//
// Evaluates an unpacked `ag.forward` or `ag.train_step` entry on the host. It
// is the oracle the end-to-end tests compare device results against, so it
// favours obviously correct loops over speed. In F32 precision it rounds like
// the device (every op's result and every accumulation step to float); in F64
// precision it computes everything in double, which finite-difference gradient
// checks need.
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
  /// (without `@`). Weights neither overridden nor initialised are zeros.
  std::map<std::string, Tensor> weights;
};

/// What evaluating an entry produced.
struct EvalResult {
  /// Every output, by its `ag.name`.
  std::map<std::string, Tensor> outputs;
  /// Every probe the entry evaluated, by probe name.
  std::map<std::string, Tensor> probes;
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
/// by the entry's input `ag.name`s.
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

} // namespace capture::reference

#endif // CAPTURE_REFERENCE_INTERPRETER_H
