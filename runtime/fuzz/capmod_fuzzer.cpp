//===- capmod_fuzzer.cpp - libFuzzer target for the module loader ---------===//
//
// Everything the loader does before it touches a device, on arbitrary bytes:
// the checksum, FlatBuffers, verifyModuleDesc (SPIR-V walk and validator,
// hazard sweep, training tables, index checks), the device-limit checks,
// the census, initializer evaluation and a write/read round trip. The first
// byte picks what the rest is: even, a module's FlatBuffers part that is
// sealed with a valid checksum first (a hostile file: the fuzzer reaches
// every check behind the checksum); odd, a whole file (a damaged one).
// Any crash, sanitizer report or broken round trip is a bug.
//
//===----------------------------------------------------------------------===//

#include "capmod_checksum.h"
#include "test_util.h"

#include "capture/rt/capmod.h"
#include "capture/rt/census.h"
#include "capture/rt/initializer.h"

#include <cstdlib>
#include <vector>

using namespace capture::rt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  std::vector<uint8_t> bytes(data + 1, data + size);
  if ((data[0] & 1) == 0)
    appendCapmodChecksum(bytes);
  Result<ModuleDesc> desc = readCapmod(bytes.data(), bytes.size());
  if (desc.isError())
    return 0;
  (void)verifyForDevice(desc.value(), test::lavapipeLikeLimits());
  (void)moduleCensus(desc.value());
  for (const WeightDesc &w : desc->weights) {
    // Bounded: a verified weight may be up to 4 GiB.
    if (!w.initializer || w.size > (1u << 20))
      continue;
    std::vector<float> values(w.size / sizeof(float));
    evaluateInitializer(*w.initializer, values.size(), values.data());
  }
  // What was accepted writes and reads back to the same module.
  std::vector<uint8_t> again = writeCapmod(desc.value());
  Result<ModuleDesc> back = readCapmod(again.data(), again.size());
  if (back.isError() || writeCapmod(back.value()) != again)
    std::abort();
  return 0;
}
