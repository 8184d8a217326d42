//===- KIR.h - the Kernel IR dialect ----------------------------*- C++ -*-===//
#ifndef INTENT_KIR_KIR_H
#define INTENT_KIR_KIR_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"

namespace intent::kir {

/// Access mode of a view argument.
enum class Access { In, Out, InOut };

llvm::StringRef stringifyAccess(Access a);

} // namespace intent::kir

#include "intent/KIR/KIREnums.h.inc"
#include "intent/KIR/KIRDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "intent/KIR/KIRTypes.h.inc"

namespace intent::kir {

/// Dimension helpers: a dim is a StringAttr (symbol) or an IntegerAttr (static).
bool isStaticDim(mlir::Attribute d);
int64_t staticDimValue(mlir::Attribute d);
llvm::StringRef symbolicDimName(mlir::Attribute d);
std::string dimToString(mlir::Attribute d);
std::string shapeToString(llvm::ArrayRef<mlir::Attribute> shape);
/// Parses `[D, ...]` (identifiers and positive integers), as printed by shapeToString.
mlir::ParseResult parseShape(mlir::AsmParser &p, llvm::SmallVectorImpl<mlir::Attribute> &shape);

/// Builtin scalar types usable as arguments and tensor elements.
bool isKirScalarType(mlir::Type t);
/// Element type of a tensor, or the scalar itself.
mlir::Type kirElementType(mlir::Type t);

// Shared custom assembly and verification for elementwise ops.
mlir::ParseResult parseBinaryOp(mlir::OpAsmParser &p, mlir::OperationState &s);
void printBinaryOp(mlir::OpAsmPrinter &p, mlir::Operation *op);
mlir::LogicalResult verifyBinaryOp(mlir::Operation *op);
mlir::ParseResult parseUnaryOp(mlir::OpAsmParser &p, mlir::OperationState &s);
void printUnaryOp(mlir::OpAsmPrinter &p, mlir::Operation *op);
mlir::LogicalResult verifyUnaryOp(mlir::Operation *op);

/// Register the KIR dialect and the scalar dialects KIR bodies may use.
void registerKIRDialects(mlir::DialectRegistry &registry);

} // namespace intent::kir

#define GET_OP_CLASSES
#include "intent/KIR/KIROps.h.inc"

#endif // INTENT_KIR_KIR_H
