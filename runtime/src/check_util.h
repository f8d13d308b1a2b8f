//===- check_util.h - Formatting shared by the checks -----------*- C++ -*-===//
//
// The loader's verifier and the runtime's argument checks describe ranges,
// buffers and float values the same way, so that a message reads alike
// whichever check produced it.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_CHECK_UTIL_H
#define CAPTURE_RT_CHECK_UTIL_H

#include "capture/rt/module_desc.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

namespace capture::rt {

/// Decimal text of `v`.
inline std::string str(uint64_t v) { return std::to_string(v); }

/// "[offset, end)", also when offset + size overflows.
inline std::string formatRange(uint64_t offset, uint64_t size) {
  if (offset > std::numeric_limits<uint64_t>::max() - size)
    return "[" + str(offset) + ", " + str(offset) + " + " + str(size) + ")";
  return "[" + str(offset) + ", " + str(offset + size) + ")";
}

/// Whether [offset, offset + size) lies inside [0, limit), overflow-safe.
inline bool rangeInside(uint64_t offset, uint64_t size, uint64_t limit) {
  return size <= limit && offset <= limit - size;
}

/// Whether two ranges share a byte; both must lie inside one buffer (no
/// overflow).
inline bool rangesOverlap(uint64_t offA, uint64_t sizeA, uint64_t offB,
                          uint64_t sizeB) {
  return sizeA && sizeB && offA < offB + sizeB && offB < offA + sizeA;
}

/// `v` with 9 significant digits (enough to read back the same float);
/// "nan", "inf" or "-inf" whatever the sign and payload bits, since printf's
/// "-nan" would suggest a meaning that a NaN's sign does not have.
inline std::string formatFloat(float v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  char text[32];
  std::snprintf(text, sizeof(text), "%.9g", static_cast<double>(v));
  return text;
}

/// "buffer 2 (Scratch, 4096 bytes)"; `index` must be valid.
inline std::string bufferName(const ModuleDesc &desc, uint32_t index) {
  const BufferDesc &b = desc.buffers[index];
  return "buffer " + str(index) + " (" + bufferKindName(b.kind) + ", " +
         str(b.size) + " bytes)";
}

} // namespace capture::rt

#endif // CAPTURE_RT_CHECK_UTIL_H
