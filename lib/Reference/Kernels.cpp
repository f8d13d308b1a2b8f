//===- Kernels.cpp - Tensor arithmetic of the reference interpreter -------===//

#include "Kernels.h"

#include <algorithm>

using namespace capture::reference;
using namespace capture::reference::detail;

Tensor detail::mapUnary(const Tensor &input, Precision precision,
                        llvm::function_ref<double(double)> fn) {
  Tensor result;
  result.shape = input.shape;
  result.data.resize(input.data.size());
  for (size_t i = 0, e = input.data.size(); i < e; ++i)
    result.data[i] = roundTo(precision, fn(input.data[i]));
  return result;
}

/// Row-major strides of `shape` aligned on the trailing dimensions of a
/// tensor of rank `rank`; a broadcast dimension (missing or of size 1) gets
/// stride 0 so that the same element is read along it.
static std::vector<int64_t> broadcastStrides(const std::vector<int64_t> &shape,
                                             size_t rank) {
  std::vector<int64_t> strides(rank, 0);
  int64_t stride = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    size_t dim = shape.size() - 1 - i;
    strides[rank - 1 - i] = shape[dim] == 1 ? 0 : stride;
    stride *= shape[dim];
  }
  return strides;
}

std::optional<Tensor>
detail::mapBinary(const Tensor &lhs, const Tensor &rhs, Precision precision,
                  llvm::function_ref<double(double, double)> fn) {
  size_t rank = std::max(lhs.shape.size(), rhs.shape.size());
  std::vector<int64_t> shape(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t a = i < lhs.shape.size() ? lhs.shape[lhs.shape.size() - 1 - i] : 1;
    int64_t b = i < rhs.shape.size() ? rhs.shape[rhs.shape.size() - 1 - i] : 1;
    if (a != b && a != 1 && b != 1)
      return std::nullopt;
    shape[rank - 1 - i] = a == 1 ? b : a;
  }
  std::vector<int64_t> lhsStrides = broadcastStrides(lhs.shape, rank);
  std::vector<int64_t> rhsStrides = broadcastStrides(rhs.shape, rank);

  Tensor result;
  result.shape = shape;
  int64_t count = Tensor::numElements(shape);
  result.data.resize(count);
  // Walk the result in row-major order with an odometer over the index,
  // moving both operand offsets along by their (possibly zero) strides.
  std::vector<int64_t> index(rank, 0);
  int64_t lhsOffset = 0, rhsOffset = 0;
  for (int64_t n = 0; n < count; ++n) {
    result.data[n] =
        roundTo(precision, fn(lhs.data[lhsOffset], rhs.data[rhsOffset]));
    for (size_t d = rank; d-- > 0;) {
      ++index[d];
      lhsOffset += lhsStrides[d];
      rhsOffset += rhsStrides[d];
      if (index[d] < shape[d])
        break;
      lhsOffset -= lhsStrides[d] * shape[d];
      rhsOffset -= rhsStrides[d] * shape[d];
      index[d] = 0;
    }
  }
  return result;
}

std::optional<Tensor> detail::matmul(const Tensor &lhs, const Tensor &rhs,
                                     bool transposeLhs, bool transposeRhs,
                                     Precision precision) {
  if (lhs.shape.size() != 2 || rhs.shape.size() != 2)
    return std::nullopt;
  int64_t m = lhs.shape[transposeLhs ? 1 : 0];
  int64_t k = lhs.shape[transposeLhs ? 0 : 1];
  int64_t n = rhs.shape[transposeRhs ? 0 : 1];
  if (rhs.shape[transposeRhs ? 1 : 0] != k)
    return std::nullopt;
  // Element (i, p) of op(lhs) and (p, j) of op(rhs) in the stored layouts.
  auto a = [&](int64_t i, int64_t p) {
    return transposeLhs ? lhs.data[p * m + i] : lhs.data[i * k + p];
  };
  auto b = [&](int64_t p, int64_t j) {
    return transposeRhs ? rhs.data[j * k + p] : rhs.data[p * n + j];
  };
  Tensor result = Tensor::filled({m, n}, 0.0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0.0;
      // The product of two floats is exact in double, so in F32 this rounds
      // once per step, as a fused multiply-add on the device does.
      for (int64_t p = 0; p < k; ++p)
        acc = roundTo(precision, acc + a(i, p) * b(p, j));
      result.data[i * n + j] = acc;
    }
  }
  return result;
}

std::optional<Tensor> detail::reduce(const Tensor &input,
                                     std::optional<int64_t> axis, bool keepdim,
                                     bool mean, Precision precision) {
  int64_t rank = static_cast<int64_t>(input.shape.size());
  if (axis && (*axis < 0 || *axis >= rank))
    return std::nullopt;

  // View the input as [outer, reduced, inner]; a full reduction has one
  // outer and one inner position.
  int64_t outer = 1, reduced = 1, inner = 1;
  Tensor result;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t dim = input.shape[d];
    bool isReduced = !axis || d == *axis;
    if (isReduced)
      reduced *= dim;
    else if (axis && d < *axis)
      outer *= dim;
    else
      inner *= dim;
    if (!isReduced)
      result.shape.push_back(dim);
    else if (keepdim)
      result.shape.push_back(1);
  }
  result.data.resize(outer * inner);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      double acc = 0.0;
      for (int64_t r = 0; r < reduced; ++r)
        acc =
            roundTo(precision, acc + input.data[(o * reduced + r) * inner + i]);
      // An empty mean is 0 / 0 = NaN, as in PyTorch.
      if (mean)
        acc = roundTo(precision, acc / static_cast<double>(reduced));
      result.data[o * inner + i] = acc;
    }
  }
  return result;
}
