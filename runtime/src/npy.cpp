//===- npy.cpp - NumPy .npy files for f32 / i32 tensors -------------------===//

#include "capture/rt/npy.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

namespace capture::rt {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
constexpr const char *kSupported =
    "supported: '<f4' (f32) and '<i4' (i32), C order, .npy versions 1.0 and "
    "2.0";

/// A cursor over the header dictionary, which numpy writes as a Python
/// literal: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }.
class HeaderParser {
public:
  HeaderParser(const std::string &text, const std::string &what)
      : text(text), what(what) {}

  /// Parses the dictionary into `descr`, `fortranOrder` and `shape`.
  Status parse() {
    skipSpace();
    if (!consume('{'))
      return fail("expected '{' at the start of the header");
    bool seenDescr = false, seenOrder = false, seenShape = false;
    while (true) {
      skipSpace();
      if (consume('}'))
        break;
      std::string key;
      CAPTURE_RT_RETURN_IF_ERROR(parseString(key));
      skipSpace();
      if (!consume(':'))
        return fail("expected ':' after key '" + key + "'");
      skipSpace();
      if (key == "descr") {
        if (peek() == '[')
          return Status::error(what +
                               ": structured dtypes are not supported (" +
                               kSupported + ")");
        CAPTURE_RT_RETURN_IF_ERROR(parseString(descr));
        seenDescr = true;
      } else if (key == "fortran_order") {
        CAPTURE_RT_RETURN_IF_ERROR(parseBool(fortranOrder));
        seenOrder = true;
      } else if (key == "shape") {
        CAPTURE_RT_RETURN_IF_ERROR(parseShape());
        seenShape = true;
      } else {
        return fail("unknown header key '" + key +
                    "' (expected 'descr', 'fortran_order', 'shape')");
      }
      skipSpace();
      if (consume(','))
        continue;
      skipSpace();
      if (consume('}'))
        break;
      return fail("expected ',' or '}' in the header dictionary");
    }
    skipSpace();
    if (pos != text.size())
      return fail("unexpected text after the header dictionary");
    if (!seenDescr || !seenOrder || !seenShape)
      return fail(std::string("header lacks key '") +
                  (!seenDescr   ? "descr"
                   : !seenOrder ? "fortran_order"
                                : "shape") +
                  "'");
    return Status::ok();
  }

  /// Value of 'descr'.
  std::string descr;
  /// Value of 'fortran_order'.
  bool fortranOrder = false;
  /// Value of 'shape'.
  std::vector<int64_t> shape;

private:
  char peek() const { return pos < text.size() ? text[pos] : '\0'; }
  bool consume(char c) {
    if (peek() != c)
      return false;
    ++pos;
    return true;
  }
  void skipSpace() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\n' ||
                                 text[pos] == '\t' || text[pos] == '\r'))
      ++pos;
  }
  Status fail(const std::string &msg) const {
    // Echo a bounded part of the header: it may be long or binary garbage.
    std::string shown = text.substr(0, 120);
    if (text.size() > shown.size())
      shown += "...";
    return Status::error(what + ": malformed .npy header: " + msg +
                         " (at offset " + std::to_string(pos) + " of '" +
                         shown + "')");
  }
  Status parseString(std::string &out) {
    char quote = peek();
    if (quote != '\'' && quote != '"')
      return fail("expected a quoted string");
    ++pos;
    size_t end = text.find(quote, pos);
    if (end == std::string::npos)
      return fail("unterminated string");
    out = text.substr(pos, end - pos);
    pos = end + 1;
    return Status::ok();
  }
  Status parseBool(bool &out) {
    if (text.compare(pos, 4, "True") == 0) {
      out = true;
      pos += 4;
      return Status::ok();
    }
    if (text.compare(pos, 5, "False") == 0) {
      out = false;
      pos += 5;
      return Status::ok();
    }
    return fail("expected True or False");
  }
  Status parseShape() {
    if (!consume('('))
      return fail("expected '(' for the shape");
    while (true) {
      skipSpace();
      if (consume(')'))
        return Status::ok();
      if (peek() < '0' || peek() > '9')
        return fail("expected a non-negative integer dimension");
      int64_t dim = 0;
      while (peek() >= '0' && peek() <= '9') {
        if (dim > (std::numeric_limits<int64_t>::max() - 9) / 10)
          return fail("dimension too large");
        dim = dim * 10 + (text[pos++] - '0');
      }
      consume('L'); // Python 2 wrote long integers with a suffix.
      shape.push_back(dim);
      skipSpace();
      if (consume(','))
        continue;
      skipSpace();
      if (consume(')'))
        return Status::ok();
      return fail("expected ',' or ')' in the shape");
    }
  }

  /// The header text.
  const std::string &text;
  /// Source name for messages.
  const std::string &what;
  /// Current offset into text.
  size_t pos = 0;
};

uint32_t readLE(const uint8_t *p, size_t n) {
  uint32_t v = 0;
  for (size_t i = 0; i < n; ++i)
    v |= static_cast<uint32_t>(p[i]) << (8 * i);
  return v;
}

} // namespace

Result<HostTensor> parseNpy(const uint8_t *bytes, size_t size,
                            const std::string &what) {
  if (size < kMagicSize || std::memcmp(bytes, kMagic, kMagicSize) != 0)
    return Status::error(what + ": not a .npy file (expected the magic "
                                "\"\\x93NUMPY\" at the start)");
  if (size < kMagicSize + 2)
    return Status::error(what + ": truncated .npy file (" +
                         std::to_string(size) + " bytes, no version)");
  unsigned major = bytes[6], minor = bytes[7];
  if ((major != 1 && major != 2) || minor != 0)
    return Status::error(what + ": .npy version " + std::to_string(major) +
                         "." + std::to_string(minor) + " is not supported (" +
                         kSupported + ")");
  size_t lenBytes = major == 1 ? 2 : 4;
  size_t preamble = kMagicSize + 2 + lenBytes;
  if (size < preamble)
    return Status::error(what + ": truncated .npy file (" +
                         std::to_string(size) + " bytes, no header length)");
  size_t headerLen = readLE(bytes + 8, lenBytes);
  if (headerLen > size - preamble)
    return Status::error(what + ": truncated .npy file: header of " +
                         std::to_string(headerLen) + " bytes, but only " +
                         std::to_string(size - preamble) + " bytes follow");
  std::string header(reinterpret_cast<const char *>(bytes + preamble),
                     headerLen);
  HeaderParser parser(header, what);
  CAPTURE_RT_RETURN_IF_ERROR(parser.parse());

  HostTensor tensor;
  if (parser.descr == "<f4")
    tensor.dtype = DType::F32;
  else if (parser.descr == "<i4")
    tensor.dtype = DType::I32;
  else
    return Status::error(what + ": dtype '" + parser.descr +
                         "' is not supported (" + kSupported + ")");
  if (parser.fortranOrder)
    return Status::error(what + ": Fortran-order arrays are not supported (" +
                         kSupported + ")");
  tensor.shape = parser.shape;

  size_t dataSize = size - preamble - headerLen;
  std::optional<uint64_t> count =
      elementCount(tensor.shape, std::numeric_limits<uint64_t>::max() / 4);
  if (!count)
    return Status::error(what + ": shape " + formatShape(tensor.shape) +
                         " is too large");
  uint64_t expected = *count * dtypeSize(tensor.dtype);
  if (dataSize < expected)
    return Status::error(what + ": truncated .npy data: shape " +
                         formatType(tensor.shape, tensor.dtype) + " needs " +
                         std::to_string(expected) + " bytes, file has " +
                         std::to_string(dataSize));
  if (dataSize > expected)
    return Status::error(what + ": .npy file has " +
                         std::to_string(dataSize - expected) +
                         " bytes after the data of shape " +
                         formatType(tensor.shape, tensor.dtype));
  tensor.data.assign(bytes + preamble + headerLen, bytes + size);
  return tensor;
}

Result<HostTensor> readNpyFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::error("cannot open '" + path + "': " + std::strerror(errno));
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  if (in.bad())
    return Status::error("cannot read '" + path + "'");
  return parseNpy(bytes.data(), bytes.size(), path);
}

Result<std::vector<uint8_t>> encodeNpy(const HostTensor &tensor) {
  std::optional<uint64_t> count = elementCount(tensor.shape);
  if (!count || *count * dtypeSize(tensor.dtype) != tensor.data.size())
    return Status::error("cannot write .npy: tensor of shape " +
                         formatType(tensor.shape, tensor.dtype) + " holds " +
                         std::to_string(tensor.data.size()) + " bytes of data");
  std::string dict = "{'descr': '";
  dict += tensor.dtype == DType::F32 ? "<f4" : "<i4";
  dict += "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < tensor.shape.size(); ++i) {
    if (i)
      dict += ", ";
    dict += std::to_string(tensor.shape[i]);
  }
  if (tensor.shape.size() == 1)
    dict += ",";
  dict += "), }";

  // numpy pads the header with spaces and a final newline so that the data
  // starts 64-byte aligned; version 2.0 only when 1.0's u16 length overflows.
  unsigned major = 1;
  size_t preamble = kMagicSize + 2 + 2;
  size_t total = (preamble + dict.size() + 1 + 63) / 64 * 64;
  if (total - preamble > 0xffff) {
    major = 2;
    preamble += 2;
    total = (preamble + dict.size() + 1 + 63) / 64 * 64;
  }
  size_t headerLen = total - preamble;
  dict.append(headerLen - dict.size() - 1, ' ');
  dict += '\n';

  std::vector<uint8_t> out(kMagic, kMagic + kMagicSize);
  out.push_back(static_cast<uint8_t>(major));
  out.push_back(0);
  for (size_t i = 0; i < (major == 1 ? 2u : 4u); ++i)
    out.push_back(static_cast<uint8_t>(headerLen >> (8 * i)));
  out.insert(out.end(), dict.begin(), dict.end());
  out.insert(out.end(), tensor.data.begin(), tensor.data.end());
  return out;
}

Status writeNpyFile(const std::string &path, const HostTensor &tensor) {
  Result<std::vector<uint8_t>> bytes = encodeNpy(tensor);
  if (bytes.isError())
    return bytes.status().withContext(path);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    return Status::error("cannot create '" + path +
                         "': " + std::strerror(errno));
  out.write(reinterpret_cast<const char *>(bytes.value().data()),
            static_cast<std::streamsize>(bytes.value().size()));
  out.close();
  if (!out)
    return Status::error("cannot write '" + path + "'");
  return Status::ok();
}

} // namespace capture::rt
