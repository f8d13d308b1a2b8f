//===- DataMovement.cpp - Shape ops of the reference interpreter ----------===//
//
// Broadcast, reshape, transpose, concat, slice, row lookups and one-hot
// rows: they move
// elements without arithmetic, so both precisions give identical results.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

using namespace capture::reference;
using namespace capture::reference::detail;

/// Row-major strides of `shape`.
static std::vector<int64_t> rowMajorStrides(llvm::ArrayRef<int64_t> shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;)
    strides[d - 1] = strides[d] * shape[d];
  return strides;
}

/// A tensor of `shape` whose element at index (i0, i1, ...) is
/// `input.data[offset + sum(i_d * strides[d])]`. Broadcast (stride 0),
/// transpose (permuted strides) and slice (an offset) are all this gather.
static Tensor gather(const Tensor &input, llvm::ArrayRef<int64_t> shape,
                     llvm::ArrayRef<int64_t> strides, int64_t offset) {
  Tensor result;
  result.shape.assign(shape.begin(), shape.end());
  int64_t count = Tensor::numElements(shape);
  result.data.resize(count);
  // An odometer over the result's index, as in mapBinary.
  size_t rank = shape.size();
  std::vector<int64_t> index(rank, 0);
  int64_t at = offset;
  for (int64_t n = 0; n < count; ++n) {
    result.data[n] = input.data[at];
    for (size_t d = rank; d-- > 0;) {
      ++index[d];
      at += strides[d];
      if (index[d] < shape[d])
        break;
      at -= strides[d] * shape[d];
      index[d] = 0;
    }
  }
  return result;
}

std::optional<Tensor> detail::broadcastTo(const Tensor &input,
                                          llvm::ArrayRef<int64_t> shape) {
  std::optional<std::vector<int64_t>> broadcast =
      broadcastShape(input.shape, shape);
  if (!broadcast || llvm::ArrayRef<int64_t>(*broadcast) != shape)
    return std::nullopt;
  return gather(input, shape, broadcastStrides(input.shape, shape.size()), 0);
}

std::optional<Tensor> detail::reshape(const Tensor &input,
                                      llvm::ArrayRef<int64_t> shape) {
  if (Tensor::numElements(shape) != input.numElements())
    return std::nullopt;
  return Tensor::of(std::vector<int64_t>(shape.begin(), shape.end()),
                    input.data);
}

std::optional<Tensor> detail::transpose(const Tensor &input,
                                        llvm::ArrayRef<int64_t> permutation) {
  size_t rank = input.shape.size();
  if (permutation.size() != rank)
    return std::nullopt;
  std::vector<bool> seen(rank, false);
  std::vector<int64_t> inStrides = rowMajorStrides(input.shape);
  std::vector<int64_t> shape, strides;
  for (int64_t p : permutation) {
    if (p < 0 || p >= static_cast<int64_t>(rank) || seen[p])
      return std::nullopt;
    seen[p] = true;
    shape.push_back(input.shape[p]);
    strides.push_back(inStrides[p]);
  }
  return gather(input, shape, strides, 0);
}

std::optional<Tensor> detail::concat(llvm::ArrayRef<const Tensor *> inputs,
                                     int64_t axis) {
  if (inputs.empty())
    return std::nullopt;
  const std::vector<int64_t> &first = inputs.front()->shape;
  int64_t rank = static_cast<int64_t>(first.size());
  if (axis < 0 || axis >= rank)
    return std::nullopt;
  std::vector<int64_t> shape = first;
  shape[axis] = 0;
  for (const Tensor *input : inputs) {
    if (static_cast<int64_t>(input->shape.size()) != rank)
      return std::nullopt;
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && input->shape[d] != first[d])
        return std::nullopt;
    shape[axis] += input->shape[axis];
  }
  // Viewed as [outer, axis * inner], each input contributes one contiguous
  // chunk to every outer row of the result.
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= first[d];
  for (int64_t d = axis + 1; d < rank; ++d)
    inner *= first[d];
  Tensor result;
  result.shape = shape;
  result.data.reserve(Tensor::numElements(shape));
  for (int64_t o = 0; o < outer; ++o) {
    for (const Tensor *input : inputs) {
      int64_t chunk = input->shape[axis] * inner;
      auto begin = input->data.begin() + o * chunk;
      result.data.insert(result.data.end(), begin, begin + chunk);
    }
  }
  return result;
}

std::optional<Tensor> detail::slice(const Tensor &input, int64_t axis,
                                    int64_t start, int64_t end) {
  int64_t rank = static_cast<int64_t>(input.shape.size());
  if (axis < 0 || axis >= rank || start < 0 || start > end ||
      end > input.shape[axis])
    return std::nullopt;
  std::vector<int64_t> strides = rowMajorStrides(input.shape);
  std::vector<int64_t> shape = input.shape;
  shape[axis] = end - start;
  return gather(input, shape, strides, start * strides[axis]);
}

std::optional<Tensor> detail::getRows(const Tensor &table,
                                      const Tensor &indices) {
  if (table.shape.size() != 2 || indices.shape.size() != 1)
    return std::nullopt;
  int64_t rows = table.shape[0], width = table.shape[1];
  if (findBadIndex(indices, rows))
    return std::nullopt;
  Tensor result;
  result.shape = {indices.shape[0], width};
  result.data.reserve(indices.shape[0] * width);
  for (double index : indices.data) {
    auto begin = table.data.begin() + static_cast<int64_t>(index) * width;
    result.data.insert(result.data.end(), begin, begin + width);
  }
  return result;
}

std::optional<Tensor> detail::oneHot(const Tensor &labels, int64_t classes) {
  if (labels.shape.size() != 1 || classes < 0 || findBadIndex(labels, classes))
    return std::nullopt;
  int64_t batch = labels.shape[0];
  Tensor result = Tensor::filled({batch, classes}, 0.0);
  for (int64_t b = 0; b < batch; ++b)
    result.data[b * classes + static_cast<int64_t>(labels.data[b])] = 1.0;
  return result;
}
