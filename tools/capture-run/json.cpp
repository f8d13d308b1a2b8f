//===- json.cpp - A minimal JSON writer -----------------------------------===//

#include "json.h"

#include <cmath>
#include <cstdio>

namespace capture::run {

void JsonWriter::separate() {
  if (afterKey) {
    afterKey = false;
    return;
  }
  if (!empty.empty()) {
    if (!empty.back())
      out += ',';
    empty.back() = false;
  }
}

void JsonWriter::beginObject() {
  separate();
  out += '{';
  empty.push_back(true);
}

void JsonWriter::endObject() {
  out += '}';
  empty.pop_back();
}

void JsonWriter::beginArray() {
  separate();
  out += '[';
  empty.push_back(true);
}

void JsonWriter::endArray() {
  out += ']';
  empty.pop_back();
}

void JsonWriter::key(std::string_view name) {
  value(name);
  out += ':';
  afterKey = true;
}

void JsonWriter::value(std::string_view s) {
  separate();
  out += '"';
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (u < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  out += '"';
}

void JsonWriter::value(double v) {
  if (!std::isfinite(v)) {
    null();
    return;
  }
  separate();
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  out += buf;
}

void JsonWriter::value(uint64_t v) {
  separate();
  out += std::to_string(v);
}

void JsonWriter::value(bool v) {
  separate();
  out += v ? "true" : "false";
}

void JsonWriter::null() {
  separate();
  out += "null";
}

} // namespace capture::run
