//===- tensor.h - Host tensors crossing the host/device boundary -*- C++
//-*-===//
//
// The host-side value of an input, output, weight or probe: dtype, shape and
// the raw little-endian element bytes in C order. Header-only so that the
// Vulkan-free libraries (capture-npy, capture-capmod) share it.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_TENSOR_H
#define CAPTURE_RT_TENSOR_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace capture::rt {

/// Element types; the values match `capture.capmod.DType`.
enum class DType : uint8_t {
  F32 = 0, ///< 32-bit IEEE float.
  I32 = 1, ///< 32-bit signed integer.
};

/// Bytes per element of `dtype`.
inline size_t dtypeSize(DType dtype) {
  (void)dtype; // Both supported dtypes are 4 bytes wide.
  return 4;
}

/// "f32" / "i32", as used in every message.
inline const char *dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "f32";
  case DType::I32:
    return "i32";
  }
  return "unknown-dtype";
}

/// Number of elements of the `rank` dimensions at `dims` (1 for a
/// scalar), or nullopt when a dimension is negative or the product
/// overflows `limit`.
inline std::optional<uint64_t>
elementCount(const int64_t *dims, size_t rank,
             uint64_t limit = std::numeric_limits<uint64_t>::max()) {
  uint64_t count = 1;
  for (size_t i = 0; i < rank; ++i) {
    int64_t dim = dims[i];
    if (dim < 0)
      return std::nullopt;
    uint64_t d = static_cast<uint64_t>(dim);
    if (d != 0 && count > limit / d)
      return std::nullopt;
    count *= d;
  }
  return count;
}

/// Number of elements of `shape`, as above.
inline std::optional<uint64_t>
elementCount(const std::vector<int64_t> &shape,
             uint64_t limit = std::numeric_limits<uint64_t>::max()) {
  return elementCount(shape.data(), shape.size(), limit);
}

/// "[2, 4]"; "[]" for a scalar.
inline std::string formatShape(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

/// "[2, 4] (f32)".
inline std::string formatType(const std::vector<int64_t> &shape, DType dtype) {
  return formatShape(shape) + " (" + dtypeName(dtype) + ")";
}

/// A dense host tensor. Invariant kept by the helpers below (and checked by
/// every runtime entry point): data.size() == elementCount(shape) * 4.
struct HostTensor {
  /// Element type.
  DType dtype = DType::F32;
  /// Dimensions, outermost first; empty for a scalar.
  std::vector<int64_t> shape;
  /// Element bytes, little-endian, C (row-major) order.
  std::vector<uint8_t> data;

  /// A f32 tensor holding `values`; values.size() must match `shape`.
  static HostTensor f32(std::vector<int64_t> shape,
                        const std::vector<float> &values) {
    return fromRaw(DType::F32, std::move(shape), values.data(),
                   values.size() * sizeof(float));
  }

  /// An i32 tensor holding `values`; values.size() must match `shape`.
  static HostTensor i32(std::vector<int64_t> shape,
                        const std::vector<int32_t> &values) {
    return fromRaw(DType::I32, std::move(shape), values.data(),
                   values.size() * sizeof(int32_t));
  }

  /// A tensor copying `bytes` bytes from `src`.
  static HostTensor fromRaw(DType dtype, std::vector<int64_t> shape,
                            const void *src, size_t bytes) {
    HostTensor t;
    t.dtype = dtype;
    t.shape = std::move(shape);
    t.data.resize(bytes);
    if (bytes)
      std::memcpy(t.data.data(), src, bytes);
    return t;
  }

  /// Number of elements implied by the data size.
  size_t numElements() const { return data.size() / dtypeSize(dtype); }

  /// The elements as floats (meaningful for F32).
  std::vector<float> asF32() const {
    std::vector<float> v(data.size() / sizeof(float));
    if (!v.empty())
      std::memcpy(v.data(), data.data(), v.size() * sizeof(float));
    return v;
  }

  /// The elements as int32 (meaningful for I32).
  std::vector<int32_t> asI32() const {
    std::vector<int32_t> v(data.size() / sizeof(int32_t));
    if (!v.empty())
      std::memcpy(v.data(), data.data(), v.size() * sizeof(int32_t));
    return v;
  }
};

/// A host tensor with the name of the input, output, weight or probe it is.
struct NamedTensor {
  /// Name as written in the module file.
  std::string name;
  /// The value.
  HostTensor tensor;
};

/// An input read where the caller keeps it (a numpy array, a C caller's
/// buffer), so that the one copy is into the upload's staging: the data
/// must stay valid and unchanged during the call it is given to.
struct TensorView {
  /// Name of the input.
  std::string_view name;
  /// Element type.
  DType dtype = DType::F32;
  /// `rank` dimensions, outermost first.
  const int64_t *shape = nullptr;
  /// Number of dimensions (0 for a scalar).
  size_t rank = 0;
  /// The element bytes, little-endian, C order.
  const void *data = nullptr;
  /// Their size.
  size_t bytes = 0;

  /// A view of `t` (valid while `t` is).
  static TensorView of(const NamedTensor &t) {
    return {t.name,
            t.tensor.dtype,
            t.tensor.shape.data(),
            t.tensor.shape.size(),
            t.tensor.data.data(),
            t.tensor.data.size()};
  }
  /// The dimensions as a vector.
  std::vector<int64_t> shapeVector() const {
    return std::vector<int64_t>(shape, shape + rank);
  }
};

/// Where an output goes when the caller provides its memory: the one copy
/// is out of the download's staging, straight into `data`.
struct OutputView {
  /// Name of the output.
  std::string_view name;
  /// Its memory: exactly the output's size.
  void *data = nullptr;
  /// That size, in bytes.
  size_t bytes = 0;
};

} // namespace capture::rt

#endif // CAPTURE_RT_TENSOR_H
