//===- KIRCompileFuzzer.cpp - libFuzzer entry: KIR bytes -> generated code ===//
//
// For every input that parses and verifies: specialize (no defines), then run
// each kernel through the shared pass pipeline and the Triton serializer
// (sm_90, the shipped profile table) and through the reference serializer.
// Diagnostics are the expected outcome for most inputs and are swallowed; any
// crash, sanitizer report, assertion or leak is a bug. See tests/fuzz/README.md.
//
//===----------------------------------------------------------------------===//
#include "FuzzInput.h"

#include "intent/GPU/IGPU.h"
#include "intent/GPU/Pipeline.h"
#include "intent/Providers/Reference.h"
#include "intent/Tuning/ProfileTable.h"
#include "intent/Tuning/Targets.h"

#include <cstdio>
#include <cstdlib>

namespace {
/// The provider context of `intentc compile --target triton`, read once.
const intent::gpu::ProviderContext &tritonContext() {
  static const intent::gpu::ProviderContext ctx = [] {
    std::string configs = INTENT_SOURCE_DIR "/configs/";
    auto targets = intent::tuning::loadTargets(configs + "targets.json");
    auto table = intent::tuning::loadProfileTable(configs + "triton.json", intent::tuning::Provider::Triton);
    if (!targets || !table || !targets->count("sm_90")) {
      std::fprintf(stderr, "kir-compile-fuzzer: cannot read %s\n", configs.c_str());
      std::abort();
    }
    intent::gpu::ProviderContext c;
    c.provider = intent::tuning::Provider::Triton;
    c.caps = targets->at("sm_90");
    c.table = intent::tuning::applyOverride(*table, nullptr, c.provider);
    return c;
  }();
  return ctx;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const intent::gpu::ProviderContext &provider = tritonContext();
  mlir::DialectRegistry registry;
  registry.insert<intent::igpu::IGPUDialect>();
  FuzzInput input(data, size, std::move(registry));
  mlir::OwningOpRef<mlir::ModuleOp> &module = input.module;
  if (!module)
    return 0;
  std::string error;
  if (mlir::failed(intent::kir::specializeDefines(*module, {}, error)))
    return 0;
  for (intent::kir::KernelOp kernel : module->getOps<intent::kir::KernelOp>()) {
    intent::gpu::ProviderOutput out;
    (void)intent::gpu::compileKernel(kernel, provider, intent::gpu::StopAfter::Full,
                                      nlohmann::ordered_json::object(), out);
    std::string source;
    (void)intent::providers::emitReferencePython(kernel, source, error);
  }
  return 0;
}
