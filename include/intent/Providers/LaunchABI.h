//===- LaunchABI.h - the public launch(...) ABI shared by all Python providers -===//
//
// Every Python provider (reference, triton) exposes `launch(<KIR arguments in
// order>)`. The argument checks and the ABI metadata are generated here once.
//
//===----------------------------------------------------------------------===//
#ifndef INTENT_PROVIDERS_LAUNCHABI_H
#define INTENT_PROVIDERS_LAUNCHABI_H

#include "intent/KIR/KIR.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace intent::providers {

/// torch dtype spelling of a KIR element type ("torch.float16", ...).
std::string torchDType(mlir::Type t);

/// Python source of `_check_args(<args>)`: validates that every view argument is
/// a torch.Tensor of the right dtype and rank, that static extents match, that
/// equal symbols have equal extents, that `contiguous` views have unit last
/// stride, that scalars are Python numbers, and that no written view overlaps
/// any other argument's memory. Raises TypeError/ValueError with clear messages.
/// Returns a dict mapping every extent symbol to its runtime value.
std::string emitArgumentChecks(intent::kir::KernelOp kernel);

/// Comma-separated Python parameter list of launch(...) in KIR order.
std::string launchParameterList(intent::kir::KernelOp kernel);

/// One launch parameter: the KIR argument index and its Python name (see
/// pythonNames). Constexpr arguments left unspecialized are not parameters.
struct LaunchParameter {
  unsigned argIndex;
  std::string name;
};
std::vector<LaunchParameter> launchParameters(intent::kir::KernelOp kernel);

/// The Python names of a kernel's arguments and extent symbols in the
/// generated modules: the KIR name where it is a usable identifier; otherwise
/// `argN` / `dimN` for a non-identifier, and a name that is reserved (Python
/// keywords and builtins, the module's globals, the launchers' locals, names
/// starting with '_'; in the Triton kernel also its own variables and
/// parameters) or taken (by an extent symbol, an earlier argument, or in the
/// kernel a name derived from one: a view's `<name>_s<axis>` strides,
/// `<name>_odesc` and its column halves `<name>_olo`, `<name>_ohi`) loses
/// leading underscores and gets "_" appended until it is
/// neither. Launchers use `params`, the Triton kernel `kernelArgs`; extent
/// symbols have one name in both.
struct PythonNames {
  std::vector<LaunchParameter> params;                      ///< launcher names, KIR order, constexprs skipped
  std::vector<LaunchParameter> kernelArgs;                  ///< Triton kernel parameter names, same order
  std::vector<std::pair<std::string, std::string>> symbols; ///< (KIR symbol, Python name)
  std::string symbol(llvm::StringRef kirSymbol) const;
  std::string argument(unsigned argIndex) const;
  std::string kernelArgument(unsigned argIndex) const;
};
PythonNames pythonNames(intent::kir::KernelOp kernel);

/// Symbols in first-appearance order over the view arguments (KIR order).
std::vector<std::string> extentSymbols(intent::kir::KernelOp kernel);

/// A double-quoted Python string literal of `s` (quotes and backslashes escaped).
std::string pythonStringLiteral(llvm::StringRef s);

/// Python literal of a KIR shape for launchers: `[_sym["M"], 4]` (uses the
/// dict returned by `_check_args`, named `symbolsVar`).
std::string pythonShape(llvm::ArrayRef<mlir::Attribute> shape, llvm::StringRef symbolsVar = "_sym");

/// ABI metadata: {"parameters": [{"name","kind":"view"|"scalar","dtype","shape":[...],
/// "access","contiguous"}...], "symbols": [...]} in KIR order.
/// Each parameter also has "torch_dtype" ("torch.float32") and "kir_name" (the
/// KIR argument name, which differs from "name" only when renamed, see
/// launchParameters); "symbol_bindings" maps each symbol to its
/// [{"parameter", "axis"}...] occurrences.
nlohmann::ordered_json abiMetadata(intent::kir::KernelOp kernel);

} // namespace intent::providers

#endif
