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

def Ag_BufferKind : I32EnumAttr<"BufferKind",
    "a buffer of a lowered module", [
    I32EnumAttrCase<"input", 0>, I32EnumAttrCase<"output", 1>,
    I32EnumAttrCase<"weights", 2>, I32EnumAttrCase<"constants", 3>,
    I32EnumAttrCase<"scratch", 4>, I32EnumAttrCase<"optimizer", 5>]> {
  let cppNamespace = "::capture::ag";
  let genSpecializedAttr = 0;
}

def Ag_InitKind : I32EnumAttr<"InitKind",
    "how an initializer fills a weight", [
    I32EnumAttrCase<"zeros", 0>, I32EnumAttrCase<"constant", 1>,
    I32EnumAttrCase<"uniform", 2>, I32EnumAttrCase<"normal", 3>,
    I32EnumAttrCase<"linear", 4>]> {
  let cppNamespace = "::capture::ag";
  let genSpecializedAttr = 0;
}

#endif // CAPTURE_DIALECT_AG_IR_AGENUMS_TD
