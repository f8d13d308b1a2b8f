//===- npy_fuzzer.cpp - libFuzzer target for the .npy reader --------------===//
//
// parseNpy on arbitrary bytes (inputs and parameters come from elsewhere):
// never a crash, and what it accepts encodes and parses back to the same
// tensor.
//
//===----------------------------------------------------------------------===//

#include "capture/rt/npy.h"

#include <cstdlib>

using namespace capture::rt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Result<HostTensor> t = parseNpy(data, size, "fuzz");
  if (t.isError())
    return 0;
  Result<std::vector<uint8_t>> bytes = encodeNpy(t.value());
  if (bytes.isError())
    return 0;
  Result<HostTensor> back = parseNpy(bytes->data(), bytes->size(), "again");
  if (back.isError() || back->shape != t->shape || back->dtype != t->dtype ||
      back->data != t->data)
    std::abort();
  return 0;
}
