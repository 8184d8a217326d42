//===- KIRTypes.td - view and tensor types ---------------------*- tablegen -*-===//
#ifndef INTENT_KIR_TYPES
#define INTENT_KIR_TYPES

include "intent/KIR/KIRDialect.td"

class KIR_Type<string name, string typeMnemonic> : TypeDef<KIR_Dialect, name> {
  let mnemonic = typeMnemonic;
}

// A dimension is a StringAttr (symbolic runtime extent) or an IntegerAttr (static
// extent); attributes are uniqued, so shapes compare by pointer, symbol by symbol.
def KIR_ViewType : KIR_Type<"View", "view"> {
  let summary = "an external strided array argument";
  let parameters = (ins "::mlir::Type":$elementType,
                        ArrayRefParameter<"::mlir::Attribute">:$shape,
                        "::intent::kir::Access":$access,
                        "bool":$contiguous);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getRank() const { return getShape().size(); }
    bool isReadable() const { return getAccess() != Access::Out; }
    bool isWritable() const { return getAccess() != Access::In; }
  }];
}

def KIR_TensorType : KIR_Type<"Tensor", "tensor"> {
  let summary = "a pure logical tensor value";
  let parameters = (ins "::mlir::Type":$elementType,
                        ArrayRefParameter<"::mlir::Attribute">:$shape);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getRank() const { return getShape().size(); }
    TensorType withElementType(::mlir::Type elt) const {
      return TensorType::get(getContext(), elt, getShape());
    }
  }];
}

#endif // INTENT_KIR_TYPES
