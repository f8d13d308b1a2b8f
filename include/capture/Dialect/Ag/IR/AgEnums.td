//===- AgEnums.td - ag dialect enums -------------------------*- tablegen -*-===//
//
// Enums shared by ops and attributes; AgEnums.h.inc is generated from
// AgOps.td, which includes this file.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_DIALECT_AG_IR_AGENUMS_TD
#define CAPTURE_DIALECT_AG_IR_AGENUMS_TD

include "mlir/IR/EnumAttr.td"

def Ag_ReadPath : I32EnumAttr<"ReadPath", "how kernels read their inputs", [
    I32EnumAttrCase<"ssbo", 0>, I32EnumAttrCase<"texel", 1>]> {
  let cppNamespace = "::capture::ag";
  let genSpecializedAttr = 0;
}

#endif // CAPTURE_DIALECT_AG_IR_AGENUMS_TD
