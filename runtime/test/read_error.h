//===- read_error.h - The loader's message for a bad module ------*- C++ -*-===//

#ifndef CAPTURE_RT_TEST_READ_ERROR_H
#define CAPTURE_RT_TEST_READ_ERROR_H

#include "capture/rt/capmod.h"

#include <gtest/gtest.h>

#include <string>

namespace capture::rt::test {

/// Serializes `desc`, reads it back and returns the error message (or
/// fails the test when reading succeeds).
inline std::string readError(const ModuleDesc &desc) {
  std::vector<uint8_t> bytes = writeCapmod(desc);
  Result<ModuleDesc> r = readCapmod(bytes.data(), bytes.size());
  EXPECT_TRUE(r.isError()) << "module was accepted";
  return r.message();
}

} // namespace capture::rt::test

#endif // CAPTURE_RT_TEST_READ_ERROR_H
