//===- AgAttributes.td - ag dialect attributes --------------*- tablegen -*-===//

#ifndef CAPTURE_DIALECT_AG_IR_AGATTRIBUTES_TD
#define CAPTURE_DIALECT_AG_IR_AGATTRIBUTES_TD

include "capture/Dialect/Ag/IR/AgDialect.td"
include "capture/Dialect/Ag/IR/AgEnums.td"
include "mlir/IR/AttrTypeBase.td"

def Ag_SegmentAttr : AttrDef<Ag_Dialect, "Segment"> {
  let mnemonic = "segment";
  let summary = "A named tensor at a byte offset of a packed I/O buffer";
  let description = [{
    Records where `ag-pack-io` placed one input or output of an entry:
    `#ag.segment<"x", [2, 4], f32, offset = 256>`. The runtime packs and
    unpacks host tensors with exactly this layout.
  }];
  let parameters = (ins StringRefParameter<"tensor name">:$name,
                        ArrayRefParameter<"int64_t", "shape">:$shape,
                        "::mlir::Type":$elementType,
                        "int64_t":$offset);
  let assemblyFormat =
      "`<` $name `,` custom<ShapeList>($shape) `,` $elementType `,` `offset` `=` $offset `>`";
  let extraClassDeclaration = [{
    /// Number of bytes the tensor occupies.
    int64_t getByteSize() const;
  }];
}

/// A hyperparameter written as a plain number (`0.9`, `3.0e-4`).
def Ag_DoubleParam : APFloatParameter<"a float hyperparameter"> {
  let parser = [{ [&]() -> ::mlir::FailureOr<::llvm::APFloat> {
    double value;
    if ($_parser.parseFloat(value))
      return ::mlir::failure();
    return ::llvm::APFloat(value);
  }() }];
  let printer = [{ $_printer.printFloat($_self) }];
}

def Ag_AdamWAttr : AttrDef<Ag_Dialect, "AdamW"> {
  let mnemonic = "adamw";
  let summary = "Adam(W) hyperparameters (torch.optim.AdamW or Adam)";
  let description = [{
    `#ag.adamw<lr = 3.0e-4, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8,
    weight_decay = 0.01>`: decoupled weight decay (torch.optim.AdamW), bias
    corrections from the step counter. These are the initial values: the
    runtime keeps them (and the step counter) on the host and passes them to
    every step, so they can change between steps without recompiling.

    `decoupled = false` (printed only then; default true) is
    torch.optim.Adam's `weight_decay`: an L2 term `weight_decay * p` added to
    the (clipped) gradient before the moments, and no decay of `p`. The
    update kernel is compiled for one of the two modes, so unlike the values
    the mode cannot change at run time.
  }];
  let parameters = (ins Ag_DoubleParam:$lr, Ag_DoubleParam:$beta1,
                        Ag_DoubleParam:$beta2, Ag_DoubleParam:$eps,
                        Ag_DoubleParam:$weight_decay,
                        DefaultValuedParameter<"bool", "true">:$decoupled);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Ag_ParamGroupAttr : AttrDef<Ag_Dialect, "ParamGroup"> {
  let mnemonic = "param_group";
  let summary = "A parameter group: weights with hyperparameters of their own";
  let description = [{
    `#ag.param_group<[@critic.w, @critic.b], #ag.adamw<lr = 1.0e-3, ...>>`:
    one of torch.optim's `param_groups` after the first. The weights listed
    are updated with this group's AdamW values (its own learning rate,
    betas, eps, weight decay and bias corrections); a training step's
    weights listed in no group are in group 0, the step's `optimizer`.
    Every group has the step's `decoupled` mode (one optimizer class).
  }];
  let parameters = (ins "::mlir::ArrayAttr":$weights,
                        "::capture::ag::AdamWAttr":$adamw);
  let assemblyFormat = "`<` $weights `,` qualified($adamw) `>`";
  let genVerifyDecl = 1;
}

def Ag_InitAttr : AttrDef<Ag_Dialect, "Init"> {
  let mnemonic = "init";
  let summary = "A weight's initial value as a rule, evaluated at load";
  let description = [{
    ```mlir
    ag.weight @fc1.weight trainable : tensor<256x784xf32> = #ag.init<linear, fan_in = 784, seed = 1>
    ag.weight @fc1.bias trainable : tensor<256xf32> = #ag.init<linear, fan_in = 784, seed = 2>
    ag.weight @emb trainable : tensor<100x16xf32> = #ag.init<normal, mean = 0.0, std = 0.02, seed = 3>
    ag.weight @w : tensor<8xf32> = #ag.init<uniform, low = -0.1, high = 0.1, seed = 4>
    ag.weight @scale : tensor<8xf32> = #ag.init<constant, value = 1.0>
    ag.weight @b : tensor<8xf32> = #ag.init<zeros>
    ```
    The kind comes first, then exactly its fields, in any order. `linear` is
    torch.nn.Linear's default for its weight and its bias: uniform in
    [-1/sqrt(fan_in), 1/sqrt(fan_in)], with fan_in the layer's input
    features. The module file keeps the rule (a few bytes whatever the
    weight's size); the runtime and the interpreter evaluate it with the
    same element stream (runtime/include/capture/rt/initializer.h), so the
    same seed gives the same bits in both. Not torch's generator: the same
    distributions, not the same numbers.

    Stored as `a` (constant: value; uniform: low; normal: mean), `b`
    (uniform: high; normal: std), `fan_in` and `seed`; the fields a kind
    does not use are 0.
  }];
  let parameters = (ins "::capture::ag::InitKind":$kind, Ag_DoubleParam:$a,
                        Ag_DoubleParam:$b, "int64_t":$fan_in,
                        "uint64_t":$seed);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Ag_TargetAttr : AttrDef<Ag_Dialect, "Target"> {
  let mnemonic = "target";
  let summary = "The device kind a module's kernels are shaped for";
  let description = [{
    Set on the `builtin.module` (attribute `ag.target`) by `ag-lower-to-gpu`
    from its `target` preset unless already there; the kernel templates and
    `ag-spirv-texel-reads` read it:
    `#ag.target<read_path = texel, subgroup_size = 8,
    max_texel_elements = 134217728, max_loop_iterations = 65535>`.

    - `read_path`: `texel` reads every read-only f32 kernel input through a
      storage texel buffer (RGBA32F), which CPU Vulkan drivers (llvmpipe)
      load ~20x faster than a storage buffer; `ssbo` keeps storage buffers,
      which GPUs read at full speed.
    - `subgroup_size`: invocations per subgroup the kernels may assume.
    - `max_texel_elements`: the largest texel buffer (in texels) a kernel
      may read through a texel view; larger inputs stay storage buffers.
      The runtime checks the device's `maxTexelBufferElements` at load.
    - `max_loop_iterations`: the most loop iterations one invocation may
      run, all its loops together (0: no limit). llvmpipe ends an
      invocation's loops after 65535 iterations without a word, so
      `ag-bound-kernel-loops` unrolls the loops of a kernel past it, or
      refuses the kernel.
  }];
  let parameters = (ins "::capture::ag::ReadPath":$read_path,
                        "int64_t":$subgroup_size,
                        "int64_t":$max_texel_elements,
                        "int64_t":$max_loop_iterations);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Ag_BufferKindAttr : EnumAttr<Ag_Dialect, Ag_BufferKind, "buffer"> {
  let summary = "Which buffer of a lowered module: `#ag.buffer<scratch>`";
  let assemblyFormat = "`<` $value `>`";
}

def Ag_PlaceAttr : AttrDef<Ag_Dialect, "Place"> {
  let mnemonic = "place";
  let summary = "A byte offset in one buffer of a lowered module";
  let description = [{
    Where `ag-plan-buffers` put a tensor: `#ag.place<scratch, 1024>` is byte
    1024 of the entry's scratch buffer. The buffers are an entry's packed
    `input` and `output`, the module's `weights`, read-only `constants` and
    `optimizer` state (gradients and AdamW moments), and the entry's
    `scratch`.
  }];
  let parameters = (ins "::capture::ag::BufferKind":$buffer,
                        "int64_t":$offset);
  let assemblyFormat = "`<` $buffer `,` $offset `>`";
  let genVerifyDecl = 1;
}

def Ag_BufferPlanAttr : AttrDef<Ag_Dialect, "BufferPlan"> {
  let mnemonic = "buffer_plan";
  let summary = "The module-wide buffers `ag-plan-buffers` laid out";
  let description = [{
    Set on the `builtin.module` (attribute `ag.buffer_plan`):
    `#ag.buffer_plan<alignment = 256, weights = 70400, optimizer = 211200,
    constants = 16>`. `alignment` is the byte alignment of every placed
    tensor (the binding offset alignment); the others are buffer sizes in
    bytes, 0 for a buffer the module does not have.
  }];
  let parameters = (ins "int64_t":$alignment, "int64_t":$weights,
                        "int64_t":$optimizer, "int64_t":$constants);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Ag_ProbeAttr : AttrDef<Ag_Dialect, "Probe"> {
  let mnemonic = "probe";
  let summary = "Where a lowered entry keeps a probed tensor";
  let description = [{
    One element of a lowered entry's `ag.probes`: the buffer and the
    segment (name, shape, element type, byte offset) of an `ag.probe`'s
    tensor, which the runtime reads back on request:
    `#ag.probe<scratch, #ag.segment<"pre", [2, 8], f32, offset = 0>>`.
  }];
  let parameters = (ins "::capture::ag::BufferKind":$buffer,
                        "::capture::ag::SegmentAttr":$segment);
  let assemblyFormat = "`<` $buffer `,` qualified($segment) `>`";
}

def Ag_IndexCheckAttr : AttrDef<Ag_Dialect, "IndexCheck"> {
  let mnemonic = "index_check";
  let summary = "An index status output the runtime checks after a call";
  let description = [{
    One element of an entry's `ag.index_checks` (set by
    `ag-insert-index-checks`): the status output `output` counts the
    indices of input `input` that op `op` (at `loc`) found outside
    [0, `bound`); a call that finds any fails with a message naming them:
    `#ag.index_check<output = "__index_status_0", op = "ag.gather",
    input = "actions", bound = 2, loc = "ppo.py:42">`.
  }];
  let parameters = (ins StringRefParameter<"status output">:$output,
                        StringRefParameter<"the checking op's name">:$op,
                        StringRefParameter<"the indices' input">:$input,
                        "int64_t":$bound,
                        StringRefParameter<"the op's source location">:$loc);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Ag_TrainAttr : AttrDef<Ag_Dialect, "Train"> {
  let mnemonic = "train";
  let summary = "What the runtime needs to drive a lowered training step";
  let description = [{
    On a lowered training entry (attribute `ag.train`, set by
    `ag-lower-to-gpu`): its param pack, its AdamW hyperparameters (`groups`:
    those of param groups 1.., in order), the gradient-norm limit when it
    clips (`max_grad_norm`, with the input `max_grad_norm_input` that
    carries it per step), the input that carries the AdamW values per step
    (`hyper_input`) and the output that returns the gradient norm.
    ```mlir
    #ag.train<pack = @train.params, adamw = #ag.adamw<lr = 1.000000e-02, ...>,
              max_grad_norm = 5.000000e-01 : f32,
              max_grad_norm_input = "max_grad_norm", hyper_input = "adamw",
              grad_norm_output = "grad_norm">
    ```
  }];
  let parameters = (ins
      "::mlir::FlatSymbolRefAttr":$pack,
      "::capture::ag::AdamWAttr":$adamw,
      OptionalParameter<"::mlir::ArrayAttr">:$groups,
      OptionalParameter<"::mlir::FloatAttr">:$max_grad_norm,
      StringRefParameter<"the clipping limit's input", [{""}]>:$max_grad_norm_input,
      StringRefParameter<"the AdamW values' input">:$hyper_input,
      StringRefParameter<"the gradient norm's output">:$grad_norm_output);
  let assemblyFormat = [{
    `<` `pack` `=` $pack `,` `adamw` `=` qualified($adamw) `,`
    (`groups` `=` $groups^ `,`)?
    (`max_grad_norm` `=` $max_grad_norm^ `,`)?
    (`max_grad_norm_input` `=` $max_grad_norm_input^ `,`)?
    `hyper_input` `=` $hyper_input `,`
    `grad_norm_output` `=` $grad_norm_output `>`
  }];
  let genVerifyDecl = 1;
}

def Ag_TwoPassAttr : AttrDef<Ag_Dialect, "TwoPass"> {
  let mnemonic = "two_pass";
  let summary = "A kernel configuration: a full reduction in two passes";
  let description = [{
    Set by `ag-configure-kernels` as the `ag.kernel_config` of a full
    reduction (`ag.sum`, `ag.mean` or `ag.max` without an axis, or a
    reduction dispatch region whose reduction has none): `parts`
    invocations each reduce `chunk` consecutive elements into a partial,
    then one reduces the partials. `ag-plan-buffers` places the partials
    and `ag-lower-to-gpu` emits the two kernels from it:
    `ag.kernel_config = #ag.two_pass<chunk = 256, parts = 68>`.
    `chunk` is a multiple of 4 (whole vec4s); the parts cover the reduced
    elements exactly (the last one may hold fewer).
  }];
  let parameters = (ins "int64_t":$chunk, "int64_t":$parts);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // CAPTURE_DIALECT_AG_IR_AGATTRIBUTES_TD
