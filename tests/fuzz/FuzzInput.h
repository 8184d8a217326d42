//===- FuzzInput.h - one fuzz input parsed as KIR --------------------*- C++ -*-===//
//
// A fresh context per input (no uniqued types or attributes leak between runs,
// so every finding reproduces from its single input), diagnostics swallowed.
//
//===----------------------------------------------------------------------===//
#ifndef INTENT_TESTS_FUZZ_FUZZINPUT_H
#define INTENT_TESTS_FUZZ_FUZZINPUT_H

#include "intent/KIR/KIR.h"
#include "intent/KIR/Parse.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cstddef>
#include <cstdint>

struct FuzzInput {
  mlir::MLIRContext ctx{mlir::MLIRContext::Threading::DISABLED};
  llvm::SourceMgr sm;
  mlir::OwningOpRef<mlir::ModuleOp> module; ///< null unless the bytes parse and verify

  FuzzInput(const uint8_t *data, size_t size) : FuzzInput(data, size, mlir::DialectRegistry()) {}
  /// `registry` holds the dialects beyond KIR that the caller's passes need.
  FuzzInput(const uint8_t *data, size_t size, mlir::DialectRegistry registry) {
    intent::kir::registerKIRDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
    ctx.getDiagEngine().registerHandler([](mlir::Diagnostic &) { return mlir::success(); });
    sm.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(
            llvm::StringRef(reinterpret_cast<const char *>(data), size), "fuzz.kir"),
        llvm::SMLoc());
    module = intent::kir::parseKIR(sm, ctx);
  }
};

#endif
