//===- Passes.td - Capture transformation passes ------------*- tablegen -*-===//

#ifndef CAPTURE_TRANSFORMS_PASSES_TD
#define CAPTURE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def VerifyCapture : Pass<"ag-verify-capture", "::mlir::ModuleOp"> {
  let summary = "The capture guard: reject host interaction inside a trace";
  let description = [{
    A trace is recorded once and replayed many times, so anything the host
    did while tracing would be frozen into every replay: an upload of host
    data that is not an input, a read-back of a device value, an op launched
    eagerly outside the graph. This pass lists EVERY such site of every entry
    (grouped by kind and call-site location, with how many times each
    occurs) in one diagnostic, then fails. Uploads marked `constant` are
    data-independent and allowed.

    It also refuses what a trace cannot hold: the weights and entries of a
    nested `builtin.module` (only the top level is compiled), calls in an
    entry, and ops that only the compiler's passes make (training, layout,
    dispatch regions and barriers: the `CompilerMade` trait), which the
    later passes of the pipeline would otherwise meet as their own.
  }];
}

def Autodiff : Pass<"ag-autodiff", "::mlir::ModuleOp"> {
  let summary = "Reverse-mode differentiation of every training step's loss";
  let description = [{
    For each `ag.train_step`, builds the gradient of the loss (output #0)
    with respect to every trainable weight the loss depends on, from each
    op's vector-Jacobian product (`DifferentiableOpInterface`), and returns
    it as an extra output named `grad/<weight>` with `ag.grad_of = @weight`.
    Several reads of one weight accumulate. A trainable weight the loss does
    not reach gets no gradient (and so no update, as in PyTorch); a step
    whose loss reaches no trainable weight, or whose loss depends on a
    weight through an op without a vector-Jacobian product, is an error.
    No gradient flows through `ag.stop_gradient` (a weight the loss reaches
    only through one is not reached); once every step is differentiated,
    the pass replaces each `ag.stop_gradient` of every entry (forward
    entries too) by its operand.
  }];
  let dependentDialects = ["::capture::ag::AgDialect"];
}

def PackParams : Pass<"ag-pack-params", "::mlir::ModuleOp"> {
  let summary = "Flat arrays of a training step's weights and gradients";
  let description = [{
    For each differentiated `ag.train_step` (after `ag-autodiff`): declares
    an `ag.param_pack @<step>.params` laying every weight the step trains
    out in one flat f32 array (each weight at an element offset aligned to
    `alignment` bytes, zero padding between), and replaces the step's
    `grad/<weight>` outputs by ONE flat output `grads` (`ag.pack_grads`,
    marked `ag.packed_grads = @<pack>`) in the same layout. The AdamW moments
    use that layout too, so the gradient norm is one reduction and the
    update one kernel over all parameters. A weight trained by two steps is
    an error.
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t",
           /*default=*/"::capture::CompileOptions().alignment",
           "Byte alignment of every weight inside the pack (a power of two "
           ">= 4; the lowering binds weights at these offsets)">,
  ];
  let dependentDialects = ["::capture::ag::AgDialect"];
}

def InsertClipScale : Pass<"ag-insert-clip-scale", "::mlir::ModuleOp"> {
  let summary = "Global gradient norm and torch.nn.utils.clip_grad_norm_";
  let description = [{
    For each differentiated `ag.train_step` (after `ag-autodiff`): computes
    the 2-norm over all gradients and returns it as output `grad_norm` (the
    pre-clip norm; the update is refused on the device when it is not
    finite). When the step has `max_grad_norm`, every gradient is scaled by
    `min(1, max_norm / (norm + 1e-6))`, branch-free, where `max_norm` is a
    new scalar input `max_grad_norm` (marked `ag.hyper`), so it can change
    between steps without recompiling.
  }];
  let dependentDialects = ["::capture::ag::AgDialect"];
}

def InsertIndexChecks : Pass<"ag-insert-index-checks", "::mlir::ModuleOp"> {
  let summary = "A device status for every index operand, checked by the runtime";
  let description = [{
    The kernels of `ag.cross_entropy`, `ag.get_rows`, `ag.one_hot` and
    `ag.scatter_add_rows` clamp an index outside its range (so that they
    never read or write outside a tensor); this pass makes that an error
    instead of a silently different result. For each distinct (index
    value, bound) of an entry it adds `ag.check_indices` and returns its
    status as a new output `index_check.N`, listed in the entry's
    `ag.index_checks` (an array of dictionaries: the output, the
    indexing op, the entry input the indices come from or "" when
    computed, the range, the op's location); the
    runtime reads it with the other outputs and turns a bad index into an
    error naming all of these. In a training step (after
    `ag-insert-clip-scale`) the statuses' poison is added to the gradient
    norm output, so that a bad index makes the norm NaN and the AdamW
    update writes nothing, exactly as for a non-finite norm: one
    submission, and the state bitwise unchanged.
  }];
  let dependentDialects = ["::capture::ag::AgDialect"];
}

def SplitUpdate : Pass<"ag-split-update", "::mlir::ModuleOp"> {
  let summary = "The AdamW update as the second graph of a training step";
  let description = [{
    For each `ag.train_step` with packed gradients (`ag-pack-params`) and a
    gradient norm (`ag-insert-clip-scale`): adds the runtime input `adamw`
    (`tensor<7xf32>`, marked `ag.hyper`: lr, beta1, beta2, eps,
    weight_decay and the bias corrections 1 - beta^(t+1) for the step the
    host counts), removes the `grads` output, and ends the body with
    `ag.apply_adamw`, which updates the pack's weights and moments in place
    after every other op (every read of the weights) and writes nothing
    when the norm is not finite.
  }];
  let dependentDialects = ["::capture::ag::AgDialect"];
}

def PackIO : Pass<"ag-pack-io", "::mlir::ModuleOp"> {
  let summary = "Pack every entry's inputs and outputs into one buffer each";
  let description = [{
    Each entry's (`ag.forward` or `ag.train_step`, after `ag-split-update`
    for the latter) named inputs, hyperparameter inputs included, become
    views (`ag.input_view`) of ONE input
    byte buffer, and its outputs are placed into ONE output byte buffer
    (`ag.pack_outputs`), each segment at an offset aligned to `alignment`
    bytes so that kernels can bind it directly. The layout is recorded on the
    entry as `ag.input_layout` / `ag.output_layout` (arrays of
    `#ag.segment`); the runtime packs and unpacks with exactly it.
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t",
           /*default=*/"::capture::CompileOptions().alignment",
           "Byte alignment of every segment (a power of two; 256 suits "
           "every Vulkan device's minStorageBufferOffsetAlignment)">,
  ];
  let dependentDialects = ["::capture::ag::AgDialect"];
}

def FormDispatchRegions : Pass<"ag-form-dispatch-regions", "::mlir::ModuleOp"> {
  let summary = "Group ops into dispatch regions, one kernel each";
  let description = [{
    In every entry, each chain of elementwise ops becomes one
    `ag.dispatch_region elementwise`: walking from the last op of the entry
    back, an elementwise op starts a region and pulls in each elementwise
    producer whose result has the region's shape (or is a single element,
    cheap to recompute) and is used only inside the region (repeated until
    nothing more joins); splat constants are
    cloned in. An elementwise op with nothing to fuse gets a region of its
    own, so every elementwise kernel comes from the one template. What does
    not join and why (not elementwise, another shape, used outside) is
    reported as remarks with `explain`.

    First, with `workgroup` (the default), the small whole-tensor ops of an
    entry (elementwise ops, reshapes, reductions and mse whose tensors all
    have at most a quarter of the entry's largest matmul result, within 1024 to 8192 elements: a loss head and its gradient) become one
    `ag.workgroup_region` with as many results as values used outside,
    when they hold at least two reductions. The region is kept convex: an
    op that depends on it through an op outside stays out (a remark with
    `explain`), and outside ops between its members move after it.
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Emit a remark at every producer that feeds a region without "
           "joining it, saying why">,
    Option<"workgroup", "workgroup", "bool", /*default=*/"true",
           "Gather the small whole-tensor ops (a loss head) into one "
           "ag.workgroup_region first">,
  ];
  let dependentDialects = ["::capture::ag::AgDialect"];
}

def InsertBarriers : Pass<"ag-insert-barriers", "::mlir::ModuleOp"> {
  let summary = "Barriers between the launches of each lowered entry's schedule";
  let description = [{
    After `ag-lower-to-gpu`: in every schedule function (`gpu.launch_func`s
    on `ag.binding`s, typed ranges of the entry's buffers), an
    `ag.barrier` goes before a launch exactly when, without it, the launch
    would read a byte range a launch since the last barrier writes (RAW),
    or write one such a launch reads (WAR) or writes (WAW). Which arguments a
    kernel writes comes from its `ag.writes` (else its last argument). The
    hazard test is the runtime's own (`capture::rt::findSegmentHazard`), the
    one the module loader verifies schedules with, so a compiled schedule
    always passes the loader and has no barrier the loader would not need.
  }];
  let dependentDialects = ["::capture::ag::AgDialect"];
}

def BoundKernelLoops : Pass<"ag-bound-kernel-loops", "::mlir::ModuleOp"> {
  let summary = "Unroll kernel loops that would pass the target's iteration limit";
  let description = [{
    After `ag-lower-to-gpu`; the limit is the `#ag.target`'s
    `max_loop_iterations` (the lavapipe preset: 65535). llvmpipe counts
    the loop iterations of each invocation, all its loops together, and
    past 65535 it ends the loops without a word: a row sum, a softmax row,
    a matmul's K walk or a whole-tensor loss longer than that would give
    a silently wrong result. For every kernel the pass bounds what one
    invocation runs: each `scf.for`'s trip count from its bounds (a
    constant, a chunk `[lo, min(lo + c, n))`, or a grid-stride step of
    `gpu.grid_dim` times a constant with the kernel's launch grids), times
    the loops around it. While the bound exceeds the limit it unrolls the
    loop that runs the most iterations itself (`loopUnrollByFactor`; the
    order of every operation is kept, so results are the same to the bit)
    and marks the kernel `ag.loop_iterations = array<i64: before, after>`.
    A loop it cannot bound, or a kernel that unrolling would grow past
    `max-ops` operations, is an error naming the kernel. On a target
    without a limit (the gpu preset) it unrolls nothing but still records
    each bounded kernel's count, which the module writer keeps
    (`Kernel.loop_iterations`) so that the loader can refuse the module on
    llvmpipe.
  }];
  let options = [
    Option<"maxOps", "max-ops", "int64_t", /*default=*/"200000",
           "The most operations unrolling may grow one kernel to">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // CAPTURE_TRANSFORMS_PASSES_TD
