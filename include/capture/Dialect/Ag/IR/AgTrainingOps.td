//===- AgTrainingOps.td - Param packs and AdamW ------------*- tablegen -*-===//
//
// Included by AgOps.td: the training state and update that
// ag-pack-params and ag-split-update make.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_DIALECT_AG_IR_AGTRAININGOPS_TD
#define CAPTURE_DIALECT_AG_IR_AGTRAININGOPS_TD

//===----------------------------------------------------------------------===//
// Training state and update (produced by ag-pack-params, ag-split-update)
//===----------------------------------------------------------------------===//

def Ag_ParamPackOp : Ag_Op<"param_pack", [
    Ag_CompilerMade, Symbol, HasParent<"::mlir::ModuleOp">,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "The flat parameter array a training step updates";
  let description = [{
    Lays the trainable weights a training step updates out as ONE flat f32
    array of `size` elements: weight `weights[i]` (row-major) starts at
    element `offsets[i]`; the elements between weights are zero padding that
    keeps every weight's byte offset aligned for direct binding. The step's
    gradients (`ag.pack_grads`) and AdamW's two moments use the same layout,
    so the gradient norm is one reduction and the update one kernel.
    ```mlir
    ag.param_pack @train.params weights(@w, @b) offsets([0, 64]) size(72)
    ```
    `groups([0, 1])`, when the step has `param_groups`, is each weight's
    group (its hyperparameters in `ag.apply_adamw`'s `hyper`); absent, every
    weight is in group 0.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       FlatSymbolRefArrayAttr:$weights,
                       DenseI64ArrayAttr:$offsets,
                       I64Attr:$size,
                       OptionalAttr<DenseI64ArrayAttr>:$groups);
  let assemblyFormat = [{
    $sym_name `weights` `(` $weights `)` `offsets` `(` $offsets `)`
    `size` `(` $size `)` (`groups` `(` $groups^ `)`)? attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The group of weight `i` (0 without `groups`).
    int64_t getGroupOf(unsigned i) {
      std::optional<::llvm::ArrayRef<int64_t>> groups = getGroups();
      return groups ? (*groups)[i] : 0;
    }
    /// How many groups the hyperparameters hold: one past the largest.
    int64_t getNumGroups();
  }];
}

def Ag_PackGradsOp : Ag_Op<"pack_grads", [Ag_CompilerMade,
    Pure, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "The gradients of a param pack's weights as one flat array";
  let description = [{
    Gradient `grads[i]` belongs to weight `i` of the pack and lands at its
    offset; padding elements are zero.
    ```mlir
    %g = ag.pack_grads @train.params(%gw, %gb) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<72xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$pack, Variadic<Ag_Tensor>:$grads);
  let results = (outs Ag_Tensor:$result);
  let assemblyFormat =
      "$pack `(` $grads `)` attr-dict `:` functional-type($grads, $result)";
}

def Ag_ApplyAdamWOp : Ag_Op<"apply_adamw", [
    Ag_CompilerMade, DeclareOpInterfaceMethods<SymbolUserOpInterface>,
    MemoryEffects<[MemRead<Ag_WeightsResource>,
                   MemWrite<Ag_WeightsResource>]>]> {
  let summary = "torch.optim.AdamW's (or Adam's) update of a param pack";
  let description = [{
    Updates every weight of `pack` and the pack's two moments in place, from
    the flat (clipped) gradients. `hyper` holds lr, beta1, beta2, eps,
    weight_decay, 1 - beta1^(t+1) and 1 - beta2^(t+1), supplied by the
    runtime each step: seven values per param group of the pack, group 0
    first, each weight updated with its group's. When `grad_norm` is NaN or infinite nothing is
    written: the weights and moments keep their exact bits. Per element:
    ```
    p = p * (1 - lr * weight_decay)
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    p = p - (lr / bc1) * m / (sqrt(v) / sqrt(bc2) + eps)
    ```
    When the enclosing `ag.train_step`'s optimizer says `decoupled = false`
    (torch.optim.Adam's weight_decay), the first line is instead
    `g = g + weight_decay * p`, an L2 term in the gradient that the moments
    then see.
    It reads the weights that the rest of the step reads, so it runs last,
    after a barrier (the second graph of the step).
    ```mlir
    ag.apply_adamw @train.params grads(%g) grad_norm(%n) hyper(%h)
        : tensor<72xf32>, tensor<f32>, tensor<7xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$pack, Ag_Tensor:$grads,
                       Ag_Tensor:$grad_norm, Ag_Tensor:$hyper);
  let assemblyFormat = [{
    $pack `grads` `(` $grads `)` `grad_norm` `(` $grad_norm `)`
    `hyper` `(` $hyper `)` attr-dict `:` type($grads) `,` type($grad_norm)
    `,` type($hyper)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether the weight decay is decoupled (AdamW) rather than an L2 term
    /// in the gradient (Adam): the `decoupled` of the enclosing
    /// ag.train_step's optimizer, which is its one home; true outside a
    /// training step, as the attribute's default.
    bool isDecoupled();
  }];
}

#endif // CAPTURE_DIALECT_AG_IR_AGTRAININGOPS_TD
