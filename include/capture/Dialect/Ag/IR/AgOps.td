//===- AgOps.td - ag dialect operations ---------------------*- tablegen -*-===//

#ifndef CAPTURE_DIALECT_AG_IR_AGOPS_TD
#define CAPTURE_DIALECT_AG_IR_AGOPS_TD

include "capture/Dialect/Ag/IR/AgDialect.td"
include "capture/Dialect/Ag/IR/AgAttributes.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

class Ag_Op<string mnemonic, list<Trait> traits = []>
    : Op<Ag_Dialect, mnemonic, traits>;

/// Tensors that compute ops take and produce: f32, ranked (static shapes are
/// checked by the verifiers, with a message naming the dynamic dimension).
def Ag_Tensor : RankedTensorOf<[F32]>;
/// A packed I/O buffer: bytes.
def Ag_ByteBuffer : 1DTensorOf<[I8]>;

//===----------------------------------------------------------------------===//
// Module-level state and entry points
//===----------------------------------------------------------------------===//

def Ag_WeightOp : Ag_Op<"weight", [Symbol, HasParent<"::mlir::ModuleOp">]> {
  let summary = "A resident device tensor shared by every entry of the module";
  let description = [{
    ```mlir
    ag.weight @w1 trainable : tensor<4x8xf32>
    ag.weight @b1 : tensor<8xf32> = dense<0.5>
    ```
    A weight without an initial value starts as zeros. `trainable` marks it
    for the optimizer of training steps; forward entries only read it.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       UnitAttr:$trainable,
                       TypeAttrOf<Ag_Tensor>:$type,
                       OptionalAttr<ElementsAttr>:$initial_value);
  let assemblyFormat = [{
    $sym_name (`trainable` $trainable^)? `:` $type
    custom<InitialValue>(ref($type), $initial_value) attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The weight's tensor type.
    ::mlir::RankedTensorType getTensorType() {
      return ::llvm::cast<::mlir::RankedTensorType>(getType());
    }
  }];
}

def Ag_ForwardOp : Ag_Op<"forward", [
    FunctionOpInterface, IsolatedFromAbove, Symbol,
    HasParent<"::mlir::ModuleOp">]> {
  let summary = "A forward capture: named inputs to named outputs";
  let description = [{
    ```mlir
    ag.forward @predict(%x: tensor<2x4xf32> {ag.name = "x"})
        -> (tensor<2x8xf32> {ag.name = "y"}) {
      ...
      ag.return %y : tensor<2x8xf32>
    }
    ```
    Every input and output carries a unique `ag.name`; these are the names
    the runtime uses. After `ag-pack-io` the entry takes one byte buffer and
    returns one, and `ag.input_layout` / `ag.output_layout` record where each
    named tensor lives.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// FunctionOpInterface: the argument types.
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    /// FunctionOpInterface: the result types.
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
    /// CallableOpInterface: the body.
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    /// Name given to input `i` (`ag.name`), or empty.
    ::llvm::StringRef getInputName(unsigned i);
    /// Name given to output `i` (`ag.name`), or empty.
    ::llvm::StringRef getOutputName(unsigned i);
    /// Whether `ag-pack-io` has run on this entry.
    bool isPacked();
    /// Attribute names used on entries.
    static ::llvm::StringRef getNameAttrName() { return "ag.name"; }
    static ::llvm::StringRef getInputLayoutAttrName() { return "ag.input_layout"; }
    static ::llvm::StringRef getOutputLayoutAttrName() { return "ag.output_layout"; }
  }];
}

def Ag_ReturnOp : Ag_Op<"return", [Pure, HasParent<"ForwardOp">, Terminator,
                                   ReturnLike]> {
  let summary = "Returns an entry's outputs";
  let arguments = (ins Variadic<AnyRankedTensor>:$operands);
  let assemblyFormat = "attr-dict ($operands^ `:` type($operands))?";
  let hasVerifier = 1;
}

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
    : Ag_Op<mnemonic, [Pure]> {
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

def Ag_AddOp : Ag_BinaryOp<"add", "a + b">;
def Ag_SubOp : Ag_BinaryOp<"sub", "a - b">;
def Ag_MulOp : Ag_BinaryOp<"mul", "a * b">;
def Ag_DivOp : Ag_BinaryOp<"div", "a / b">;

class Ag_UnaryOp<string mnemonic, string math>
    : Ag_Op<mnemonic, [Pure, SameOperandsAndResultType]> {
  let summary = "Elementwise " # math;
  let arguments = (ins Ag_Tensor:$operand);
  let results = (outs Ag_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Ag_NegOp : Ag_UnaryOp<"neg", "-x">;
def Ag_ExpOp : Ag_UnaryOp<"exp", "exp(x)">;
def Ag_LogOp : Ag_UnaryOp<"log", "log(x)">;
def Ag_TanhOp : Ag_UnaryOp<"tanh", "tanh(x)">;
def Ag_SigmoidOp : Ag_UnaryOp<"sigmoid", "1 / (1 + exp(-x))">;
def Ag_ReluOp : Ag_UnaryOp<"relu", "max(x, 0) (NaN stays NaN)">;
def Ag_SqrtOp : Ag_UnaryOp<"sqrt", "sqrt(x)">;
def Ag_SquareOp : Ag_UnaryOp<"square", "x * x">;

def Ag_MatmulOp : Ag_Op<"matmul", [Pure]> {
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

class Ag_ReductionOp<string mnemonic, string what> : Ag_Op<mnemonic, [Pure]> {
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

def Ag_ReadWeightOp : Ag_Op<"read_weight", [
    Pure, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Reads the current value of a module weight";
  let arguments = (ins FlatSymbolRefAttr:$weight);
  let results = (outs Ag_Tensor:$result);
  let assemblyFormat = "$weight attr-dict `:` type($result)";
}

def Ag_ProbeOp : Ag_Op<"probe", [SameOperandsAndResultType]> {
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

def Ag_InputViewOp : Ag_Op<"input_view", [Pure]> {
  let summary = "A named input as a view of the packed input buffer";
  let description = [{
    ```mlir
    %x = ag.input_view %in[256] : tensor<512xi8> -> tensor<2x4xf32>
    ```
  }];
  let arguments = (ins Ag_ByteBuffer:$buffer, I64Attr:$offset);
  let results = (outs Ag_Tensor:$result);
  let assemblyFormat =
      "$buffer `[` $offset `]` attr-dict `:` type($buffer) `->` type($result)";
  let hasVerifier = 1;
}

def Ag_PackOutputsOp : Ag_Op<"pack_outputs", [Pure]> {
  let summary = "Places every output at its offset of the packed output buffer";
  let description = [{
    ```mlir
    %out = ag.pack_outputs %y[0], %h[256] : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<320xi8>
    ```
  }];
  let arguments = (ins Variadic<Ag_Tensor>:$outputs,
                       DenseI64ArrayAttr:$offsets);
  let results = (outs Ag_ByteBuffer:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

#endif // CAPTURE_DIALECT_AG_IR_AGOPS_TD
