//===- stream_test.cpp - Hazards of the whole replay stream ---------------===//
//
// The loader checks what it records: the input upload copy, the schedule
// and the output download copy, with the sweep the verifier runs over the
// schedule. Removing a barrier from the stream (or from a schedule) must be
// caught, naming both operations and the buffer range.
//
//===----------------------------------------------------------------------===//

#include "capture/rt/capmod.h"
#include "capture/rt/replay_stream.h"
#include "test_util.h"
#include "train_module.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace capture::rt;
using namespace capture::rt::test;
using ::testing::AllOf;
using ::testing::HasSubstr;

namespace {

/// Index of the barrier that precedes (after = false) or follows the op of
/// kind `kind` in `stream`.
size_t barrierNextTo(const std::vector<StreamOp> &stream, StreamOp::Kind kind,
                     bool after) {
  for (size_t i = 0; i < stream.size(); ++i)
    if (stream[i].kind == kind)
      return after ? i + 1 : i - 1;
  return stream.size();
}

TEST(ReplayStream, WholeStreamOfAVerifiedModuleHasNoHazard) {
  ModuleDesc desc = makeTestModule();
  for (const EntryDesc &e : desc.entries) {
    std::vector<StreamOp> stream = replayStream(desc, e);
    EXPECT_TRUE(checkStreamHazards(desc, e, stream).isOk()) << e.name;
  }
  const EntryDesc &predict = desc.entries[0];
  std::vector<StreamOp> stream = replayStream(desc, predict);
  ASSERT_GE(stream.size(), 4u);
  EXPECT_EQ(stream.front().kind, StreamOp::Kind::Upload);
  EXPECT_EQ(stream.front().range.buffer, kInput);
  EXPECT_EQ(stream.back().kind, StreamOp::Kind::Download);
  EXPECT_EQ(stream.back().range.size, 512u);
}

TEST(ReplayStream, MissingBarrierBeforeTheDownloadIsCaught) {
  ModuleDesc desc = makeTestModule();
  const EntryDesc &predict = desc.entries[0];
  std::vector<StreamOp> stream = replayStream(desc, predict);
  size_t b = barrierNextTo(stream, StreamOp::Kind::Download, false);
  ASSERT_EQ(stream[b].kind, StreamOp::Kind::Barrier);
  stream.erase(stream.begin() + b);
  // Command 2 (y = h * b) writes Output [0, 32); the copy reads all.
  EXPECT_THAT(checkStreamHazards(desc, predict, stream).message(),
              AllOf(HasSubstr("entry 'predict': dispatch 2 writes buffer 1 "
                              "(Output, 512 bytes) range [0, 32)"),
                    HasSubstr("which the output download copy reads in "
                              "range [0, 512)")));
}

TEST(ReplayStream, MissingBarrierAfterTheUploadIsCaught) {
  ModuleDesc desc = makeTestModule();
  const EntryDesc &predict = desc.entries[0];
  std::vector<StreamOp> stream = replayStream(desc, predict);
  size_t b = barrierNextTo(stream, StreamOp::Kind::Upload, true);
  ASSERT_EQ(stream[b].kind, StreamOp::Kind::Barrier);
  stream.erase(stream.begin() + b);
  EXPECT_THAT(checkStreamHazards(desc, predict, stream).message(),
              AllOf(HasSubstr("the input upload copy writes buffer 0 (Input, "
                              "512 bytes) range [0, 512)"),
                    HasSubstr("which dispatch 0 reads in range [0, 32)")));
}

TEST(ReplayStream, MissingBarrierBeforeAdamWIsCaught) {
  ModuleDesc desc = makeTrainModule(true);
  EntryDesc &train = desc.entries[0];
  // Commands: sub, sub, barrier, norm_clip, barrier, adamw.
  ASSERT_EQ(train.commands[4].kind, CommandDesc::Kind::Barrier);
  train.commands.erase(train.commands.begin() + 4);
  std::vector<StreamOp> stream = replayStream(desc, train);
  // The loader's stream check and the verifier's schedule check agree.
  std::string expected = "dispatch 3 writes buffer 1 (Output, 768 bytes) "
                         "range [256, 260), which dispatch 4 reads in range "
                         "[256, 260) with no Barrier between them";
  EXPECT_THAT(checkStreamHazards(desc, train, stream).message(),
              HasSubstr(expected));
  EXPECT_THAT(verifyModuleDesc(desc).message(), HasSubstr(expected));
}

} // namespace
