//===- TraceState.h - What a Tracer records into ----------------*- C++ -*-===//
//
// Private to lib/Tracer: the MLIR module a capture::Tracer builds, the
// entry being recorded and its value table.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_LIB_TRACER_TRACESTATE_H
#define CAPTURE_LIB_TRACER_TRACESTATE_H

#include "capture/Tracer/Tracer.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace capture::detail {

/// One traced value: its SSA value and what the public Tensor reports.
struct TracedValue {
  /// The value in the entry's body.
  mlir::Value value;
  /// Its shape.
  std::vector<int64_t> shape;
  /// Its element type.
  ElemType type = ElemType::F32;
};

struct ParamsState;

struct TraceState {
  explicit TraceState(std::shared_ptr<ParamsState> params);

  /// The tensors of a traced function's inputs, to fill.
  static std::map<std::string, Tensor> &tensorsOf(Tracer::Inputs &in) {
    return in.tensors_;
  }

  /// The trace an operand belongs to (null for an empty tensor).
  static TraceState *of(const At &at);

  /// The context every op is built in (ag and builtin dialects).
  mlir::MLIRContext context;
  /// The module: weights and finished entries.
  mlir::OwningOpRef<mlir::ModuleOp> module;
  /// Builds at the end of the entry being recorded (or the module).
  mlir::OpBuilder builder;
  /// The parameters entries read (shared with the Params).
  std::shared_ptr<ParamsState> params;
  /// The weights declared in the module, with their generation.
  std::map<std::string, uint64_t> declared;
  /// The first module-level error (a bad weight), "file:line:col: ...".
  std::string moduleError;

  /// Declares the parameters' weights the module lacks, trainable ones
  /// first (the layout every recording over a Params shares).
  void declareWeights();
  /// The first module-level error, this tracer's or the parameters'.
  std::string moduleFailure() const;

  /// Every value traced so far, in every entry; a Tensor is an index. A
  /// deque: an op holds pointers to its operands' entries while reading a
  /// weight adds one.
  std::deque<TracedValue> values;
  /// The first index of the entry being recorded: lower ones are from
  /// finished entries.
  int32_t entryFirst = 0;
  /// Whether an entry is being recorded.
  bool recording = false;
  /// The first error of the entry being recorded.
  std::string entryError;
  /// Each weight read in the entry being recorded, by name: one read each.
  std::map<std::string, int32_t> reads;
  /// Each weight assigned in the entry being recorded, with where: a later
  /// read would see the old value (reads are cached), so it is refused.
  std::map<std::string, SourceLoc> assigned;

  /// The MLIR location of a user's source line.
  mlir::Location locationOf(const SourceLoc &loc);
  /// "file:line:col" of a user's source line.
  std::string sourceText(const SourceLoc &loc);
  /// Records an eager launch of `kernel` at `loc` (work run outside the
  /// graph), which the guard refuses at that line.
  void recordEager(const std::string &kernel, const SourceLoc &loc);
  /// Records `message` at `loc` as the entry's (or the module's) first
  /// error; later ops become no-ops.
  void fail(const SourceLoc &loc, const std::string &message);
  /// Whether the entry being recorded has failed (or none is recorded).
  bool failed() const { return !recording || !entryError.empty(); }

  /// The value of an operand: a tensor of this entry, or a weight read in
  /// it. Records an error and returns null when it is neither.
  const TracedValue *operand(const At &at, const char *op);
  /// Records `ag.assign_weight` of `value` to `target` (assign()), or an
  /// error naming what is wrong.
  void assign(const Weight &target, const At &value);
  /// Verifies `op` (built at the user's line) and adds its only result to
  /// the value table; a verifier error becomes the entry's error (naming
  /// the user's line) and erases the op.
  Tensor finish(mlir::Operation *op, const SourceLoc &loc);
  /// A Tensor for value table index `id`.
  Tensor tensor(int32_t id) { return Tensor(this, id, alive); }
  /// The table entry of `t`, or null (after recording an error at `loc`)
  /// when it is not a value of the entry being recorded.
  const TracedValue *lookup(const Tensor &t, const SourceLoc &loc,
                            const char *op);
  /// Whether every dimension of `shape` is a size (>= 0); else records an
  /// error naming `what`.
  bool checkShape(const SourceLoc &loc, const std::string &what,
                  llvm::ArrayRef<int64_t> shape);
  /// The f32 tensor type of `shape`.
  mlir::RankedTensorType f32(llvm::ArrayRef<int64_t> shape);

  /// Held while this trace lives; its tensors hold weak references.
  std::shared_ptr<const int> alive = std::make_shared<const int>(0);
};

} // namespace capture::detail

#endif // CAPTURE_LIB_TRACER_TRACESTATE_H
