//===- Parse.h - reading KIR source ------------------------------*- C++ -*-===//
#ifndef INTENT_KIR_PARSE_H
#define INTENT_KIR_PARSE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/SourceMgr.h"

#include <map>
#include <string>

namespace intent::kir {

/// Deepest bracket nesting accepted before parsing; keeps hostile input from
/// exhausting the parser's stack.
constexpr unsigned kMaxNestingDepth = 200;

/// Parses and verifies the buffer last added to `sourceMgr`. Diagnostics go to
/// the context's handler; returns null on any error. Besides MLIR's own checks,
/// rejects modules holding anything but kir.kernel ops.
mlir::OwningOpRef<mlir::ModuleOp> parseKIR(llvm::SourceMgr &sourceMgr, mlir::MLIRContext &ctx);

/// The canonical text of a verified `op` (a module, a kernel), newline-terminated:
/// what the cache key covers and what the stages print.
std::string printKIR(mlir::Operation *op);

/// Applies `--define NAME=VALUE`: symbolic extents named NAME become static, and
/// {kir.constexpr} scalar arguments named by the kernel's argument names are
/// replaced by constants and removed from the ABI. `argNames` gives the source
/// names of the kernel arguments (from the parser's asm state).
mlir::LogicalResult specializeDefines(mlir::ModuleOp module,
                                      const std::map<std::string, std::string> &defines,
                                      std::string &error);

} // namespace intent::kir

#endif
