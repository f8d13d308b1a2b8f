//===- module_desc.h - A .capmod file as plain C++ structs ------*- C++ -*-===//
//
// The contents of a module file, decoupled from FlatBuffers: the loader turns
// the file into a ModuleDesc, checks every index/offset/size of it, and only
// then builds Vulkan objects from it. The writer (capmod.h) turns a
// ModuleDesc back into file bytes, which is how tests (and possibly
// producers) create modules without the compiler.
//
// Fields mirror runtime/schema/capmod.fbs; see there for the meaning of each.
// Enum fields may hold out-of-range values read from a hostile file: the
// verifier rejects them.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_MODULE_DESC_H
#define CAPTURE_RT_MODULE_DESC_H

#include "capture/rt/tensor.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace capture::rt {

/// The only format version this runtime reads and writes.
constexpr uint32_t kCapmodFormatVersion = 4;

/// What a device buffer holds; values match `capture.capmod.BufferKind`.
enum class BufferKind : uint8_t {
  Input = 0,     ///< An entry's packed inputs.
  Output = 1,    ///< An entry's packed outputs.
  Weights = 2,   ///< Module-wide resident weights.
  Constants = 3, ///< Module-wide read-only constants, uploaded at load.
  Scratch = 4,   ///< Intermediates, undefined between replays.
  Optimizer = 5, ///< Module-wide gradients and AdamW moments; zero at load.
};

/// "Input", "Output", ... as used in messages.
const char *bufferKindName(BufferKind kind);

/// Kinds of entries; values match `capture.capmod.EntryKind`.
enum class EntryKind : uint8_t {
  Forward = 0, ///< Inputs -> outputs.
  Train = 1,   ///< Inputs -> loss and outputs, then an AdamW update.
};

/// "Forward" or "Train", as used in messages.
const char *entryKindName(EntryKind kind);

/// Capabilities and limits the module was compiled against.
struct TargetDesc {
  /// Required Vulkan API version (VK_MAKE_API_VERSION packing).
  uint32_t vulkanApiVersion = 0;
  /// Alignment in bytes of every binding offset.
  uint32_t bindingAlignment = 0;
};

/// How a kernel binding is bound; values match `capture.capmod.BindingKind`.
enum class BindingKind : uint8_t {
  /// A storage buffer (VK_DESCRIPTOR_TYPE_STORAGE_BUFFER), read or written.
  StorageBuffer = 0,
  /// A read-only storage texel buffer of RGBA32F texels
  /// (VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER over a VkBufferView of
  /// VK_FORMAT_R32G32B32A32_SFLOAT): the bound range, a multiple of 16
  /// bytes, is size / 16 texels. CPU drivers (llvmpipe) read these ~20x
  /// faster than storage buffers.
  TexelBufferRgba32f = 1,
};

/// "StorageBuffer" or "TexelBufferRgba32f", as used in messages.
const char *bindingKindName(BindingKind kind);

/// One compute kernel.
struct KernelDesc {
  /// Symbol name, for messages.
  std::string name;
  /// Entry point name inside the SPIR-V module.
  std::string entryPoint;
  /// SPIR-V words.
  std::vector<uint32_t> spirv;
  /// Local workgroup size; must have 3 entries.
  std::vector<uint32_t> workgroupSize;
  /// Number of bindings in descriptor set 0 (storage buffers, or as
  /// bindingKinds says).
  uint32_t numBindings = 0;
  /// The tensor shape each binding holds (4-byte elements), one per
  /// binding; empty when the file does not say.
  std::vector<std::vector<int64_t>> bindingShapes;
  /// How each binding is bound, one per binding; empty: every binding is a
  /// storage buffer.
  std::vector<BindingKind> bindingKinds;
  /// The most loop iterations one invocation runs (all its loops together),
  /// as the compiler bounded them; 0: no loops, or the file does not say.
  uint64_t loopIterations = 0;
  /// The device's subgroup size must be a multiple of this (the kernel
  /// shuffles values within groups of that many lanes); 0: any size.
  uint32_t subgroupMultiple = 0;
};

/// Bytes of one RGBA32F texel: texel-buffer ranges are multiples of it.
constexpr uint64_t kRgba32fTexelBytes = 16;

/// How `kernel` binds binding `binding`: its bindingKinds entry, or
/// StorageBuffer when bindingKinds is empty (or, in a module not verified
/// yet, too short).
inline BindingKind bindingKindOf(const KernelDesc &kernel, size_t binding) {
  return binding < kernel.bindingKinds.size() ? kernel.bindingKinds[binding]
                                              : BindingKind::StorageBuffer;
}

/// A device buffer.
struct BufferDesc {
  /// What it holds.
  BufferKind kind = BufferKind::Scratch;
  /// Size in bytes.
  uint64_t size = 0;
};

/// A byte range of a buffer bound to one kernel binding.
struct BufferRangeDesc {
  /// Index into ModuleDesc::buffers.
  uint32_t buffer = 0;
  /// Byte offset.
  uint64_t offset = 0;
  /// Byte size.
  uint64_t size = 0;
};

/// One kernel launch.
struct DispatchDesc {
  /// Index into ModuleDesc::kernels.
  uint32_t kernel = 0;
  /// Workgroup counts; must have 3 entries.
  std::vector<uint32_t> groups;
  /// One range per kernel binding.
  std::vector<BufferRangeDesc> bindings;
  /// Indices into `bindings` that the kernel writes.
  std::vector<uint32_t> writes;
  /// The compiler's work estimate in multiply-add equivalents (see
  /// capmod.fbs); 0 when the file has none.
  uint64_t work = 0;
};

/// One command of a replay schedule.
struct CommandDesc {
  /// Which kind of command.
  enum class Kind : uint8_t {
    Dispatch, ///< `dispatch` is meaningful.
    Barrier,  ///< A compute->compute memory barrier.
  };
  /// Which kind of command.
  Kind kind = Kind::Barrier;
  /// The launch, when kind == Dispatch.
  DispatchDesc dispatch;
};

/// A named tensor in a byte range of a buffer.
struct TensorSlotDesc {
  /// Name (unique within its entry).
  std::string name;
  /// Dimensions.
  std::vector<int64_t> shape;
  /// Element type.
  DType dtype = DType::F32;
  /// Index into ModuleDesc::buffers.
  uint32_t buffer = 0;
  /// Byte offset.
  uint64_t offset = 0;
  /// Byte size; product(shape) * sizeof(dtype).
  uint64_t size = 0;
};

/// AdamW hyperparameters, named as torch.optim.AdamW names them.
struct AdamWDesc {
  /// Learning rate (>= 0).
  float lr = 0;
  /// Decay of the first moment, in [0, 1).
  float beta1 = 0;
  /// Decay of the second moment, in [0, 1).
  float beta2 = 0;
  /// Added to the denominator (> 0).
  float eps = 0;
  /// Weight decay (>= 0), as `decoupled` applies it.
  float weightDecay = 0;
  /// AdamW's decoupled decay (p *= 1 - lr * weightDecay) when true;
  /// torch.optim.Adam's L2 term (weightDecay * p added to the clipped
  /// gradient) when false. Compiled into the update kernel: the runtime
  /// refuses to change it (Module::setAdamW).
  bool decoupled = true;
};

/// The f32 values of one param group in a training entry's hyperparameter
/// input, by position: the one home of that layout, which the runtime and
/// the interpreter write (adamWHyperValues) and the compiler's AdamW kernel
/// and the interpreter's update read.
enum AdamWHyper : unsigned {
  kHyperLr,
  kHyperBeta1,
  kHyperBeta2,
  kHyperEps,
  kHyperWeightDecay,
  /// 1 - beta1^(t+1) and 1 - beta2^(t+1): torch.optim.AdamW's bias
  /// corrections for the step about to be taken.
  kHyperBiasCorrection1,
  kHyperBiasCorrection2,
  /// Values per param group.
  kAdamWHyperValues
};

/// One param group's hyperparameter values for step `t` + 1 (t updates
/// taken), as torch.optim.AdamW computes them: the bias corrections in
/// double precision from the betas as stored (the caller rounds them
/// first; the result is rounded to how it is stored).
inline std::array<double, kAdamWHyperValues>
adamWHyperValues(double lr, double beta1, double beta2, double eps,
                 double weightDecay, uint64_t t) {
  double step = static_cast<double>(t) + 1.0;
  std::array<double, kAdamWHyperValues> h{};
  h[kHyperLr] = lr;
  h[kHyperBeta1] = beta1;
  h[kHyperBeta2] = beta2;
  h[kHyperEps] = eps;
  h[kHyperWeightDecay] = weightDecay;
  h[kHyperBiasCorrection1] = 1.0 - std::pow(beta1, step);
  h[kHyperBiasCorrection2] = 1.0 - std::pow(beta2, step);
  return h;
}

/// What a training entry adds to a forward entry. The runtime owns the step
/// counter t and fills the hyperparameter inputs before every replay; the
/// entry's last kernel (the AdamW update) reads the gradient norm on the
/// device and writes nothing when it is not finite.
struct TrainDesc {
  /// Hyperparameters compiled in: the runtime's initial values (param
  /// group 0's).
  AdamWDesc adamw;
  /// Param groups 1.. (torch.optim's param_groups after the first): their
  /// own initial values, each with adamw's `decoupled`. The update kernel
  /// knows which weights each group holds; the runtime fills
  /// kAdamWHyperValues values per group, group 0 first.
  std::vector<AdamWDesc> groups;
  /// Clip limit compiled in; absent when the step does not clip.
  std::optional<float> maxGradNorm;
  /// Name of the f32[kAdamWHyperValues * (1 + groups.size())] input the
  /// runtime fills.
  std::string hyperInput;
  /// Name of the f32 scalar input holding the clip limit, which the runtime
  /// fills; empty exactly when maxGradNorm is absent.
  std::string maxGradNormInput;
  /// Name of the f32 scalar output holding the pre-clip gradient norm.
  std::string gradNormOutput;
  /// The flat parameter array the update writes (Weights buffer): every
  /// trained weight, each at its WeightDesc offset, plus zero padding.
  BufferRangeDesc params;
  /// First moments, as many bytes as `params` (an Optimizer buffer).
  BufferRangeDesc moment1;
  /// Second moments, as many bytes as `params` (an Optimizer buffer).
  BufferRangeDesc moment2;
  /// The flat gradients (before clipping) of the last step, laid out as
  /// `params` (an Optimizer buffer, as many bytes); absent in modules that do
  /// not describe them (schema field `Train.grads`).
  std::optional<BufferRangeDesc> grads;
};

/// A device status output that checks an op's indices (every indexing
/// kernel clamps; this makes an out-of-range index an error).
struct IndexCheckDesc {
  /// The entry output holding it: i32 [2], [first bad position, its
  /// value], or [-1, 0] when every index is in range.
  std::string output;
  /// The indexing op, e.g. "ag.cross_entropy".
  std::string op;
  /// The entry input the indices are, or empty when computed.
  std::string input;
  /// Valid indices are [0, bound).
  int64_t bound = 0;
  /// The op's source location ("file:line:col"), or empty.
  std::string location;
};

/// A replayable entry point.
struct EntryDesc {
  /// Name (unique in the module).
  std::string name;
  /// Kind of entry.
  EntryKind kind = EntryKind::Forward;
  /// Buffer holding the packed inputs (unused when there are no inputs).
  uint32_t inputBuffer = 0;
  /// Buffer holding the packed outputs (unused when there are no outputs).
  uint32_t outputBuffer = 0;
  /// Inputs, inside inputBuffer.
  std::vector<TensorSlotDesc> inputs;
  /// Outputs, inside outputBuffer.
  std::vector<TensorSlotDesc> outputs;
  /// Intermediates readable after a replay.
  std::vector<TensorSlotDesc> probes;
  /// The replay schedule.
  std::vector<CommandDesc> commands;
  /// Present exactly when kind == Train.
  std::optional<TrainDesc> train;
  /// The index statuses the runtime checks after every replay.
  std::vector<IndexCheckDesc> indexChecks;
};

/// How an initializer fills a weight; values match
/// `capture.capmod.InitKind`.
enum class InitKind : uint8_t {
  Zeros = 0,
  Constant = 1,
  Uniform = 2,
  Normal = 3,
  /// torch.nn.Linear's default for its weight and bias: uniform in
  /// [-1/sqrt(fan_in), 1/sqrt(fan_in)].
  Linear = 4,
};

/// A weight's initial value as a rule evaluated at load (initializer.h):
/// a few bytes in the file whatever the weight's size.
struct InitializerDesc {
  /// Which rule.
  InitKind kind = InitKind::Zeros;
  /// Constant: every element.
  float value = 0;
  /// Uniform: the bounds of [low, high).
  float low = 0, high = 0;
  /// Normal: mean and standard deviation.
  float mean = 0, std = 0;
  /// Linear: the layer's input features.
  int64_t fanIn = 0;
  /// Uniform, Normal, Linear: the seed of the element stream.
  uint64_t seed = 0;
};

/// A range of the Constants buffer that holds one 32-bit value repeated (a
/// splat constant), filled at load instead of stored in the file.
struct ConstantFillDesc {
  /// First byte; a multiple of 4, at or past the end of the initial bytes.
  uint64_t offset = 0;
  /// Bytes; a positive multiple of 4.
  uint64_t size = 0;
  /// The value's bits (an f32 or i32 element).
  uint32_t value = 0;
};

/// A module-level weight in the Weights buffer.
struct WeightDesc {
  /// Name (unique in the module).
  std::string name;
  /// Dimensions.
  std::vector<int64_t> shape;
  /// Element type.
  DType dtype = DType::F32;
  /// Whether training updates it (informational for the runtime).
  bool trainable = false;
  /// Byte offset inside the Weights buffer.
  uint64_t offset = 0;
  /// Byte size.
  uint64_t size = 0;
  /// Initial value of `size` bytes. At most one of `init` and
  /// `initializer`; with neither, the weight is unset: a replay reading it
  /// is refused until the caller sets it.
  std::optional<std::vector<uint8_t>> init;
  /// Initial value as a rule evaluated at load.
  std::optional<InitializerDesc> initializer;
};

/// The kernels as native code for the host (the cpu target).
struct HostCodeDesc {
  /// The target triple: kHostCodeTriple.
  std::string triple;
  /// The x86-64 ISA level the code needs (one of host_isa.h's levels).
  std::string isaLevel;
  /// The ELF shared object exporting `capture_k_<kernel>` per kernel.
  std::vector<uint8_t> library;
};

/// The only triple host code is compiled for (the loader is Linux's).
inline constexpr const char *kHostCodeTriple = "x86_64-unknown-linux-gnu";
/// The prefix of every kernel's exported entry point in host code:
/// `capture_k_<kernel>` (the compiler's ag-cpu-kernels-to-llvm names them).
inline constexpr const char *kHostEntryPrefix = "capture_k_";
/// The first bytes of host code: an ELF file's magic.
inline constexpr unsigned char kHostCodeMagic[4] = {0x7f, 'E', 'L', 'F'};

/// A whole module file.
struct ModuleDesc {
  /// Format version; kCapmodFormatVersion.
  uint32_t formatVersion = kCapmodFormatVersion;
  /// Name and version of the producer.
  std::string producer;
  /// Target requirements.
  TargetDesc target;
  /// Kernels.
  std::vector<KernelDesc> kernels;
  /// Device buffers.
  std::vector<BufferDesc> buffers;
  /// Weights, all inside buffers[weightsBuffer].
  std::vector<WeightDesc> weights;
  /// Index of the Weights buffer, or -1.
  int32_t weightsBuffer = -1;
  /// Initial contents of the first bytes of the Constants buffer (absent
  /// when there is none); the rest is zeros but for `constantFills`.
  std::optional<std::vector<uint8_t>> constants;
  /// Index of the Constants buffer, or -1.
  int32_t constantsBuffer = -1;
  /// Splat constants of the Constants buffer, past `constants`.
  std::vector<ConstantFillDesc> constantFills;
  /// Entry points.
  std::vector<EntryDesc> entries;
  /// The kernels as host code, when the module was compiled for the cpu
  /// target too.
  std::optional<HostCodeDesc> hostCode;
};

} // namespace capture::rt

#endif // CAPTURE_RT_MODULE_DESC_H
