//===- KIRParserFuzzer.cpp - libFuzzer entry: parse + verify KIR bytes ----===//
//
// Feeds arbitrary bytes to intent::kir::parseKIR (nesting guard, MLIR parser,
// KIR verifiers, top-level checks). Diagnostics are swallowed; any crash,
// sanitizer report or assertion is a bug. See tests/fuzz/README.md.
//
//===----------------------------------------------------------------------===//
#include "intent/KIR/KIR.h"
#include "intent/KIR/Parse.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // A fresh context per input: no state (uniqued types, attributes) leaks
  // between runs, so every crash reproduces from its single input.
  mlir::DialectRegistry registry;
  intent::kir::registerKIRDialects(registry);
  mlir::MLIRContext ctx(registry, mlir::MLIRContext::Threading::DISABLED);
  ctx.loadAllAvailableDialects();
  ctx.getDiagEngine().registerHandler([](mlir::Diagnostic &) { return mlir::success(); });

  llvm::SourceMgr sm;
  sm.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size), "fuzz.kir"),
      llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module = intent::kir::parseKIR(sm, ctx);
  if (module) {
    // A verified module must also print without crashing.
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
  }
  return 0;
}
