//===- KIRParserFuzzer.cpp - libFuzzer entry: parse + verify KIR bytes ----===//
//
// Feeds arbitrary bytes to intent::kir::parseKIR (nesting guard, MLIR parser,
// KIR verifiers, top-level checks). Diagnostics are swallowed; any crash,
// sanitizer report or assertion is a bug. See tests/fuzz/README.md.
//
//===----------------------------------------------------------------------===//
#include "FuzzInput.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzInput input(data, size);
  if (input.module) {
    // A verified module must also print without crashing.
    std::string text;
    llvm::raw_string_ostream os(text);
    input.module->print(os);
  }
  return 0;
}
