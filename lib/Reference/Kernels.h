//===- Kernels.h - Arithmetic of the reference interpreter ------*- C++ -*-===//
//
// The numeric loops behind each ag op, free of MLIR so that the interpreter
// (and, later, the gradient evaluator) can share them. Every kernel rounds as
// its Precision says: in F32 each result element, and each step of an
// accumulation, is rounded to float.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_LIB_REFERENCE_KERNELS_H
#define CAPTURE_LIB_REFERENCE_KERNELS_H

#include "capture/Reference/Interpreter.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <cmath>
#include <optional>

namespace capture::reference::detail {

/// `value` as the precision stores it: rounded to the nearest float in F32.
inline double roundTo(Precision precision, double value) {
  return precision == Precision::F32
             ? static_cast<double>(static_cast<float>(value))
             : value;
}

/// Applies `fn` to every element of `input`.
Tensor mapUnary(const Tensor &input, Precision precision,
                llvm::function_ref<double(double)> fn);

/// Row-major strides of `shape` aligned on the trailing dimensions of a
/// tensor of rank `rank` (>= shape.size()); a broadcast dimension (missing
/// or of size 1) gets stride 0 so that the same element is read along it.
std::vector<int64_t> broadcastStrides(llvm::ArrayRef<int64_t> shape,
                                      size_t rank);

/// The shape `lhs` and `rhs` broadcast to (numpy rules), or nullopt.
std::optional<std::vector<int64_t>> broadcastShape(llvm::ArrayRef<int64_t> lhs,
                                                   llvm::ArrayRef<int64_t> rhs);

/// Applies `fn` elementwise with numpy broadcasting; nullopt when the shapes
/// do not broadcast.
std::optional<Tensor> mapBinary(const Tensor &lhs, const Tensor &rhs,
                                Precision precision,
                                llvm::function_ref<double(double, double)> fn);

/// `op(lhs) @ op(rhs)` for 2-D tensors, where op transposes when asked;
/// nullopt when the operands are not 2-D or the contraction sizes differ.
/// Products are accumulated in order over K.
std::optional<Tensor> matmul(const Tensor &lhs, const Tensor &rhs,
                             bool transposeLhs, bool transposeRhs,
                             Precision precision);

/// What a reduction computes.
enum class Reduction {
  /// The sum of the reduced elements, accumulated in row-major order.
  Sum,
  /// The sum divided by the number of reduced elements.
  Mean,
  /// The largest element; a NaN anywhere makes the result NaN (torch.amax).
  Max,
};

/// `kind` over every element (`axis` nullopt) or along `axis` in [0, rank),
/// keeping reduced dimensions as 1 when `keepdim`. nullopt when `axis` is
/// out of range, or for a Max over zero elements that must produce a value
/// (PyTorch refuses that too: a maximum of nothing has no value).
std::optional<Tensor> reduce(const Tensor &input, std::optional<int64_t> axis,
                             bool keepdim, Reduction kind, Precision precision);

/// torch.minimum of two scalars: NaN when either is NaN. -0 counts as
/// less than +0, as for the device's `arith.minimumf`.
inline double minimumOf(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) ? a : b;
  if (a == b)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

/// torch.maximum of two scalars: NaN when either is NaN. +0 counts as
/// greater than -0, as for the device's `arith.maximumf`.
inline double maximumOf(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) ? a : b;
  if (a == b)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

//===----------------------------------------------------------------------===//
// Data movement (exact: no rounding involved)
//===----------------------------------------------------------------------===//

/// `input` broadcast to `shape` (numpy rules); nullopt when it does not
/// broadcast to exactly `shape`.
std::optional<Tensor> broadcastTo(const Tensor &input,
                                  llvm::ArrayRef<int64_t> shape);

/// The elements of `input` in row-major order with `shape`; nullopt when
/// the element counts differ.
std::optional<Tensor> reshape(const Tensor &input,
                              llvm::ArrayRef<int64_t> shape);

/// Result dimension i is input dimension permutation[i]; nullopt when
/// `permutation` is not a permutation of the input's dimensions.
std::optional<Tensor> transpose(const Tensor &input,
                                llvm::ArrayRef<int64_t> permutation);

/// `inputs` joined along `axis` in [0, rank); nullopt when there are no
/// inputs, or their ranks or their sizes outside `axis` differ.
std::optional<Tensor> concat(llvm::ArrayRef<const Tensor *> inputs,
                             int64_t axis);

/// Elements [start, end) along `axis` in [0, rank); nullopt when the axis
/// or the range is out of bounds.
std::optional<Tensor> slice(const Tensor &input, int64_t axis, int64_t start,
                            int64_t end);

//===----------------------------------------------------------------------===//
// Softmax, losses, lookups
//===----------------------------------------------------------------------===//

/// Softmax (or, with `log`, log-softmax) along `axis` in [0, rank),
/// computed stably from `x - max(x)` like the device kernel: softmax is
/// `exp(x - max) / sum`, log-softmax `(x - max) - log(sum)` with `sum` the
/// sum of `exp(x - max)` in order. A NaN in a row makes the row NaN.
/// nullopt when `axis` is out of range.
std::optional<Tensor> softmax(const Tensor &input, int64_t axis, bool log,
                              Precision precision);

/// The first element of `indices` that is not an integer in [0, limit).
struct BadIndex {
  /// Row-major position of the element.
  int64_t position;
  /// Its value.
  double value;
};

/// The first element of `indices` that is not an integer in [0, limit), or
/// nullopt when all are valid.
std::optional<BadIndex> findBadIndex(const Tensor &indices, int64_t limit);

/// torch.nn.functional.cross_entropy(logits, labels) with the mean
/// reduction: logits [B, C], labels [B] integers in [0, C), rank-0 result.
/// Per row the loss is `(max + log(sum exp(x - max))) - x[label]`, summed
/// in row order and divided by B, as on the device. nullopt on ill-shaped
/// operands or a label outside [0, C) (see findBadIndex).
std::optional<Tensor> crossEntropy(const Tensor &logits, const Tensor &labels,
                                   Precision precision);

/// torch.nn.functional.mse_loss(lhs, rhs): the mean of (lhs - rhs)^2 over
/// the elements in row-major order, rank-0 result. nullopt when the shapes
/// differ.
std::optional<Tensor> mse(const Tensor &lhs, const Tensor &rhs,
                          Precision precision);

/// table[indices]: table [V, D], indices [N] integers in [0, V), result
/// [N, D]. nullopt on ill-shaped operands or an index outside [0, V).
std::optional<Tensor> getRows(const Tensor &table, const Tensor &indices);

/// torch.nn.functional.one_hot(labels, classes) as floats: labels [B]
/// integers in [0, classes), result [B, classes] with 1.0 at each row's
/// label and 0.0 elsewhere. nullopt on ill-shaped labels or a label outside
/// [0, classes).
std::optional<Tensor> oneHot(const Tensor &labels, int64_t classes);

/// The gradient of getRows with respect to its table: a zero table
/// [rows, D] to which row i of `updates` [N, D] is added at row
/// `indices[i]` ([N] integers in [0, rows)), for i = 0..N-1 in order (so
/// repeated indices accumulate in that order, each sum rounded as
/// `precision` says). nullopt on ill-shaped operands or an index outside
/// [0, rows).
std::optional<Tensor> scatterAddRows(const Tensor &updates,
                                     const Tensor &indices, int64_t rows,
                                     Precision precision);

} // namespace capture::reference::detail

#endif // CAPTURE_LIB_REFERENCE_KERNELS_H
