//===- spirv_check.h - Structural checks of kernel SPIR-V -------*- C++ -*-===//
//
// Always: a walk over the instruction stream that catches what would
// otherwise reach the driver as garbage or contradict the module file: bad
// magic/version, instructions overrunning the module, a missing GLCompute
// entry point, a LocalSize different from the kernel's workgroup_size,
// descriptor bindings outside set 0 / 0..num_bindings-1, a binding variable
// that is not what its binding kind says (a storage buffer, or an RGBA32F
// storage texel buffer image), and the bytes each buffer binding's type
// declares (checked against the ranges dispatches bind there).
//
// With -DCAPTURE_RT_WITH_SPIRV_TOOLS=ON (the default; OFF keeps the runtime
// dependent on Vulkan and FlatBuffers only), also the full SPIRV-Tools
// validator for the module's Vulkan version: only that stops a hostile but
// well-formed shader from reaching (and possibly crashing) the driver.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_SPIRV_CHECK_H
#define CAPTURE_RT_SPIRV_CHECK_H

#include "capture/rt/module_desc.h"
#include "capture/rt/status.h"

namespace capture::rt {

/// SPIR-V's magic number, first word of every module.
constexpr uint32_t kSpirvMagic = 0x07230203;

/// Checks the SPIR-V of `kernel` (index `index` in the module) as described
/// above; `vulkanApiVersion` (the module's target) picks the SPIRV-Tools
/// environment. Messages start with "capmod: kernel N ('name'): ".
/// `declaredBytes`, when given, receives per binding the bytes the SPIR-V
/// declares for the buffer there (its fixed-size arrays; 0 for a runtime
/// array or a texel buffer; bindings past its end declare nothing): a range
/// bound to it must be at least as large.
Status checkKernelSpirv(const KernelDesc &kernel, size_t index,
                        uint32_t vulkanApiVersion,
                        std::vector<uint64_t> *declaredBytes = nullptr);

/// SPIR-V capability GroupNonUniformArithmetic (subgroup reductions).
constexpr uint32_t kSpirvCapabilityGroupNonUniformArithmetic = 63;
/// SPIR-V capability GroupNonUniformShuffle (subgroup shuffles).
constexpr uint32_t kSpirvCapabilityGroupNonUniformShuffle = 65;

/// Whether `kernel`'s SPIR-V declares `capability` (an OpCapability
/// operand); a stream checkKernelSpirv would refuse may be cut short.
bool kernelDeclaresCapability(const KernelDesc &kernel, uint32_t capability);

/// Whether checkKernelSpirv runs the SPIRV-Tools validator.
bool spirvToolsValidationEnabled();

} // namespace capture::rt

#endif // CAPTURE_RT_SPIRV_CHECK_H
