//===- Driver.cpp - CompileRequest -> CompileResult ------------------------===//
#include "intent/Driver/Driver.h"
#include "intent/KIR/KIR.h"
#include "intent/KIR/Parse.h"
#include "intent/Support/Identity.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace intent;
using namespace intent::driver;

std::optional<Stage> driver::parseStage(const std::string &s) {
  if (s == "kir") return Stage::KIR;
  if (s == "shared") return Stage::Shared;
  if (s == "provider") return Stage::Provider;
  if (s == "full") return Stage::Full;
  return std::nullopt;
}

const char *driver::stageName(Stage s) {
  switch (s) {
  case Stage::KIR: return "kir";
  case Stage::Shared: return "shared";
  case Stage::Provider: return "provider";
  case Stage::Full: return "full";
  }
  return "?";
}

std::string driver::defaultConfigDir() {
  if (const char *env = std::getenv("INTENT_CONFIG_DIR"); env && *env)
    return env;
  llvm::SmallString<256> p(llvm::sys::path::parent_path(support::executablePath()));
  llvm::sys::path::append(p, "..", "share", "intentc", "configs");
  if (llvm::sys::fs::is_directory(p))
    return std::string(p);
  return INTENT_SOURCE_CONFIG_DIR;
}

/// Prints `op` the canonical way (generic names, no locations).
static std::string printOp(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  op->print(os, OpPrintingFlags().assumeVerified());
  os << "\n";
  return s;
}

CompileResult driver::compile(const CompileRequest &req, const Environment &env) {
  CompileResult result;
  DialectRegistry registry;
  kir::registerKIRDialects(registry);
  MLIRContext ctx(registry, MLIRContext::Threading::DISABLED);
  ctx.loadAllAvailableDialects();

  llvm::SourceMgr sm;
  sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(req.source, req.sourceName),
                        llvm::SMLoc());
  llvm::raw_string_ostream diagOS(result.diagnostics);
  SourceMgrDiagnosticHandler handler(sm, &ctx, diagOS);

  OwningOpRef<ModuleOp> module = kir::parseKIR(sm, ctx);
  if (!module)
    return result;

  std::string error;
  if (failed(kir::specializeDefines(*module, req.defines, error))) {
    diagOS << req.sourceName << ": error: " << error << "\n";
    return result;
  }

  SmallVector<kir::KernelOp> kernels;
  for (kir::KernelOp k : module->getOps<kir::KernelOp>())
    if (!req.kernel || k.getSymName() == *req.kernel)
      kernels.push_back(k);
  if (kernels.empty()) {
    diagOS << req.sourceName << ": error: no kernel named '" << *req.kernel << "' (available:";
    for (kir::KernelOp k : module->getOps<kir::KernelOp>())
      diagOS << " " << k.getSymName();
    diagOS << ")\n";
    return result;
  }

  if (req.stage == Stage::KIR) {
    OwningOpRef<ModuleOp> selected = ModuleOp::create(UnknownLoc::get(&ctx));
    for (kir::KernelOp k : kernels)
      selected->getBody()->push_back(k->clone());
    result.stageText = printOp(*selected);
  }
  for (kir::KernelOp kernel : kernels) {
    KernelResult kr;
    kr.name = kernel.getSymName().str();
    // The canonical KIR of one kernel: a module holding just that kernel.
    OwningOpRef<ModuleOp> single = ModuleOp::create(UnknownLoc::get(&ctx));
    single->getBody()->push_back(kernel->clone());
    kr.files.push_back({"kernel.kir", printOp(*single)});
    if (req.stage != Stage::KIR) {
      diagOS << req.sourceName << ": error: stage '" << stageName(req.stage)
             << "' is not available for target '" << req.target << "'\n";
      return result;
    }
    result.kernels.push_back(std::move(kr));
  }
  result.ok = true;
  return result;
}
