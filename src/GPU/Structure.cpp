//===- Structure.cpp - axis roles, structure choice, typed parameters ------===//
#include "intent/GPU/Structure.h"
#include "intent/GPU/Program.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace intent;
using namespace intent::gpu;
using KTensor = intent::kir::TensorType;

const char *gpu::structureName(StructureKind k) {
  switch (k) {
  case StructureKind::Tiles: return "tiles";
  case StructureKind::RowReduction: return "row_reduction";
  case StructureKind::RowScan: return "row_scan";
  case StructureKind::SplitReduction: return "split_reduction";
  case StructureKind::Matmul: return "matmul";
  case StructureKind::RegionContraction: return "region_contraction";
  }
  return "?";
}

static ArrayRef<Attribute> shapeOf(Type t) {
  if (auto v = dyn_cast<kir::ViewType>(t))
    return v.getShape();
  if (auto v = dyn_cast<KTensor>(t))
    return v.getShape();
  return {};
}

static bool isElementwise(Operation *op) {
  return isa<kir::AddOp, kir::SubOp, kir::MulOp, kir::DivOp, kir::RemOp, kir::PowOp, kir::MaxOp,
             kir::MinOp, kir::AndOp, kir::OrOp, kir::XorOp, kir::ShlOp, kir::ShrOp, kir::NegOp,
             kir::AbsOp, kir::ExpOp, kir::Exp2Op, kir::LogOp, kir::Log2Op, kir::SqrtOp,
             kir::RsqrtOp, kir::SinOp, kir::CosOp, kir::TanhOp, kir::ErfOp, kir::SigmoidOp,
             kir::FloorOp, kir::CeilOp, kir::NotOp, kir::CmpOp, kir::SelectOp, kir::CastOp>(op);
}

namespace {
/// A contraction operand: the load of a view with the operand's axes (its main
/// load), possibly under a pointwise prologue of elementwise ops and casts of
/// that load, of scalars and of lower-rank loads broadcast to it.
struct OperandForm {
  kir::LoadOp load;
  bool prologue = false;       ///< the operand is not the load itself
  bool zeroPreserving = true;  ///< the prologue is casts only: a lane loaded as 0 stays 0
  Operation *bad = nullptr;    ///< where the form breaks, with `why`
  std::string why;
};

OperandForm operandForm(Value operand, Operation *contract) {
  OperandForm f;
  int64_t rank = shapeOf(operand.getType()).size();
  llvm::SmallPtrSet<Operation *, 16> slice;
  SmallVector<Value> work{operand};
  while (!work.empty() && !f.bad) {
    Value v = work.pop_back_val();
    Operation *op = v.getDefiningOp();
    if (!op || !slice.insert(op).second)
      continue; // scalar arguments, or seen
    if (auto load = dyn_cast<kir::LoadOp>(op)) {
      if ((int64_t)shapeOf(load.getType()).size() < rank)
        continue; // a lower-rank load, broadcast into the prologue
      if (f.load) {
        f.bad = op;
        f.why = "a contraction operand that reads two views with all of its axes (a prologue is "
                "pointwise on one operand load)";
      }
      f.load = load;
      continue;
    }
    if (!isElementwise(op) && !isa<kir::BroadcastOp, arith::ConstantOp>(op)) {
      f.bad = op;
      f.why = "a contraction operand computed by '" + op->getName().getStringRef().str() +
              "' (a prologue is pointwise: elementwise ops, casts and broadcasts of loads and scalars)";
      break;
    }
    if (!isa<kir::CastOp>(op))
      f.zeroPreserving = false;
    for (Value x : op->getOperands())
      work.push_back(x);
  }
  if (f.bad)
    return f;
  if (!f.load) {
    f.bad = contract;
    f.why = "a contraction operand that loads no view with all of its axes";
    return f;
  }
  f.prologue = operand != f.load.getResult();
  // Values with all of the operand's axes exist only inside the K loop.
  for (Operation *op : slice)
    for (Value r : op->getResults())
      if ((int64_t)shapeOf(r.getType()).size() == rank)
        for (Operation *user : r.getUsers())
          if (user != contract && !slice.contains(user)) {
            f.bad = user;
            f.why = "a value of a contraction operand's prologue used outside the contraction";
            return f;
          }
  return f;
}

/// Propagates canonical axis identities through the dataflow to a fixpoint.
struct AxisSolver {
  llvm::DenseMap<Value, SmallVector<int>> &axes;
  ArrayRef<Attribute> extents; ///< extent of each canonical axis
  bool conflict = false;
  std::string conflictWhy;

  bool assign(Value v, SmallVector<int> a) { // by value: inserting may rehash `axes`
    if (!isa<KTensor, kir::ViewType>(v.getType()))
      return false;
    auto it = axes.find(v);
    if (it == axes.end()) {
      axes[v] = std::move(a);
      return true;
    }
    if (it->second != a) {
      conflict = true;
      conflictWhy = "a value is used along two different axis mappings";
    }
    return false;
  }
  bool known(Value v) const { return axes.count(v); }

  /// Forward through a broadcast whose result is not related otherwise (e.g. a
  /// row statistic broadcast and stored as is): kept dims take the input's
  /// axes; each new dim takes the one remaining canonical axis of equal extent.
  /// None when that is ambiguous.
  std::optional<SmallVector<int>> broadcastAxes(kir::BroadcastOp b) {
    SmallVector<int> out(shapeOf(b.getResult().getType()).size(), -1);
    if (isa<KTensor>(b.getInput().getType())) {
      ArrayRef<int64_t> dims = *b.getDims();
      for (auto [j, d] : llvm::enumerate(dims))
        out[d] = axes[b.getInput()][j];
    }
    return byExtent(b.getResult().getType(), out);
  }

  /// Completes `out` (-1 = open): each open dimension of a value of type `t`
  /// takes the one canonical axis of the same extent that `out` does not use.
  /// None when some open dimension has no such axis or more than one.
  std::optional<SmallVector<int>> byExtent(Type t, SmallVector<int> out) const {
    for (auto [i, extent] : llvm::enumerate(shapeOf(t))) {
      if (out[i] >= 0)
        continue;
      int found = -1;
      for (int k = 0, e = extents.size(); k < e; ++k)
        if (extents[k] == extent && !llvm::is_contained(out, k)) {
          if (found >= 0)
            return std::nullopt;
          found = k;
        }
      if (found < 0)
        return std::nullopt;
      out[i] = found;
    }
    return out;
  }

  /// A computation the dataflow does not connect to the anchor (e.g. a second
  /// input reduced on its own) is placed by its extents: the first such value
  /// in program order whose dimensions match canonical axes unambiguously.
  bool placeUnrelated(Block &body) {
    for (Operation &op : body)
      for (Value r : op.getResults())
        if (isa<KTensor>(r.getType()) && !known(r))
          if (auto a = byExtent(r.getType(), SmallVector<int>(shapeOf(r.getType()).size(), -1)))
            return assign(r, *a);
    return false;
  }

  bool step(Block &body) {
    bool changed = false;
    for (Operation &op : body) {
      auto same = [&](ValueRange vals) {
        for (Value a : vals)
          if (known(a))
            for (Value b : vals)
              if (b != a && isa<KTensor, kir::ViewType>(b.getType()) && shapeOf(b.getType()).size() == axes[a].size())
                changed |= assign(b, axes[a]);
      };
      if (isElementwise(&op)) {
        SmallVector<Value> vals(op.getOperands());
        vals.push_back(op.getResult(0));
        same(vals);
      } else if (auto load = dyn_cast<kir::LoadOp>(op)) {
        same({load.getView(), load.getResult()});
      } else if (auto store = dyn_cast<kir::StoreOp>(op)) {
        same({store.getValue(), store.getView()});
      } else if (auto b = dyn_cast<kir::BroadcastOp>(op)) {
        bool tensorIn = isa<KTensor>(b.getInput().getType());
        if (known(b.getResult()) && tensorIn) {
          SmallVector<int> in;
          ArrayRef<int64_t> dims = *b.getDims(); // keep the optional's value alive
          for (int64_t d : dims)
            in.push_back(axes[b.getResult()][d]);
          changed |= assign(b.getInput(), in);
        } else if (!known(b.getResult()) && (!tensorIn || known(b.getInput()))) {
          if (auto out = broadcastAxes(b))
            changed |= assign(b.getResult(), *out);
        }
      } else if (auto r = dyn_cast<kir::ReduceOp>(op)) {
        SmallVector<Value> vals(r.getInputs());
        same(vals);
        for (Value in : r.getInputs())
          if (known(in)) {
            SmallVector<int> kept;
            for (auto [i, a] : llvm::enumerate(axes[in]))
              if (!llvm::is_contained(r.getDims(), (int64_t)i))
                kept.push_back(a);
            for (Value res : r.getResults())
              changed |= assign(res, kept);
          }
      } else if (auto s = dyn_cast<kir::ScanOp>(op)) {
        SmallVector<Value> vals(s.getInputs());
        for (Value r : s.getResults())
          vals.push_back(r);
        same(vals);
      } else if (auto t = dyn_cast<kir::TransposeOp>(op)) {
        if (known(t.getInput())) {
          SmallVector<int> out;
          for (int64_t p : t.getPerm())
            out.push_back(axes[t.getInput()][p]);
          changed |= assign(t.getResult(), out);
        } else if (known(t.getResult())) {
          SmallVector<int> in(t.getPerm().size());
          for (auto [i, p] : llvm::enumerate(t.getPerm()))
            in[p] = axes[t.getResult()][i];
          changed |= assign(t.getInput(), in);
        }
      }
    }
    return changed;
  }
};
} // namespace

static std::vector<int64_t> powersOfTwo(int64_t lo, int64_t hi) {
  std::vector<int64_t> d;
  for (int64_t v = lo; v <= hi; v *= 2)
    d.push_back(v);
  return d;
}

/// Static extent of an iteration axis, or nullopt when symbolic.
static std::optional<int64_t> staticExtent(Attribute d) {
  if (kir::isStaticDim(d))
    return kir::staticDimValue(d);
  return std::nullopt;
}

/// Ownership domains: powers of two up to the static extent (rounded up), so
/// projection never picks tiles far beyond what the program has.
static std::vector<int64_t> tileDomain(std::optional<int64_t> extent, int64_t lo, int64_t hi) {
  if (extent) {
    int64_t cap = 1;
    while (cap < *extent && cap < hi) // bounded by hi: no overflow for extents near 2^63
      cap *= 2;
    hi = std::max(lo, std::min(hi, cap));
  }
  return powersOfTwo(lo, hi);
}

static int elementBits(Type t) {
  Type e = kir::kirElementType(t);
  if (e.isIndex())
    return 64;
  return e.getIntOrFloatBitWidth();
}

/// Whether `v` reaches stores only through element-wise ops (an epilogue): the last
/// split program to arrive can evaluate them once the partial results are merged.
static bool epilogueOnly(Value v) {
  SmallVector<Value> work{v};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!work.empty()) {
    for (Operation *u : work.pop_back_val().getUsers()) {
      if (isa<kir::StoreOp>(u) || !seen.insert(u).second)
        continue;
      if (!isElementwise(u))
        return false;
      llvm::append_range(work, u->getResults());
    }
  }
  return true;
}

/// Whether split programs can merge a reduction's partial results in f32 workspace lanes
/// (docs/gpu.md "Split merge"): its one result stored directly or through an element-wise
/// epilogue, an unordered_tree sum of f32 or i32 (i32 as f32 bits), or a maximum or minimum
/// of f32, f16, bf16 or i32 (exact in those lanes; the merge keeps NaN propagation).
static bool splitMergeable(kir::ReduceOp r) {
  if (r->getNumResults() != 1 || !epilogueOnly(r.getResult(0)) ||
      r.getEffectivePolicy() != kir::Policy::unordered_tree || !r.getKind())
    return false;
  Type elt = cast<KTensor>(r.getResult(0).getType()).getElementType();
  switch (*r.getKind()) {
  case kir::ReduceKind::add: return elt.isF32() || elt.isInteger(32);
  case kir::ReduceKind::max:
  case kir::ReduceKind::min: return elt.isF32() || elt.isF16() || elt.isBF16() || elt.isInteger(32);
  default: return false;
  }
}

/// A contraction's labels (the verifier parsed its spec): m is the result's last label
/// of the left operand alone, n its last of the right operand alone (0 when there is
/// none), every other result label a batch label in the result's order (in one or both
/// operands; the result may order them freely), k the contracted labels.
static ContractionInfo contractionLabels(kir::ContractOp c) {
  std::string err;
  auto labels = kir::ContractOp::parseSpec(c.getSpec(), err);
  ContractionInfo ci;
  ci.op = c;
  ci.lhsLabels = labels->lhs;
  ci.rhsLabels = labels->rhs;
  ci.resultLabels = labels->result;
  ci.k = labels->contracted();
  std::string lhsOnly = labels->lhsOnly(), rhsOnly = labels->rhsOnly();
  for (char l : labels->result) {
    if (lhsOnly.find(l) != std::string::npos)
      ci.m = l;
    if (rhsOnly.find(l) != std::string::npos)
      ci.n = l;
  }
  for (char l : labels->result)
    if (l != ci.m && l != ci.n)
      ci.batch += l;
  return ci;
}

/// One contraction of a region (attention): one contracted label, a row (m) and a column
/// (n) label; operands of one tensor-core type accumulated in f32.
static std::optional<ContractionInfo> regionContraction(kir::ContractOp c, std::string &why) {
  ContractionInfo ci = contractionLabels(c);
  if (ci.k.size() != 1 || !ci.m || !ci.n) {
    why = "a contraction of two that has not exactly one contracted label and a label of each operand alone";
    return std::nullopt;
  }
  Type lt = kir::kirElementType(c.getLhs().getType()), rt = kir::kirElementType(c.getRhs().getType());
  if (lt != rt || !(lt.isF16() || lt.isBF16() || lt.isF32()) || !kir::kirElementType(c.getType()).isF32()) {
    llvm::raw_string_ostream os(why);
    os << "a contraction of " << lt << " and " << rt << " operands into " << kir::kirElementType(c.getType())
       << " next to another (the region realizes f16, bf16 and f32 operands of one type, accumulated in f32)";
    return std::nullopt;
  }
  return ci;
}

llvm::DenseSet<Operation *> gpu::definingOps(ValueRange roots, llvm::function_ref<bool(Operation *)> boundary,
                                             bool keepBoundary) {
  llvm::DenseSet<Operation *> ops;
  SmallVector<Value> work(roots.begin(), roots.end());
  while (!work.empty()) {
    Operation *d = work.pop_back_val().getDefiningOp();
    if (!d || ops.contains(d))
      continue;
    if (boundary(d)) {
      if (keepBoundary)
        ops.insert(d);
      continue;
    }
    ops.insert(d);
    work.append(d->getOperands().begin(), d->getOperands().end());
  }
  return ops;
}

/// The operations `roots` are computed from, up to and excluding kir.contract results.
static llvm::DenseSet<Operation *> upstream(ValueRange roots) {
  return gpu::definingOps(roots, [](Operation *op) { return isa<kir::ContractOp>(op); }, /*keepBoundary=*/false);
}

/// Groups a row structure's reductions into the chunked row's passes: a reduction
/// joins the pass one deeper than the deepest pass whose results it reads, next to
/// reductions of its own policy (a strict fold steps one column at a time, a tree a
/// chunk). Passes run by depth, then in program order.
static void rowPasses(ProgramStructure &ps) {
  struct Pass {
    size_t depth;
    kir::Policy policy;
    std::vector<int64_t> members;
  };
  std::vector<Pass> passes;
  llvm::DenseMap<Operation *, size_t> depth;
  for (auto [i, op] : llvm::enumerate(ps.reductions)) {
    if (isa<kir::ScanOp>(op)) // a row scan's segments follow the passes
      continue;
    size_t d = 0;
    for (Operation *u : upstream(op->getOperands()))
      if (auto it = depth.find(u); it != depth.end())
        d = std::max(d, it->second + 1);
    depth[op] = d;
    kir::Policy pol = cast<kir::ReduceOp>(op).getEffectivePolicy();
    auto it = llvm::find_if(passes, [&](const Pass &p) { return p.depth == d && p.policy == pol; });
    if (it == passes.end())
      it = passes.insert(it, {d, pol, {}});
    it->members.push_back(i);
  }
  llvm::stable_sort(passes, [](const Pass &a, const Pass &b) { return a.depth < b.depth; });
  for (Pass &p : passes)
    ps.rowPasses.push_back(std::move(p.members));
  if (ps.kind == StructureKind::RowReduction && ps.reductions.size() > 1)
    ps.facts.push_back("a chunked row is read in " + std::to_string(ps.rowPasses.size()) + " pass" +
                       (ps.rowPasses.size() == 1 ? "" : "es") + " for " + std::to_string(ps.reductions.size()) +
                       " reductions (one that reads another's result takes a later pass)");
}

/// A chunked row reads its input once for a pass; full-size outputs that read no
/// reduction would cost one more read of every input they load, so the first pass
/// stores them from its own chunks when it is a tree fold (a strict fold steps one
/// column at a time: a separate pass of whole chunks stores faster).
static void foldStores(ProgramStructure &ps, Block &body) {
  if (ps.rowPasses.empty() ||
      cast<kir::ReduceOp>(ps.reductions[ps.rowPasses.front().front()]).getEffectivePolicy() !=
          kir::Policy::unordered_tree)
    return;
  bool any = false;
  for (Operation &op : body) {
    auto st = dyn_cast<kir::StoreOp>(op);
    if (!st || !hasColAxis(ps, st.getView()))
      continue;
    for (Operation *u : upstream(ValueRange{st.getValue()}))
      if (llvm::is_contained(ps.reductions, u))
        return;
    any = true;
  }
  if (!any)
    return;
  ps.foldStores = true;
  ps.facts.push_back("the full-size outputs read no reduction: a chunked row stores them from the chunks of its "
                     "first pass (its inputs are read once)");
}

/// Rows whose full-size outputs are stored after the folds (they read a reduction, or the
/// first pass is not a tree fold that could store them) are traversed twice, and one program
/// per row block leaves most SMs idle when the rows are few (a column centering of 1024
/// columns). SPLIT programs may share such a row: each folds the whole row, as the only
/// program would, then stores its share of the columns. A view both read and written
/// (InOut) keeps one program per row: another program's stores would reach a row its
/// folds are still reading. Rows along the innermost axis gain the same way (a softmax
/// over 1-16 long rows: 1.20-1.33x on an H100, docs/performance.md stop 43), in the
/// `region_reduction` family only: a layernorm or rmsnorm (`reduction`) shares its table
/// with the row sums, whose SPLIT rows are merge shapes, not measured as store splits.
static void storeSplit(ProgramStructure &ps, Block &body) {
  if (ps.splitMerge || ps.foldStores || (!ps.rowsContiguous && ps.family != "region_reduction"))
    return;
  bool any = false;
  for (Operation &op : body) {
    auto st = dyn_cast<kir::StoreOp>(op);
    if (!st)
      continue;
    if (cast<kir::ViewType>(st.getView().getType()).getAccess() == kir::Access::InOut)
      return;
    any |= hasColAxis(ps, st.getView());
  }
  if (!any)
    return;
  ps.storeSplit = true;
  ps.facts.push_back("full-size outputs are stored after the folds: SPLIT programs may share a row, each folding "
                     "the whole row in the same order, then storing its share of the columns");
}

/// The reductions of a region: each reduces exactly the key axis of a value over
/// [batch..., m, n] with a named, non-arg kind under unordered_tree; they are grouped
/// into levels by dependency (one pass over the keys per level). No store may hold
/// the keys or the first contraction's contracted axis: those exist one chunk at a time.
static std::optional<std::pair<Operation *, std::string>>
regionReductions(ProgramStructure &ps, Block &body, ArrayRef<Operation *> reductions, int rank) {
  const int keyAx = rank, innerAx = rank + 1, outAx = rank - 1;
  llvm::DenseMap<Operation *, size_t> level;
  for (Operation *op : reductions) {
    auto r = dyn_cast<kir::ReduceOp>(op);
    if (!r)
      return std::make_pair(op, std::string("a scan next to two contractions"));
    const SmallVector<int> &in = ps.axes[r.getInputs()[0]];
    if (r.getDims().size() != 1 || in[r.getDims()[0]] != keyAx || llvm::is_contained(in, outAx) ||
        llvm::is_contained(in, innerAx))
      return std::make_pair(op, std::string("a reduction next to two contractions that does not reduce exactly the "
                                            "keys of the scores (the label the second contraction sums over)"));
    if (r.getEffectivePolicy() != kir::Policy::unordered_tree)
      return std::make_pair(op, std::string("a reduction over the keys with an ordered or strict policy next to two "
                                            "contractions (the region's passes realize unordered_tree)"));
    std::optional<kir::ReduceKind> kind = r.getKind();
    if (!kind || *kind == kir::ReduceKind::argmax || *kind == kir::ReduceKind::argmin)
      return std::make_pair(op, std::string("a general or arg reduction over the keys next to two contractions"));
    // One level deeper than the deepest reduction its operands depend on (program
    // order: those have their levels).
    size_t lv = 0;
    for (Operation *d : upstream(op->getOperands()))
      if (auto it = level.find(d); it != level.end())
        lv = std::max(lv, it->second + 1);
    level[op] = lv;
    if (ps.region->levels.size() <= lv)
      ps.region->levels.resize(lv + 1);
    ps.region->levels[lv].push_back(op);
    ps.reductions.push_back(op);
  }
  // Whether the second contraction's left operand depends on the last level.
  llvm::DenseSet<Operation *> feeding = upstream(ValueRange{ps.region->values.op.getLhs()});
  ps.region->lastLevelWithValues =
      !ps.region->levels.empty() &&
      llvm::none_of(ps.region->levels.back(), [&](Operation *r) { return feeding.contains(r); });
  for (Operation &op : body)
    if (auto st = dyn_cast<kir::StoreOp>(op))
      if (llvm::any_of(ps.axes[st.getValue()], [&](int a) { return a == keyAx || a == innerAx; }))
        return std::make_pair(&op, std::string("a store of a value over the keys next to two contractions (the "
                                               "scores exist one chunk of keys at a time)"));
  return std::nullopt;
}

std::optional<ProgramStructure> gpu::analyzeKernel(kir::KernelOp kernel,
                                                   const tuning::TargetCaps &caps) {
  ProgramStructure ps;
  Block &body = kernel.getBody().front();
  auto unsupported = [&](Operation *at, const Twine &why) -> std::optional<ProgramStructure> {
    (at ? at->emitError() : kernel.emitError())
        << "unsupported: " << why << " (no Triton realization for this form yet; "
        << "the reference provider accepts it)";
    return std::nullopt;
  };

  SmallVector<kir::ContractOp> contracts;
  SmallVector<Operation *> reductions;
  for (Operation &op : body) {
    if (auto c = dyn_cast<kir::ContractOp>(op))
      contracts.push_back(c);
    if (isa<kir::ReduceOp, kir::ScanOp>(op))
      reductions.push_back(&op);
  }
  // Dominant element width: the widest view element.
  int bits = 0;
  for (Type t : kernel.getArgumentTypes())
    if (isa<kir::ViewType>(t))
      bits = std::max(bits, elementBits(t));
  ps.dominantBits = bits ? bits : 32;
  bool narrow = ps.dominantBits <= 16; // a contraction decides by its operands below

  // Anchor of the iteration space.
  Value anchor;
  if (contracts.size() > 2)
    return unsupported(contracts[2], "more than two kir.contract in a kernel");
  if (contracts.size() == 1 && !reductions.empty())
    return unsupported(reductions.front(), "a reduction or scan together with kir.contract");
  if (contracts.size() == 2) {
    anchor = contracts[1].getResult();
    ps.kind = StructureKind::RegionContraction;
  } else if (!contracts.empty()) {
    anchor = contracts.front().getResult();
    ps.kind = StructureKind::Matmul;
  } else if (!reductions.empty()) {
    anchor = reductions.front()->getOperand(0);
  } else {
    for (Operation &op : body)
      if (auto st = dyn_cast<kir::StoreOp>(op))
        if (!anchor || shapeOf(st.getValue().getType()).size() > shapeOf(anchor.getType()).size())
          anchor = st.getValue();
    if (!anchor)
      return unsupported(nullptr, "a kernel without stores");
    ps.kind = StructureKind::Tiles;
  }
  ArrayRef<Attribute> anchorShape = shapeOf(anchor.getType());
  ps.extents.assign(anchorShape.begin(), anchorShape.end());
  int rank = anchorShape.size();
  // The anchor's canonical axes: identity unless a structure needs another order.
  // `order` lists the anchor's dims in canonical order.
  SmallVector<int> anchorAxes;
  auto reorder = [&](ArrayRef<int> order) {
    anchorAxes.assign(rank, 0);
    ps.extents.clear();
    for (auto [c, d] : llvm::enumerate(order)) {
      ps.extents.push_back(anchorShape[d]);
      anchorAxes[d] = c;
    }
  };
  // A contraction result as the anchor: canonical axes [batch..., m, n] whatever the
  // result's order; returns those labels in that order.
  auto reorderAsContraction = [&](const ContractionInfo &ci) {
    std::string canonical = ci.batch + ci.m + ci.n;
    SmallVector<int> order;
    for (char l : canonical)
      order.push_back(ci.resultLabels.find(l));
    reorder(order);
    return canonical;
  };

  // Contraction: canonical axes are [batch..., m, n]; the operands' contracted axes
  // get the extra canonical axes rank, rank + 1, .... (A reduction's structure is
  // decided below.)
  if (contracts.size() == 1) {
    kir::ContractOp c = contracts.front();
    auto in = [](const std::string &s, char l) { return s.find(l) != std::string::npos; };
    // Canonical axes [batch...,] m, n (contractionLabels).
    ContractionInfo ci = contractionLabels(c);
    if (ci.k.empty())
      return unsupported(c, "a contraction without a contracted label (outer products are decomposed first)");
    if (!ci.m || !ci.n) // kept by igpu-decompose-contractions only with both
      return unsupported(c, "a contraction without a row label of each operand");
    std::string canonical = reorderAsContraction(ci);
    {
      // Tensor-core operand types, accumulated in f32 (tl.dot's f32 accumulator).
      Type lt = kir::kirElementType(c.getLhs().getType()), rt = kir::kirElementType(c.getRhs().getType());
      Type res = kir::kirElementType(c.getType());
      auto operandOk = [](Type t) {
        return t.isF16() || t.isBF16() || t.isF32() || isa<Float8E4M3FNType, Float8E5M2Type>(t);
      };
      if (lt != rt || !operandOk(lt) || !res.isF32()) {
        std::string s;
        llvm::raw_string_ostream os(s);
        os << "a contraction of " << lt << " and " << rt << " operands into " << res
           << " (the Triton provider realizes f16, bf16, f32 and fp8 operands of one type, "
              "accumulated in f32)";
        return unsupported(c, s);
      }
    }
    auto strip = [&](const std::string &s) {
      std::string o;
      for (char ch : s)
        if (!in(ci.batch, ch))
          o += ch;
      return o;
    };
    // Several contracted labels are addressed by pointer only (no transposed form).
    ci.lhsTransposed = ci.kAxes() == 1 && strip(ci.lhsLabels) == std::string{ci.k[0], ci.m};
    ci.rhsTransposed = ci.kAxes() == 1 && strip(ci.rhsLabels) == std::string{ci.n, ci.k[0]};
    OperandForm lhsForm = operandForm(c.getLhs(), c), rhsForm = operandForm(c.getRhs(), c);
    for (const OperandForm &f : {lhsForm, rhsForm})
      if (f.bad)
        return unsupported(f.bad, f.why);
    if (ci.kAxes() > 1 && (lhsForm.prologue || rhsForm.prologue))
      return unsupported(c, "a pointwise prologue on an operand of a contraction with several contracted labels");
    ci.lhsLoad = lhsForm.load;
    ci.rhsLoad = rhsForm.load;
    ci.lhsPrologue = lhsForm.prologue;
    ci.rhsPrologue = rhsForm.prologue;
    ci.lhsZeroPreserving = lhsForm.zeroPreserving;
    ci.rhsZeroPreserving = rhsForm.zeroPreserving;
    // Canonical axes: the batch labels 0, 1, ..., then m, n, then the contracted
    // labels rank, rank + 1, ....
    auto canon = [&](const std::string &lbls) {
      SmallVector<int> a;
      for (char ch : lbls) {
        size_t pos = canonical.find(ch);
        a.push_back(pos == std::string::npos ? rank + (int)ci.k.find(ch) : (int)pos);
      }
      return a;
    };
    ps.axes[c.getLhs()] = canon(ci.lhsLabels);
    ps.axes[c.getRhs()] = canon(ci.rhsLabels);
    ps.axes[ci.lhsLoad.getView()] = canon(ci.lhsLabels);
    ps.axes[ci.rhsLoad.getView()] = canon(ci.rhsLabels);
    ps.axes[ci.lhsLoad.getResult()] = canon(ci.lhsLabels);
    ps.axes[ci.rhsLoad.getResult()] = canon(ci.rhsLabels);
    ps.contraction = ci;
    ps.operandBits = std::max(elementBits(ci.op.getLhs().getType()), elementBits(ci.op.getRhs().getType()));
  }

  // A scan along an outer axis, a reduction of a rank > 2 value along one, several
  // reductions along one (a column softmax), or one next to a store of a value as large as
  // its input (a bias gradient: the input stored, its column sums too): the canonical axes
  // put that axis innermost, so the row structures map it (views are addressed through
  // their strides: only the order of access changes). Any other lone reduction of a
  // matrix's rows stays a split reduction, whose programs own only the kept axes.
  auto storesWholeRegion = [&] {
    return llvm::any_of(body, [&](Operation &op) {
      auto st = dyn_cast<kir::StoreOp>(op);
      return st && (int)shapeOf(st.getValue().getType()).size() == rank;
    });
  };
  if (anchorAxes.empty() && !reductions.empty()) {
    Operation *first = reductions.front();
    int d = -1;
    if (auto s = dyn_cast<kir::ScanOp>(first))
      d = s.getDim();
    else if (auto r = dyn_cast<kir::ReduceOp>(first);
             r && r.getDims().size() == 1 && (rank > 2 || reductions.size() > 1 || storesWholeRegion()))
      d = r.getDims()[0];
    if (d >= 0 && d < rank - 1) {
      SmallVector<int> order;
      for (int p = 0; p < rank; ++p)
        if (p != d)
          order.push_back(p);
      order.push_back(d);
      reorder(order);
      ps.rowsContiguous = true;
      ps.facts.push_back("the scanned or reduced axis is an outer one: the canonical axes put it innermost "
                         "(its elements are read with its stride; a program's rows are adjacent in memory)");
    }
    // A reduction over several, not all, axes of a rank > 2 value: the reduced axes
    // become the columns of a row structure when they include the innermost axis
    // (per-batch or per-channel statistics; later reductions must reduce the same
    // axes), else, for a lone reduction, the kept axes become the columns of a split
    // reduction; each group keeps its order and is addressed through its strides.
    auto r = dyn_cast<kir::ReduceOp>(first);
    SmallVector<int> reduced, kept;
    if (r)
      reduced.assign(r.getDims().begin(), r.getDims().end());
    for (int p = 0; p < rank; ++p)
      if (!llvm::is_contained(reduced, p))
        kept.push_back(p);
    bool innermostReduced = llvm::is_contained(reduced, rank - 1);
    if (r && rank > 2 && reduced.size() >= 2 && !kept.empty() &&
        (innermostReduced || reductions.size() == 1)) {
      SmallVector<int> order = innermostReduced ? kept : reduced;
      order.append(innermostReduced ? reduced : kept);
      reorder(order);
      ps.colAxes = innermostReduced ? reduced.size() : kept.size();
      std::string split = ps.colAxes > 1 ? " (a flat column index split into their coordinates)" : "";
      ps.facts.push_back(innermostReduced
                             ? "several reduced axes, the innermost among them: they are the columns" + split +
                                   ", the kept axes the rows"
                             : "several reduced axes before the innermost one: they are the rows, the kept axes "
                               "the columns" + split);
    }
  }
  // Region (attention): canonical axes [batch..., m, d] of the second contraction's
  // result, then its contracted label n (the keys) and the first's contracted label.
  // The second's labels seed its operands; the scores' axes then follow from the
  // dataflow back from its left operand, and name the first contraction's labels.
  SmallVector<Attribute> solverExtents(ps.extents.begin(), ps.extents.end());
  if (ps.kind == StructureKind::RegionContraction) {
    std::string why;
    std::optional<ContractionInfo> scores = regionContraction(contracts[0], why);
    if (!scores)
      return unsupported(contracts[0], why);
    std::optional<ContractionInfo> values = regionContraction(contracts[1], why);
    if (!values)
      return unsupported(contracts[1], why);
    std::string canonical = reorderAsContraction(*values);
    anchorAxes = llvm::to_vector(llvm::seq<int>(0, rank));
    const int keyAx = rank, innerAx = rank + 1;
    auto extentOf = [](Value v, const std::string &labels, char l) {
      return shapeOf(v.getType())[labels.find(l)];
    };
    solverExtents.push_back(extentOf(values->op.getRhs(), values->rhsLabels, values->k[0]));
    solverExtents.push_back(extentOf(scores->op.getLhs(), scores->lhsLabels, scores->k[0]));
    auto canonOf = [&](const std::string &lbls, const std::string &canon, char key, char inner) {
      SmallVector<int> a;
      for (char ch : lbls)
        a.push_back(ch == key ? keyAx : ch == inner ? innerAx : (int)canon.find(ch));
      return a;
    };
    AxisSolver rs{ps.axes, solverExtents};
    rs.assign(anchor, anchorAxes);
    rs.assign(values->op.getLhs(), canonOf(values->lhsLabels, canonical, values->k[0], 0));
    rs.assign(values->op.getRhs(), canonOf(values->rhsLabels, canonical, values->k[0], 0));
    while (rs.step(body) && !rs.conflict) {
    }
    if (rs.conflict)
      return unsupported(nullptr, rs.conflictWhy);
    Value s = scores->op.getResult();
    if (!ps.axes.count(s))
      return unsupported(scores->op, "two contractions where the first one's result does not reach the second "
                                     "one's left operand through elementwise ops, broadcasts and reductions");
    // The scores' labels, named by the axes the dataflow gave them.
    std::string scoreCanon(rank, ' ');
    for (auto [i, l] : llvm::enumerate(scores->resultLabels))
      if (ps.axes[s][i] < rank)
        scoreCanon[ps.axes[s][i]] = l;
    char scoreKey = 0;
    for (auto [i, l] : llvm::enumerate(scores->resultLabels))
      if (ps.axes[s][i] == keyAx)
        scoreKey = l;
    if (scoreKey != scores->n || scoreCanon[rank - 2] != scores->m || scoreCanon[rank - 1] != ' ')
      return unsupported(scores->op, "two contractions where the first one's left operand does not hold the rows "
                                     "of the second one's left operand, or its right operand the keys the second "
                                     "one sums over");
    rs.assign(scores->op.getLhs(), canonOf(scores->lhsLabels, scoreCanon, scoreKey, scores->k[0]));
    rs.assign(scores->op.getRhs(), canonOf(scores->rhsLabels, scoreCanon, scoreKey, scores->k[0]));
    for (auto [ci, operand] : {std::make_pair(&*scores, Value(scores->op.getLhs())),
                               std::make_pair(&*scores, Value(scores->op.getRhs())),
                               std::make_pair(&*values, Value(values->op.getRhs()))}) {
      OperandForm f = operandForm(operand, ci->op);
      if (f.bad)
        return unsupported(f.bad, f.why);
      bool lhs = operand == ci->op.getLhs();
      (lhs ? ci->lhsLoad : ci->rhsLoad) = f.load;
      (lhs ? ci->lhsPrologue : ci->rhsPrologue) = f.prologue;
      (lhs ? ci->lhsZeroPreserving : ci->rhsZeroPreserving) = f.zeroPreserving;
      SmallVector<int> a = ps.axes[operand];
      rs.assign(f.load.getResult(), a);
      rs.assign(f.load.getView(), a);
    }
    if (rs.conflict)
      return unsupported(nullptr, rs.conflictWhy);
    RegionInfo ri;
    ri.scores = *scores;
    ri.values = *values;
    ri.batch = values->batch.size();
    ps.region = ri;
    ps.operandBits = elementBits(scores->op.getLhs().getType());
  }
  if (anchorAxes.empty())
    anchorAxes = llvm::to_vector(llvm::seq<int>(0, rank));
  AxisSolver solver{ps.axes, solverExtents};
  solver.assign(anchor, anchorAxes);
  do {
    while (solver.step(body) && !solver.conflict) {
    }
  } while (!solver.conflict && solver.placeUnrelated(body));
  if (solver.conflict)
    return unsupported(nullptr, solver.conflictWhy);
  for (Operation &op : body)
    for (Value r : op.getResults())
      if (isa<KTensor>(r.getType()) && !ps.axes.count(r))
        return unsupported(&op, "cannot relate this value's axes to the kernel's iteration space");
  for (BlockArgument a : body.getArguments())
    if (isa<kir::ViewType>(a.getType()) && !ps.axes.count(a) && !a.use_empty())
      return unsupported(nullptr, "cannot relate view '" + kernel.getArgName(a.getArgNumber()) +
                                      "' to the kernel's iteration space");

  if (ps.kind == StructureKind::RegionContraction) {
    if (auto bad = regionReductions(ps, body, reductions, rank))
      return unsupported(bad->first, bad->second);
  }
  // Reductions and scans: classify. A reduction is along the rows when it reduces
  // exactly the column axes of a value spanning the whole iteration space.
  int col = rank - 1;
  if (ps.kind == StructureKind::RegionContraction)
    reductions.clear(); // classified above
  bool anyLeading = false, anyLast = false;
  Operation *firstLeading = nullptr;
  for (Operation *op : reductions) {
    if (auto r = dyn_cast<kir::ReduceOp>(op)) {
      SmallVector<int> inAxes = ps.axes[r.getInputs()[0]];
      bool last = (int)inAxes.size() == rank && (int)r.getDims().size() == ps.colAxes &&
                  llvm::all_of(r.getDims(), [&](int64_t d) { return ps.isColAxis(inAxes[d]); });
      (last ? anyLast : anyLeading) = true;
      if (!last && !firstLeading)
        firstLeading = op;
      kir::Policy p = r.getEffectivePolicy();
      if (p != kir::Policy::unordered_tree)
        ps.sequential = true;
    } else {
      auto s = cast<kir::ScanOp>(op);
      if (ps.axes[s.getInputs()[0]][s.getDim()] != col)
        return unsupported(op, "scans along a non-innermost axis");
      if (s.getEffectivePolicy() == kir::Policy::fold_left)
        ps.sequential = true;
    }
    ps.reductions.push_back(op);
  }
  if (!reductions.empty()) {
    SmallVector<Operation *> scans(llvm::make_filter_range(reductions, [](Operation *op) {
      return isa<kir::ScanOp>(op);
    }));
    bool anyScan = !scans.empty();
    if (anyScan && anyLeading)
      return unsupported(firstLeading, "a reduction over leading axes next to a scan");
    // The scans share one loop over the row's segments, in program order: one direction,
    // and an exclusive scan (which reads its operand one column back) reads no other scan.
    // Row reductions run before the segments (their results may feed them), so none may
    // read a scan.
    for (Operation *op : anyScan ? ArrayRef(reductions) : ArrayRef<Operation *>()) {
      llvm::DenseSet<Operation *> up = upstream(op->getOperands());
      bool readsScan = llvm::any_of(scans, [&](Operation *s) { return s != op && up.contains(s); });
      auto scan = dyn_cast<kir::ScanOp>(op);
      if (!scan && readsScan)
        return unsupported(op, "a reduction of a scan's result");
      if (scan && scan.getReverse() != cast<kir::ScanOp>(scans.front()).getReverse())
        return unsupported(op, "scans in opposite directions in one kernel");
      if (scan && scan.getExclusive() && readsScan)
        return unsupported(op, "an exclusive scan of another scan's result");
    }
    if (anyLeading && (anyLast || reductions.size() > 1))
      return unsupported(reductions.front(),
                         "several reductions when one reduces leading axes");
    if (anyScan) {
      ps.kind = StructureKind::RowScan;
      ps.family = ps.rowsContiguous ? "outer_scan" : "scan";
      ps.facts.push_back("a scan along the innermost axis; segments are scanned in order and "
                         "carry their prefix");
      if (scans.size() > 1)
        ps.facts.push_back(std::to_string(scans.size()) + " scans share each segment, in program order (a later "
                           "one reads an earlier one's segment), each carrying its own prefix");
      if (anyLast) {
        rowPasses(ps);
        ps.facts.push_back("reductions along the innermost axis run first, in chunks of SCAN_N; the scan's "
                           "segments read their results");
      }
    } else if (anyLeading) {
      ps.kind = StructureKind::SplitReduction;
      ps.family = "multi_axis_reduction";
      auto r = cast<kir::ReduceOp>(reductions.front());
      ps.facts.push_back("one reduction over leading or all axes: programs own the kept axes "
                         "and split the reduced range");
      // Programs own only the kept axes: a store that spans a reduced axis has no owner.
      SmallVector<int> reducedAxes;
      for (int64_t d : r.getDims())
        reducedAxes.push_back(ps.axes[r.getInputs()[0]][d]);
      llvm::sort(reducedAxes);
      // The reduced axes are the rows (the kept ones the columns), or every axis.
      if (reducedAxes != llvm::to_vector(llvm::seq<int>(0, ps.firstColAxis())) &&
          reducedAxes != llvm::to_vector(llvm::seq<int>(0, rank)))
        return unsupported(r, "a reduction whose reduced axes are neither the leading axes of the "
                              "iteration space nor all of them");
      for (Operation &op : body)
        if (auto st = dyn_cast<kir::StoreOp>(op))
          for (int a : ps.axes[st.getValue()])
            if (llvm::is_contained(reducedAxes, a))
              return unsupported(st, "a store spanning the reduced axes next to a reduction over "
                                     "leading axes");
      ps.splitMerge = splitMergeable(r);
      if (ps.splitMerge)
        ps.facts.push_back("the reduced value is an unordered f32/i32 sum or a maximum or minimum, "
                           "stored directly or through an element-wise epilogue: split programs merge their "
                           "partial results in one launch (the last to arrive combines them in split order, "
                           "then evaluates the epilogue)");
      else
        ps.facts.push_back("no split merge for this reduction: one program per output tile");
    } else {
      ps.kind = StructureKind::RowReduction;
      bool region = false;
      for (Operation *op : reductions)
        for (Value res : op->getResults())
          for (Operation *u : res.getUsers())
            if (auto b = dyn_cast<kir::BroadcastOp>(u))
              if (shapeOf(b.getType()).size() == (size_t)rank)
                region = true;
      // Rows adjacent in memory coalesce as wide row blocks over short chunks: the
      // transpose of the row shapes of an innermost-axis reduction (own table rows).
      ps.family = ps.rowsContiguous ? "outer_reduction" : region ? "region_reduction" : "reduction";
      ps.facts.push_back(region ? "a reduced value is broadcast back into its own source region"
                                : "reductions along the innermost axis; results are the reduced values");
      // Long rows may be split across programs when every reduction's partial results
      // merge without a seed.
      ps.splitMerge = !region && llvm::all_of(reductions, [](Operation *op) {
        auto r = cast<kir::ReduceOp>(op);
        return splitMergeable(r) && r.getInits().empty();
      });
      if (ps.splitMerge)
        ps.facts.push_back("every reduced value is an unordered f32/i32 sum or a maximum or minimum, stored "
                           "directly or through an element-wise epilogue: long rows may be split across "
                           "programs, the last to arrive combining the partial results in split order, then "
                           "evaluating the epilogue");
    }
    if (ps.kind == StructureKind::RowReduction) {
      rowPasses(ps);
      foldStores(ps, body);
      storeSplit(ps, body);
    }
    if (ps.sequential)
      ps.facts.push_back(std::string("a strict or ordered policy: that reduction runs element by element along "
                                     "its axis (never split") +
                         (ps.storeSplit ? "; programs sharing a row each run the whole fold)" : ")"));
  } else if (ps.kind == StructureKind::RegionContraction) {
    ps.family = "region_contraction";
    ps.facts.push_back("two kir.contracts with row-local ops between them: one output tile of the second per "
                       "program; the first's scores are recomputed per key chunk in one pass per level of "
                       "reductions over the keys (" + std::to_string(ps.region->levels.size()) +
                       "), then a pass accumulates the second contraction" +
                       (ps.region->lastLevelWithValues ? " and the last level (only the epilogue reads it)" : ""));
  } else if (ps.kind == StructureKind::Matmul) {
    // The MMA operands decide (after any prologue: a prologue run once stages them as
    // such); a wider output only widens the epilogue (stored in column halves, igpu.store).
    narrow = ps.operandBits <= 16;
    ps.family = narrow && caps.matrixUnits ? "contraction_narrow" : "contraction";
    ps.facts.push_back("one kir.contract whose free axes are the parallel axes; pointwise "
                       "epilogue fused before the stores");
    // 8-bit tensor-core operands are read K-major; an N-major B costs a transpose per tile.
    auto bits = [](Value v) { return kir::kirElementType(v.getType()).getIntOrFloatBitWidth(); };
    if (ps.contraction && caps.matrixUnits && bits(ps.contraction->op.getRhs()) == 8 &&
        !ps.contraction->rhsTransposed)
      ps.facts.push_back("8-bit operand B is [K, N] (N-major): fp8 tensor cores read B K-major, so "
                         "every tile is transposed on chip (about 0.25x of a [N, K] B on sm_90); "
                         "store B as [N, K] and contract \"mk,nk->mn\" for full speed");
  } else {
    ps.family = narrow ? "pointwise_narrow" : "pointwise";
    ps.facts.push_back("no reduced or scanned axes: every output element is independent");
  }
  if (narrow && ps.kind == StructureKind::Matmul)
    ps.facts.push_back("operand element width " + std::to_string(ps.operandBits) + " bits (<= 16: narrow)");
  else if (narrow)
    ps.facts.push_back("dominant element width " + std::to_string(ps.dominantBits) +
                       " bits (<= 16: narrow)");
  if (rank == 0 && ps.kind != StructureKind::SplitReduction)
    return unsupported(nullptr, "rank-0 iteration spaces");

  // Typed parameters of the chosen structure.
  // The static extent of the rows (the leading axes) and of the columns, when known.
  auto extentOf = [&](int from, int to) -> std::optional<int64_t> {
    int64_t prod = 1;
    for (int i = from; i < to; ++i) {
      auto e = staticExtent(ps.extents[i]);
      if (!e)
        return std::nullopt;
      if (llvm::MulOverflow(prod, *e, prod)) // saturate: any extent this large caps every domain
        prod = std::numeric_limits<int64_t>::max();
    }
    return prod;
  };
  std::optional<int64_t> rowsExtent = extentOf(0, ps.firstColAxis());
  std::optional<int64_t> colExtent = extentOf(ps.firstColAxis(), rank);
  auto add = [&](Parameter p) { ps.parameters.push_back(std::move(p)); };
  std::vector<int64_t> warps = powersOfTwo(1, 32);
  // Row structures whose rows are adjacent in memory: up to 256 rows (a 512-byte f16
  // run) over chunks as short as 4 columns.
  const int64_t rowsMax = ps.rowsContiguous ? 256 : 64, chunkMin = ps.rowsContiguous ? 4 : 16;
  const std::string warpsReq = "power of two, at most 32 (Triton)";
  switch (ps.kind) {
  case StructureKind::Tiles:
    add({"OWN_M", "ownership_m", "int", tileDomain(rowsExtent, 1, 256),
         {"row tile extent", "grid dim 0 = ceil_div(rows, OWN_M) * ceil_div(cols, OWN_N), row tiles fastest",
          "row mask"},
         {}});
    add({"OWN_N", "ownership_n", "int", tileDomain(colExtent, 1, 8192),
         {"column tile extent", "column mask"},
         {"OWN_M * OWN_N <= 2^20"}});
    break;
  case StructureKind::RowReduction:
    add({"OWN_M", "ownership_m", "int", tileDomain(rowsExtent, 1, rowsMax),
         {"rows per program", "grid = ceil_div(rows, OWN_M)", "row mask"}, {}});
    add({"RED_N", "reduction", "int",
         ps.sequential ? std::vector<int64_t>{1} : tileDomain(colExtent, chunkMin, 16384),
         {"chunk of the reduced axis per step (chunked structure)"},
         {"fixed to 1 by a strict/ordered policy"}});
    if (ps.storeSplit) // each program reads the whole row: a few at most
      add({"SPLIT", "reduction_outer", "int", powersOfTwo(1, 16),
           {"programs sharing each row (grid dim 1); each folds the whole row, then stores its share of the columns"},
           {"> 1 only when full-size outputs are stored after the folds and no view is both read and written"}});
    else
      add({"SPLIT", "reduction_outer", "int",
           ps.splitMerge ? powersOfTwo(1, 2048) : std::vector<int64_t>{1},
           {"programs splitting each row (grid dim 1); the last to arrive combines the partial results in split "
            "order"},
           {"> 1 only when every reduction is an unordered f32/i32 sum, or a maximum or minimum, stored directly"}});
    add({"COVER", "coverage", "int", {},
         {"resident row extent = next_pow2(cols), bound at launch"},
         {"OWN_M * COVER <= 2^16 elements resident, else the chunked structure"}});
    break;
  case StructureKind::RowScan:
    add({"OWN_M", "ownership_m", "int", tileDomain(rowsExtent, 1, rowsMax),
         {"rows per program", "grid = ceil_div(rows, OWN_M)"}, {}});
    add({"SCAN_N", "scan", "int",
         ps.sequential ? std::vector<int64_t>{1} : tileDomain(colExtent, chunkMin, 8192),
         {"segment scanned at once; segments carry the prefix in order"},
         {"fixed to 1 by policy fold_left"}});
    break;
  case StructureKind::SplitReduction:
    add({"OWN_N", "ownership_n", "int",
         splitKeepsCols(ps)
             ? tileDomain(colExtent, 16, 1024)
             : std::vector<int64_t>{64, 128, 256, 512, 1024},
         {"column tile extent"}, {}});
    add({"RED_M", "reduction", "int", tileDomain(rowsExtent, 1, 256),
         {"rows per step of the reduction loop"}, {}});
    add({"SPLIT", "reduction_outer", "int",
         ps.splitMerge ? powersOfTwo(1, 1024) : std::vector<int64_t>{1},
         {"programs splitting the reduced range (grid dim 1)"},
         {"> 1 only when the reduction is an unordered f32/i32 sum, or a maximum or minimum, stored directly"}});
    break;
  case StructureKind::Matmul:
    add({"BM", "ownership_m", "int", powersOfTwo(16, 256), {"output tile rows"}, {}});
    add({"BN", "ownership_n", "int", powersOfTwo(16, 256), {"output tile columns"}, {}});
    add({"BK", "reduction", "int", powersOfTwo(16, 256), {"K step of the main loop"},
         {"BK >= 16 (tensor core dot)"}});
    add({"GROUP_M", "traversal_group", "int", powersOfTwo(1, 64),
         {"grouped tile order for L2 reuse"}, {}});
    {
      // Persistent traversal: a program count that fills the target, once or twice over.
      std::vector<int64_t> workers{1};
      if (caps.sms > 0)
        workers.insert(workers.end(), {int64_t(caps.sms), 2 * int64_t(caps.sms)});
      add({"WORKERS", "traversal_workers", "int", workers,
           {"1: one program per (batch, output tile) work item; else min(work items, WORKERS) "
            "persistent programs stride over them (grid dim 0)"},
           {"domain from the target's multiprocessor count"}});
    }
    add({"SPLIT_K", "reduction_outer", "int", powersOfTwo(1, 64),
         {"programs splitting K (grid dim 2); f32 partials, summed in split order by the last "
          "program of the tile to arrive, which runs the epilogue"},
         {"contraction is a sum: reassociation permitted (kir.md 5)"}});
    break;
  case StructureKind::RegionContraction:
    add({"BM", "ownership_m", "int", powersOfTwo(16, 256), {"rows of the output and score tiles"}, {}});
    add({"BN", "reduction", "int", powersOfTwo(16, 256),
         {"keys per step: the score tile's columns and the second contraction's K step"},
         {"BN >= 16 (tensor core dot)"}});
    add({"BD", "coverage", "int", {},
         {"output columns per program = next_pow2(d) within [16, 256], bound at launch (grid dim 0 walks "
          "the batch x ceil_div(m, BM) x ceil_div(d, BD) tiles)"},
         {}});
    add({"KC", "coverage", "int", {},
         {"K step of the first contraction = next_pow2(k) within [16, 128], bound at launch"}, {}});
    break;
  }
  add({"NUM_WARPS", "warps", "int", warps, {"launch: num_warps"}, {warpsReq}});
  if (ps.kind == StructureKind::RegionContraction)
    add({"NUM_STAGES", "stages", "int", {1, 2, 3, 4}, {"software pipeline depth of the loops over the keys"}, {}});
  if (ps.kind == StructureKind::Matmul) {
    add({"NUM_STAGES", "stages", "int", {1, 2, 3, 4, 5, 6, 7, 8},
         {"software pipeline depth of the K loop"}, {}});
    // Triton's num_ctas: one program spans a cluster of CTAs that share its tile.
    add({"NUM_CTAS", "ctas", "int",
         caps.clusters ? std::vector<int64_t>{1, 2, 4} : std::vector<int64_t>{1},
         {"launch: num_ctas (CTAs per program, one thread block cluster)"},
         {"> 1 only on targets with thread block clusters (sm_90+)"}});
    if (caps.tma && ps.contraction->kAxes() == 1)
      add({"USE_TENSOR_DESCRIPTOR", "access_form", "bool", {0, 1},
           {"operand loads: tensor descriptor (TMA) or pointer"},
           {"launcher checks 16-byte aligned base and strides, unit last stride"}});
    // No profile column: every row is tried both ways (the projection pass).
    if (ps.contraction && (ps.contraction->lhsPrologue || ps.contraction->rhsPrologue))
      add({"PROLOGUE_ONCE", "prologue_form", "bool", {0, 1},
           {"0: each operand prologue runs on every loaded K tile, inside the contraction; 1: once "
            "over the operand's view into a workspace of the MMA operand type, launched before it"},
           {"an operand with a pointwise prologue"}});
  }
  // No profile column either: both forms are exact, every row is tried with each (measured per
  // shape: docs/performance.md, stop 20). Only where every element of a row is divided: one
  // division per row costs the same either way.
  bool rowUniformDivision = false;
  kernel.walk([&](kir::DivOp d) {
    rowUniformDivision |=
        isRowUniformDivision(d, ps) && rank && hasColAxis(ps, d.getLhs());
  });
  if (rowUniformDivision && ps.kind != StructureKind::Matmul && ps.kind != StructureKind::RegionContraction)
    add({"DIV_FORM", "division_form", "bool", {0, 1},
         {"division by a row-uniform value: 0 the f64 product with its reciprocal per element; 1 two f32 "
          "Markstein steps, and the f64 product for a warp only when one of its elements is outside "
          "their exact range (inline PTX)"},
         {"a block divided by a value uniform along the innermost axis; the CPU interpreter runs form 0"}});
  return ps;
}

bool gpu::isRowUniformDivision(kir::DivOp div, const ProgramStructure &ps) {
  Type t = kir::kirElementType(div.getType());
  if (!isa<FloatType>(t) || t.isF64() || shapeOf(div.getLhs().getType()).empty())
    return false; // (f64 keeps IEEE division: the reciprocal is an f32 argument)
  if (shapeOf(div.getRhs().getType()).empty())
    return true; // a scalar
  auto b = div.getRhs().getDefiningOp<kir::BroadcastOp>();
  return b && llvm::none_of(ps.axes.lookup(b.getInput()), [&](int a) { return ps.isColAxis(a); });
}

/// Integer division and remainder: undefined for a zero divisor, so never computed
/// where the program would not compute them.
static bool isIntegerDivision(Operation &op) {
  if (isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp, arith::CeilDivSIOp,
          arith::CeilDivUIOp, arith::FloorDivSIOp>(op))
    return true;
  return isa<kir::DivOp, kir::RemOp>(op) && !isa<FloatType>(kir::kirElementType(op.getResult(0).getType()));
}

llvm::DenseSet<Value> gpu::programInvariants(kir::KernelOp kernel) {
  llvm::DenseSet<Value> inv;
  Block &body = kernel.getBody().front();
  for (BlockArgument a : body.getArguments())
    if (!isa<kir::ViewType>(a.getType()))
      inv.insert(a);
  for (Operation &op : body) {
    if (op.getNumResults() != 1 || !shapeOf(op.getResult(0).getType()).empty())
      continue;
    bool invariant = isa<kir::ExtentOp>(op) ||
                     (op.getNumRegions() == 0 && isMemoryEffectFree(&op) && !isIntegerDivision(op) &&
                      llvm::all_of(op.getOperands(), [&](Value v) { return inv.contains(v); }));
    if (invariant)
      inv.insert(op.getResult(0));
  }
  return inv;
}

const char *gpu::evictHintName(EvictHint h) { return h == EvictHint::First ? "first" : "last"; }

std::vector<std::pair<kir::LoadOp, EvictHint>> gpu::evictionHints(kir::KernelOp kernel,
                                                                  const ProgramStructure &ps) {
  std::vector<std::pair<kir::LoadOp, EvictHint>> hints;
  if (ps.kind == StructureKind::Matmul || ps.kind == StructureKind::RegionContraction)
    return hints;
  size_t rank = ps.extents.size();
  auto spansAll = [&](Value v) {
    SmallVector<int> a(ps.axes.lookup(v));
    llvm::sort(a);
    return a.size() == rank && std::unique(a.begin(), a.end()) == a.end();
  };
  Block &body = kernel.getBody().front();
  bool readOnce = !ps.sequential && ((ps.kind == StructureKind::RowReduction && ps.rowPasses.size() == 1) ||
                                     (ps.kind == StructureKind::SplitReduction && ps.reductions.size() == 1));
  for (Operation &op : body)
    if (auto st = dyn_cast<kir::StoreOp>(op); st && spansAll(st.getView()))
      readOnce = false;
  for (Operation &op : body)
    if (auto load = dyn_cast<kir::LoadOp>(op); load && spansAll(load.getView()))
      hints.push_back({load, readOnce ? EvictHint::First : EvictHint::Last});
  return hints;
}
