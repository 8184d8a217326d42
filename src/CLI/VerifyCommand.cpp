//===- VerifyCommand.cpp - intentc verify FILE... --------------------------===//
#include "intent/CLI/Commands.h"
#include "intent/Driver/Driver.h"
#include "intent/KIR/Parse.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace intent;

cli::Action cli::registerVerify(CLI::App &app) {
  auto files = std::make_shared<std::vector<std::string>>();
  app.add_option("files", *files, "KIR files ('-' reads standard input)")->required();
  return [files]() {
    std::unique_ptr<mlir::MLIRContext> owned = driver::createContext();
    mlir::MLIRContext &ctx = *owned;
    int rc = 0;
    for (const std::string &path : *files) {
      std::optional<std::string> text = readFileOrReport(path);
      if (!text) {
        rc = 1;
        continue;
      }
      llvm::SourceMgr sm;
      sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(*text, path), llvm::SMLoc());
      mlir::SourceMgrDiagnosticHandler handler(sm, &ctx, llvm::errs());
      if (!kir::parseKIR(sm, ctx))
        rc = 1;
    }
    return rc;
  };
}
