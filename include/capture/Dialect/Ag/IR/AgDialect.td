//===- AgDialect.td - The ag dialect ------------------------*- tablegen -*-===//
//
// The `ag` dialect: traced tensor computations (forward passes and, later,
// training steps) with value semantics, static shapes and f32 elements.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_DIALECT_AG_IR_AGDIALECT_TD
#define CAPTURE_DIALECT_AG_IR_AGDIALECT_TD

include "mlir/IR/OpBase.td"

def Ag_Dialect : Dialect {
  let name = "ag";
  let summary = "Traced tensor computations for compile-once, replay-many capture";
  let description = [{
    A module holds weights (`ag.weight`, resident device tensors) and entry
    points (`ag.forward`). Entry bodies are traces: compute ops with value
    semantics plus the host-interaction ops a tracer may have recorded
    (`ag.upload`, `ag.download`, `ag.eager`), which the capture guard
    (`ag-verify-capture`) rejects unless they are data-independent constants.
    Every op carries the location of its traced call site.
  }];
  let cppNamespace = "::capture::ag";
  let hasConstantMaterializer = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
}

#endif // CAPTURE_DIALECT_AG_IR_AGDIALECT_TD
