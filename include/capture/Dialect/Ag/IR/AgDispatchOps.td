//===- AgDispatchOps.td - Dispatch regions ------------------*- tablegen -*-===//
//
// Included by AgOps.td: the ops `ag-form-dispatch-regions` creates. Each
// dispatch region becomes exactly one kernel.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_DIALECT_AG_IR_AGDISPATCHOPS_TD
#define CAPTURE_DIALECT_AG_IR_AGDISPATCHOPS_TD

def Ag_DispatchKind : I32EnumAttr<"DispatchKind", "what a dispatch region computes", [
    I32EnumAttrCase<"elementwise", 0>, I32EnumAttrCase<"matmul", 1>,
    I32EnumAttrCase<"reduction", 2>]> {
  let cppNamespace = "::capture::ag";
}

def Ag_DispatchRegionOp : Ag_Op<"dispatch_region", [
    Ag_CompilerMade, IsolatedFromAbove, Pure, SingleBlock]> {
  let summary = "A group of ops that runs as one kernel";
  let description = [{
    The body computes the result from the block arguments, which are the
    `ins` values in order; nothing else from outside is visible (splat
    constants are cloned in). The lowering emits one kernel per region.

    `elementwise`: every body op is an elementwise op (broadcasting allowed
    for the inputs) or a splat `ag.constant`, and every op's result has the
    region's result shape or a single element (a scalar recomputed for
    each output element), so each output element is computed from the
    inputs' elements at the broadcast indices with no intermediate ever
    stored.

    `matmul`: the first op (after splat constants) is an `ag.matmul` of two
    block arguments whose result has the region's shape, followed by an
    elementwise epilogue as above (a bias add and an activation, say): the
    matmul's accumulators never leave registers. A matmul with `transpose_a`
    may have a second result: `ag.sum %lhs axis = 0` of its left operand
    (the bias gradient beside a weight gradient Xᵀ·dY), summed by the tiles
    of the first column while they read it.

    `reduction`: elementwise producers of the reduction input's shape (or a
    single element), then one `ag.sum`, `ag.mean` or `ag.max`, then an
    optional elementwise epilogue of the reduced value and splat constants:
    the reduced tensor is computed element by element inside the
    reduction's loop and never stored (the sum of squares of a global
    gradient norm, say, with its sqrt as the epilogue).
    ```mlir
    %h = ag.dispatch_region elementwise ins(%mm, %b : tensor<64x64xf32>, tensor<64xf32>) -> tensor<64x64xf32> {
    ^bb0(%x: tensor<64x64xf32>, %y: tensor<64xf32>):
      %z = ag.add %x, %y : (tensor<64x64xf32>, tensor<64xf32>) -> tensor<64x64xf32>
      %t = ag.tanh %z : tensor<64x64xf32>
      ag.yield %t : tensor<64x64xf32>
    }
    ```
  }];
  let arguments = (ins Ag_DispatchKind:$kind,
                       Variadic<AnyRankedTensor>:$inputs);
  let results = (outs Variadic<Ag_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $kind `ins` `(` $inputs `:` type($inputs) `)` `->` type($results)
    attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    /// A region whose block has one argument per input; the caller fills
    /// the body, ending with ag.yield.
    OpBuilder<(ins "::capture::ag::DispatchKind":$kind,
                   "::mlir::ValueRange":$inputs, "::mlir::TypeRange":$results)>,
  ];
  let extraClassDeclaration = [{
    /// The body's only block.
    ::mlir::Block &getBlock() { return getBody().front(); }
    /// The value the body yields for the first result (the only one, but
    /// for a matmul region with column sums).
    ::mlir::Value getYielded();
    /// The column sums of a matmul region's transposed left operand (its
    /// second result, the bias gradient of a weight gradient), as the body
    /// yields them; null when it has none.
    ::mlir::Value getYieldedSums();
    /// The matmul of a `matmul` region; null for other kinds.
    ::capture::ag::MatmulOp getMatmul();
    /// The ag.sum, ag.mean or ag.max of a `reduction` region; null for
    /// other kinds.
    ::mlir::Operation *getReduction();
  }];
}

def Ag_WorkgroupRegionOp : Ag_Op<"workgroup_region", [
    Ag_CompilerMade, IsolatedFromAbove, Pure, SingleBlock]> {
  let summary = "Small whole-tensor ops that run as one kernel in one workgroup";
  let description = [{
    A loss head: a chain of elementwise ops, reshapes, `ag.one_hot`,
    reductions (`ag.sum`, `ag.mean`, `ag.max`, any axis), `ag.mse`,
    `ag.softmax`, `ag.log_softmax` and `ag.cross_entropy` over small
    tensors, with any number of results. It runs as ONE kernel of one
    workgroup, instead of a kernel per reduction or per elementwise chain:
    every reduction, softmax and loss is a stage whose result is stored (in
    its result binding when the region yields it, else in a scratch
    binding), separated from the next by a workgroup barrier; everything
    else is recomputed per element from the inputs and the stored stages, in
    registers. Labels (`ag.one_hot`'s operand, `ag.cross_entropy`'s second)
    are read from memory, so they must be block arguments. The body sees
    only its block arguments, the `ins` values in order.
    ```mlir
    %loss, %grad = ag.workgroup_region ins(%z, %t : tensor<64xf32>, tensor<64xf32>) -> (tensor<f32>, tensor<64xf32>) {
    ^bb0(%a: tensor<64xf32>, %b: tensor<64xf32>):
      %l = ag.mse %a, %b : (tensor<64xf32>, tensor<64xf32>) -> tensor<f32>
      %d = ag.sub %a, %b : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
      %g = ag.mul %d, %l : (tensor<64xf32>, tensor<f32>) -> tensor<64xf32>
      ag.yield %l, %g : tensor<f32>, tensor<64xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs);
  let results = (outs Variadic<Ag_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `ins` `(` $inputs `:` type($inputs) `)` `->` `(` type($results) `)`
    attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    /// A region whose block has one argument per input; the caller fills
    /// the body, ending with ag.yield.
    OpBuilder<(ins "::mlir::ValueRange":$inputs,
                   "::mlir::TypeRange":$results)>,
  ];
  let extraClassDeclaration = [{
    /// The body's only block.
    ::mlir::Block &getBlock() { return getBody().front(); }
    /// The values the body yields, one per result.
    ::mlir::ValueRange getYielded();
    /// The stage results the body does not yield, in body order: each is
    /// stored in a scratch range of its own (`ag.stages`) while the region
    /// runs.
    ::llvm::SmallVector<::mlir::Value> getUnyieldedStages();
    /// Whether `op` may be in a workgroup region's body.
    static bool isMember(::mlir::Operation *op);
    /// Whether `op` is a stage of the region: a reduction, loss or softmax
    /// whose result is stored before the ops after it read it.
    static bool isStage(::mlir::Operation *op);
    /// The i32 labels a member reads (ag.one_hot's operand,
    /// ag.cross_entropy's second), or null: the kernel loads them, so they
    /// are region inputs.
    static ::mlir::Value labelsOf(::mlir::Operation *op);
  }];
}

def Ag_BarrierOp : Ag_Op<"barrier", [
    Ag_CompilerMade, MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "A dependency between the dispatches of a replay schedule";
  let description = [{
    In a lowered entry's schedule (a `func.func` of `gpu.launch_func`s), every
    launch after an `ag.barrier` sees the writes of every launch before it:
    the module writer serializes it as a Barrier command (a compute ->
    compute memory and execution barrier). `ag-insert-barriers` places them
    exactly where a launch would read or write a range that a launch since
    the last barrier writes, or write one it reads.
    ```mlir
    gpu.launch_func @k0::@k0 blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%a : memref<64xf32>, %h : memref<64xf32>)
    ag.barrier
    gpu.launch_func @k1::@k1 blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%h : memref<64xf32>, %y : memref<64xf32>)
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Ag_BindingOp : Ag_Op<"binding", [
    Ag_CompilerMade, Pure]> {
  let summary = "A typed byte range of one buffer, bound as a kernel argument";
  let description = [{
    In a lowered entry's schedule, every `gpu.launch_func` argument is an
    `ag.binding`: the range of one of the entry's buffers (its packed
    `input` and `output`, its `scratch`, the module's `weights`,
    `constants` and `optimizer` state) that the kernel sees, typed by the
    memref the kernel takes. The place is the range's start; its size is the
    memref's bytes. `ag-insert-barriers` and the module writer read these
    ranges as they are, never by following SSA values back to a buffer.
    ```mlir
    %x = ag.binding <input, 256> : memref<64xf32>
    %h = ag.binding <scratch, 0> : memref<16xvector<4xf32>>
    gpu.launch_func @k0::@k0 blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%x : memref<64xf32>, %h : memref<16xvector<4xf32>>)
    ```
    The range starts at a multiple of the module's `#ag.buffer_plan`
    alignment (when it has one) and ends inside its buffer where the size
    of that buffer is known here: the entry's `input` and `output` (its two
    arguments) and the plan's `weights`, `optimizer` and `constants`.
  }];
  let arguments = (ins Ag_PlaceAttr:$place);
  let results = (outs AnyStaticShapeMemRef:$result);
  let assemblyFormat = "$place attr-dict `:` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The buffer the range is in.
    ::capture::ag::BufferKind getBuffer() { return getPlace().getBuffer(); }
    /// The range's first byte in its buffer.
    int64_t getOffset() { return getPlace().getOffset(); }
    /// The range's bytes: the memref's.
    int64_t getByteSize();
  }];
}

def Ag_YieldOp : Ag_Op<"yield", [
    Pure, ParentOneOf<["DispatchRegionOp", "WorkgroupRegionOp"]>, Terminator,
    ReturnLike]> {
  let summary = "The values a region computes";
  let arguments = (ins Variadic<Ag_Tensor>:$values);
  let assemblyFormat = "$values attr-dict `:` type($values)";
}

#endif // CAPTURE_DIALECT_AG_IR_AGDISPATCHOPS_TD
