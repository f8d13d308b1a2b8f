//===- deferred_test.cpp - Deferred runs: one submission, in order --------===//
//
// Two training modules over one Weights buffer (train_module.h, the second
// loaded with shareWeightsWith), stepped deferred and compared bit for bit
// with the same steps run one submission each on a twin pair.
//
//===----------------------------------------------------------------------===//

#include "capture/rt/deferred.h"
#include "device_fixture.h"
#include "train_module.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

using namespace capture::rt;
using namespace capture::rt::test;
using ::testing::AllOf;
using ::testing::HasSubstr;

namespace {

class DeferredTest : public DeviceTest {
protected:
  /// A training module and a second one sharing its weights.
  struct Pair {
    std::unique_ptr<Module> a, b;
  };

  static Pair pair() {
    Pair p;
    p.a = load(makeTrainModule(false));
    if (!p.a)
      return p;
    LoadOptions share;
    share.shareWeightsWith = p.a.get();
    std::vector<uint8_t> bytes = writeCapmod(makeTrainModule(true));
    Result<std::unique_ptr<Module>> b =
        Module::loadBytes(device, bytes.data(), bytes.size(), share);
    EXPECT_TRUE(b.isOk()) << b.message();
    if (b.isOk())
      p.b = std::move(b).value();
    return p;
  }

  static std::vector<NamedTensor> x(const std::vector<float> &values) {
    return {{"x", HostTensor::f32({16}, values)}};
  }

  /// Defers entry `entry` of `m` on input `values`.
  static DeferredRun defer(Module &m, const char *entry,
                           const std::vector<float> &values) {
    DeferredRun run;
    RunOptions options;
    options.deferred = &run;
    std::vector<NamedTensor> in = x(values);
    std::vector<TensorView> views;
    for (const NamedTensor &t : in)
      views.push_back(TensorView::of(t));
    Result<RunResult> r = m.runViews(entry, views, {}, options);
    EXPECT_TRUE(r.isOk()) << r.message();
    if (r.isOk()) {
      EXPECT_TRUE(r->outputs.empty());
    }
    return run;
  }

  static std::vector<NamedTensor> take(DeferredRun &run) {
    Result<RunResult> r = run.take();
    EXPECT_TRUE(r.isOk()) << r.message();
    return r.isOk() ? r->outputs : std::vector<NamedTensor>();
  }

  static std::vector<NamedTensor> run(Module &m, const char *entry,
                                      const std::vector<float> &values) {
    Result<std::vector<NamedTensor>> r = m.run(entry, x(values));
    EXPECT_TRUE(r.isOk()) << r.message();
    return r.isOk() ? r.value() : std::vector<NamedTensor>();
  }

  static void expectSameOutputs(const std::vector<NamedTensor> &got,
                                const std::vector<NamedTensor> &want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].name, want[i].name);
      EXPECT_EQ(got[i].tensor.data, want[i].tensor.data) << got[i].name;
    }
  }
};

TEST_F(DeferredTest, RunsOfSeveralModulesAreOneSubmissionInOrder) {
  Pair d = pair(), s = pair();
  ASSERT_TRUE(d.a && d.b && s.a && s.b);
  // b steps on what a's step wrote; eval reads what both wrote.
  uint64_t before = device->submitCount();
  DeferredRun r1 = defer(*d.a, "train", trainInputX());
  DeferredRun r2 = defer(*d.b, "train", trainInputX2());
  EXPECT_EQ(device->submitCount(), before);
  EXPECT_EQ(device->deferredCount(), 2u);
  EXPECT_FALSE(r1.done() || r2.done());
  // A second run of a: a's waiting one holds its staging, so the waiting
  // runs go first, together.
  DeferredRun r3 = defer(*d.a, "eval", trainInputX());
  EXPECT_EQ(device->submitCount(), before + 1);
  EXPECT_TRUE(r1.done() && r2.done());
  EXPECT_FALSE(r3.done());
  EXPECT_EQ(device->deferredCount(), 1u);
  Status submitted = device->submitDeferred();
  ASSERT_TRUE(submitted.isOk()) << submitted.message();
  EXPECT_EQ(device->submitCount(), before + 2);
  EXPECT_EQ(device->deferredCount(), 0u);
  EXPECT_TRUE(r3.done());
  EXPECT_TRUE(device->submitDeferred().isOk()); // none waiting
  EXPECT_EQ(device->submitCount(), before + 2);

  std::vector<NamedTensor> want1 = run(*s.a, "train", trainInputX());
  std::vector<NamedTensor> want2 = run(*s.b, "train", trainInputX2());
  std::vector<NamedTensor> want3 = run(*s.a, "eval", trainInputX());
  expectSameOutputs(take(r1), want1);
  expectSameOutputs(take(r2), want2);
  expectSameOutputs(take(r3), want3);
  EXPECT_EQ(trainStateBytes(*d.a), trainStateBytes(*s.a));
  EXPECT_EQ(trainStateBytes(*d.b), trainStateBytes(*s.b));
}

TEST_F(DeferredTest, OtherWorkOnTheDeviceSubmitsTheWaitingRunsFirst) {
  Pair d = pair(), s = pair();
  ASSERT_TRUE(d.a && d.b && s.a && s.b);
  DeferredRun step = defer(*d.a, "train", trainInputX());
  // A run that is not deferred, of another module, sees the step's update:
  // its submission takes the step along, ahead of its own work.
  uint64_t before = device->submitCount();
  std::vector<NamedTensor> eval = run(*d.b, "eval", trainInputX());
  EXPECT_EQ(device->submitCount(), before + 1);
  EXPECT_TRUE(step.done());
  run(*s.a, "train", trainInputX());
  expectSameOutputs(eval, run(*s.b, "eval", trainInputX()));

  // The step counter, weights and moments are read after the waiting runs.
  DeferredRun again = defer(*d.a, "train", trainInputX2());
  Result<TrainState> t = d.a->trainState("train");
  ASSERT_TRUE(t.isOk()) << t.message();
  EXPECT_EQ(t->step, 2u);
  DeferredRun third = defer(*d.b, "train", trainInputX());
  before = device->submitCount();
  Result<HostTensor> w1 = d.a->getParam("w1");
  ASSERT_TRUE(w1.isOk()) << w1.message();
  EXPECT_EQ(device->submitCount(), before + 1); // the read-back took it
  EXPECT_TRUE(third.done());
  run(*s.a, "train", trainInputX2());
  run(*s.b, "train", trainInputX());
  EXPECT_EQ(trainStateBytes(*d.a), trainStateBytes(*s.a));
  EXPECT_EQ(trainStateBytes(*d.b), trainStateBytes(*s.b));

  // Setting a weight of the other module waits for the step too.
  DeferredRun fourth = defer(*d.a, "train", trainInputX());
  ASSERT_TRUE(d.b->setParam("bias", HostTensor::f32({4}, {1, 2, 3, 4})).isOk());
  EXPECT_TRUE(fourth.done());

  // A profiled run's times are its own: the waiting runs go first, alone.
  DeferredRun fifth = defer(*d.a, "train", trainInputX());
  before = device->submitCount();
  Profile profile;
  RunOptions profiled;
  profiled.profile = &profile;
  ASSERT_TRUE(d.b->run("eval", x(trainInputX()), profiled).isOk());
  EXPECT_EQ(device->submitCount(), before + 2);
  EXPECT_TRUE(fifth.done());
  EXPECT_EQ(profile.submissions, 1u);
}

TEST_F(DeferredTest, ARefusedStepIsItsOwnErrorAndLaterRunsStillRun) {
  Pair d = pair(), s = pair();
  ASSERT_TRUE(d.a && d.b && s.a && s.b);
  std::vector<float> nan = trainInputX();
  nan[3] = std::numeric_limits<float>::quiet_NaN();
  std::vector<std::vector<uint8_t>> initial = trainStateBytes(*d.a);
  DeferredRun refused = defer(*d.a, "train", nan);
  DeferredRun later = defer(*d.b, "train", trainInputX());
  Result<RunResult> r = refused.take();
  ASSERT_TRUE(r.isError());
  EXPECT_EQ(r.status().code(), StatusCode::UpdateRefused);
  EXPECT_THAT(r.message(),
              AllOf(HasSubstr("entry 'train'"), HasSubstr("is nan"),
                    HasSubstr("step counter (t = 0) are unchanged")));
  // The later step ran on the unchanged weights, as alone.
  std::vector<NamedTensor> want = run(*s.b, "train", trainInputX());
  expectSameOutputs(take(later), want);
  EXPECT_EQ(trainStateBytes(*d.b), trainStateBytes(*s.b));
  Result<TrainState> t = d.a->trainState("train");
  ASSERT_TRUE(t.isOk());
  EXPECT_EQ(t->step, 0u);
  EXPECT_EQ(t->refusedSteps, 1u);
}

TEST_F(DeferredTest, HandlesAndMisuse) {
  Pair d = pair();
  ASSERT_TRUE(d.a && d.b);
  {
    // A dropped handle drops the result, not the run.
    DeferredRun dropped = defer(*d.a, "train", trainInputX());
  }
  Result<TrainState> t = d.a->trainState("train");
  ASSERT_TRUE(t.isOk());
  EXPECT_EQ(t->step, 1u);

  DeferredRun moved = defer(*d.a, "eval", trainInputX());
  DeferredRun holder = std::move(moved);
  EXPECT_FALSE(moved.valid());
  EXPECT_TRUE(holder.valid());
  EXPECT_THAT(moved.take().message(), HasSubstr("holds no run"));
  EXPECT_EQ(take(holder).size(), 1u);
  EXPECT_THAT(holder.take().message(), HasSubstr("holds no run"));

  // Deferring needs nothing of the submission now.
  DeferredRun run;
  RunOptions options;
  options.deferred = &run;
  options.eager = true;
  std::vector<NamedTensor> in = x(trainInputX());
  EXPECT_THAT(d.a->run("eval", in, options).message(),
              HasSubstr("RunOptions::deferred cannot be combined with eager"));
  EXPECT_FALSE(run.valid());
  // What the run checks before submitting is the deferring call's error.
  options.eager = false;
  EXPECT_THAT(d.a->run("eval", {}, options).message(),
              HasSubstr("missing input 'x'"));
  EXPECT_EQ(device->deferredCount(), 0u);

  // A module destroyed with a run waiting submits it first; its result
  // stays with the handle.
  DeferredRun orphan = defer(*d.b, "eval", trainInputX());
  d.b.reset();
  EXPECT_TRUE(orphan.done());
  EXPECT_EQ(take(orphan).size(), 1u);
}

} // namespace
