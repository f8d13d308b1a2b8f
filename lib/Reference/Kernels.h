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

/// Sum over every element (`axis` nullopt) or along `axis` in [0, rank),
/// keeping reduced dimensions as 1 when `keepdim`; elements are accumulated
/// in row-major order. With `mean`, the sum is divided by the number of
/// reduced elements. nullopt when `axis` is out of range.
std::optional<Tensor> reduce(const Tensor &input, std::optional<int64_t> axis,
                             bool keepdim, bool mean, Precision precision);

} // namespace capture::reference::detail

#endif // CAPTURE_LIB_REFERENCE_KERNELS_H
