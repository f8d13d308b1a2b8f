//===- entry_test.cpp - ForwardEntry and TrainStep handles ----------------===//

#include "capture/rt/entry.h"

#include "device_fixture.h"
#include "train_module.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace capture::rt;
using namespace capture::rt::test;
using ::testing::HasSubstr;

namespace {

class EntryTest : public DeviceTest {
protected:
  /// The training test module (entries "train" and "eval"), shared.
  static std::shared_ptr<Module> loadShared() {
    std::unique_ptr<Module> m = load(makeTrainModule(/*clip=*/true));
    return std::shared_ptr<Module>(std::move(m));
  }
  static std::vector<NamedTensor> inputs() {
    return {{"x", HostTensor::f32({16}, trainInputX())}};
  }
};

TEST_F(EntryTest, HandlesRunTheirEntry) {
  std::shared_ptr<Module> module = loadShared();
  ASSERT_TRUE(module);
  Result<TrainStep> train = TrainStep::open(module, "train");
  ASSERT_TRUE(train.isOk()) << train.message();
  Result<ForwardEntry> eval = ForwardEntry::open(module, "eval");
  ASSERT_TRUE(eval.isOk()) << eval.message();
  EXPECT_EQ(train->desc().name, "train");
  EXPECT_EQ(eval->desc().name, "eval");

  Result<std::vector<NamedTensor>> before = eval->run(inputs());
  ASSERT_TRUE(before.isOk()) << before.message();
  ASSERT_TRUE(train->setLearningRate(0.05f).isOk());
  Result<std::vector<NamedTensor>> out = train->step(inputs());
  ASSERT_TRUE(out.isOk()) << out.message();
  Result<TrainState> state = train->state();
  ASSERT_TRUE(state.isOk());
  EXPECT_EQ(state->step, 1u);
  EXPECT_EQ(state->adamw.lr, 0.05f);
  ASSERT_TRUE(train->moments().isOk());
  ASSERT_TRUE(train->gradients().isOk());
  // The forward entry sees the step's update: the weights are shared.
  Result<std::vector<NamedTensor>> after = eval->run(inputs());
  ASSERT_TRUE(after.isOk());
  EXPECT_NE(after.value()[0].tensor.data, before.value()[0].tensor.data);

  // What reset zeroed, restore brings back (the step's moments are not
  // zero: one update ran).
  Result<AdamWMoments> saved = train->moments();
  ASSERT_TRUE(saved.isOk());
  ASSERT_TRUE(train->resetOptimizer().isOk());
  EXPECT_EQ(train->state()->step, 0u);
  EXPECT_NE(train->moments()->m.data, saved->m.data);
  AdamWMoments bad = saved.value();
  bad.m.data.pop_back();
  EXPECT_THAT(train->restoreOptimizer(bad, 1).message(),
              HasSubstr("the first moments must be"));
  EXPECT_EQ(train->state()->step, 0u); // nothing changed
  ASSERT_TRUE(train->restoreOptimizer(saved.value(), 1).isOk());
  EXPECT_EQ(train->state()->step, 1u);
  EXPECT_EQ(train->moments()->m.data, saved->m.data);
  EXPECT_EQ(train->moments()->v.data, saved->v.data);
}

TEST_F(EntryTest, HandlesKeepTheModuleAlive) {
  Result<TrainStep> train = TrainStep::open(loadShared(), "train");
  ASSERT_TRUE(train.isOk()) << train.message();
  // The only owner of the module is the handle now.
  Result<std::vector<NamedTensor>> out = train->step(inputs());
  EXPECT_TRUE(out.isOk()) << out.message();
}

TEST_F(EntryTest, OpeningChecksNameAndKind) {
  std::shared_ptr<Module> module = loadShared();
  ASSERT_TRUE(module);
  Result<ForwardEntry> wrongKind = ForwardEntry::open(module, "train");
  ASSERT_TRUE(wrongKind.isError());
  EXPECT_THAT(wrongKind.message(),
              HasSubstr("entry 'train' is a Train entry, expected a Forward "
                        "entry (open it as a TrainStep)"));
  Result<TrainStep> wrongKind2 = TrainStep::open(module, "eval");
  ASSERT_TRUE(wrongKind2.isError());
  EXPECT_THAT(wrongKind2.message(),
              HasSubstr("expected a Train entry (open it as a ForwardEntry)"));
  Result<TrainStep> unknown = TrainStep::open(module, "nope");
  ASSERT_TRUE(unknown.isError());
  EXPECT_THAT(unknown.message(), HasSubstr("nope"));
  Result<ForwardEntry> null = ForwardEntry::open(nullptr, "eval");
  ASSERT_TRUE(null.isError());
  EXPECT_THAT(null.message(), HasSubstr("the module is null"));
}

} // namespace
