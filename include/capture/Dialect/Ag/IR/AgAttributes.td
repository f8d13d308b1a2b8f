//===- AgAttributes.td - ag dialect attributes --------------*- tablegen -*-===//

#ifndef CAPTURE_DIALECT_AG_IR_AGATTRIBUTES_TD
#define CAPTURE_DIALECT_AG_IR_AGATTRIBUTES_TD

include "capture/Dialect/Ag/IR/AgDialect.td"
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

#endif // CAPTURE_DIALECT_AG_IR_AGATTRIBUTES_TD
