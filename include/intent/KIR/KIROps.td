//===- KIROps.td - KIR operations -------------------------------*- tablegen -*-===//
//
// Every op has a hand-written assembly format: the spelling is normative
// (docs/kir.md) and several forms elide types that follow from others.
//
//===----------------------------------------------------------------------===//
#ifndef INTENT_KIR_OPS
#define INTENT_KIR_OPS

include "intent/KIR/KIRTypes.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/IR/OpAsmInterface.td"

//===----------------------------------------------------------------------===//
// Kernel structure
//===----------------------------------------------------------------------===//

def KIR_KernelOp : KIR_Op<"kernel", [
    FunctionOpInterface, IsolatedFromAbove, Symbol,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>,
    SingleBlockImplicitTerminator<"ReturnOp">]> {
  let summary = "one runtime-visible kernel";
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs,
                       OptionalAttr<StrArrayAttr>:$arg_names);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() { return getFunctionType().getInputs(); }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() { return getFunctionType().getResults(); }
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    /// True when argument `i` carries {kir.constexpr}.
    bool isConstexprArg(unsigned i);
    /// Source name of argument `i` (without '%'); `argN` when unnamed.
    std::string getArgName(unsigned i);
    static constexpr ::llvm::StringLiteral kConstexprAttr = "kir.constexpr";
  }];
}

def KIR_ReturnOp : KIR_Op<"return", [Pure, Terminator, HasParent<"KernelOp">]> {
  let summary = "implicit kernel terminator (never written)";
  let assemblyFormat = "attr-dict";
}

def KIR_YieldOp : KIR_Op<"yield", [Pure, Terminator, ReturnLike,
                                    ParentOneOf<["ReduceOp", "ScanOp"]>]> {
  let summary = "combiner result";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

//===----------------------------------------------------------------------===//
// Views
//===----------------------------------------------------------------------===//

def KIR_LoadOp : KIR_Op<"load", [MemoryEffects<[MemRead]>]> {
  let summary = "load a whole view";
  let arguments = (ins KIR_ViewType:$view);
  let results = (outs KIR_TensorType:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def KIR_StoreOp : KIR_Op<"store", [MemoryEffects<[MemWrite]>]> {
  let summary = "store a whole view";
  let arguments = (ins KIR_TensorType:$value, KIR_ViewType:$view);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def KIR_ExtentOp : KIR_Op<"extent", [Pure]> {
  let summary = "runtime extent of one axis of a view";
  let arguments = (ins KIR_ViewType:$view, I64Attr:$axis);
  let results = (outs Index:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

class KIR_BinaryOp<string mnemonic> : KIR_Op<mnemonic, [Pure]> {
  let arguments = (ins AnyType:$lhs, AnyType:$rhs);
  let results = (outs AnyType:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::mlir::ParseResult $cppClass::parse(::mlir::OpAsmParser &p, ::mlir::OperationState &s) {
      return parseBinaryOp(p, s);
    }
    void $cppClass::print(::mlir::OpAsmPrinter &p) { printBinaryOp(p, *this); }
    ::mlir::LogicalResult $cppClass::verify() { return verifyBinaryOp(*this); }
  }];
}

foreach op = ["add", "sub", "mul", "div", "rem", "pow", "max", "min",
              "and", "or", "xor", "shl", "shr"] in
  def KIR_ # !toupper(!substr(op, 0, 1)) # !substr(op, 1) # Op : KIR_BinaryOp<op>;

class KIR_UnaryOp<string mnemonic> : KIR_Op<mnemonic, [Pure]> {
  let arguments = (ins AnyType:$input);
  let results = (outs AnyType:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::mlir::ParseResult $cppClass::parse(::mlir::OpAsmParser &p, ::mlir::OperationState &s) {
      return parseUnaryOp(p, s);
    }
    void $cppClass::print(::mlir::OpAsmPrinter &p) { printUnaryOp(p, *this); }
    ::mlir::LogicalResult $cppClass::verify() { return verifyUnaryOp(*this); }
  }];
}

foreach op = ["neg", "abs", "exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin",
              "cos", "tanh", "erf", "sigmoid", "floor", "ceil", "not"] in
  def KIR_ # !toupper(!substr(op, 0, 1)) # !substr(op, 1) # Op : KIR_UnaryOp<op>;

def KIR_CmpOp : KIR_Op<"cmp", [Pure]> {
  let summary = "elementwise comparison (result element i1)";
  let arguments = (ins KIR_CmpPredicate:$predicate, AnyType:$lhs, AnyType:$rhs);
  let results = (outs AnyType:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def KIR_SelectOp : KIR_Op<"select", [Pure]> {
  let summary = "elementwise choice";
  let arguments = (ins AnyType:$condition, AnyType:$trueValue, AnyType:$falseValue);
  let results = (outs AnyType:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def KIR_CastOp : KIR_Op<"cast", [Pure]> {
  let summary = "element type conversion (round to nearest even; float to int truncates)";
  let arguments = (ins AnyType:$input);
  let results = (outs AnyType:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shape
//===----------------------------------------------------------------------===//

def KIR_BroadcastOp : KIR_Op<"broadcast", [Pure]> {
  let summary = "map input axes onto result axes and replicate along the others";
  let arguments = (ins AnyType:$input, OptionalAttr<DenseI64ArrayAttr>:$dims);
  let results = (outs KIR_TensorType:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def KIR_TransposeOp : KIR_Op<"transpose", [Pure]> {
  let summary = "permute axes: result axis i is input axis perm[i]";
  let arguments = (ins KIR_TensorType:$input, DenseI64ArrayAttr:$perm);
  let results = (outs KIR_TensorType:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def KIR_IotaOp : KIR_Op<"iota", [Pure]> {
  let summary = "coordinates along one axis";
  let arguments = (ins I64Attr:$dim);
  let results = (outs KIR_TensorType:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions, scans, contractions
//===----------------------------------------------------------------------===//

def KIR_ReduceOp : KIR_Op<"reduce", [Pure, AttrSizedOperandSegments,
                                      SingleBlock, RecursiveMemoryEffects]> {
  let summary = "named, arg- or general (combiner region) reduction";
  let description = [{
    Without `kind` the combiner region defines the reduction; its block takes
    the left accumulators then the right values and yields the combined values.
  }];
  let arguments = (ins Variadic<KIR_TensorType>:$inputs,
                       Variadic<AnyType>:$identities,
                       Variadic<AnyType>:$inits,
                       DenseI64ArrayAttr:$dims,
                       OptionalAttr<KIR_ReduceKind>:$kind,
                       OptionalAttr<KIR_Policy>:$policy);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region AnyRegion:$combiner);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    Policy getEffectivePolicy() {
      return getPolicy().value_or(Policy::unordered_tree);
    }
    bool isGeneral() { return !getKind().has_value(); }
  }];
}

def KIR_ScanOp : KIR_Op<"scan", [Pure, AttrSizedOperandSegments,
                                  SingleBlock, RecursiveMemoryEffects]> {
  let summary = "named or general prefix scan along one axis";
  let arguments = (ins Variadic<KIR_TensorType>:$inputs,
                       Variadic<AnyType>:$identities,
                       Variadic<AnyType>:$inits,
                       I64Attr:$dim,
                       OptionalAttr<KIR_ReduceKind>:$kind,
                       OptionalAttr<KIR_Policy>:$policy,
                       UnitAttr:$exclusive,
                       UnitAttr:$reverse);
  let results = (outs Variadic<KIR_TensorType>:$results);
  let regions = (region AnyRegion:$combiner);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    Policy getEffectivePolicy() {
      return getPolicy().value_or(Policy::ordered_tree);
    }
    bool isGeneral() { return !getKind().has_value(); }
  }];
}

def KIR_ContractOp : KIR_Op<"contract", [Pure]> {
  let summary = "einsum contraction of two tensors";
  let arguments = (ins KIR_TensorType:$lhs, KIR_TensorType:$rhs, StrAttr:$spec,
                       UnitAttr:$tf32);
  let results = (outs KIR_TensorType:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Labels of lhs, rhs and result, e.g. {"mk", "kn", "mn"}, and their roles.
    struct Labels {
      std::string lhs, rhs, result;
      /// Labels of the left operand alone, in its order ("m" of "mk,kn->mn").
      std::string lhsOnly() const;
      /// Labels of the right operand alone, in its order ("n").
      std::string rhsOnly() const;
      /// Labels of both operands summed away (not in the result), in the left operand's order ("k").
      std::string contracted() const;
    };
    static ::mlir::FailureOr<Labels> parseSpec(::llvm::StringRef spec, std::string &error);
  }];
}

#endif // INTENT_KIR_OPS
