//===- make_testmod.cpp - Writes capture-run's test inputs ----------------===//
//
// Usage: capture-rt-make-testmod DIR. Writes into DIR (created if missing):
//   test.capmod    the module of test_util.h (entries predict, bias, side)
//   single.capmod  the same with only entry predict
//   x.npy b.npy    predict's inputs; x_bad_shape.npy is [4, 2],
//                  x_i32.npy has dtype i32
//   w_ones.npy     a replacement for weight w; w_bad.npy has shape [8]
//   train.capmod   the training module of train_module.h (entries train,
//                  eval), clipping; train_noclip.capmod without clipping
//   tx.npy tx2.npy inputs x of entry train; tx_nan.npy and tx_inf.npy give
//                  a NaN and an infinite gradient norm
//   adamw.npy      a value for train's runtime-filled input (refused)
//   hazard.capmod  test.capmod without predict's barrier: the verifier
//                  refuses it (capture-run --info still describes it)
//   texel.capmod   the texel-binding module of texel_module.h (entry
//                  predict); texel_x.npy its input x
//
//===----------------------------------------------------------------------===//

#include "capture/rt/capmod.h"
#include "capture/rt/npy.h"
#include "test_util.h"
#include "texel_module.h"
#include "train_module.h"

#include <cstdio>
#include <filesystem>
#include <limits>

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
  ModuleDesc hazard = desc;
  auto &commands = hazard.entries[0].commands;
  commands.erase(commands.begin() + 1); // predict's only barrier
  std::vector<float> nanX = test::trainInputX(), infX = test::trainInputX();
  nanX[3] = std::numeric_limits<float>::quiet_NaN();
  infX[1] = 1e30f; // finite gradients whose squares overflow

  std::vector<Status> results = {
      writeCapmodFile(dir + "/test.capmod", desc),
      writeCapmodFile(dir + "/single.capmod", single),
      writeCapmodFile(dir + "/hazard.capmod", hazard),
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
      writeCapmodFile(dir + "/train.capmod", test::makeTrainModule(true)),
      writeCapmodFile(dir + "/train_noclip.capmod",
                      test::makeTrainModule(false)),
      writeNpyFile(dir + "/tx.npy", HostTensor::f32({16}, test::trainInputX())),
      writeNpyFile(dir + "/tx2.npy",
                   HostTensor::f32({16}, test::trainInputX2())),
      writeNpyFile(dir + "/tx_nan.npy", HostTensor::f32({16}, nanX)),
      writeNpyFile(dir + "/tx_inf.npy", HostTensor::f32({16}, infX)),
      writeNpyFile(dir + "/adamw.npy",
                   HostTensor::f32({7}, std::vector<float>(7, 0.5f))),
      writeCapmodFile(dir + "/texel.capmod", test::makeTexelModule()),
      writeNpyFile(dir + "/texel_x.npy",
                   HostTensor::f32({6}, test::texelInputX())),
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
