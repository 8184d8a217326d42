//===- Emitter.h - state shared by the Triton serializer's two halves -----===//
//
// The kernel half (KernelEmitter.cpp) writes KIR values and the igpu.program as
// a @triton.jit body; the module half (ModuleEmitter.cpp) writes the launcher,
// the candidates and the autotuner around it from the same Emitter (names,
// reciprocals the launcher computes, helper functions the body asked for).
// Private to the Triton provider.
//
//===----------------------------------------------------------------------===//
#ifndef INTENT_PROVIDERS_TRITON_EMITTER_H
#define INTENT_PROVIDERS_TRITON_EMITTER_H

#include "intent/GPU/IGPU.h"
#include "intent/GPU/Program.h"
#include "intent/Providers/LaunchABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/DenseMap.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace intent::providers::triton {
using namespace mlir;
using namespace intent::gpu;
using KTensor = intent::kir::TensorType;

std::string tlType(Type t);
bool isNarrowFloat(Type t);
std::string floatLiteral(double v);
/// Device helper functions by name (@triton.jit source), emitted when the body uses them.
const std::map<std::string, std::string> &numericHelperSources();

class Py {
public:
  void line(const std::string &s) { out_ += std::string(indent_ * 4, ' ') + s + "\n"; }
  void raw(const std::string &s) { out_ += s; }
  void push() { ++indent_; }
  void pop() { --indent_; }
  std::string take() { return std::move(out_); }
  int indent() const { return indent_; }

private:
  std::string out_;
  int indent_ = 0;
};

std::string dimExpr(Attribute d, const providers::PythonNames &names);

/// Coordinates of the canonical axes inside the current loop nest.
struct Coords {
  std::vector<std::string> coord; ///< broadcastable coordinate block per axis
  std::vector<std::string> mask;  ///< validity per axis ("" = always valid)
  /// Row structures: the program's row block ([OWN_M, 1]) and its validity, also
  /// when no axis is a row axis (a vector reduced to a 0-d view is one row).
  std::string rows, rowMask;
};

class Emitter {
public:
  Emitter(kir::KernelOp kernel, const ProgramStructure &ps, Py &py)
      : kernel(kernel), ps(ps), py(py), names(providers::pythonNames(kernel)) {}

  kir::KernelOp kernel;
  const ProgramStructure &ps;
  Py &py;
  /// Python names of the arguments and extent symbols (collision-free with the
  /// generated module's own names).
  providers::PythonNames names;
  Coords coords;
  llvm::DenseMap<Value, std::string> cache;
  /// The program-invariant values, bound at the program's start (hoistInvariants):
  /// valid at every coordinate, so every scope's cache starts from them.
  llvm::DenseMap<Value, std::string> invariant;
  /// The reciprocal of each program-invariant row-uniform divisor: a name bound at the
  /// program's start, or the kernel parameter the launcher fills (hostRecips).
  llvm::DenseMap<Value, std::string> invariantRecip;
  /// Reciprocals the launcher computes: (kernel parameter, the launcher's extent expression).
  std::vector<std::pair<std::string, std::string>> hostRecips;
  /// Extent symbols a flat index is divided by: the launcher passes each one's multiply-high
  /// divisor (_udiv_magic) as `_dvm<i>`.
  std::vector<std::string> hostDivisors;
  std::string divisorMagic(StringRef symbol) { return launcherParam(hostDivisors, symbol, "_dvm"); }
  /// Innermost column extents whose multiple-of-16 test the launcher passes as the constexpr
  /// `_DVA<i>` (the column digits then divide: see _divmod).
  std::vector<std::string> alignedExtents;
  std::string extentAligned(StringRef symbol) { return launcherParam(alignedExtents, symbol, "_DVA"); }
  /// `prefix<i>`, i the position of `symbol` in `symbols` (appended when new).
  static std::string launcherParam(std::vector<std::string> &symbols, StringRef symbol, const char *prefix) {
    size_t i = llvm::find(symbols, symbol.str()) - symbols.begin();
    if (i == symbols.size())
      symbols.push_back(symbol.str());
    return prefix + std::to_string(i);
  }
  /// DIV_FORM (the structure declares it for such divisions) chooses the form per candidate;
  /// its form 1 takes the divisor itself too.
  const bool divisionFormTuned =
      llvm::any_of(ps.parameters, [](const gpu::Parameter &p) { return p.symbol == "DIV_FORM"; });
  /// What a load puts into its masked lanes when a reduction claimed it (see
  /// padded()); 0 otherwise.
  llvm::DenseMap<Value, std::string> loadFill;
  int counter = 0;
  std::vector<std::string> helperFns; ///< @triton.jit combine functions
  std::set<std::string> numericHelpers; ///< names in numericHelperSources() in use
  std::string error;

  std::string fresh(const char *p = "v") { return std::string(p) + std::to_string(counter++); }

  /// An argument's name inside the Triton kernel.
  std::string argName(Value v) { return names.kernelArgument(cast<BlockArgument>(v).getArgNumber()); }
  /// An argument's name in the launcher functions (launch, _prepare, _descs, ...).
  std::string launchName(Value v) { return names.argument(cast<BlockArgument>(v).getArgNumber()); }
  std::string dim(Attribute d) const { return dimExpr(d, names); }

  /// Byte offset expression and mask of a view at the current coordinates.
  std::pair<std::string, std::string> address(Value view) {
    std::string name = argName(view);
    const auto &ax = ps.axes.lookup(view);
    std::string off, mask;
    for (auto [d, a] : llvm::enumerate(ax)) {
      if (a >= (int)coords.coord.size())
        continue;
      std::string term = "(" + coords.coord[a] + ") * " + name + "_s" + std::to_string(d);
      off = off.empty() ? term : off + " + " + term;
      const std::string &m = coords.mask[a];
      if (!m.empty())
        mask = mask.empty() ? m : "(" + mask + ") & (" + m + ")";
    }
    return {off.empty() ? "0" : off, mask};
  }

  /// Full-tile validity mask (all axes).
  std::string fullMask() {
    std::string mask;
    for (const auto &m : coords.mask)
      if (!m.empty())
        mask = mask.empty() ? m : "(" + mask + ") & (" + m + ")";
    return mask.empty() ? "True" : mask;
  }

  std::string bind(const std::string &expr, const char *p = "v") {
    std::string n = fresh(p);
    py.line(n + " = " + expr);
    return n;
  }

  /// Emits an arithmetic op, evaluating 16-bit floats in f32 and rounding once.
  std::string arith(Type resultType, const std::string &expr, bool narrowCompute) {
    if (narrowCompute)
      return bind("(" + expr + ").to(" + tlType(resultType) + ")");
    return bind(expr);
  }

  std::string up(const std::string &v, Type t) {
    return isNarrowFloat(t) ? "tl.cast(" + v + ", tl.float32)" : v; // tl.cast: scalars may be Python floats
  }

  std::string reciprocal(const std::string &divisor) {
    numericHelpers.insert("_recip_f64");
    return bind("_recip_f64(" + divisor + ")");
  }

  /// Binds the program-invariant values and the reciprocals of invariant row-uniform
  /// divisors once, before anything else the program computes: then no use recomputes
  /// them in a loop, and none waits for them behind the row's load and reductions.
  void hoistInvariants(Block &body) {
    llvm::DenseSet<Value> inv = gpu::programInvariants(kernel);
    auto rowUniform = [&](kir::DivOp div) { return inv.contains(div.getRhs()) && gpu::isRowUniformDivision(div, ps); };
    // An extent divisor: the launcher passes its correctly rounded reciprocal as an f64
    // parameter, and no program spends its critical path on Newton steps.
    for (auto div : body.getOps<kir::DivOp>())
      if (std::optional<std::string> extent = rowUniform(div) ? launcherExtent(div) : std::nullopt;
          extent && !invariantRecip.count(div.getRhs())) {
        hostRecips.push_back({"_rcp" + std::to_string(hostRecips.size()), *extent});
        invariantRecip[div.getRhs()] = hostRecips.back().first;
      }
    // Invariants something still uses (a served divisor only under DIV_FORM, which also
    // takes the divisor itself), bound in program order.
    llvm::DenseSet<Value> live;
    for (Operation &op : llvm::reverse(body)) {
      if (op.getNumResults() == 1 && inv.contains(op.getResult(0)) && !live.contains(op.getResult(0)))
        continue;
      auto div = dyn_cast<kir::DivOp>(op);
      for (OpOperand &use : op.getOpOperands())
        if (inv.contains(use.get()) && !(div && use.getOperandNumber() == 1 && invariantRecip.count(use.get()) &&
                                         rowUniform(div) && !divisionFormTuned))
          live.insert(use.get());
    }
    for (Operation &op : body)
      if (op.getNumResults() == 1 && live.contains(op.getResult(0)))
        value(op.getResult(0));
    for (auto div : body.getOps<kir::DivOp>())
      if (rowUniform(div) && !invariantRecip.count(div.getRhs())) {
        std::string r = reciprocal(up(value(div.getRhs()), div.getType()));
        invariantRecip[div.getRhs()] = r;
      }
    invariant = cache;
  }

  /// The launcher's expression of an extent when an f32 division divides by it (cast to f32).
  std::optional<std::string> launcherExtent(kir::DivOp div) {
    auto toF32 = div.getRhs().getDefiningOp<kir::CastOp>();
    if (!toF32 || !kir::kirElementType(div.getType()).isF32() || !toF32.getType().isF32())
      return std::nullopt;
    auto ex = toF32.getInput().getDefiningOp<kir::ExtentOp>();
    if (!ex)
      return std::nullopt;
    Attribute d = cast<kir::ViewType>(ex.getView().getType()).getShape()[ex.getAxis()];
    return kir::isStaticDim(d) ? std::to_string(kir::staticDimValue(d))
                               : "_ext['" + kir::symbolicDimName(d).str() + "']";
  }

  std::string scalarConst(arith::ConstantOp c) {
    Attribute a = c.getValue();
    if (auto f = dyn_cast<FloatAttr>(a))
      return floatLiteral(f.getValueAsDouble());
    if (auto i = dyn_cast<IntegerAttr>(a)) {
      if (i.getType().isInteger(1))
        return i.getValue().getBoolValue() ? "True" : "False";
      return std::to_string(i.getValue().getSExtValue());
    }
    error = "unsupported constant";
    return "0";
  }

  std::string value(Value v);
  std::string unaryExpr(StringRef name, const std::string &x, Type t);
  std::string binaryExpr(StringRef name, const std::string &a, const std::string &b, Type t);
  std::string combineFn(Operation *reduceOrScan);
  std::string identityOf(Operation *op, unsigned i, Type elt);
  std::string padded(Operation *reduceOrScan, unsigned i, bool tileMask, const std::string &mask);
  void store(kir::StoreOp st);
};

/// How the split axis of the workspace meets a merged store's lanes: `width`
/// lanes per split, `splits` broadcasts a chunk of split indices against the
/// lanes, `axis` is the axis the merge sums over (kept when the lanes are a
/// block), `chunk` how many splits one load covers. `group`, `lane` and `mask`
/// are the program's expressions (igpu.split_merge operands).
struct MergeLanes {
  std::string group, lane, mask, width, splits, chunk;
  int axis;
  bool keep;
};

/// The dims of a contraction operand's view: its batch dims (in canonical axis
/// order; an operand may lack some), then its rows and columns.
struct OperandDims {
  std::vector<int> batch;
  int rows = -1, cols = -1;
};

/// Where split partials live (`igpu.split_merge` lanes): rows of a row
/// reduction, kept columns of a column sum, or one lane for a total.
MergeLanes mergeLanes(StringRef lanes);
/// The lanes of the kernel's split merge, if its program has one.
std::optional<std::string> splitMergeLanes(kir::KernelOp kernel);
/// The product of the row (column) axes' extents, as the launcher names them.
std::string rowsExpr(const ProgramStructure &ps, const providers::PythonNames &names);
std::string colsExpr(const ProgramStructure &ps, const providers::PythonNames &names);
/// The M and N extents of a matmul (canonical axes: [batch...,] m, n, k).
std::pair<std::string, std::string> matmulMN(const ProgramStructure &ps, const providers::PythonNames &names);
/// The product of the extents of the canonical batch axes (the flattened batch count).
std::string batchCount(Emitter &e, int nb);
/// The extent of canonical axis `axis` as `view` (which has it) names it.
std::string viewAxisExtent(Emitter &e, Value view, int axis);
OperandDims operandDims(const ProgramStructure &ps, Value view);
/// The operand prologue of a PROLOGUE_ONCE candidate as its own kernel (see KernelEmitter.cpp).
std::string emitPrologueKernel(kir::KernelOp kernel, const ProgramStructure &ps, Value operand, kir::LoadOp load,
                               const std::string &fnName, const std::vector<std::string> &params,
                               std::set<std::string> &numericHelpers);

/// Serializes the kernel's igpu.program into e.py (the @triton.jit body); `tma`: the
/// program has USE_TENSOR_DESCRIPTOR candidates. Errors land in e.error.
void emitProgram(Emitter &e, Block &body, igpu::ProgramOp program, bool tma);

} // namespace intent::providers::triton

#endif // INTENT_PROVIDERS_TRITON_EMITTER_H
