//===- AgOps.td - ag dialect operations ---------------------*- tablegen -*-===//

#ifndef CAPTURE_DIALECT_AG_IR_AGOPS_TD
#define CAPTURE_DIALECT_AG_IR_AGOPS_TD

include "capture/Dialect/Ag/IR/AgDialect.td"
include "capture/Dialect/Ag/IR/AgAttributes.td"
include "capture/Dialect/Ag/IR/AgInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/EnumAttr.td"
include "capture/Dialect/Ag/IR/AgEnums.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

/// Every ag op refuses attributes it does not define (AgOps.h).
def Ag_KnownAttributes : NativeOpTrait<"KnownAttributes"> {
  let cppNamespace = "::capture::ag::OpTrait";
}

/// Ops the compiler's passes make, never a tracer: the guard refuses them
/// in the pipeline's input (ag-verify-capture).
def Ag_CompilerMade : NativeOpTrait<"CompilerMade"> {
  let cppNamespace = "::capture::ag::OpTrait";
}

class Ag_Op<string mnemonic, list<Trait> traits = []>
    : Op<Ag_Dialect, mnemonic, !listconcat(traits, [Ag_KnownAttributes])>;

/// Ops `ag-autodiff` differentiates through (AgVJP.cpp).
defvar Ag_Differentiable =
    DeclareOpInterfaceMethods<Ag_DifferentiableOpInterface>;

/// Tensors that compute ops take and produce: f32, ranked (static shapes are
/// checked by the verifiers, with a message naming the dynamic dimension).
def Ag_Tensor : RankedTensorOf<[F32]>;
/// Integer index tensors (class labels, row indices).
def Ag_IndexTensor : RankedTensorOf<[I32]>;
/// A packed I/O buffer: bytes.
def Ag_ByteBuffer : 1DTensorOf<[I8]>;

include "capture/Dialect/Ag/IR/AgEntryOps.td"

//===----------------------------------------------------------------------===//
// Compute ops
//===----------------------------------------------------------------------===//

def Ag_ConstantOp : Ag_Op<"constant", [ConstantLike, Pure,
                                       AllTypesMatch<["value", "result"]>]> {
  let summary = "A data-independent constant tensor";
  let description = [{
    ```mlir
    %c = ag.constant dense<1.0> : tensor<2xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Ag_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

class Ag_BinaryOp<string mnemonic, string torchName>
    : Ag_Op<mnemonic, [Pure, Ag_Differentiable]> {
  let summary = "Elementwise " # torchName # " with numpy-style broadcasting";
  let description = [{
    Shapes are aligned on their trailing dimensions; a dimension of size 1
    (or a missing one) is broadcast. The result has the broadcast shape.
    ```mlir
    %y = ag.}] # mnemonic # [{ %a, %b : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
    ```
  }];
  let arguments = (ins Ag_Tensor:$lhs, Ag_Tensor:$rhs);
  let results = (outs Ag_Tensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

/// A binary op whose f32 result is correctly rounded (IEEE 754), so that a
/// fold on the host gives the device's bits: splat constants fold.
class Ag_ExactBinaryOp<string mnemonic, string torchName>
    : Ag_BinaryOp<mnemonic, torchName> {
  let hasFolder = 1;
}

def Ag_AddOp : Ag_ExactBinaryOp<"add", "a + b">;
def Ag_SubOp : Ag_ExactBinaryOp<"sub", "a - b">;
def Ag_MulOp : Ag_ExactBinaryOp<"mul", "a * b">;
def Ag_DivOp : Ag_ExactBinaryOp<"div", "a / b">;
def Ag_MinimumOp : Ag_BinaryOp<"minimum", "min(a, b) (NaN propagates)">;
def Ag_MaximumOp : Ag_BinaryOp<"maximum", "max(a, b) (NaN propagates)">;

class Ag_UnaryOp<string mnemonic, string math>
    : Ag_Op<mnemonic, [Pure, SameOperandsAndResultType, Ag_Differentiable]> {
  let summary = "Elementwise " # math;
  let arguments = (ins Ag_Tensor:$operand);
  let results = (outs Ag_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Ag_NegOp : Ag_UnaryOp<"neg", "-x"> {
  // Exact: a splat constant folds.
  let hasFolder = 1;
}
def Ag_ExpOp : Ag_UnaryOp<"exp", "exp(x)">;
def Ag_LogOp : Ag_UnaryOp<"log", "log(x)">;
def Ag_TanhOp : Ag_UnaryOp<"tanh", "tanh(x)">;
def Ag_SigmoidOp : Ag_UnaryOp<"sigmoid", "1 / (1 + exp(-x))">;
def Ag_ReluOp : Ag_UnaryOp<"relu", "max(x, 0) (NaN stays NaN)">;
def Ag_SqrtOp : Ag_UnaryOp<"sqrt", "sqrt(x)">;
def Ag_SquareOp : Ag_UnaryOp<"square", "x * x">;
/// torch.floor and torch.ceil: NaN and +-inf pass through; the gradient is
/// zero, as PyTorch's.
def Ag_FloorOp : Ag_UnaryOp<"floor", "floor(x) (round toward -inf)">;
def Ag_CeilOp : Ag_UnaryOp<"ceil", "ceil(x) (round toward +inf)">;
/// torch.erf, for the exact GELU 0.5 * x * (1 + erf(x / sqrt(2))).
def Ag_ErfOp : Ag_UnaryOp<"erf", "erf(x), the error function">;

def Ag_MatmulOp : Ag_Op<"matmul", [Pure, Ag_Differentiable]> {
  let summary = "2-D matrix product with optional transposes";
  let description = [{
    `op(a) @ op(b)` where `op` transposes when `transpose_a` /
    `transpose_b` is set: `[M, K] x [K, N] -> [M, N]`.
    ```mlir
    %y = ag.matmul %x, %w {transpose_b} : (tensor<2x4xf32>, tensor<8x4xf32>) -> tensor<2x8xf32>
    ```
  }];
  let arguments = (ins Ag_Tensor:$lhs, Ag_Tensor:$rhs,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b);
  let results = (outs Ag_Tensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

class Ag_ReductionOp<string mnemonic, string what>
    : Ag_Op<mnemonic, [Pure, Ag_Differentiable]> {
  let summary = what # " over all elements or along one axis";
  let description = [{
    Without `axis` the result is a rank-0 tensor (or all ones with
    `keepdim`). With `axis` (negative counts from the end, as in PyTorch)
    that dimension is removed, or kept as 1 with `keepdim`.
    ```mlir
    %s = ag.}] # mnemonic # [{ %x axis = 1 : tensor<2x8xf32> -> tensor<2xf32>
    ```
  }];
  let arguments = (ins Ag_Tensor:$input, OptionalAttr<I64Attr>:$axis,
                       UnitAttr:$keepdim);
  let results = (outs Ag_Tensor:$result);
  let assemblyFormat = [{
    $input (`axis` `=` $axis^)? (`keepdim` $keepdim^)? attr-dict `:`
    type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The reduced axis in [0, rank), or nullopt for a full reduction.
    /// Only valid on a verified op.
    std::optional<int64_t> getNormalizedAxis();
  }];
}

def Ag_SumOp : Ag_ReductionOp<"sum", "Sum">;
def Ag_MeanOp : Ag_ReductionOp<"mean", "Mean">;
def Ag_MaxOp : Ag_ReductionOp<"max", "Maximum (NaN propagates)">;

def Ag_ClampOp : Ag_Op<"clamp", [Pure, SameOperandsAndResultType, Ag_Differentiable]> {
  let summary = "Elementwise clamp into [min, max] (NaN stays NaN)";
  let description = [{
    `torch.clamp(x, min, max)`.
    ```mlir
    %y = ag.clamp %x min = 0.8 max = 1.2 : tensor<64xf32>
    ```
  }];
  let arguments = (ins Ag_Tensor:$operand, F32Attr:$min, F32Attr:$max);
  let results = (outs Ag_Tensor:$result);
  let assemblyFormat =
      "$operand `min` `=` $min `max` `=` $max attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Ag_BroadcastToOp : Ag_Op<"broadcast_to", [Pure, Ag_Differentiable]> {
  let summary = "Broadcasts a tensor to a larger shape (numpy rules)";
  let description = [{
    ```mlir
    %y = ag.broadcast_to %b : tensor<8xf32> -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Ag_Tensor:$input);
  let results = (outs Ag_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  // A splat constant input folds to a splat of the result's shape.
  let hasFolder = 1;
}

def Ag_ReshapeOp : Ag_Op<"reshape", [Pure, Ag_Differentiable]> {
  let summary = "Same elements in row-major order, another shape";
  let arguments = (ins Ag_Tensor:$input);
  let results = (outs Ag_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  // A splat constant input folds to a splat of the result's shape.
  let hasFolder = 1;
}

def Ag_TransposeOp : Ag_Op<"transpose", [Pure, Ag_Differentiable]> {
  let summary = "Permutes dimensions: result dim i is input dim permutation[i]";
  let description = [{
    ```mlir
    %y = ag.transpose %x permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins Ag_Tensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs Ag_Tensor:$result);
  let assemblyFormat = [{
    $input `permutation` `=` $permutation attr-dict `:` type($input) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def Ag_ConcatOp : Ag_Op<"concat", [Pure, Ag_Differentiable]> {
  let summary = "Concatenates tensors along one axis";
  let description = [{
    ```mlir
    %y = ag.concat %a, %b axis = 1 : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
    ```
  }];
  let arguments = (ins Variadic<Ag_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Ag_Tensor:$result);
  let assemblyFormat = [{
    $inputs `axis` `=` $axis attr-dict `:` functional-type($inputs, $result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The axis in [0, rank). Only valid on a verified op.
    int64_t getNormalizedAxis();
  }];
}

def Ag_SliceOp : Ag_Op<"slice", [Pure, Ag_Differentiable]> {
  let summary = "The elements [start, end) of one axis";
  let description = [{
    `x[..., start:end, ...]` along `axis` (negative counts from the end).
    ```mlir
    %y = ag.slice %x axis = 1 start = 2 end = 5 : tensor<2x8xf32> -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Ag_Tensor:$input, I64Attr:$axis, I64Attr:$start,
                       I64Attr:$end);
  let results = (outs Ag_Tensor:$result);
  let assemblyFormat = [{
    $input `axis` `=` $axis `start` `=` $start `end` `=` $end attr-dict `:`
    type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The axis in [0, rank). Only valid on a verified op.
    int64_t getNormalizedAxis();
  }];
}

class Ag_SoftmaxLikeOp<string mnemonic, string what>
    : Ag_Op<mnemonic, [Pure, SameOperandsAndResultType, Ag_Differentiable]> {
  let summary = what # " along one axis (numerically stable)";
  let arguments = (ins Ag_Tensor:$input, I64Attr:$axis);
  let results = (outs Ag_Tensor:$result);
  let assemblyFormat = "$input `axis` `=` $axis attr-dict `:` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The axis in [0, rank). Only valid on a verified op.
    int64_t getNormalizedAxis();
  }];
}

def Ag_SoftmaxOp : Ag_SoftmaxLikeOp<"softmax", "torch.softmax">;
def Ag_LogSoftmaxOp : Ag_SoftmaxLikeOp<"log_softmax", "torch.log_softmax">;

def Ag_CrossEntropyOp : Ag_Op<"cross_entropy", [Pure, Ag_Differentiable]> {
  let summary = "Mean softmax cross-entropy of logits against integer labels";
  let description = [{
    `torch.nn.functional.cross_entropy(logits, labels)` with the default
    mean reduction: logits `[B, C]`, labels `[B]` (i32 in [0, C)), result a
    rank-0 tensor.
    ```mlir
    %l = ag.cross_entropy %logits, %labels : (tensor<128x10xf32>, tensor<128xi32>) -> tensor<f32>
    ```
  }];
  let arguments = (ins Ag_Tensor:$logits, Ag_IndexTensor:$labels);
  let results = (outs Ag_Tensor:$result);
  let assemblyFormat =
      "$logits `,` $labels attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Ag_MseOp : Ag_Op<"mse", [Pure, Ag_Differentiable]> {
  let summary = "Mean squared error of two tensors of one shape";
  let description = [{
    `torch.nn.functional.mse_loss(a, b)`: `mean((a - b)^2)`, rank-0 result.
    ```mlir
    %l = ag.mse %v, %ret : (tensor<64xf32>, tensor<64xf32>) -> tensor<f32>
    ```
  }];
  let arguments = (ins Ag_Tensor:$lhs, Ag_Tensor:$rhs);
  let results = (outs Ag_Tensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Ag_GetRowsOp : Ag_Op<"get_rows", [Pure, Ag_Differentiable]> {
  let summary = "Rows of a table picked by integer indices (embedding lookup)";
  let description = [{
    `table[indices]`: table `[V, D]` (a weight, trainable or frozen), indices
    `[N]` (i32 in [0, V)), result `[N, D]`.
    ```mlir
    %e = ag.get_rows %table, %ids : (tensor<1000x16xf32>, tensor<32xi32>) -> tensor<32x16xf32>
    ```
  }];
  let arguments = (ins Ag_Tensor:$table, Ag_IndexTensor:$indices);
  let results = (outs Ag_Tensor:$result);
  let assemblyFormat =
      "$table `,` $indices attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

/// The module's weights and optimizer state (WeightsResource in AgOps.h).
def Ag_WeightsResource : Resource<"::capture::ag::WeightsResource">;

def Ag_ReadWeightOp : Ag_Op<"read_weight", [
    MemoryEffects<[MemRead<Ag_WeightsResource>]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Reads the current value of a module weight";
  let description = [{
    Reads the weight as it is at this point of the entry: a read after an
    `ag.apply_adamw` of the weight's pack sees the updated value, so
    rewrites never merge two reads with an update between them (the op
    reads the module's weight state, which the update writes). An unused
    read is dead.
  }];
  let arguments = (ins FlatSymbolRefAttr:$weight);
  let results = (outs Ag_Tensor:$result);
  let assemblyFormat = "$weight attr-dict `:` type($result)";
}

def Ag_AssignWeightOp : Ag_Op<"assign_weight", [
    MemoryEffects<[MemWrite<Ag_WeightsResource>]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Writes a new value into a module weight";
  let description = [{
    Replaces the weight's value with `value`, which every later entry reads
    (a target network's soft update `t = tau * p + (1 - tau) * t`, or its
    hard copy). Only a forward entry assigns, each weight at most once; the
    entry's reads of the weight must come before the assign, since a
    compiled entry writes every assigned weight at its end, after all its
    other work (the interpreter writes it here, which agrees exactly then).
    ```mlir
    %t = ag.read_weight @target.w : tensor<4x8xf32>
    ...
    ag.assign_weight @target.w, %new : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$weight, Ag_Tensor:$value);
  let assemblyFormat = "$weight `,` $value attr-dict `:` type($value)";
  let hasVerifier = 1;
}

def Ag_ProbeOp : Ag_Op<"probe", [SameOperandsAndResultType,
                                 Ag_Differentiable]> {
  let summary = "Marks an intermediate a caller may read back by name";
  let description = [{
    Returns its operand unchanged. Not `Pure`: a probe stays in the graph
    even when nothing uses its result.
    ```mlir
    %h = ag.probe "hidden" %t : tensor<2x8xf32>
    ```
  }];
  let arguments = (ins StrAttr:$probe_name, Ag_Tensor:$input);
  let results = (outs Ag_Tensor:$result);
  let assemblyFormat = "$probe_name $input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Ag_StopGradientOp : Ag_Op<"stop_gradient", [
    Pure, SameOperandsAndResultType, Ag_Differentiable]> {
  let summary = "Identity in value; the gradient does not flow through it";
  let description = [{
    Returns its operand unchanged, but autodiff gives it no vector-Jacobian
    product: nothing flows back to its operand, which counts as a constant
    for the loss (PyTorch's `x.detach()` and the ops of a
    `with torch.no_grad():` block). A trainable weight that the loss reaches
    only through it gets no gradient, like a weight the loss does not read.

    It exists only for `ag-autodiff`: no fold or canonicalization removes
    it, and `ag-autodiff` erases every one (in forward entries too),
    replacing its result with its operand, once the gradients are built. No
    kernel computes it: the lowering refuses one that survives.
    ```mlir
    %d = ag.stop_gradient %w : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Ag_Tensor:$input);
  let results = (outs Ag_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Ops the backward pass uses (no gradient of their own)
//===----------------------------------------------------------------------===//

def Ag_ComparePredicate : I32EnumAttr<"ComparePredicate", "comparison", [
    I32EnumAttrCase<"eq", 0>, I32EnumAttrCase<"ne", 1>,
    I32EnumAttrCase<"lt", 2>, I32EnumAttrCase<"le", 3>,
    I32EnumAttrCase<"gt", 4>, I32EnumAttrCase<"ge", 5>]> {
  let cppNamespace = "::capture::ag";
}

def Ag_CompareOp : Ag_Op<"compare", [Pure]> {
  let summary = "Elementwise comparison as a 0/1 f32 mask (broadcasting)";
  let description = [{
    1.0 where `lhs <predicate> rhs` holds, else 0.0 (NaN compares false,
    except for `ne`). The backward pass builds masks with it (relu, clamp,
    ties of min/max).
    ```mlir
    %m = ag.compare lt, %a, %b : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Ag_ComparePredicate:$predicate, Ag_Tensor:$lhs,
                       Ag_Tensor:$rhs);
  let results = (outs Ag_Tensor:$result);
  let assemblyFormat = [{
    $predicate `,` $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Ag_OneHotOp : Ag_Op<"one_hot", [Pure]> {
  let summary = "Integer labels [B] as one-hot rows [B, C] (f32)";
  let arguments = (ins Ag_IndexTensor:$labels);
  let results = (outs Ag_Tensor:$result);
  let assemblyFormat = "$labels attr-dict `:` type($labels) `->` type($result)";
  let hasVerifier = 1;
}

def Ag_ScatterAddRowsOp : Ag_Op<"scatter_add_rows", [Pure]> {
  let summary = "Sums rows [N, D] into a zero table [V, D] at integer indices";
  let description = [{
    `out = zeros(V, D); out[indices[i]] += updates[i]`: the gradient of
    `ag.get_rows` with respect to its table (repeated indices accumulate).
    ```mlir
    %g = ag.scatter_add_rows %updates, %ids : (tensor<32x16xf32>, tensor<32xi32>) -> tensor<1000x16xf32>
    ```
  }];
  let arguments = (ins Ag_Tensor:$updates, Ag_IndexTensor:$indices);
  let results = (outs Ag_Tensor:$result);
  let assemblyFormat =
      "$updates `,` $indices attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Ag_CheckIndicesOp : Ag_Op<"check_indices", [Ag_CompilerMade, Pure]> {
  let summary = "Finds the first index outside [0, bound) (a device status)";
  let description = [{
    Inserted by `ag-insert-index-checks` for every index operand of
    `ag.cross_entropy`, `ag.get_rows`, `ag.one_hot` and
    `ag.scatter_add_rows`, whose kernels clamp what is out of range:
    `status = [p, v]` with `p` the first position whose index `v` is
    outside `[0, bound)`, or `[-1, 0]` when all are inside; `poison` is NaN
    when one is outside, else 0. `op` names the indexing op for the
    runtime's message.
    ```mlir
    %status, %poison = ag.check_indices %labels {bound = 10 : i64, op = "ag.cross_entropy"} : tensor<128xi32> -> (tensor<2xi32>, tensor<f32>)
    ```
  }];
  let arguments = (ins Ag_IndexTensor:$indices, I64Attr:$bound, StrAttr:$op);
  let results = (outs Ag_IndexTensor:$status, Ag_Tensor:$poison);
  let assemblyFormat =
      "$indices attr-dict `:` type($indices) `->` `(` type($status) `,` type($poison) `)`";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Host-interaction ops (recorded by tracers; rejected by the capture guard)
//===----------------------------------------------------------------------===//

def Ag_UploadOp : Ag_Op<"upload", [
    MemoryEffects<[MemRead<DefaultResource>]>]> {
  let summary = "A host-to-device upload recorded during the trace";
  let description = [{
    Host data uploaded while tracing would be frozen into every replay, so
    the guard rejects it, unless `constant` marks the data as independent
    of the step's inputs (e.g. the backward seed 1.0), in which case its
    `value` is required and it behaves like `ag.constant`.
    ```mlir
    %u = ag.upload : tensor<2x4xf32>
    %one = ag.upload constant : tensor<f32> = dense<1.0>
    ```
  }];
  let arguments = (ins UnitAttr:$constant, OptionalAttr<ElementsAttr>:$value);
  let results = (outs Ag_Tensor:$result);
  let assemblyFormat =
      "(`constant` $constant^)? `:` type($result) custom<InitialValue>(ref(type($result)), $value) attr-dict";
  let hasVerifier = 1;
}

def Ag_DownloadOp : Ag_Op<"download", [
    MemoryEffects<[MemWrite<DefaultResource>]>]> {
  let summary = "A device-to-host read-back recorded during the trace";
  let arguments = (ins Ag_Tensor:$input);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Ag_EagerOp : Ag_Op<"eager", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "An op launched eagerly (outside the graph) during the trace";
  let arguments = (ins StrAttr:$kernel, Variadic<AnyRankedTensor>:$inputs);
  let results = (outs Variadic<AnyRankedTensor>:$outputs);
  let assemblyFormat = [{
    $kernel `(` $inputs `)` attr-dict `:` functional-type($inputs, $outputs)
  }];
}

//===----------------------------------------------------------------------===//
// Packed I/O (produced by ag-pack-io)
//===----------------------------------------------------------------------===//

def Ag_InputViewOp : Ag_Op<"input_view", [Ag_CompilerMade, Pure]> {
  let summary = "A named input as a view of the packed input buffer";
  let description = [{
    ```mlir
    %x = ag.input_view %in[256] : tensor<512xi8> -> tensor<2x4xf32>
    ```
  }];
  let arguments = (ins Ag_ByteBuffer:$buffer, I64Attr:$offset);
  let results = (outs AnyTypeOf<[Ag_Tensor, Ag_IndexTensor]>:$result);
  let assemblyFormat =
      "$buffer `[` $offset `]` attr-dict `:` type($buffer) `->` type($result)";
  let hasVerifier = 1;
}

def Ag_PackOutputsOp : Ag_Op<"pack_outputs", [Ag_CompilerMade, Pure]> {
  let summary = "Places every output at its offset of the packed output buffer";
  let description = [{
    ```mlir
    %out = ag.pack_outputs %y[0], %h[256] : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<320xi8>
    ```
  }];
  let arguments = (ins Variadic<AnyTypeOf<[Ag_Tensor, Ag_IndexTensor]>>:$outputs,
                       DenseI64ArrayAttr:$offsets);
  let results = (outs Ag_ByteBuffer:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

include "capture/Dialect/Ag/IR/AgTrainingOps.td"
include "capture/Dialect/Ag/IR/AgDispatchOps.td"

#endif // CAPTURE_DIALECT_AG_IR_AGOPS_TD

