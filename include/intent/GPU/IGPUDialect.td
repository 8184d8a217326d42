//===- IGPUDialect.td - the shared GPU dialect's attributes ----*- tablegen -*-===//
//
// Typed physical parameters and configuration sets (tuning.md §1, §4): real,
// verified attributes attached by the shared passes to the program.
//
//===----------------------------------------------------------------------===//
#ifndef INTENT_IGPU_DIALECT
#define INTENT_IGPU_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

def IGPU_Dialect : Dialect {
  let name = "igpu";
  let cppNamespace = "::intent::igpu";
  let summary = "The shared GPU program: typed physical parameters, configuration sets, blocked program ops";
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  // `igpu.evict` on a kir.load (igpu-assign-cache-hints) and `igpu.name` in a program are checked.
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    static constexpr ::llvm::StringLiteral kEvictAttr = "igpu.evict";
    /// The variable an index op of another dialect (arith) in an igpu.program is bound to.
    static constexpr ::llvm::StringLiteral kNameAttr = "igpu.name";
  }];
}

class IGPU_Attr<string name, string attrMnemonic> : AttrDef<IGPU_Dialect, name> {
  let mnemonic = attrMnemonic;
}

def IGPU_ParameterAttr : IGPU_Attr<"Parameter", "parameter"> {
  let summary = "a typed physical parameter of the program";
  let description = [{
    `symbol` is stable and derived from the program; `role` names what it
    shapes (ownership_m, reduction, warps, coverage, ...); `kind` is int or
    bool; `domain` is the finite candidate domain (sorted, unique; empty only
    for parameters bound at launch, role `coverage`); `consumers` name the
    types, loops and launch fields it affects; `requirements` the legality
    rules it is subject to.
  }];
  let parameters = (ins StringRefParameter<"stable symbol">:$symbol,
                        StringRefParameter<"semantic role">:$role,
                        StringRefParameter<"int or bool">:$kind,
                        "::mlir::DenseI64ArrayAttr":$domain,
                        "::mlir::ArrayAttr":$consumers,
                        "::mlir::ArrayAttr":$requirements);
  let assemblyFormat = [{
    `<` $symbol `,` `role` `=` $role `,` `kind` `=` $kind `,` `domain` `=` $domain `,`
    `consumers` `=` $consumers `,` `requires` `=` $requirements `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool isLaunchBound() const { return getDomain().empty(); }
  }];
}

def IGPU_ConfigurationSetAttr : IGPU_Attr<"ConfigurationSet", "configurations"> {
  let summary = "complete candidate rows over the program's parameters";
  let description = [{
    `stage` is `shared` (rows projected onto the parameter domains) or
    `complete` (after provider legality, option pruning and deduplication).
    Every row binds every parameter that has a domain, in `parameters` order,
    to a value inside that parameter's domain; rows are unique and the set is
    never empty.
  }];
  let parameters = (ins StringRefParameter<"shared or complete">:$stage,
                        "::mlir::ArrayAttr":$parameters,
                        "::mlir::ArrayAttr":$rows);
  let assemblyFormat = [{
    `<` $stage `,` `parameters` `=` $parameters `,` `rows` `=` $rows `>`
  }];
  let genVerifyDecl = 1;
}

#endif // INTENT_IGPU_DIALECT
