//===- Interpreter.h - CPU reference interpreter of ag ----------*- C++ -*-===//
//
// Evaluates an unpacked `ag.forward` entry on the host. It is the oracle the
// end-to-end tests compare device results against, so it favours obviously
// correct loops over speed. In F32 precision it rounds like the device (every
// op's result and every accumulation step to float); in F64 precision it
// computes everything in double, which finite-difference gradient checks need.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_REFERENCE_INTERPRETER_H
#define CAPTURE_REFERENCE_INTERPRETER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace capture::ag {
class ForwardOp;
} // namespace capture::ag

namespace capture::reference {

/// The arithmetic the interpreter uses.
enum class Precision {
  /// Every op's result, and every step of a reduction or matmul
  /// accumulation, is rounded to float, as on the device.
  F32,
  /// Everything is computed in double.
  F64,
};

/// A dense host tensor: row-major values, held as double in both precisions
/// (in F32 precision each value is exactly representable as a float).
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

/// Finds the `ag.forward` entry named `entry` in `module`; an empty name
/// picks the module's only entry. Emits an error listing the available
/// entries and fails when there is no such entry (or no unique one).
mlir::FailureOr<capture::ag::ForwardOp> lookupEntry(mlir::ModuleOp module,
                                                    llvm::StringRef entry);

/// Evaluates the unpacked `ag.forward` entry `entry` of `module` (empty:
/// the only entry) on `inputs`, keyed by the entries' input `ag.name`s.
/// Every problem (unknown entry, missing/unknown/ill-shaped input or weight
/// override, unsupported or host-interaction op, packed entry) is emitted as
/// an MLIR diagnostic naming what was expected and what was found.
mlir::FailureOr<EvalResult>
evaluate(mlir::ModuleOp module, llvm::StringRef entry,
         const std::map<std::string, Tensor> &inputs,
         const EvalOptions &options = {});

} // namespace capture::reference

#endif // CAPTURE_REFERENCE_INTERPRETER_H
