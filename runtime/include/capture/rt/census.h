//===- census.h - What a module contains, without a device ------*- C++ -*-===//
//
// A census counts a module's kernels, dispatches, barriers and buffer bytes,
// per entry and per buffer kind, from its ModuleDesc alone (no Vulkan), for
// `capture-run --info`; formatEntryGraph lists an entry's schedule with
// every binding's buffer range and access. Both read any ModuleDesc, also an
// unverified one: indices out of range are errors, never reads past the
// end.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_CENSUS_H
#define CAPTURE_RT_CENSUS_H

#include "capture/rt/module_desc.h"
#include "capture/rt/status.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace capture::rt {

/// One kernel of a module.
struct KernelCensus {
  /// KernelDesc::name.
  std::string name;
  /// Bindings in set 0, texel bindings included.
  uint32_t numBindings = 0;
  /// Of those, the TexelBufferRgba32f bindings.
  uint32_t texelBindings = 0;
  /// Local workgroup size (3 entries in a verified module).
  std::vector<uint32_t> workgroupSize;
  /// Size of its SPIR-V in bytes.
  uint64_t spirvBytes = 0;
  /// Dispatches of the kernel, summed over every entry.
  uint64_t dispatches = 0;
  /// KernelDesc::loopIterations: the most loop iterations one invocation
  /// runs, as the compiler bounded them (0: no loops, or not said).
  uint64_t loopIterations = 0;
  /// KernelDesc::subgroupMultiple: what the device's subgroup size must be
  /// a multiple of (0: any).
  uint32_t subgroupMultiple = 0;
};

/// One entry of a module.
struct EntryCensus {
  /// EntryDesc::name.
  std::string name;
  /// Forward or Train.
  EntryKind kind = EntryKind::Forward;
  /// Dispatch commands.
  uint64_t dispatches = 0;
  /// Barrier commands.
  uint64_t barriers = 0;
  /// Distinct kernels dispatched.
  uint64_t kernels = 0;
  /// Workgroups launched by one run, summed over the dispatches.
  uint64_t workgroups = 0;
  /// Number of inputs (for a Train entry, the runtime-filled ones included).
  uint64_t inputs = 0;
  /// Number of outputs.
  uint64_t outputs = 0;
  /// Number of probes.
  uint64_t probes = 0;
  /// Bytes one run uploads: the size of its Input buffer (0 without inputs).
  uint64_t inputBytes = 0;
  /// Bytes one run downloads: the size of its Output buffer (0 without
  /// outputs).
  uint64_t outputBytes = 0;
  /// Bytes of the Scratch buffers its dispatches bind.
  uint64_t scratchBytes = 0;
  /// The liveness lower bound of that scratch: the most bytes of scratch
  /// values live at one dispatch (a value lives from the dispatch that
  /// writes it to the last that reads it before it is overwritten). No
  /// placement of the same values needs less.
  uint64_t scratchLiveBytes = 0;
  /// The compiler's work estimates of its dispatches, summed
  /// (DispatchDesc::work; 0 for a file without them).
  uint64_t work = 0;
};

/// The buffers of one kind.
struct BufferKindCensus {
  /// The kind.
  BufferKind kind = BufferKind::Scratch;
  /// Number of buffers of this kind.
  uint64_t buffers = 0;
  /// Their sizes, summed, in bytes.
  uint64_t bytes = 0;
};

/// What a module contains.
struct ModuleCensus {
  /// ModuleDesc::producer.
  std::string producer;
  /// ModuleDesc::formatVersion.
  uint32_t formatVersion = 0;
  /// Required Vulkan version (VK_MAKE_API_VERSION packing).
  uint32_t vulkanApiVersion = 0;
  /// Alignment of every binding offset, in bytes.
  uint32_t bindingAlignment = 0;
  /// One per kernel, in module order.
  std::vector<KernelCensus> kernels;
  /// One per entry, in module order.
  std::vector<EntryCensus> entries;
  /// One per buffer kind present, in BufferKind order.
  std::vector<BufferKindCensus> buffers;
  /// Sizes of every device buffer, summed, in bytes.
  uint64_t bufferBytes = 0;
  /// Number of weights.
  uint64_t weights = 0;
  /// Number of trainable weights.
  uint64_t trainableWeights = 0;
  /// Number of weights the file gives no initial value (neither bytes nor
  /// an initializer): the caller must set them before an entry reads them.
  uint64_t unsetWeights = 0;
  /// Sizes of the weights, summed, in bytes.
  uint64_t weightBytes = 0;
  /// Bytes of the kernels' host code (the cpu target's shared object; 0:
  /// the module has none, so the host device cannot run it).
  uint64_t hostCodeBytes = 0;
  /// The x86-64 ISA level the host code needs ("" without host code).
  std::string hostIsaLevel;
};

/// Counts what `desc` contains. An error names an index out of range (a
/// dispatch's kernel or binding buffer, an entry's buffers) with the
/// bound expected.
Result<ModuleCensus> moduleCensus(const ModuleDesc &desc);

/// The schedule of entry `entry` as text, one line per command:
///
///   entry 'predict' (Forward): 3 dispatches, 1 barrier
///     d0 add groups 1x1x1: read b0:Input[0,32) (x), read b2:Weights[0,32)
///        (w), write b4:Scratch[0,32) (h)
///     barrier
///     ...
///
/// (one line per dispatch), dN numbering the dispatches as
/// Profile::dispatchUs does; each binding is `read` or `write` (`read
/// texel` for a TexelBufferRgba32f binding), buffer index and kind, byte
/// range [offset,end), and in parentheses the names
/// of the entry's inputs, outputs and probes and the module's weights that
/// occupy exactly that range. Errors as moduleCensus, and for an unknown
/// entry the list of entries.
Result<std::string> formatEntryGraph(const ModuleDesc &desc,
                                     std::string_view entry);

} // namespace capture::rt

#endif // CAPTURE_RT_CENSUS_H
