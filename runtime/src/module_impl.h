//===- module_impl.h - Vulkan objects behind capture::rt::Module -*- C++
//-*-===//

#ifndef CAPTURE_RT_MODULE_IMPL_H
#define CAPTURE_RT_MODULE_IMPL_H

#include "capture/rt/module.h"

#include "buffer.h"
#include "core/entry_io.h"
#include "cpu/host_driver.h"
#include "device_impl.h"
#include "pipeline.h"

#include "profile.h"

#include <optional>
#include <set>

namespace capture::rt {

/// A byte range of one of a module's buffers, for fills.
struct FillRange {
  /// Index into ModuleDesc::buffers.
  uint32_t buffer = 0;
  /// First byte; a multiple of 4.
  uint64_t offset = 0;
  /// Bytes; a multiple of 4, or VK_WHOLE_SIZE.
  uint64_t size = 0;
  /// The 32-bit value written to every word.
  uint32_t data = 0;
};

/// The recorded state of one entry.
struct EntryState {
  /// Index into ModuleDesc::entries.
  size_t index = 0;
  /// The command buffer recorded once at load and submitted by each replay.
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  /// Mapped source of the input copy (null handle without inputs).
  Buffer stagingIn;
  /// Mapped target of the output copy (null handle without outputs).
  Buffer stagingOut;
  /// The profiled variant of `cmd`, with timestamps around the submission
  /// and each dispatch; recorded on the entry's first profiled replay, null
  /// until then.
  VkCommandBuffer profiledCmd = VK_NULL_HANDLE;
  /// Timestamp queries of profiled runs (queryIndex in profile.h); created
  /// on the entry's first profiled run, null until then and on a device
  /// without timestamps. Destroyed by ~Impl.
  VkQueryPool queries = VK_NULL_HANDLE;
  /// One descriptor set per command (null for barriers and for kernels
  /// without bindings); freed with the module's descriptor pool.
  std::vector<VkDescriptorSet> sets;
  /// What the entry's Input buffer holds after the last successful run (the
  /// host copy of the bytes sent), compared with each call's inputs so that
  /// unchanged ones are not sent again; sized as the Input buffer.
  std::vector<uint8_t> sentInputs;
  /// Whether `sentInputs` is what the Input buffer holds: false before the
  /// first run and from the start of a run until it succeeds, so that after
  /// any failure everything is sent again.
  bool inputsKnown = false;
  /// Whether unchanged inputs may be skipped: no other entry uses the same
  /// Input buffer and no dispatch writes it, so it keeps what was sent.
  bool canSkipInputs = false;
  /// Mapped target of probe copies; created on the entry's first probe
  /// request (RunOptions::probes), null handle until then.
  Buffer probeStaging;
  /// Offset of each probe (parallel to EntryDesc::probes) in probeStaging.
  std::vector<uint64_t> probeOffsets;
  /// The recent waits of this entry's replays, which time a spinning wait
  /// (WaitPolicy::Spin).
  WaitHistory waitHistory;
  /// Present exactly for training entries.
  std::optional<TrainRuntime> train;
  /// Per EntryDesc::indexChecks, the index of its output in
  /// EntryDesc::outputs; those outputs are the runtime's, never returned.
  std::vector<size_t> indexCheckOutputs;
  /// The weights (indices into ModuleDesc::weights) whose bytes a dispatch
  /// of the entry binds: each must hold a value before the entry runs.
  std::vector<size_t> weightsRead;
};

struct Module::Impl {
  Impl(std::shared_ptr<Device> device, ModuleDesc desc);
  Impl(const Impl &) = delete;
  Impl &operator=(const Impl &) = delete;
  /// Destroys the pools and the fence; the members destroy the rest.
  ~Impl();

  /// Index of entry `name`, or an error listing the entries.
  Result<size_t> entryIndex(std::string_view name) const;

  /// Copies `size` bytes from `data` to [offset, offset + size) of device
  /// buffer `buffer`, through a temporary staging buffer and one submit.
  Status upload(uint32_t buffer, uint64_t offset, const uint8_t *data,
                uint64_t size, const std::string &what);

  /// Copies [offset, offset + size) of device buffer `buffer` to the host.
  Result<std::vector<uint8_t>> download(uint32_t buffer, uint64_t offset,
                                        uint64_t size, const std::string &what);

  /// Copies `regions` (source offsets into `image`, destination offsets
  /// into device buffer `buffer`) in one submit, through a temporary
  /// staging buffer of image.size() bytes.
  Status uploadRegions(uint32_t buffer, const std::vector<uint8_t> &image,
                       const std::vector<VkBufferCopy> &regions,
                       const std::string &what);

  /// Fills `ranges` (of this module's buffers) with zeros, in one submit.
  Status zeroFill(const std::vector<FillRange> &ranges,
                  const std::string &what);

  /// Index of training entry `name`, or an error naming the entry and its
  /// kind when it is not one; `operation` names the caller in it.
  Result<size_t> trainEntryIndex(std::string_view name,
                                 const char *operation) const;

  /// Keeps the device (and so the VkDevice) alive as long as the module;
  /// declared first so that it is destroyed last.
  std::shared_ptr<Device> device;
  /// The device's Vulkan handles.
  Device::Impl &dev;
  /// The host driver, exactly when the device is the host device
  /// (Device::Impl::hostThreads): then every Vulkan member below stays
  /// null, `buffers` empty, and the entries have no command buffers or
  /// staging; upload, download and zeroFill copy host memory.
  std::unique_ptr<HostDriver> host;
  /// The verified module contents.
  ModuleDesc desc;
  /// Names of the weights that hold no value yet (no initial value in the
  /// file and never set); shared with every module that shares the Weights
  /// buffer, since setting a weight through one sets it for all.
  std::shared_ptr<std::set<std::string>> unsetWeights;
  /// One device buffer per ModuleDesc::buffers entry; shared_ptr because
  /// the Weights buffer may be shared with other modules
  /// (LoadOptions::shareWeightsWith): the last user frees it.
  std::vector<std::shared_ptr<Buffer>> buffers;
  /// One pipeline per kernel.
  std::vector<KernelPipeline> pipelines;
  /// Pool of every entry's descriptor sets.
  VkDescriptorPool descriptorPool = VK_NULL_HANDLE;
  /// One RGBA32F view per texel binding of every dispatch, which its
  /// descriptor set points at; destroyed by ~Impl, before the buffers.
  std::vector<VkBufferView> bufferViews;
  /// Pool of every command buffer of the module.
  VkCommandPool commandPool = VK_NULL_HANDLE;
  /// Command buffer for uploads and read-backs outside replays.
  VkCommandBuffer utilityCmd = VK_NULL_HANDLE;
  /// Command buffer of a replay's input copy (only the changed ranges),
  /// submitted before the entry's command buffer in the same
  /// vkQueueSubmit; re-recorded only when the entry or the ranges change
  /// (a training loop sends the same ranges every step).
  VkCommandBuffer uploadCmd = VK_NULL_HANDLE;
  /// Entry whose upload uploadCmd holds; -1 when it holds none.
  int64_t uploadEntry = -1;
  /// The copy regions uploadCmd holds.
  std::vector<VkBufferCopy> uploadRecorded;
  /// Command buffer of a replay's requested probe copies, recorded per call
  /// and submitted after the entry's command buffer in the same
  /// vkQueueSubmit.
  VkCommandBuffer probeCmd = VK_NULL_HANDLE;
  /// What the last run moved (Module::counters).
  ReplayCounters counters;
  /// Test hook (ModuleTestAccess): the next replay fails after staging its
  /// inputs, before submitting, as a failed submission would.
  bool failNextReplay = false;
  /// Signalled by every submit of this module.
  VkFence fence = VK_NULL_HANDLE;
  /// Per-entry recorded state, parallel to desc.entries.
  std::vector<EntryState> entries;
  /// Entry of the last successful replay, for probes; -1 before the first.
  int64_t lastReplayed = -1;
  /// Entry command buffers recorded so far (Module::recordCount).
  uint64_t recordCount = 0;
  /// The queue's timestamp support, found on the first profiled run.
  std::optional<TimestampSupport> timestamps;
};

/// Submits the device's deferred runs before module `m` reads host state
/// they change (the step counter, the last replay) or changes it
/// (deferred.h); their errors are their own, taken through their
/// DeferredRuns. Work that submits needs none of this: its submission
/// takes the waiting runs along, ahead of its own commands.
inline void settleDeferred(const Module::Impl &m) {
  (void)m.dev.submitDeferred();
}

/// Creates the descriptor pool, every entry's descriptor sets, pointing at
/// the buffer ranges of each dispatch, and a buffer view for each texel
/// binding (recording.cpp).
Status createDescriptorSets(Module::Impl &m);

/// Records entry `e`'s replay into `cmd` (e.cmd or e.profiledCmd) from its
/// replay stream (replay_stream.h), which is checked for hazards first: the
/// schedule and the output copy, with the barriers that order them and
/// previous submissions; the input copy is left to recordUpload, whose
/// command buffer precedes `cmd` in the same submission. With `queries`,
/// also the timestamps of a profiled replay (recording.cpp).
Status recordEntry(Module::Impl &m, EntryState &e, VkCommandBuffer cmd,
                   VkQueryPool queries);

/// Records the barrier every entry command buffer starts with: it orders
/// the buffer after all earlier submissions, whose device writes a fence
/// wait alone does not make visible (recording.cpp).
void recordSubmissionStart(VkCommandBuffer cmd);

/// Records the copy of entry `e`'s input staging into its Input buffer and
/// the barrier after it; nothing when the entry has no inputs
/// (recording.cpp).
void recordCopyIn(const Module::Impl &m, const EntryState &e,
                  VkCommandBuffer cmd);

/// Records into `cmd` (one-shot) the copy of `regions` of entry `e`'s input
/// staging into its Input buffer, after the barrier against earlier
/// submissions (recording.cpp).
Status recordUpload(const Module::Impl &m, const EntryState &e,
                    VkCommandBuffer cmd,
                    const std::vector<VkBufferCopy> &regions);

/// Records into `cmd` (one-shot) the copies of probes `probes` (indices
/// into EntryDesc::probes) of entry `e` into its probe staging, framed by
/// barriers against the replay's writes and for the host read
/// (recording.cpp).
Status recordProbeCopies(const Module::Impl &m, const EntryState &e,
                         VkCommandBuffer cmd,
                         const std::vector<size_t> &probes);

/// Records command `command` of entry `e`, a dispatch: bind its pipeline
/// and descriptor set, vkCmdDispatch (recording.cpp).
void recordDispatch(const Module::Impl &m, const EntryState &e,
                    VkCommandBuffer cmd, size_t command);

/// Records the copy of entry `e`'s Output buffer into its output staging,
/// with the barriers before (device writes) and after (host read); nothing
/// when the entry has no outputs (recording.cpp).
void recordCopyOut(const Module::Impl &m, const EntryState &e,
                   VkCommandBuffer cmd);

/// Runs entry `e` eagerly, its inputs already packed: one submission per
/// dispatch (eager.cpp). With `profile`, `timer` times the host stages and,
/// when e.queries exists, each submission's timestamps are read into it.
Status runEager(Module::Impl &m, EntryState &e, Profile *profile,
                StageTimer &timer);

/// Before a profiled run of entry `e`: finds the queue's timestamp
/// support, creates e.queries and, for a replay, records e.profiledCmd
/// (profile.cpp). Nothing to do on a device without timestamps.
Status prepareProfile(Module::Impl &m, EntryState &e, bool eager);

/// After a profiled run of entry `e` (profile.cpp): fills what the run
/// did not (entry, submissions, timestamp properties, the replay's
/// timestamps, the per-kernel sums) into `profile`.
Status finishProfile(const Module::Impl &m, const EntryState &e, bool eager,
                     Profile &profile);

/// Records into `cmd` zero fills of `ranges` (of `m`'s buffers), framed
/// like recordUtilityCopy (recording.cpp).
void recordUtilityFill(const Module::Impl &m, VkCommandBuffer cmd,
                       const std::vector<FillRange> &ranges);

/// A run of entry `e` on the host driver (host_replay.cpp): `call` matched,
/// the inputs packed straight into its Input buffer, the schedule run, the
/// verdicts and outputs read from its Output buffer. Eager, profiled and
/// deferred runs are refused (not on the host driver yet).
Result<RunResult> runOnHost(Module::Impl &m, EntryState &e,
                            const MatchedCall &call, const RunOptions &options);

/// Records into `cmd` a copy between buffers framed by barriers against all
/// earlier and later device work and, for read-backs, a host barrier
/// (recording.cpp).
void recordUtilityCopy(VkCommandBuffer cmd, VkBuffer src, uint64_t srcOffset,
                       VkBuffer dst, uint64_t dstOffset, uint64_t size);

/// As recordUtilityCopy, with several regions (recording.cpp).
void recordUtilityCopyRegions(VkCommandBuffer cmd, VkBuffer src, VkBuffer dst,
                              const std::vector<VkBufferCopy> &regions);

} // namespace capture::rt

#endif // CAPTURE_RT_MODULE_IMPL_H
