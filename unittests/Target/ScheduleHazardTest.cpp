//===- ScheduleHazardTest.cpp - The schedule check catches missing barriers
//===//
//
// The validation layer does not report a missing barrier between two compute
// dispatches on one buffer, so the module writer and the loader check every
// schedule themselves (rt::verifyModuleDesc). These tests compile a real
// training step, then break its schedule on purpose and show the check
// names the two dispatches and the range.
//
//===----------------------------------------------------------------------===//

#include "CompileForTest.h"

#include "capture/rt/capmod.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

using namespace mlir;
namespace rt = capture::rt;
using ::testing::AllOf;
using ::testing::HasSubstr;

namespace {

/// A small training step: matmul, bias, mse; AdamW with clipping.
constexpr const char *kTrainStep = R"mlir(
ag.weight @w trainable : tensor<4x2xf32> = dense<0.25>
ag.weight @b trainable : tensor<2xf32> = dense<0.5>
ag.train_step @train(%x: tensor<3x4xf32> {ag.name = "x"},
                     %y: tensor<3x2xf32> {ag.name = "y"})
    -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999,
                                     eps = 1.0e-8, weight_decay = 0.01>,
                max_grad_norm = 1.0 : f32} {
  %w = ag.read_weight @w : tensor<4x2xf32>
  %b = ag.read_weight @b : tensor<2xf32>
  %xw = ag.matmul %x, %w : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %h = ag.add %xw, %b : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %l = ag.mse %h, %y : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<f32>
  ag.return %l : tensor<f32>
}
)mlir";

/// Compiles `source` and reads the module file back.
rt::ModuleDesc compile(const char *source) {
  std::vector<uint8_t> bytes = capture::test::compileForTest(source);
  rt::Result<rt::ModuleDesc> desc = rt::readCapmod(bytes.data(), bytes.size());
  EXPECT_TRUE(desc.isOk()) << desc.message();
  return desc.isOk() ? std::move(desc).value() : rt::ModuleDesc();
}

/// The name of the kernel command `i` of `entry` dispatches.
std::string kernelOf(const rt::ModuleDesc &desc, const rt::EntryDesc &entry,
                     size_t i) {
  return desc.kernels[entry.commands[i].dispatch.kernel].name;
}

TEST(ScheduleHazard, CompiledTrainStepPasses) {
  rt::ModuleDesc desc = compile(kTrainStep);
  ASSERT_EQ(desc.entries.size(), 1u);
  EXPECT_TRUE(rt::verifyModuleDesc(desc).isOk());
}

TEST(ScheduleHazard, MissingBarrierBeforeAdamWIsRejected) {
  rt::ModuleDesc desc = compile(kTrainStep);
  ASSERT_EQ(desc.entries.size(), 1u);
  rt::EntryDesc &entry = desc.entries[0];
  // The AdamW dispatch is last, right after a barrier.
  size_t last = entry.commands.size() - 1;
  ASSERT_GE(last, 1u);
  ASSERT_EQ(entry.commands[last].kind, rt::CommandDesc::Kind::Dispatch);
  ASSERT_EQ(kernelOf(desc, entry, last).rfind("adamw_", 0), 0u);
  ASSERT_EQ(entry.commands[last - 1].kind, rt::CommandDesc::Kind::Barrier);

  entry.commands.erase(entry.commands.begin() + (last - 1));
  rt::Status status = rt::verifyModuleDesc(desc);
  ASSERT_TRUE(status.isError());
  // AdamW (now command last - 1) reads the clipped gradients the dispatch
  // before it writes.
  EXPECT_THAT(status.message(),
              AllOf(HasSubstr("entry 'train'"),
                    HasSubstr("dispatch " + std::to_string(last - 2)),
                    HasSubstr("dispatch " + std::to_string(last - 1)),
                    HasSubstr("with no Barrier between them")));
}

TEST(ScheduleHazard, EveryBarrierOfTheTrainStepIsNeeded) {
  // Removing any one barrier the writer placed creates a hazard the check
  // reports: the writer places none that are not needed, and the check
  // misses none of them.
  rt::ModuleDesc compiled = compile(kTrainStep);
  ASSERT_EQ(compiled.entries.size(), 1u);
  const std::vector<rt::CommandDesc> &commands = compiled.entries[0].commands;
  size_t barriers = 0;
  for (size_t i = 0; i < commands.size(); ++i) {
    if (commands[i].kind != rt::CommandDesc::Kind::Barrier)
      continue;
    ++barriers;
    rt::ModuleDesc broken = compiled;
    broken.entries[0].commands.erase(broken.entries[0].commands.begin() + i);
    rt::Status status = rt::verifyModuleDesc(broken);
    EXPECT_TRUE(status.isError()) << "barrier at command " << i;
    if (status.isError()) {
      EXPECT_THAT(status.message(), HasSubstr("with no Barrier between them"));
    }
  }
  // The step has at least a forward, backward, norm and update level.
  EXPECT_GE(barriers, 4u);
}

} // namespace
