//===- json.h - A minimal JSON writer for capture-run --json ----*- C++ -*-===//
//
// Compact output (no spaces), keys in the order written; enough for the
// one object capture-run prints. Non-finite numbers, which JSON cannot
// represent, are written as null.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RUN_JSON_H
#define CAPTURE_RUN_JSON_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace capture::run {

/// Appends JSON text to a string; commas are inserted as values follow
/// each other.
class JsonWriter {
public:
  /// Starts an object ("{"); as a member value after key().
  void beginObject();
  /// Ends the innermost object.
  void endObject();
  /// Starts an array.
  void beginArray();
  /// Ends the innermost array.
  void endArray();
  /// Writes a member name; the next call writes its value.
  void key(std::string_view name);
  /// Writes a string, escaped.
  void value(std::string_view s);
  /// Writes a string literal (not a bool).
  void value(const char *s) { value(std::string_view(s)); }
  /// Writes a number with 9 significant digits (enough for any f32); null
  /// when not finite.
  void value(double v);
  /// Writes an unsigned integer.
  void value(uint64_t v);
  /// Writes true or false.
  void value(bool v);
  /// Writes null.
  void null();
  /// The text written so far.
  const std::string &text() const { return out; }

private:
  /// Writes the comma a value needs after a previous sibling.
  void separate();

  /// The text.
  std::string out;
  /// Per open container: whether it has no member yet.
  std::vector<bool> empty;
  /// Whether the next value follows a key (no comma then).
  bool afterKey = false;
};

} // namespace capture::run

#endif // CAPTURE_RUN_JSON_H
