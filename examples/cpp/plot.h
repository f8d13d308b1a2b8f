//===- plot.h - A loss curve as a PNG, with no library --------------*- C++
//-*-===//
//
// The examples' --plot: the curve drawn into an RGB image (grid lines at
// fifths of the value range, the curve in blue) and written as a PNG with
// stored (uncompressed) deflate blocks, so that it needs neither zlib nor
// a plotting library. The value range is printed beside it by the caller.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_EXAMPLES_CPP_PLOT_H
#define CAPTURE_EXAMPLES_CPP_PLOT_H

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace capture::examples {
namespace png {

/// CRC-32 (ISO 3309) of `data`, continuing `crc`.
inline uint32_t crc32(const uint8_t *data, size_t size, uint32_t crc = 0) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t n = 0; n < 256; ++n) {
      uint32_t c = n;
      for (int k = 0; k < 8; ++k)
        c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  crc = ~crc;
  for (size_t i = 0; i < size; ++i)
    crc = table[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

/// Appends `v` big-endian.
inline void put32(std::vector<uint8_t> &out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<uint8_t>(v >> shift));
}

/// Appends a chunk: length, type, data, CRC of type and data.
inline void chunk(std::vector<uint8_t> &out, const char *type,
                  const std::vector<uint8_t> &data) {
  put32(out, static_cast<uint32_t>(data.size()));
  size_t start = out.size();
  out.insert(out.end(), type, type + 4);
  out.insert(out.end(), data.begin(), data.end());
  put32(out, crc32(out.data() + start, out.size() - start));
}

/// The PNG of an 8-bit RGB image, rows top first.
inline std::vector<uint8_t> encode(int width, int height,
                                   const std::vector<uint8_t> &rgb) {
  std::vector<uint8_t> raw; // each row: filter type 0, then its pixels
  for (int y = 0; y < height; ++y) {
    raw.push_back(0);
    raw.insert(raw.end(), rgb.begin() + size_t(y) * width * 3,
               rgb.begin() + size_t(y + 1) * width * 3);
  }
  std::vector<uint8_t> z = {0x78, 0x01}; // zlib, no compression
  for (size_t at = 0; at < raw.size() || at == 0;) {
    size_t n = std::min<size_t>(65535, raw.size() - at);
    z.push_back(at + n == raw.size() ? 1 : 0); // final block?
    z.push_back(n & 0xFF);
    z.push_back(n >> 8);
    z.push_back(~n & 0xFF);
    z.push_back((~n >> 8) & 0xFF);
    z.insert(z.end(), raw.begin() + at, raw.begin() + at + n);
    at += n;
    if (n == 0)
      break;
  }
  uint32_t a = 1, b = 0; // Adler-32
  for (uint8_t c : raw) {
    a = (a + c) % 65521;
    b = (b + a) % 65521;
  }
  put32(z, (b << 16) | a);
  std::vector<uint8_t> out = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  std::vector<uint8_t> header;
  put32(header, static_cast<uint32_t>(width));
  put32(header, static_cast<uint32_t>(height));
  header.insert(header.end(), {8, 2, 0, 0, 0}); // 8-bit RGB
  chunk(out, "IHDR", header);
  chunk(out, "IDAT", z);
  chunk(out, "IEND", {});
  return out;
}

} // namespace png

/// Writes `values` (one per step) as a line plot PNG to `path`; false when
/// the file cannot be written.
inline bool writeCurvePng(const std::string &path,
                          const std::vector<float> &values, int width = 640,
                          int height = 360) {
  std::vector<uint8_t> rgb(size_t(width) * height * 3, 255);
  auto set = [&](int x, int y, uint8_t r, uint8_t g, uint8_t b) {
    if (x < 0 || y < 0 || x >= width || y >= height)
      return;
    uint8_t *p = &rgb[(size_t(y) * width + x) * 3];
    p[0] = r, p[1] = g, p[2] = b;
  };
  const int left = 40, right = width - 20, top = 20, bottom = height - 30;
  for (int i = 0; i <= 5; ++i) { // grid
    int y = top + (bottom - top) * i / 5;
    for (int x = left; x <= right; ++x)
      set(x, y, 220, 220, 220);
  }
  for (int x = left; x <= right; ++x) // axes
    set(x, bottom, 0, 0, 0);
  for (int y = top; y <= bottom; ++y)
    set(left, y, 0, 0, 0);
  if (!values.empty()) {
    auto [lo, hi] = std::minmax_element(values.begin(), values.end());
    float span = *hi - *lo > 0 ? *hi - *lo : 1;
    auto px = [&](size_t i) {
      return left + int(std::lround(double(right - left) * i /
                                    std::max<size_t>(1, values.size() - 1)));
    };
    auto py = [&](size_t i) {
      return bottom -
             int(std::lround(double(bottom - top) * (values[i] - *lo) / span));
    };
    for (size_t i = 0; i + 1 < values.size() || i == 0; ++i) {
      int x0 = px(i), y0 = py(i);
      int x1 = i + 1 < values.size() ? px(i + 1) : x0;
      int y1 = i + 1 < values.size() ? py(i + 1) : y0;
      int steps = std::max(std::abs(x1 - x0), std::abs(y1 - y0)) + 1;
      for (int k = 0; k <= steps; ++k) {
        int x = x0 + (x1 - x0) * k / steps, y = y0 + (y1 - y0) * k / steps;
        for (int d = 0; d < 2; ++d) // two pixels thick
          set(x, y + d, 31, 119, 180);
      }
      if (i + 1 >= values.size())
        break;
    }
  }
  std::vector<uint8_t> file = png::encode(width, height, rgb);
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char *>(file.data()),
            static_cast<std::streamsize>(file.size()));
  return static_cast<bool>(out);
}

} // namespace capture::examples

#endif // CAPTURE_EXAMPLES_CPP_PLOT_H
