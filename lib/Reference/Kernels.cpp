//===- Kernels.cpp - Tensor arithmetic of the reference interpreter -------===//

#include "Kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>

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

std::vector<int64_t> detail::broadcastStrides(llvm::ArrayRef<int64_t> shape,
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

std::optional<std::vector<int64_t>>
detail::broadcastShape(llvm::ArrayRef<int64_t> lhs,
                       llvm::ArrayRef<int64_t> rhs) {
  size_t rank = std::max(lhs.size(), rhs.size());
  std::vector<int64_t> shape(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t a = i < lhs.size() ? lhs[lhs.size() - 1 - i] : 1;
    int64_t b = i < rhs.size() ? rhs[rhs.size() - 1 - i] : 1;
    if (a != b && a != 1 && b != 1)
      return std::nullopt;
    shape[rank - 1 - i] = a == 1 ? b : a;
  }
  return shape;
}

std::optional<Tensor>
detail::mapBinary(const Tensor &lhs, const Tensor &rhs, Precision precision,
                  llvm::function_ref<double(double, double)> fn) {
  std::optional<std::vector<int64_t>> broadcast =
      broadcastShape(lhs.shape, rhs.shape);
  if (!broadcast)
    return std::nullopt;
  const std::vector<int64_t> &shape = *broadcast;
  size_t rank = shape.size();
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
                                     Reduction kind, Precision precision) {
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
  if (kind == Reduction::Max && reduced == 0 && outer * inner > 0)
    return std::nullopt;
  result.data.resize(outer * inner);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      auto element = [&](int64_t r) {
        return input.data[(o * reduced + r) * inner + i];
      };
      double acc;
      if (kind == Reduction::Max) {
        // Exact in both precisions: the maximum is one of the elements.
        acc = -std::numeric_limits<double>::infinity();
        for (int64_t r = 0; r < reduced; ++r)
          acc = maximumOf(acc, element(r));
      } else {
        acc = 0.0;
        for (int64_t r = 0; r < reduced; ++r)
          acc = roundTo(precision, acc + element(r));
        // An empty mean is 0 / 0 = NaN, as in PyTorch.
        if (kind == Reduction::Mean)
          acc = roundTo(precision, acc / static_cast<double>(reduced));
      }
      result.data[o * inner + i] = acc;
    }
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Softmax and losses
//===----------------------------------------------------------------------===//

namespace {
/// The numerically stable parts of a softmax row: its maximum and the sum
/// of exp(x - max) over the row, accumulated in order.
struct RowStats {
  double max;
  double expSum;
};
} // namespace

/// The RowStats of the `count` elements `data[0], data[stride], ...`.
static RowStats rowStats(const double *data, int64_t count, int64_t stride,
                         Precision precision) {
  RowStats stats{-std::numeric_limits<double>::infinity(), 0.0};
  // A NaN in the row makes the max NaN, hence every result of the row.
  for (int64_t r = 0; r < count; ++r)
    stats.max = maximumOf(stats.max, data[r * stride]);
  for (int64_t r = 0; r < count; ++r) {
    double shifted = roundTo(precision, data[r * stride] - stats.max);
    stats.expSum = roundTo(
        precision, stats.expSum + roundTo(precision, std::exp(shifted)));
  }
  return stats;
}

std::optional<Tensor> detail::softmax(const Tensor &input, int64_t axis,
                                      bool log, Precision precision) {
  int64_t rank = static_cast<int64_t>(input.shape.size());
  if (axis < 0 || axis >= rank)
    return std::nullopt;
  int64_t outer = 1, count = input.shape[axis], inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= input.shape[d];
  for (int64_t d = axis + 1; d < rank; ++d)
    inner *= input.shape[d];

  Tensor result;
  result.shape = input.shape;
  result.data.resize(input.data.size());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      int64_t base = o * count * inner + i;
      RowStats stats =
          rowStats(input.data.data() + base, count, inner, precision);
      // log_softmax = (x - max) - log(sum) stays accurate where softmax
      // underflows to 0, so it is not computed as log(softmax).
      double logSum = roundTo(precision, std::log(stats.expSum));
      for (int64_t r = 0; r < count; ++r) {
        int64_t at = base + r * inner;
        double shifted = roundTo(precision, input.data[at] - stats.max);
        result.data[at] =
            log ? roundTo(precision, shifted - logSum)
                : roundTo(precision,
                          roundTo(precision, std::exp(shifted)) / stats.expSum);
      }
    }
  }
  return result;
}

std::optional<BadIndex> detail::findBadIndex(const Tensor &indices,
                                             int64_t limit) {
  for (size_t i = 0, e = indices.data.size(); i < e; ++i) {
    double value = indices.data[i];
    // Written so that NaN fails too.
    if (!(value >= 0 && value < static_cast<double>(limit) &&
          std::floor(value) == value))
      return BadIndex{static_cast<int64_t>(i), value};
  }
  return std::nullopt;
}

std::optional<Tensor> detail::crossEntropy(const Tensor &logits,
                                           const Tensor &labels,
                                           Precision precision) {
  if (logits.shape.size() != 2 || labels.shape.size() != 1 ||
      labels.shape[0] != logits.shape[0])
    return std::nullopt;
  int64_t batch = logits.shape[0], classes = logits.shape[1];
  if (findBadIndex(labels, classes))
    return std::nullopt;
  double total = 0.0;
  for (int64_t b = 0; b < batch; ++b) {
    const double *row = logits.data.data() + b * classes;
    RowStats stats = rowStats(row, classes, 1, precision);
    // -log_softmax(x)[label] = (max + log(sum)) - x[label], in the
    // device's order of operations.
    double logSumExp = roundTo(
        precision, stats.max + roundTo(precision, std::log(stats.expSum)));
    auto label = static_cast<int64_t>(labels.data[b]);
    double nll = roundTo(precision, logSumExp - row[label]);
    total = roundTo(precision, total + nll);
  }
  // An empty batch gives 0 / 0 = NaN, as in PyTorch.
  return Tensor::of({},
                    {roundTo(precision, total / static_cast<double>(batch))});
}

std::optional<Tensor> detail::mse(const Tensor &lhs, const Tensor &rhs,
                                  Precision precision) {
  if (lhs.shape != rhs.shape || lhs.data.size() != rhs.data.size())
    return std::nullopt;
  double total = 0.0;
  for (size_t i = 0, e = lhs.data.size(); i < e; ++i) {
    double diff = roundTo(precision, lhs.data[i] - rhs.data[i]);
    // diff * diff is exact in double, so F32 rounds once per step, as a
    // fused multiply-add does (the same convention as matmul).
    total = roundTo(precision, total + diff * diff);
  }
  // An empty input gives 0 / 0 = NaN, as in PyTorch.
  return Tensor::of(
      {}, {roundTo(precision, total / static_cast<double>(lhs.data.size()))});
}

std::optional<Tensor> detail::scatterAddRows(const Tensor &updates,
                                             const Tensor &indices,
                                             int64_t rows,
                                             Precision precision) {
  if (updates.shape.size() != 2 || indices.shape.size() != 1 ||
      indices.shape[0] != updates.shape[0] || rows < 0 ||
      findBadIndex(indices, rows))
    return std::nullopt;
  int64_t count = updates.shape[0], width = updates.shape[1];
  Tensor result = Tensor::filled({rows, width}, 0.0);
  for (int64_t i = 0; i < count; ++i) {
    double *row =
        result.data.data() + static_cast<int64_t>(indices.data[i]) * width;
    const double *update = updates.data.data() + i * width;
    for (int64_t d = 0; d < width; ++d)
      row[d] = roundTo(precision, row[d] + update[d]);
  }
  return result;
}
