//===- AgEntryOps.td - Weights and entries -----------------*- tablegen -*-===//
//
// Included by AgOps.td: the module-level weights and the function-like
// entries (ag.forward, ag.train_step) with their terminator.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_DIALECT_AG_IR_AGENTRYOPS_TD
#define CAPTURE_DIALECT_AG_IR_AGENTRYOPS_TD

//===----------------------------------------------------------------------===//
// Module-level state and entry points
//===----------------------------------------------------------------------===//

def Ag_WeightOp : Ag_Op<"weight", [Symbol, HasParent<"::mlir::ModuleOp">]> {
  let summary = "A resident device tensor shared by every entry of the module";
  let description = [{
    ```mlir
    ag.weight @w1 trainable : tensor<4x8xf32> = #ag.init<linear, fan_in = 8, seed = 1>
    ag.weight @b1 : tensor<8xf32> = dense<0.5>
    ag.weight @w2 trainable : tensor<8x8xf32>
    ```
    The initial value is either elements (`initial_value`; a splat stays
    one value in the module file) or an `#ag.init` rule (`initializer`),
    evaluated at load. A weight with neither is unset: the runtime and the
    interpreter refuse to run an entry that reads it until the caller sets
    it (`--param`, `Module::setParam`). `trainable` marks it for the
    optimizer of training steps; forward entries only read it.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       UnitAttr:$trainable,
                       TypeAttrOf<Ag_Tensor>:$type,
                       OptionalAttr<ElementsAttr>:$initial_value,
                       OptionalAttr<Ag_InitAttr>:$initializer);
  let assemblyFormat = [{
    $sym_name (`trainable` $trainable^)? `:` $type
    custom<InitialValue>(ref($type), $initial_value, $initializer) attr-dict
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

def Ag_TrainStepOp : Ag_Op<"train_step", [
    FunctionOpInterface, IsolatedFromAbove, Symbol,
    HasParent<"::mlir::ModuleOp">]> {
  let summary = "A training step: named inputs to the loss and named outputs";
  let description = [{
    The body computes the forward pass; its first output is the loss (a
    rank-0 f32 tensor), the others are further named outputs. `ag-autodiff`
    adds the backward pass, and the rest of the training pipeline adds
    global-norm clipping (`max_grad_norm`, optional) and the AdamW update of
    every trainable weight the loss reaches. Outputs are forward values from
    before the update.
    ```mlir
    ag.train_step @train(%x: tensor<64x8xf32> {ag.name = "x"})
        -> (tensor<f32> {ag.name = "loss"})
        attributes {optimizer = #ag.adamw<lr = 3.0e-4, beta1 = 0.9,
                      beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.01>,
                    max_grad_norm = 0.5 : f32} {
      ...
      ag.return %loss : tensor<f32>
    }
    ```
    `param_groups = [#ag.param_group<[@w2], #ag.adamw<...>>, ...]` gives
    weights hyperparameters of their own (torch.optim's param_groups after
    the first); the weights listed in none are group 0, `optimizer`'s.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs,
                       AnyAttr:$optimizer,
                       OptionalAttr<F32Attr>:$max_grad_norm,
                       OptionalAttr<TypedArrayAttrBase<Ag_ParamGroupAttr,
                           "param groups">>:$param_groups);
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
    /// The AdamW hyperparameters (verified): group 0's.
    AdamWAttr getAdamW() { return ::llvm::cast<AdamWAttr>(getOptimizer()); }
    /// The param groups after group 0 (none without `param_groups`).
    ::llvm::SmallVector<ParamGroupAttr> getGroups();
    /// Every group's hyperparameters, group 0 (`optimizer`) first.
    ::llvm::SmallVector<AdamWAttr> getGroupAdamWs();
    /// Whether `ag-pack-io` has run on this entry.
    bool isPacked();
  }];
}

def Ag_ReturnOp : Ag_Op<"return", [
    Pure, ParentOneOf<["ForwardOp", "TrainStepOp"]>, Terminator, ReturnLike]> {
  let summary = "Returns an entry's outputs";
  let arguments = (ins Variadic<AnyRankedTensor>:$operands);
  let assemblyFormat = "attr-dict ($operands^ `:` type($operands))?";
  let hasVerifier = 1;
}

#endif // CAPTURE_DIALECT_AG_IR_AGENTRYOPS_TD
