//===- spirv_check.cpp - Structural checks of kernel SPIR-V ---------------===//

#include "spirv_check.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>

#ifdef CAPTURE_RT_HAVE_SPIRV_TOOLS
#include <spirv-tools/libspirv.hpp>
#endif

namespace capture::rt {
namespace {

// Opcodes, enumerants and sizes from the SPIR-V specification (unified 1.6).
constexpr uint32_t kOpEntryPoint = 15;
constexpr uint32_t kOpExecutionMode = 16;
constexpr uint32_t kOpDecorate = 71;
constexpr uint32_t kOpTypeImage = 25;
constexpr uint32_t kOpTypePointer = 32;
constexpr uint32_t kOpVariable = 59;
constexpr uint32_t kStorageClassUniformConstant = 0;
constexpr uint32_t kStorageClassUniform = 2;
constexpr uint32_t kStorageClassStorageBuffer = 12;
constexpr uint32_t kDimBuffer = 5;
constexpr uint32_t kImageSampledStorage = 2;
constexpr uint32_t kImageFormatRgba32f = 1;
constexpr uint32_t kExecutionModelGLCompute = 5;
constexpr uint32_t kExecutionModeLocalSize = 17;
constexpr uint32_t kDecorationBinding = 33;
constexpr uint32_t kDecorationDescriptorSet = 34;
constexpr size_t kHeaderWords = 5;
constexpr uint32_t kOpCapability = 17;
constexpr uint32_t kOpTypeInt = 21;
constexpr uint32_t kOpTypeFloat = 22;
constexpr uint32_t kOpTypeVector = 23;
constexpr uint32_t kOpTypeMatrix = 24;
constexpr uint32_t kOpTypeArray = 28;
constexpr uint32_t kOpTypeStruct = 30;
constexpr uint32_t kOpConstant = 43;
constexpr uint32_t kOpMemberDecorate = 72;
constexpr uint32_t kDecorationArrayStride = 6;
constexpr uint32_t kDecorationOffset = 35;

std::string hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "0x%08x", v);
  return buf;
}

/// Decodes a literal string occupying words [begin, end); the string ends at
/// the first NUL. Sets `next` to the word after it, or returns false when no
/// NUL is found inside the range.
bool readString(const std::vector<uint32_t> &words, size_t begin, size_t end,
                std::string &out, size_t &next) {
  out.clear();
  for (size_t w = begin; w < end; ++w) {
    for (int b = 0; b < 4; ++b) {
      char c = static_cast<char>((words[w] >> (8 * b)) & 0xff);
      if (c == '\0') {
        next = w + 1;
        return true;
      }
      out += c;
    }
  }
  return false;
}

#ifdef CAPTURE_RT_HAVE_SPIRV_TOOLS
Status validateWithSpirvTools(const std::vector<uint32_t> &words,
                              uint32_t vulkanApiVersion,
                              const std::string &where) {
  uint32_t minor = (vulkanApiVersion >> 12) & 0x3ff;
  spv_target_env env = minor >= 3   ? SPV_ENV_VULKAN_1_3
                       : minor == 2 ? SPV_ENV_VULKAN_1_2
                       : minor == 1 ? SPV_ENV_VULKAN_1_1
                                    : SPV_ENV_VULKAN_1_0;
  spvtools::SpirvTools tools(env);
  std::string first;
  tools.SetMessageConsumer([&](spv_message_level_t level, const char *,
                               const spv_position_t &position,
                               const char *message) {
    if (!first.empty() || level > SPV_MSG_ERROR)
      return;
    // The message ends with the disassembled instruction on its own line.
    first = "word " + std::to_string(position.index) + ": ";
    for (const char *c = message; *c; ++c)
      if (*c != '\n')
        first += *c;
      else if (c[1])
        first += " in:";
  });
  if (tools.Validate(words.data(), words.size()))
    return Status::ok();
  return Status::error(where + "SPIR-V fails validation for " +
                       spvTargetEnvDescription(env) + ": " +
                       (first.empty() ? "no details" : first));
}
#endif

/// a * b and a + b, saturating at UINT64_MAX: a hostile size must not wrap
/// into a small one.
uint64_t satMul(uint64_t a, uint64_t b) {
  return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}
uint64_t satAdd(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/// Bytes that the types of a SPIR-V module occupy, as far as a kernel may
/// address them: scalars, vectors, matrices, fixed arrays (by their
/// ArrayStride) and structs (by their member Offsets). A runtime array (or
/// any type not listed) counts 0 bytes: it claims nothing beyond its offset.
/// Types are declared after the decorations and the constants they use, so
/// one pass in stream order sees everything it needs.
class TypeSizes {
public:
  /// Records instruction `opcode` with operand words `ops`.
  void note(uint32_t opcode, const uint32_t *ops, uint32_t n) {
    if (opcode == kOpDecorate && n >= 3 && ops[1] == kDecorationArrayStride)
      strides[ops[0]] = ops[2];
    else if (opcode == kOpMemberDecorate && n >= 4 &&
             ops[2] == kDecorationOffset)
      offsets[{ops[0], ops[1]}] = ops[3];
    else if (opcode == kOpConstant && n >= 3)
      constants[ops[1]] =
          n >= 4 ? ops[2] | static_cast<uint64_t>(ops[3]) << 32 : ops[2];
    else if ((opcode == kOpTypeInt || opcode == kOpTypeFloat) && n >= 2)
      sizes[ops[0]] = ops[1] / 8;
    else if ((opcode == kOpTypeVector || opcode == kOpTypeMatrix) && n >= 3)
      sizes[ops[0]] = satMul(size(ops[1]), ops[2]);
    else if (opcode == kOpTypeArray && n >= 3) {
      auto stride = strides.find(ops[0]);
      auto length = constants.find(ops[2]);
      uint64_t count = length == constants.end() ? 0 : length->second;
      sizes[ops[0]] = satMul(count, stride == strides.end() ? size(ops[1])
                                                            : stride->second);
    } else if (opcode == kOpTypeStruct && n >= 1) {
      // n >= 1 like every branch above: a one-word OpTypeStruct has no
      // result id, and at the stream's end ops[0] is past its last word.
      uint64_t end = 0, next = 0;
      for (uint32_t m = 1; m < n; ++m) {
        auto offset = offsets.find({ops[0], m - 1});
        uint64_t at = offset == offsets.end() ? next : offset->second;
        next = satAdd(at, size(ops[m]));
        end = std::max(end, next);
      }
      sizes[ops[0]] = end;
    }
  }

  /// The bytes of type `id`; 0 when unknown.
  uint64_t size(uint32_t id) const {
    auto it = sizes.find(id);
    return it == sizes.end() ? 0 : it->second;
  }

private:
  /// Type id -> bytes.
  std::map<uint32_t, uint64_t> sizes;
  /// Array type id -> ArrayStride.
  std::map<uint32_t, uint32_t> strides;
  /// (struct type id, member) -> Offset.
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> offsets;
  /// Constant id -> value (integer constants; others are never lengths).
  std::map<uint32_t, uint64_t> constants;
};

} // namespace

bool kernelDeclaresCapability(const KernelDesc &kernel, uint32_t capability) {
  const std::vector<uint32_t> &words = kernel.spirv;
  for (size_t pos = kHeaderWords; pos < words.size();) {
    uint32_t count = words[pos] >> 16, opcode = words[pos] & 0xffff;
    if (count == 0 || pos + count > words.size())
      return false;
    if (opcode == kOpCapability && count == 2 && words[pos + 1] == capability)
      return true;
    pos += count;
  }
  return false;
}

bool spirvToolsValidationEnabled() {
#ifdef CAPTURE_RT_HAVE_SPIRV_TOOLS
  return true;
#else
  return false;
#endif
}

Status checkKernelSpirv(const KernelDesc &kernel, size_t index,
                        uint32_t vulkanApiVersion,
                        std::vector<uint64_t> *declaredBytes) {
  // Sized by the bindings the SPIR-V has, never by num_bindings: that
  // count comes from the file and may be anything.
  if (declaredBytes)
    declaredBytes->clear();
  std::string where =
      "capmod: kernel " + std::to_string(index) + " ('" + kernel.name + "'): ";
  const std::vector<uint32_t> &words = kernel.spirv;
  if (words.empty())
    return Status::error(where + "SPIR-V is empty");
  if (words[0] != kSpirvMagic)
    return Status::error(
        where + "SPIR-V starts with " + hex(words[0]) +
        ", expected the magic number " + hex(kSpirvMagic) +
        (words[0] == 0x03022307 ? " (file is byte-swapped)" : ""));
  if (words.size() < kHeaderWords)
    return Status::error(where + "SPIR-V has " + std::to_string(words.size()) +
                         " words, less than its 5-word header");
  uint32_t version = words[1];
  uint32_t major = (version >> 16) & 0xff, minor = (version >> 8) & 0xff;
  if (major != 1 || minor > 6 || (version & 0xff0000ff) != 0)
    return Status::error(where + "SPIR-V version word " + hex(version) +
                         " is not a version 1.0 to 1.6");

  bool foundEntry = false;
  uint32_t entryId = 0;
  std::vector<std::string> computeEntries;
  // LocalSize per entry point id.
  std::map<uint32_t, std::vector<uint32_t>> localSizes;
  // (descriptor set, binding) per decorated id.
  std::map<uint32_t, std::pair<int64_t, int64_t>> resources;
  // What a resource is, to match it with its binding kind: the storage
  // class of each variable's pointer type and whether its pointee is an
  // RGBA32F storage texel buffer image.
  std::map<uint32_t, uint32_t> variableTypes;                 // var -> ptr
  std::map<uint32_t, std::pair<uint32_t, uint32_t>> pointers; // ptr -> (sc, T)
  std::map<uint32_t, bool> images; // image type -> is a Buffer/2/Rgba32f one
  TypeSizes typeSizes;

  for (size_t pos = kHeaderWords; pos < words.size();) {
    uint32_t count = words[pos] >> 16, opcode = words[pos] & 0xffff;
    if (count == 0 || count > words.size() - pos)
      return Status::error(
          where + "SPIR-V instruction at word " + std::to_string(pos) +
          " (opcode " + std::to_string(opcode) + ") has word count " +
          std::to_string(count) + ", but " +
          std::to_string(words.size() - pos) + " words remain");
    size_t end = pos + count;
    // words.data() + pos + 1, not &words[pos + 1]: for a one-word
    // instruction at the end that is one past the last word (note reads
    // only the n operands it is given).
    typeSizes.note(opcode, words.data() + pos + 1, count - 1);
    if (opcode == kOpEntryPoint && count >= 4 &&
        words[pos + 1] == kExecutionModelGLCompute) {
      std::string name;
      size_t next;
      if (!readString(words, pos + 3, end, name, next))
        return Status::error(where + "SPIR-V OpEntryPoint at word " +
                             std::to_string(pos) + " has an unterminated name");
      computeEntries.push_back(name);
      if (name == kernel.entryPoint && !foundEntry) {
        foundEntry = true;
        entryId = words[pos + 2];
      }
    } else if (opcode == kOpExecutionMode && count >= 3 &&
               words[pos + 2] == kExecutionModeLocalSize) {
      if (count != 6)
        return Status::error(where + "SPIR-V LocalSize at word " +
                             std::to_string(pos) + " has " +
                             std::to_string(count - 3) + " sizes, expected 3");
      localSizes[words[pos + 1]] = {words[pos + 3], words[pos + 4],
                                    words[pos + 5]};
    } else if (opcode == kOpTypeImage && count >= 9) {
      images[words[pos + 1]] = words[pos + 3] == kDimBuffer &&
                               words[pos + 7] == kImageSampledStorage &&
                               words[pos + 8] == kImageFormatRgba32f;
    } else if (opcode == kOpTypePointer && count == 4) {
      pointers[words[pos + 1]] = {words[pos + 2], words[pos + 3]};
    } else if (opcode == kOpVariable && count >= 4) {
      variableTypes[words[pos + 2]] = words[pos + 1];
    } else if (opcode == kOpDecorate && count >= 4) {
      uint32_t target = words[pos + 1], decoration = words[pos + 2];
      auto it = resources.try_emplace(target, -1, -1).first;
      if (decoration == kDecorationDescriptorSet)
        it->second.first = words[pos + 3];
      else if (decoration == kDecorationBinding)
        it->second.second = words[pos + 3];
    }
    pos = end;
  }

  if (!foundEntry) {
    std::string found;
    for (const std::string &name : computeEntries)
      found += (found.empty() ? "'" : ", '") + name + "'";
    return Status::error(where + "SPIR-V has no GLCompute entry point named '" +
                         kernel.entryPoint + "' (found: " +
                         (found.empty() ? std::string("none") : found) + ")");
  }
  auto local = localSizes.find(entryId);
  if (local != localSizes.end() && local->second != kernel.workgroupSize) {
    const std::vector<uint32_t> &l = local->second;
    std::string declared;
    for (size_t i = 0; i < kernel.workgroupSize.size(); ++i)
      declared += (i ? ", " : "") + std::to_string(kernel.workgroupSize[i]);
    return Status::error(
        where + "SPIR-V LocalSize is (" + std::to_string(l[0]) + ", " +
        std::to_string(l[1]) + ", " + std::to_string(l[2]) +
        "), but the module says workgroup_size (" + declared + ")");
  }
  for (const auto &[id, setBinding] : resources) {
    auto [set, binding] = setBinding;
    if (set < 0)
      continue;
    if (set != 0)
      return Status::error(where + "SPIR-V resource %" + std::to_string(id) +
                           " is in descriptor set " + std::to_string(set) +
                           ", expected set 0");
    if (binding < 0 || binding >= kernel.numBindings)
      return Status::error(
          where + "SPIR-V resource %" + std::to_string(id) + " has binding " +
          std::to_string(binding) + ", but the kernel declares " +
          std::to_string(kernel.numBindings) + " bindings (0.." +
          std::to_string(static_cast<int64_t>(kernel.numBindings) - 1) + ")");
    // A descriptor of another type than the shader declares is undefined
    // behaviour the validator cannot see (it does not know the layout).
    auto var = variableTypes.find(id);
    auto ptr = var == variableTypes.end() ? pointers.end()
                                          : pointers.find(var->second);
    if (ptr == pointers.end())
      continue;
    auto [storageClass, pointee] = ptr->second;
    auto image = images.find(pointee);
    bool texel = storageClass == kStorageClassUniformConstant &&
                 image != images.end() && image->second;
    bool buffer = storageClass == kStorageClassStorageBuffer ||
                  storageClass == kStorageClassUniform;
    BindingKind kind = bindingKindOf(kernel, static_cast<size_t>(binding));
    if (buffer && declaredBytes) {
      auto b = static_cast<size_t>(binding);
      if (declaredBytes->size() <= b)
        declaredBytes->resize(b + 1, 0);
      (*declaredBytes)[b] =
          std::max((*declaredBytes)[b], typeSizes.size(pointee));
    }
    if (kind == BindingKind::TexelBufferRgba32f && !texel)
      return Status::error(
          where + "SPIR-V resource %" + std::to_string(id) + " at binding " +
          std::to_string(binding) +
          " is not an RGBA32F storage texel buffer (a UniformConstant "
          "OpTypeImage of Dim Buffer, Sampled 2, format Rgba32f), but "
          "binding_kinds says TexelBufferRgba32f");
    if (kind == BindingKind::StorageBuffer && !buffer)
      return Status::error(
          where + "SPIR-V resource %" + std::to_string(id) + " at binding " +
          std::to_string(binding) + " is " +
          (texel ? std::string("an RGBA32F storage texel buffer")
                 : "not a buffer (storage class " +
                       std::to_string(storageClass) + ")") +
          ", but binding_kinds says StorageBuffer" +
          (kernel.bindingKinds.empty() ? " (it is absent: every binding is "
                                         "a storage buffer)"
                                       : ""));
  }
#ifdef CAPTURE_RT_HAVE_SPIRV_TOOLS
  return validateWithSpirvTools(words, vulkanApiVersion, where);
#else
  (void)vulkanApiVersion;
  return Status::ok();
#endif
}

} // namespace capture::rt
