//===- Passes.td - Capture conversion passes ----------------*- tablegen -*-===//

#ifndef CAPTURE_CONVERSION_PASSES_TD
#define CAPTURE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConfigureKernels : Pass<"ag-configure-kernels", "::mlir::ModuleOp"> {
  let summary = "Decide how each kernel is shaped for the target, as typed "
                "attributes";
  let description = [{
    The target decisions that the buffer plan and the lowering both depend
    on are made here, once, and recorded on each compute op of every entry
    as its `ag.kernel_config` (IREE's kernel configuration pattern):
    `ag-plan-buffers` and `ag-lower-to-gpu` follow it, never recompute it.

    - A full reduction (`ag.sum`, `ag.mean`, `ag.max` without an axis, or a
      reduction region of one) of more than 4096 elements runs in two passes:
      `#ag.two_pass<chunk = C, parts = P>`, partials of C = 256 elements
      (more when there would be more than 16384 partials; a multiple of 4)
      reduced by P invocations, then one invocation reducing the partials.
      Up to 4096 elements one serial loop is as fast as two dispatches.
      Besides using the device, the split keeps every invocation's loop
      short (llvmpipe silently ends an invocation's loops after 65535
      iterations).

    Running it twice changes nothing; an op with a configuration keeps it.
  }];
  let dependentDialects = ["::capture::ag::AgDialect"];
}

def PlanBuffers : Pass<"ag-plan-buffers", "::mlir::ModuleOp"> {
  let summary = "Lay out every tensor of packed ag entries in the module's "
                "buffers";
  let description = [{
    Decides where every tensor of a packed module lives, as typed attributes
    that `ag-lower-to-gpu` follows (`#ag.place<buffer, byte offset>`, the
    buffer an `#ag.buffer<...>` kind):

    - the module's `weights` buffer: each param pack's flat array (its
      `ag.place`), then every other `ag.weight` (`ag.place`);
    - the `optimizer` buffer: each pack's flat gradients and AdamW moments
      (`ag.grads_place`, `ag.moment1_place`, `ag.moment2_place`);
    - the read-only `constants` buffer: each distinct constant value once
      (`ag.place` on `ag.constant` and constant `ag.upload`);
    - per entry (`ag.places` on each op, one per result): inputs in the
      packed `input` buffer, outputs computed by the entry in place in the
      packed `output` buffer, gradients in place in their pack's flat
      gradients, and every other intermediate in the entry's `scratch`
      buffer, first-fit by liveness so ranges whose values are dead are
      reused. Two-pass reductions get their partials (`ag.partials`) and
      workgroup regions their unyielded reduction stages (`ag.stages`), live
      during their op only. `ag.scratch_bytes` on the entry is its size.

    Probes and reshapes have no placement of their own: they alias their
    operand's bytes. The sizes of the module-wide buffers and the alignment
    go on the module as `ag.buffer_plan`.
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t",
           /*default=*/"::capture::CompileOptions().alignment",
           "Byte alignment of every buffer range a kernel binds">,
  ];
}

def LowerToGPU : Pass<"ag-lower-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Lower planned ag entries to gpu kernels and a replay "
                "schedule";
  let description = [{
    Every packed `ag.forward` or `ag.train_step` whose buffers
    `ag-plan-buffers` planned becomes a `func.func` (the replay schedule)
    taking the entry's input and output byte buffers as memrefs. Each compute
    op becomes a `gpu.launch_func` of a kernel whose arguments are
    `ag.binding`s, typed byte ranges the plan gave its tensors, operands
    first and the written result last. The weights, optimizer, constants
    (with their bytes) and scratch buffers become `memref.global`s of the
    planned sizes.
  }];
  let options = [
    Option<"workgroupSize", "workgroup-size", "unsigned",
           /*default=*/"::capture::CompileOptions().workgroupSize",
           "Invocations per workgroup of every kernel (1 to 1024)">,
    Option<"target", "target", "std::string",
           /*default=*/"::capture::CompileOptions().target",
           "Device preset the kernels are shaped for, recorded as the module's "
           "#ag.target unless it has one: lavapipe (CPU Vulkan: texel-buffer "
           "reads), gpu (storage-buffer reads) or cpu (the host's own code "
           "through ag-kernels-to-cpu: one-invocation subgroups)">,
    Option<"tileShuffles", "tile-shuffles", "bool",
           /*default=*/"::capture::CompileOptions().tileShuffles",
           "With texel reads and 8-lane subgroups, each group of 8 lanes "
           "owns 2x4 or 4x2 matmul tiles (else a row or column of 8) and "
           "loads the operand vectors they share once per K block, passing "
           "them by subgroup shuffles (false: every lane loads its own)">,
    Option<"minMatmulWorkgroups", "min-matmul-workgroups", "unsigned",
           /*default=*/"::capture::CompileOptions().minMatmulWorkgroups",
           "A matmul kernel whose tiles would fill fewer workgroups than "
           "this runs smaller ones (whole subgroups, at least one), so that "
           "a CPU driver's threads share it (0: every kernel keeps "
           "workgroup-size)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::spirv::SPIRVDialect", "::mlir::vector::VectorDialect",
  ];
}

def KernelsToSPIRV : Pass<"ag-kernels-to-spirv", "::mlir::ModuleOp"> {
  let summary = "Convert every gpu.module kernel into a spirv.module";
  let description = [{
    Like upstream's `convert-gpu-to-spirv` (each `gpu.module` is cloned into
    a `spirv.module` beside it, memref memory spaces mapped to Vulkan
    storage classes), plus the math dialect, which the kernels use for exp,
    log, sqrt and friends.
  }];
  let dependentDialects = ["::mlir::spirv::SPIRVDialect"];
}

def KernelsToCPU : Pass<"ag-kernels-to-cpu", "::mlir::ModuleOp"> {
  let summary = "Turn every gpu.module kernel into a host function that runs "
                "one workgroup";
  let description = [{
    The CPU target runs the same kernels as the Vulkan targets. Each kernel
    `gpu.func @K` of the module becomes `func.func @K(<its arguments>,
    %group: index, %groups: index)` in the nested `builtin.module
    @__ag_cpu_kernels`, which runs workgroup `%group` of `%groups`: the
    invocations of the workgroup one after another, as loops over the local
    id (PoCL's work-item loops, Polygeist's cpuify). Each `gpu.barrier`
    splits the kernel into segments, one loop each, so every invocation
    finishes a segment before any starts the next, which is what the
    barrier orders. A value that one segment computes and a later one uses
    is kept per invocation in a `memref<WG x T>` (stored where it is
    computed, loaded where it is used); pure values that do not depend on
    the local id (constants, the group id, arithmetic on them) are computed
    once, before the loops. Workgroup memory becomes a `memref.alloca` of
    the function.

    The kernels must be shaped for subgroups of one invocation (the `cpu`
    target): a subgroup reduction is then its operand, the lane id 0, the
    subgroup id the local id. Kernels are 1-D (workgroup size [N, 1, 1], as
    the lowering makes them) and keep their barriers at their top level;
    anything else is refused with an error naming the kernel. The
    `gpu.module`s stay (the schedule's launches name them).
  }];
  let dependentDialects = [
    "::mlir::func::FuncDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def CPUKernelsToLLVM : Pass<"ag-cpu-kernels-to-llvm", "::mlir::ModuleOp"> {
  let summary = "Lower the host functions of ag-kernels-to-cpu to the LLVM "
                "dialect, with one entry point per kernel";
  let description = [{
    Converts the nested `builtin.module @__ag_cpu_kernels` in place to the
    LLVM dialect, self-contained: `math.exp`, `math.log` (and tanh, erf, ...
    should a kernel use them) become upstream's polynomial approximations,
    so the code calls no libm; the rest of math (sqrt, abs, copysign, floor,
    ceil) are instructions of the host's ISA. Memrefs become bare pointers
    (the kernels bind static, identity-layout buffers). Each kernel `@K`
    becomes internal and gets the exported entry point the runtime calls,
    `void capture_k_K(void *const *bindings, int64_t group, int64_t
    groups)`: its binding pointers in argument order, then the workgroup to
    run and the workgroup count.

    A function of the host module with another signature is an error.
  }];
  // The approximations build arith, math and vector ops (broadcasts of
  // their constants) before the conversion.
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect", "::mlir::vector::VectorDialect",
  ];
}

def SPIRVTexelReads : Pass<"ag-spirv-texel-reads", "::mlir::spirv::ModuleOp"> {
  let summary = "Read read-only f32 kernel inputs through RGBA32F texel buffers";
  let description = [{
    Runs on each kernel's `spirv.module` after `spirv-lower-abi-attrs`, when
    the enclosing module's `#ag.target` has `read_path = texel` (otherwise
    it changes nothing). Every storage-buffer variable holding f32 or
    vector<4xf32> elements that the kernel only loads becomes a storage texel
    buffer of RGBA32F texels at the same binding, and each load becomes an
    `spirv.ImageRead` of one texel (plus a lane extract for an f32 element).
    On llvmpipe (lavapipe) a texel read costs ~0.3 ns per float against ~8
    ns for a storage-buffer load, which compiles to a per-lane scalar loop.
    Variables that are written, hold integers, or exceed the target's
    `max_texel_elements` stay storage buffers. The module writer records the
    binding kinds from the result.
  }];
  let dependentDialects = ["::mlir::spirv::SPIRVDialect"];
}

#endif // CAPTURE_CONVERSION_PASSES_TD
