//===- npy.h - NumPy .npy files for f32 / i32 tensors -----------*- C++ -*-===//
//
// A deliberately small .npy reader/writer (library capture-npy, no Vulkan):
// little-endian f32 ('<f4') and i32 ('<i4') arrays in C order, format
// versions 1.0 and 2.0. Everything else is rejected with a message naming
// what was found and what is supported, rather than guessed at.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_NPY_H
#define CAPTURE_RT_NPY_H

#include "capture/rt/status.h"
#include "capture/rt/tensor.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace capture::rt {

/// Parses the bytes of a whole .npy file. `what` names the source (a path)
/// in error messages.
Result<HostTensor> parseNpy(const uint8_t *bytes, size_t size,
                            const std::string &what = "npy");

/// Reads and parses the .npy file at `path`.
Result<HostTensor> readNpyFile(const std::string &path);

/// Encodes `tensor` as a .npy file (version 1.0, or 2.0 when the header
/// does not fit 1.0). Fails when data.size() does not match the shape.
Result<std::vector<uint8_t>> encodeNpy(const HostTensor &tensor);

/// Encodes `tensor` and writes it to `path` (replacing the file).
Status writeNpyFile(const std::string &path, const HostTensor &tensor);

} // namespace capture::rt

#endif // CAPTURE_RT_NPY_H
