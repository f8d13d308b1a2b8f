//===- census_test.cpp - Counting a module; an entry's dispatch graph -----===//
//
// Vulkan-free: the census and the graph read the ModuleDesc alone.
//
//===----------------------------------------------------------------------===//

#include "capture/rt/census.h"
#include "test_util.h"
#include "train_module.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace capture::rt;
using namespace capture::rt::test;
using ::testing::HasSubstr;

namespace {

TEST(Census, CountsTheTestModule) {
  Result<ModuleCensus> r = moduleCensus(makeTestModule());
  ASSERT_TRUE(r.isOk()) << r.message();
  const ModuleCensus &c = r.value();
  EXPECT_EQ(c.producer, "capture-rt tests");
  EXPECT_EQ(c.bindingAlignment, 256u);
  ASSERT_EQ(c.kernels.size(), 2u);
  EXPECT_EQ(c.kernels[0].name, "add_0");
  EXPECT_EQ(c.kernels[0].numBindings, 3u);
  // add: 2 in predict, 1 in bias, 1 in side; mul: 1 in predict.
  EXPECT_EQ(c.kernels[0].dispatches, 4u);
  EXPECT_EQ(c.kernels[1].dispatches, 1u);
  EXPECT_EQ(c.kernels[0].spirvBytes,
            makeTestModule().kernels[0].spirv.size() * sizeof(uint32_t));

  ASSERT_EQ(c.entries.size(), 3u);
  const EntryCensus &predict = c.entries[0];
  EXPECT_EQ(predict.name, "predict");
  EXPECT_EQ(predict.kind, EntryKind::Forward);
  EXPECT_EQ(predict.dispatches, 3u);
  EXPECT_EQ(predict.barriers, 1u);
  EXPECT_EQ(predict.kernels, 2u);
  EXPECT_EQ(predict.workgroups, 3u);
  EXPECT_EQ(predict.inputs, 2u);
  EXPECT_EQ(predict.outputs, 2u);
  EXPECT_EQ(predict.probes, 1u);
  EXPECT_EQ(predict.inputBytes, 512u);
  EXPECT_EQ(predict.outputBytes, 512u);
  EXPECT_EQ(c.entries[1].inputBytes, 0u); // bias has no inputs
  EXPECT_EQ(c.entries[1].outputBytes, 256u);
  EXPECT_EQ(c.entries[2].outputBytes, 0u); // side has no outputs
  EXPECT_EQ(c.entries[2].barriers, 0u);

  // Input 512 + 256, Output 512 + 256, Weights 256, Constants 32,
  // Scratch 512; in BufferKind order.
  std::vector<std::tuple<BufferKind, uint64_t, uint64_t>> kinds;
  for (const BufferKindCensus &b : c.buffers)
    kinds.emplace_back(b.kind, b.buffers, b.bytes);
  EXPECT_EQ(kinds, (std::vector<std::tuple<BufferKind, uint64_t, uint64_t>>{
                       {BufferKind::Input, 2, 768},
                       {BufferKind::Output, 2, 768},
                       {BufferKind::Weights, 1, 256},
                       {BufferKind::Constants, 1, 32},
                       {BufferKind::Scratch, 1, 512}}));
  EXPECT_EQ(c.bufferBytes, 768u + 768 + 256 + 32 + 512);
  EXPECT_EQ(c.weights, 1u);
  EXPECT_EQ(c.trainableWeights, 1u);
  EXPECT_EQ(c.unsetWeights, 0u);
  EXPECT_EQ(c.weightBytes, 32u);
  EXPECT_EQ(c.hostCodeBytes, 0u);
  EXPECT_EQ(c.hostIsaLevel, "");
}

TEST(Census, CountsHostCode) {
  ModuleDesc desc = makeTestModule();
  desc.hostCode =
      HostCodeDesc{kHostCodeTriple, "x86-64-v3", std::vector<uint8_t>(1234, 0)};
  Result<ModuleCensus> c = moduleCensus(desc);
  ASSERT_TRUE(c.isOk()) << c.message();
  EXPECT_EQ(c->hostCodeBytes, 1234u);
  EXPECT_EQ(c->hostIsaLevel, "x86-64-v3");
}

TEST(Census, CountsUnsetWeights) {
  ModuleDesc desc = makeTestModule();
  desc.weights[0].init.reset();
  Result<ModuleCensus> c = moduleCensus(desc);
  ASSERT_TRUE(c.isOk()) << c.message();
  EXPECT_EQ(c->unsetWeights, 1u);
  desc.weights[0].initializer = InitializerDesc{};
  EXPECT_EQ(moduleCensus(desc)->unsetWeights, 0u);
}

/// A dispatch of kernel 0 reading `reads` and writing `writes` (ranges of
/// buffer `buffer`).
static CommandDesc
scratchDispatch(uint32_t buffer,
                std::vector<std::pair<uint64_t, uint64_t>> reads,
                std::vector<std::pair<uint64_t, uint64_t>> writes) {
  CommandDesc cmd;
  cmd.kind = CommandDesc::Kind::Dispatch;
  cmd.dispatch.groups = {1, 1, 1};
  for (auto [offset, size] : reads)
    cmd.dispatch.bindings.push_back({buffer, offset, size});
  for (auto [offset, size] : writes) {
    cmd.dispatch.writes.push_back(
        static_cast<uint32_t>(cmd.dispatch.bindings.size()));
    cmd.dispatch.bindings.push_back({buffer, offset, size});
  }
  return cmd;
}

TEST(Census, ScratchLivenessBound) {
  ModuleDesc desc = makeTestModule();
  uint32_t scratch = 0;
  while (desc.buffers[scratch].kind != BufferKind::Scratch)
    ++scratch;
  ASSERT_EQ(desc.buffers[scratch].size, 512u);
  EntryDesc &e = desc.entries[0];
  // A (100 bytes at 0) is read by the second and third dispatches; B (200
  // at 256) is written by the second and dead after it; C (50) reuses A's
  // bytes after A's last read, and is never read. Most live at once: A and
  // B at the second dispatch, 300 bytes; a barrier is not a dispatch.
  e.commands = {scratchDispatch(scratch, {}, {{0, 100}}),
                scratchDispatch(scratch, {{0, 100}}, {{256, 200}}),
                {CommandDesc::Kind::Barrier, {}},
                scratchDispatch(scratch, {{0, 100}}, {}),
                scratchDispatch(scratch, {}, {{0, 50}})};
  Result<ModuleCensus> r = moduleCensus(desc);
  ASSERT_TRUE(r.isOk()) << r.message();
  EXPECT_EQ(r.value().entries[0].scratchBytes, 512u);
  EXPECT_EQ(r.value().entries[0].scratchLiveBytes, 300u);

  // Overwriting A ends it: the last dispatch reads C in A's bytes (and B),
  // so A is not live there: B and C, 300 bytes, not 400.
  e.commands = {scratchDispatch(scratch, {}, {{0, 100}}),
                scratchDispatch(scratch, {}, {{256, 200}}),
                scratchDispatch(scratch, {}, {{0, 100}}),
                scratchDispatch(scratch, {{0, 100}, {256, 200}}, {})};
  r = moduleCensus(desc);
  ASSERT_TRUE(r.isOk()) << r.message();
  EXPECT_EQ(r.value().entries[0].scratchLiveBytes, 300u);

  // An entry that binds no scratch has none.
  e.commands.clear();
  r = moduleCensus(desc);
  ASSERT_TRUE(r.isOk()) << r.message();
  EXPECT_EQ(r.value().entries[0].scratchBytes, 0u);
  EXPECT_EQ(r.value().entries[0].scratchLiveBytes, 0u);
}

TEST(Census, CountsATrainEntry) {
  Result<ModuleCensus> r = moduleCensus(makeTrainModule(true));
  ASSERT_TRUE(r.isOk()) << r.message();
  const EntryCensus &train = r->entries[0];
  EXPECT_EQ(train.kind, EntryKind::Train);
  EXPECT_EQ(train.dispatches, 4u);
  EXPECT_EQ(train.barriers, 2u);
  EXPECT_EQ(train.kernels, 3u);
  EXPECT_EQ(train.inputs, 3u); // x, adamw, max_grad_norm
  EXPECT_EQ(r->weights, 3u);
  EXPECT_EQ(r->trainableWeights, 2u); // bias is frozen
  bool optimizer = false;
  for (const BufferKindCensus &b : r->buffers)
    optimizer |= b.kind == BufferKind::Optimizer && b.buffers == 1;
  EXPECT_TRUE(optimizer);
}

// Each read names its producer: the latest earlier dispatch that wrote an
// overlapping range.
TEST(Census, GraphListsDispatchesWithTheirRanges) {
  Result<std::string> g = formatEntryGraph(makeTestModule(), "predict");
  ASSERT_TRUE(g.isOk()) << g.message();
  EXPECT_EQ(g.value(),
            "entry 'predict' (Forward): 3 dispatches, 1 barrier\n"
            "  d0 add_0 groups 1x1x1: read b0:Input[0,32) (x), read "
            "b2:Weights[0,32) (w), write b4:Scratch[0,32) (h)\n"
            "  barrier\n"
            "  d1 mul_0 groups 1x1x1: read b4:Scratch[0,32) (h) <- d0, read "
            "b0:Input[256,288) (b), write b1:Output[0,32) (y)\n"
            "  d2 add_0 groups 1x1x1: read b4:Scratch[0,32) (h) <- d0, read "
            "b3:Constants[0,32), write b1:Output[256,288) (z)\n");
  Result<std::string> bias = formatEntryGraph(makeTestModule(), "bias");
  ASSERT_TRUE(bias.isOk()) << bias.message();
  EXPECT_THAT(bias.value(),
              HasSubstr("entry 'bias' (Forward): 1 dispatch, 0 barriers\n"));
}

TEST(Census, UnknownEntryListsTheEntries) {
  Result<std::string> g = formatEntryGraph(makeTestModule(), "nope");
  ASSERT_TRUE(g.isError());
  EXPECT_EQ(g.message(), "unknown entry 'nope'; the module has entries: "
                         "'predict', 'bias', 'side'");
}

TEST(Census, UnknownEntrySuggestsANearOne) {
  Result<std::string> g = formatEntryGraph(makeTestModule(), "Bais");
  ASSERT_TRUE(g.isError());
  EXPECT_EQ(g.message(), "unknown entry 'Bais' (did you mean 'bias'?); the "
                         "module has entries: 'predict', 'bias', 'side'");
}

TEST(Census, IndicesOutOfRangeAreErrors) {
  ModuleDesc badKernel = makeTestModule();
  badKernel.entries[0].commands[2].dispatch.kernel = 9;
  Result<ModuleCensus> c = moduleCensus(badKernel);
  ASSERT_TRUE(c.isError());
  EXPECT_EQ(c.message(), "entry 'predict', command 2: kernel index 9 is out "
                         "of range, expected < 2");
  EXPECT_EQ(formatEntryGraph(badKernel, "predict").message(), c.message());

  ModuleDesc badBuffer = makeTestModule();
  badBuffer.entries[1].commands[0].dispatch.bindings[1].buffer = 7;
  EXPECT_EQ(moduleCensus(badBuffer).message(),
            "entry 'bias', command 0: binding buffer index 7 is out of "
            "range, expected < 7");

  ModuleDesc badWrite = makeTestModule();
  badWrite.entries[2].commands[0].dispatch.writes = {3};
  EXPECT_EQ(formatEntryGraph(badWrite, "side").message(),
            "entry 'side', command 0: written binding index 3 is out of "
            "range, expected < 3");

  ModuleDesc badInput = makeTestModule();
  badInput.entries[0].inputBuffer = 12;
  EXPECT_EQ(moduleCensus(badInput).message(),
            "entry 'predict': input buffer index 12 is out of range, "
            "expected < 7");
}

} // namespace
