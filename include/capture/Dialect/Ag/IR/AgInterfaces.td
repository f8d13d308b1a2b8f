//===- AgInterfaces.td - ag dialect op interfaces ------------*- tablegen -*-===//

#ifndef CAPTURE_DIALECT_AG_IR_AGINTERFACES_TD
#define CAPTURE_DIALECT_AG_IR_AGINTERFACES_TD

include "mlir/IR/OpBase.td"

def Ag_DifferentiableOpInterface : OpInterface<"DifferentiableOpInterface"> {
  let cppNamespace = "::capture::ag";
  let description = [{
    An op that `ag-autodiff` can differentiate through: given the gradients
    of the loss with respect to the op's results, it builds the gradients
    with respect to its operands (the vector-Jacobian product), with
    PyTorch's conventions (e.g. relu'(0) = 0, ties of min/max split the
    gradient evenly).
  }];
  let methods = [
    InterfaceMethod<[{
        Builds, at the builder's insertion point, the gradient of every
        operand from `resultGrads` (one per result, never null) and appends
        it to `operandGrads`, or a null Value for an operand that has no
        gradient (integer labels and indices, the operand of
        `ag.stop_gradient`).
      }],
      "::llvm::LogicalResult", "buildVJP",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::ValueRange":$resultGrads,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandGrads)>,
  ];
}

#endif // CAPTURE_DIALECT_AG_IR_AGINTERFACES_TD
