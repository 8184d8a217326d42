//===- LaunchABI.cpp - the public launch(...) ABI shared by Python providers -===//
//
// One implementation of the argument checks every generated `launch(...)`
// runs before touching memory: tensor/dtype/rank, static extents, symbol
// equality, contiguity, scalar kinds and ranges, write/read overlap and device
// agreement. The reference and Triton providers both embed `_check_args`.
//
//===----------------------------------------------------------------------===//
#include "intent/Providers/LaunchABI.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <set>

using namespace intent;
using KView = intent::kir::ViewType;

namespace intent::providers {

std::string torchDType(mlir::Type t) {
  if (t.isF16())
    return "torch.float16";
  if (t.isBF16())
    return "torch.bfloat16";
  if (t.isF32())
    return "torch.float32";
  if (t.isF64())
    return "torch.float64";
  if (llvm::isa<mlir::Float8E4M3FNType>(t))
    return "torch.float8_e4m3fn";
  if (llvm::isa<mlir::Float8E5M2Type>(t))
    return "torch.float8_e5m2";
  if (t.isIndex())
    return "torch.int64";
  if (auto i = llvm::dyn_cast<mlir::IntegerType>(t)) {
    switch (i.getWidth()) {
    case 1:
      return "torch.bool";
    case 8:
      return "torch.int8";
    case 16:
      return "torch.int16";
    case 32:
      return "torch.int32";
    case 64:
      return "torch.int64";
    default:
      break;
    }
  }
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return "<unsupported " + s + ">";
}

static std::string kirTypeName(mlir::Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

static bool isPythonIdentifier(llvm::StringRef s) {
  if (s.empty() || !(llvm::isAlpha(s[0]) || s[0] == '_'))
    return false;
  return llvm::all_of(s, [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

/// Names a generated launcher binds or reads where user-named arguments are in
/// scope: Python keywords and the builtins and modules it uses, its globals and
/// locals, and every name starting with '_' (generated helpers; the reference
/// kernel's values are all '_'-prefixed). tests/python/providers/
/// test_python_names.py checks the generated modules against these lists.
static bool isReservedLaunchName(llvm::StringRef s) {
  static const llvm::StringSet<> reserved = {
      "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def",
      "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is",
      "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield", "match",
      "case", "print", "range", "len", "int", "float", "bool", "isinstance", "type", "min", "max", "sum",
      "list", "dict", "tuple", "str", "repr", "abs", "any", "all", "enumerate", "zip", "sorted",
      "ValueError", "TypeError", "RuntimeError", "os", "math", "torch", "triton", "tl", "TensorDescriptor",
      "libdevice_fmod", "KERNEL", "CANDIDATES", "FAMILY", "PROGRAM_KEY", "ARTIFACT", "META", "launch",
      "prepare", "args", "extra", "grid", "tma_ok", "empty", "wshape", "cands", "cand", "gs", "launch_args",
      "whole", "compute_dtype"};
  return reserved.contains(s) || s.starts_with("_");
}

/// ... and, inside the Triton kernel, its variables and parameters, and the
/// numbered temporaries v3, red7, sc1, carry0, merged6, seeded2, out3, acc2, acc0_1
/// and the coordinate digits q4 (columns), c5 and r6 (rows), b1 (batch), rk2 (K).
static bool isReservedKernelName(llvm::StringRef s) {
  static const llvm::StringSet<> reserved = {
      "R", "C", "IDXT", "IDX64", "COVER", "FLAT", "NUM_STAGES", "NUM_WARPS", "NUM_CTAS",
      "USE_TENSOR_DESCRIPTOR", "PROLOGUE_ONCE", "DIV_FORM", "WORKERS", "SPLIT", "SPLIT_K", "GROUP_M", "SCAN_N",
      "RED_N", "RED_M", "OWN_M",
      "OWN_N", "BM", "BN", "BK", "acc", "av", "bv", "rk", "k", "s", "pid", "pid_m", "pid_n", "pid_b", "pid_s",
      "rm", "rn", "last", "ws", "sem", "group", "gsize", "first_m", "num_pid_m", "num_pid_n", "num_tiles",
      "k_lo", "k_hi", "k_per", "rows", "cols", "rmask", "cmask", "smask", "c0", "r0", "c_lo", "c_hi",
      "cols_per", "rows_per", "r_lo", "res", "lane", "src", "ns", "j0", "js", "a_desc", "b_desc",
      "a_ddesc", "b_ddesc", "bid", "tile", "num_work", "num_pid_d", "pid_d", "rd", "BD", "KC", "KONE", "k0",
      "n0"};
  if (isReservedLaunchName(s) || reserved.contains(s))
    return true;
  for (llvm::StringRef prefix : {"v", "red", "sc", "carry", "merged", "seeded", "out", "acc", "q", "c", "r", "b", "rk"}) {
    llvm::StringRef rest = s;
    if (!rest.consume_front(prefix) || rest.empty())
      continue;
    auto [num, tail] = rest.split('_');
    bool digits = !num.empty() && llvm::all_of(num, llvm::isDigit);
    if (digits && (rest == num || (prefix == "acc" && !tail.empty() && llvm::all_of(tail, llvm::isDigit))))
      return true;
  }
  return false;
}

std::vector<std::string> extentSymbols(kir::KernelOp kernel) {
  std::vector<std::string> syms;
  std::set<std::string> seen;
  auto types = kernel.getArgumentTypes();
  for (unsigned i = 0; i < types.size(); ++i)
    if (auto v = llvm::dyn_cast<KView>(types[i]); v && !kernel.isConstexprArg(i))
      for (mlir::Attribute d : v.getShape())
        if (!kir::isStaticDim(d) && seen.insert(kir::symbolicDimName(d).str()).second)
          syms.push_back(kir::symbolicDimName(d).str());
  return syms;
}

PythonNames pythonNames(kir::KernelOp kernel) {
  PythonNames names;
  // A usable name: an identifier (else `fallback`), not `reserved`, `free`: a
  // reserved name loses its leading underscores, then gets "_" appended.
  auto pick = [](std::string name, const std::string &fallback, llvm::function_ref<bool(llvm::StringRef)> reserved,
                 llvm::function_ref<bool(llvm::StringRef)> free) {
    if (!isPythonIdentifier(name))
      name = fallback;
    if (reserved(name)) {
      while (!name.empty() && name[0] == '_')
        name.erase(0, 1);
      name = (name.empty() ? fallback : name) + "_";
    }
    while (reserved(name) || !free(name))
      name += "_";
    return name;
  };
  // Extent symbols first: one name in both scopes (launcher locals and kernel
  // parameters). Then each argument: a launcher name, and a kernel name that also
  // keeps the names derived from it (strides, output descriptor) free.
  llvm::StringSet<> launchUsed, kernelUsed;
  auto types = kernel.getArgumentTypes();
  for (auto [k, sym] : llvm::enumerate(extentSymbols(kernel))) {
    std::string n = pick(sym, "dim" + std::to_string(k), isReservedKernelName,
                         [&](llvm::StringRef c) { return !kernelUsed.contains(c); });
    launchUsed.insert(n);
    kernelUsed.insert(n);
    names.symbols.push_back({sym, n});
  }
  for (unsigned i = 0; i < types.size(); ++i) {
    if (kernel.isConstexprArg(i))
      continue;
    auto view = llvm::dyn_cast<KView>(types[i]);
    auto derived = [&](llvm::StringRef n) {
      std::vector<std::string> d;
      for (int64_t a = 0; view && a < view.getRank(); ++a)
        d.push_back((n + "_s" + llvm::Twine(a)).str());
      if (view)
        for (const char *suffix : {"_odesc", "_olo", "_ohi"}) // output descriptor, its column halves
          d.push_back((n + suffix).str());
      return d;
    };
    std::string fallback = "arg" + std::to_string(i);
    std::string ln = pick(kernel.getArgName(i), fallback, isReservedLaunchName,
                          [&](llvm::StringRef c) { return !launchUsed.contains(c); });
    std::string kn = pick(kernel.getArgName(i), fallback, isReservedKernelName, [&](llvm::StringRef c) {
      if (kernelUsed.contains(c))
        return false;
      for (const std::string &d : derived(c))
        if (kernelUsed.contains(d) || isReservedKernelName(d))
          return false;
      return true;
    });
    launchUsed.insert(ln);
    kernelUsed.insert(kn);
    for (const std::string &d : derived(kn))
      kernelUsed.insert(d);
    names.params.push_back({i, ln});
    names.kernelArgs.push_back({i, kn});
  }
  return names;
}

std::string PythonNames::symbol(llvm::StringRef sym) const {
  for (const auto &[kir, py] : symbols)
    if (kir == sym)
      return py;
  return sym.str();
}

static std::string nameOf(const std::vector<LaunchParameter> &list, unsigned argIndex) {
  for (const LaunchParameter &p : list)
    if (p.argIndex == argIndex)
      return p.name;
  return "arg" + std::to_string(argIndex);
}
std::string PythonNames::argument(unsigned argIndex) const { return nameOf(params, argIndex); }
std::string PythonNames::kernelArgument(unsigned argIndex) const { return nameOf(kernelArgs, argIndex); }

std::vector<LaunchParameter> launchParameters(kir::KernelOp kernel) { return pythonNames(kernel).params; }

std::string launchParameterList(kir::KernelOp kernel) {
  std::string out;
  for (auto &p : launchParameters(kernel)) {
    if (!out.empty())
      out += ", ";
    out += p.name;
  }
  return out;
}


std::string pythonStringLiteral(llvm::StringRef s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string pythonShape(llvm::ArrayRef<mlir::Attribute> shape, llvm::StringRef symbolsVar) {
  std::string out = "[";
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (i)
      out += ", ";
    if (kir::isStaticDim(d))
      out += std::to_string(kir::staticDimValue(d));
    else
      out += symbolsVar.str() + "[" + pythonStringLiteral(kir::symbolicDimName(d)) + "]";
  }
  return out + "]";
}

static void intRange(mlir::Type t, std::string &lo, std::string &hi) {
  unsigned w = t.isIndex() ? 64 : llvm::cast<mlir::IntegerType>(t).getWidth();
  lo = "-(1 << " + std::to_string(w - 1) + ")";
  hi = "(1 << " + std::to_string(w - 1) + ") - 1";
}

// The generated checker is straight-line Python: one block per parameter,
// then the symbol table, then overlap and device checks across parameters.
std::string emitArgumentChecks(kir::KernelOp kernel) {
  auto params = launchParameters(kernel);
  auto types = kernel.getArgumentTypes();
  std::string s;
  llvm::raw_string_ostream os(s);
  std::string plist = launchParameterList(kernel);
  os << "def _span_of(t):\n"
        "    # [start, end) bytes touched by t; None when t has no elements.\n"
        "    if t.numel() == 0:\n"
        "        return None\n"
        "    start = t.data_ptr()\n"
        "    last = 0\n"
        "    for n, st in zip(t.shape, t.stride()):\n"
        "        last += (n - 1) * st\n"
        "    return (start, start + (last + 1) * t.element_size())\n\n"
        "def _has_internal_overlap(t):\n"
        "    # Conservative: sorted by stride, each axis must step past the previous ones.\n"
        "    if t.numel() == 0:\n"
        "        return False  # no elements, whatever the strides\n"
        "    axes = sorted((st, n) for n, st in zip(t.shape, t.stride()) if n > 1)\n"
        "    reach = 1\n"
        "    for st, n in axes:\n"
        "        if st < reach:\n"
        "            return True\n"
        "        reach = st * n\n"
        "    return False\n\n";
  os << "def _check_args(" << plist << "):\n";
  os << "    \"\"\"Validates the launch arguments of kernel @" << kernel.getSymName()
     << "; returns {symbol: extent}.\"\"\"\n";
  os << "    _seen = {}\n";
  os << "    _sym = {}\n";
  os << "    _tensors = []\n";
  for (auto &p : params) {
    mlir::Type t = types[p.argIndex];
    // Code uses the Python name, messages the KIR name the author wrote.
    std::string n = p.name, kn = kernel.getArgName(p.argIndex), qn = pythonStringLiteral(kn);
    if (auto v = llvm::dyn_cast<KView>(t)) {
      std::string dt = torchDType(v.getElementType());
      std::string desc = "!kir.view<" + kirTypeName(v.getElementType()) + ", " +
                         kir::shapeToString(v.getShape()) + ", " +
                         kir::stringifyAccess(v.getAccess()).str() +
                         (v.getContiguous() ? ", contiguous>" : ">");
      os << "    if not isinstance(" << n << ", torch.Tensor):\n";
      os << "        raise TypeError(\"parameter '" << kn << "': expected a torch.Tensor ("
         << desc << "), got \" + type(" << n << ").__name__)\n";
      os << "    if " << n << ".dtype != " << dt << ":\n";
      os << "        raise TypeError(\"parameter '" << kn << "': expected dtype " << dt
         << ", got \" + str(" << n << ".dtype))\n";
      os << "    if " << n << ".dim() != " << v.getRank() << ":\n";
      os << "        raise ValueError(\"parameter '" << kn << "': expected rank " << v.getRank()
         << " (shape " << kir::shapeToString(v.getShape()) << "), got rank %d (shape %s)\" % ("
         << n << ".dim(), list(" << n << ".shape)))\n";
      for (auto [axis, d] : llvm::enumerate(v.getShape())) {
        std::string where = n + ".shape[" + std::to_string(axis) + "]";
        if (kir::isStaticDim(d)) {
          int64_t e = kir::staticDimValue(d);
          os << "    if " << where << " != " << e << ":\n";
          os << "        raise ValueError(\"parameter '" << kn << "': axis " << axis
             << " has the static extent " << e << " but " << where << " = %d\" % " << where
             << ")\n";
        } else {
          std::string sym = pythonStringLiteral(kir::symbolicDimName(d));
          os << "    if " << sym << " in _sym:\n";
          os << "        if _sym[" << sym << "] != " << where << ":\n";
          os << "            raise ValueError(\"symbol " << kir::symbolicDimName(d)
             << ": %s = %d but " << where << " = %d\" % (_seen[" << sym << "], _sym[" << sym
             << "], " << where << "))\n";
          os << "    else:\n";
          os << "        _sym[" << sym << "] = " << where << "\n";
          os << "        _seen[" << sym << "] = " << pythonStringLiteral(where) << "\n";
        }
      }
      if (v.getContiguous() && v.getRank() > 0) {
        os << "    if " << n << ".shape[-1] > 1 and " << n << ".stride(-1) != 1:\n";
        os << "        raise ValueError(\"parameter '" << kn
           << "' is declared contiguous (unit stride on the last axis) but " << n
           << ".stride(-1) = %d\" % " << n << ".stride(-1))\n";
      }
      if (v.isWritable()) {
        os << "    if _has_internal_overlap(" << n << "):\n";
        os << "        raise ValueError(\"parameter '" << kn
           << "' is written but some of its elements share memory (strides %s)\" % (list("
           << n << ".stride()),))\n";
      }
      os << "    _tensors.append((" << qn << ", " << n << ", "
         << (v.isWritable() ? "True" : "False") << "))\n";
      continue;
    }
    // Scalars: Python numbers of the right kind; integers must fit the type.
    if (t.isInteger(1)) {
      os << "    if not isinstance(" << n << ", bool):\n";
      os << "        raise TypeError(\"parameter '" << kn
         << "': expected a Python bool (i1), got \" + type(" << n << ").__name__)\n";
    } else if (t.isIntOrIndex()) {
      std::string lo, hi;
      intRange(t, lo, hi);
      os << "    if not isinstance(" << n << ", int) or isinstance(" << n << ", bool):\n";
      os << "        raise TypeError(\"parameter '" << kn << "': expected a Python int ("
         << kirTypeName(t) << "), got \" + type(" << n << ").__name__)\n";
      os << "    if not (" << lo << " <= " << n << " <= " << hi << "):\n";
      os << "        raise ValueError(\"parameter '" << kn << "': %d does not fit in "
         << kirTypeName(t) << "\" % " << n << ")\n";
    } else {
      os << "    if not isinstance(" << n << ", (int, float)) or isinstance(" << n
         << ", bool):\n";
      os << "        raise TypeError(\"parameter '" << kn << "': expected a Python float or int ("
         << kirTypeName(t) << "), got \" + type(" << n << ").__name__)\n";
    }
  }
  os << "    for _i, (_an, _a, _aw) in enumerate(_tensors):\n";
  os << "        if _a.device != _tensors[0][1].device:\n";
  os << "            raise ValueError(\"all tensor arguments must be on one device: '%s' is on %s "
        "but '%s' is on %s\" % (_tensors[0][0], _tensors[0][1].device, _an, _a.device))\n";
  os << "    for _i, (_an, _a, _aw) in enumerate(_tensors):\n";
  os << "        if not _aw:\n";
  os << "            continue\n";
  os << "        _sa = _span_of(_a)\n";
  os << "        if _sa is None:\n";
  os << "            continue\n";
  os << "        for _j, (_bn, _b, _bw) in enumerate(_tensors):\n";
  os << "            if _j == _i:\n";
  os << "                continue\n";
  os << "            _sb = _span_of(_b)\n";
  os << "            if _sb is not None and _sa[0] < _sb[1] and _sb[0] < _sa[1]:\n";
  os << "                raise ValueError(\"parameter '%s' is written but overlaps the memory of "
        "parameter '%s'\" % (_an, _bn))\n";
  os << "    return _sym\n";
  return s;
}

nlohmann::ordered_json abiMetadata(kir::KernelOp kernel) {
  nlohmann::ordered_json j;
  nlohmann::ordered_json ps = nlohmann::ordered_json::array();
  nlohmann::ordered_json bindings = nlohmann::ordered_json::object();
  auto types = kernel.getArgumentTypes();
  for (auto &p : launchParameters(kernel)) {
    mlir::Type t = types[p.argIndex];
    nlohmann::ordered_json e;
    e["name"] = p.name;
    e["kir_name"] = kernel.getArgName(p.argIndex);
    if (auto v = llvm::dyn_cast<KView>(t)) {
      e["kind"] = "view";
      e["dtype"] = kirTypeName(v.getElementType());
      e["torch_dtype"] = torchDType(v.getElementType());
      nlohmann::ordered_json shape = nlohmann::ordered_json::array();
      for (auto [axis, d] : llvm::enumerate(v.getShape())) {
        if (kir::isStaticDim(d)) {
          shape.push_back(kir::staticDimValue(d));
        } else {
          std::string sym = kir::symbolicDimName(d).str();
          shape.push_back(sym);
          bindings[sym].push_back({{"parameter", p.name}, {"axis", axis}});
        }
      }
      e["shape"] = shape;
      e["access"] = kir::stringifyAccess(v.getAccess()).str();
      e["contiguous"] = v.getContiguous();
    } else {
      e["kind"] = "scalar";
      e["dtype"] = kirTypeName(t);
      e["torch_dtype"] = torchDType(t);
    }
    ps.push_back(e);
  }
  j["parameters"] = ps;
  j["symbols"] = extentSymbols(kernel);
  j["symbol_bindings"] = bindings;
  return j;
}

} // namespace intent::providers
