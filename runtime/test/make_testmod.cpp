//===- make_testmod.cpp - Writes capture-run's test inputs ----------------===//
//
// Usage: capture-rt-make-testmod DIR. Writes into DIR (created if missing):
//   test.capmod    the module of test_util.h (entries predict, bias, side)
//   single.capmod  the same with only entry predict
//   x.npy b.npy    predict's inputs; x_bad_shape.npy is [4, 2],
//                  x_i32.npy has dtype i32
//   w_ones.npy     a replacement for weight w; w_bad.npy has shape [8]
//
//===----------------------------------------------------------------------===//

#include "capture/rt/capmod.h"
#include "capture/rt/npy.h"
#include "test_util.h"

#include <cstdio>
#include <filesystem>

using namespace capture::rt;

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  std::string dir = argv[1];
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    std::fprintf(stderr, "cannot create '%s': %s\n", dir.c_str(),
                 ec.message().c_str());
    return 1;
  }
  ModuleDesc desc = test::makeTestModule();
  ModuleDesc single = desc;
  single.entries.resize(1);

  std::vector<Status> results = {
      writeCapmodFile(dir + "/test.capmod", desc),
      writeCapmodFile(dir + "/single.capmod", single),
      writeNpyFile(dir + "/x.npy", HostTensor::f32({2, 4}, test::inputX())),
      writeNpyFile(dir + "/b.npy", HostTensor::f32({2, 4}, test::inputB())),
      writeNpyFile(dir + "/x_bad_shape.npy",
                   HostTensor::f32({4, 2}, test::inputX())),
      writeNpyFile(dir + "/x_i32.npy",
                   HostTensor::i32({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8})),
      writeNpyFile(dir + "/w_ones.npy",
                   HostTensor::f32({2, 4}, std::vector<float>(8, 1.0f))),
      writeNpyFile(dir + "/w_bad.npy",
                   HostTensor::f32({8}, std::vector<float>(8, 1.0f))),
  };
  for (const Status &s : results) {
    if (s.isError()) {
      std::fprintf(stderr, "capture-rt-make-testmod: %s\n",
                   s.message().c_str());
      return 1;
    }
  }
  return 0;
}
