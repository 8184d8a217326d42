//===- KIRDialect.td - the Kernel IR dialect ------------------*- tablegen -*-===//
//
// KIR describes one runtime-visible kernel over logical tensors: no programs,
// tiles, masks or launch settings (docs/kir.md).
//
//===----------------------------------------------------------------------===//
#ifndef INTENT_KIR_DIALECT
#define INTENT_KIR_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def KIR_Dialect : Dialect {
  let name = "kir";
  let cppNamespace = "::intent::kir";
  let summary = "Kernel IR: whole-array kernels over strided views";
  let useDefaultTypePrinterParser = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect"];
}

class KIR_Op<string mnemonic, list<Trait> traits = []>
    : Op<KIR_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def KIR_ReduceKind : I32EnumAttr<"ReduceKind", "reduction kind", [
    I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"mul", 1>,
    I32EnumAttrCase<"max", 2>, I32EnumAttrCase<"min", 3>,
    I32EnumAttrCase<"and_", 4, "and">, I32EnumAttrCase<"or_", 5, "or">,
    I32EnumAttrCase<"xor_", 6, "xor">,
    I32EnumAttrCase<"argmax", 7>, I32EnumAttrCase<"argmin", 8>]> {
  let cppNamespace = "::intent::kir";
}

def KIR_Policy : I32EnumAttr<"Policy", "reduction/scan order policy", [
    I32EnumAttrCase<"unordered_tree", 0>, I32EnumAttrCase<"ordered_tree", 1>,
    I32EnumAttrCase<"fold_left", 2>, I32EnumAttrCase<"fold_right", 3>]> {
  let cppNamespace = "::intent::kir";
}

def KIR_CmpPredicate : I32EnumAttr<"CmpPredicate", "comparison predicate", [
    I32EnumAttrCase<"eq", 0>, I32EnumAttrCase<"ne", 1>, I32EnumAttrCase<"lt", 2>,
    I32EnumAttrCase<"le", 3>, I32EnumAttrCase<"gt", 4>, I32EnumAttrCase<"ge", 5>]> {
  let cppNamespace = "::intent::kir";
}

#endif // INTENT_KIR_DIALECT
