//===- IGPUDialect.cpp - parameters, configuration sets, program ops -------===//
#include "intent/GPU/IGPU.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace intent::igpu;

#include "intent/GPU/IGPUDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "intent/GPU/IGPUAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "intent/GPU/IGPUTypes.cpp.inc"

#define GET_OP_CLASSES
#include "intent/GPU/IGPUOps.cpp.inc"

void IGPUDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "intent/GPU/IGPUAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "intent/GPU/IGPUTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "intent/GPU/IGPUOps.cpp.inc"
      >();
}

LogicalResult IGPUDialect::verifyOperationAttribute(Operation *op, NamedAttribute attr) {
  if (attr.getName() == kNameAttr) {
    if (!llvm::isa<StringAttr>(attr.getValue()) || !op->getParentOfType<ProgramOp>())
      return op->emitError() << "'" << kNameAttr << "' is a variable name (a string) inside an igpu.program";
    return success();
  }
  if (attr.getName() != kEvictAttr)
    return success();
  if (op->getName().getStringRef() != "kir.load")
    return op->emitError() << "'" << kEvictAttr << "' applies only to kir.load";
  auto s = llvm::dyn_cast<StringAttr>(attr.getValue());
  if (!s || (s.getValue() != "first" && s.getValue() != "last"))
    return op->emitError() << "'" << kEvictAttr << "' must be \"first\" or \"last\"";
  return success();
}

LogicalResult ParameterAttr::verify(function_ref<InFlightDiagnostic()> emitError, StringRef symbol,
                                    StringRef role, StringRef kind, DenseI64ArrayAttr domain,
                                    ArrayAttr consumers, ArrayAttr requirements) {
  if (symbol.empty())
    return emitError() << "a parameter needs a symbol";
  if (kind != "int" && kind != "bool")
    return emitError() << "parameter " << symbol << ": kind must be int or bool, got " << kind;
  ArrayRef<int64_t> d = domain.asArrayRef();
  if (d.empty() && role != "coverage")
    return emitError() << "parameter " << symbol << ": only launch-bound (coverage) parameters "
                          "may have an empty domain";
  for (size_t i = 1; i < d.size(); ++i)
    if (d[i - 1] >= d[i])
      return emitError() << "parameter " << symbol << ": domain must be sorted and unique";
  if (kind == "bool")
    for (int64_t v : d)
      if (v != 0 && v != 1)
        return emitError() << "parameter " << symbol << ": a bool domain holds only 0 and 1";
  for (ArrayAttr list : {consumers, requirements})
    for (Attribute a : list)
      if (!llvm::isa<StringAttr>(a))
        return emitError() << "parameter " << symbol << ": consumers and requirements are strings";
  return success();
}

LogicalResult ConfigurationSetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                           StringRef stage, ArrayAttr parameters, ArrayAttr rows) {
  if (stage != "shared" && stage != "complete")
    return emitError() << "configuration stage must be shared or complete, got " << stage;
  SmallVector<ParameterAttr> bound;
  for (Attribute a : parameters) {
    auto p = llvm::dyn_cast<ParameterAttr>(a);
    if (!p)
      return emitError() << "configuration parameters must be #igpu.parameter attributes";
    if (!p.isLaunchBound())
      bound.push_back(p);
  }
  if (rows.empty())
    return emitError() << "a configuration set is never empty";
  llvm::DenseSet<Attribute> seen;
  for (auto [i, r] : llvm::enumerate(rows)) {
    auto row = llvm::dyn_cast<DenseI64ArrayAttr>(r);
    if (!row)
      return emitError() << "row " << i << " must be an array<i64>";
    if (row.size() != (int64_t)bound.size())
      return emitError() << "row " << i << " binds " << row.size() << " values, expected "
                         << bound.size();
    for (auto [j, v] : llvm::enumerate(row.asArrayRef()))
      if (!llvm::is_contained(bound[j].getDomain().asArrayRef(), v))
        return emitError() << "row " << i << ": " << bound[j].getSymbol() << " = " << v
                           << " is outside its domain";
    if (!seen.insert(row).second)
      return emitError() << "row " << i << " repeats an earlier row";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Fragments
//===----------------------------------------------------------------------===//

Type FragmentType::parse(AsmParser &p) {
  Type elt;
  SmallVector<Attribute> shape;
  if (p.parseLess() || p.parseType(elt) || p.parseComma() || intent::kir::parseShape(p, shape) ||
      p.parseGreater())
    return {};
  return FragmentType::getChecked([&] { return p.emitError(p.getNameLoc()); }, p.getContext(), elt, shape);
}

void FragmentType::print(AsmPrinter &p) const {
  p << "<" << getElementType() << ", " << intent::kir::shapeToString(getShape()) << ">";
}

/// A fragment or accumulator extent: a parameter symbol or a positive integer.
static bool isExtent(Attribute d) {
  if (auto s = dyn_cast<StringAttr>(d))
    return !s.getValue().empty();
  auto i = dyn_cast<IntegerAttr>(d);
  return i && i.getInt() > 0;
}

LogicalResult FragmentType::verify(function_ref<InFlightDiagnostic()> emitError, Type elt,
                                   ArrayRef<Attribute> shape) {
  if (!elt.isIndex() && !elt.isInteger(1))
    return emitError() << "a fragment holds index coordinates or i1 masks, got " << elt;
  if (shape.size() != 1 && shape.size() != 2)
    return emitError() << "a fragment has rank 2 (rows, columns) or 1 (a contraction tile's coordinates), got rank "
                       << shape.size();
  if (!llvm::all_of(shape, isExtent))
    return emitError() << "a fragment extent is a parameter symbol or a positive integer";
  return success();
}

StringRef intent::igpu::variableNameAttr(Operation *op) {
  return isa<IGPUDialect>(op->getDialect()) ? StringRef("name") : StringRef(IGPUDialect::kNameAttr);
}

SmallVector<Attribute, 2> intent::igpu::laneShape(Value v) {
  if (auto f = dyn_cast<FragmentType>(v.getType()))
    return SmallVector<Attribute, 2>(f.getShape());
  Builder b(v.getContext());
  return {b.getI64IntegerAttr(1), b.getI64IntegerAttr(1)};
}

static bool isOne(Attribute d) { return isa<IntegerAttr>(d) && cast<IntegerAttr>(d).getInt() == 1; }

std::optional<SmallVector<Attribute, 2>> intent::igpu::broadcastLanes(ArrayRef<Attribute> a, ArrayRef<Attribute> b) {
  SmallVector<Attribute, 2> r;
  for (size_t i = 0; i < 2; ++i) {
    if (a[i] == b[i] || isOne(b[i]))
      r.push_back(a[i]);
    else if (isOne(a[i]))
      r.push_back(b[i]);
    else
      return std::nullopt;
  }
  return r;
}

namespace {
/// A lane-wise op: its result has the broadcast shape of its operands and
/// element type `elt` (a scalar result only from scalar operands).
LogicalResult verifyLaneWise(Operation *op, Type elt) {
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  for (Value v : {lhs, rhs})
    if (auto f = dyn_cast<FragmentType>(v.getType()); f && f.getShape().size() != 2)
      return op->emitOpError() << "takes rank-2 fragments or scalars";
  Type rt = op->getResult(0).getType();
  if (!isa<FragmentType>(lhs.getType()) && !isa<FragmentType>(rhs.getType())) {
    if (rt != elt)
      return op->emitOpError() << "of scalars yields " << elt << ", got " << rt;
    return success();
  }
  auto shape = broadcastLanes(laneShape(lhs), laneShape(rhs));
  if (!shape)
    return op->emitOpError() << "operand shapes " << intent::kir::shapeToString(laneShape(lhs)) << " and "
                             << intent::kir::shapeToString(laneShape(rhs)) << " do not broadcast";
  auto expected = FragmentType::get(op->getContext(), elt, *shape);
  if (rt != expected)
    return op->emitOpError() << "result must be " << expected << ", got " << rt;
  return success();
}

template <typename OpT>
void nameResult(OpT op, OpAsmSetValueNameFn setNameFn, StringRef fallback) {
  setNameFn(op.getResult(), op.getName() ? *op.getName() : fallback);
}

Type elementOf(Value v) {
  if (auto f = dyn_cast<FragmentType>(v.getType()))
    return f.getElementType();
  return v.getType();
}
} // namespace

//===----------------------------------------------------------------------===//
// Program ops
//===----------------------------------------------------------------------===//

Operation *ProgramOp::getReduction(int64_t n) {
  for (Operation &op : getKernel().getBody().front())
    if (isa<intent::kir::ReduceOp, intent::kir::ScanOp>(op) && n-- == 0)
      return &op;
  return nullptr;
}

LogicalResult ProgramOp::verifyRegions() {
  intent::kir::KernelOp kernel = getKernel();
  if (&kernel.getBody().front().back() != getOperation() &&
      getOperation()->getNextNode() != &kernel.getBody().front().back())
    return emitOpError() << "must be the last operation of its kernel";
  auto structure = kernel->getAttrOfType<StringAttr>("igpu.structure");
  if (!structure || structure.getValue() != getStructure())
    return emitOpError() << "structure '" << getStructure() << "' does not match the kernel's igpu.structure";
  llvm::DenseSet<StringRef> symbols;
  if (auto params = kernel->getAttrOfType<ArrayAttr>("igpu.parameters"))
    for (Attribute a : params)
      if (auto p = dyn_cast<ParameterAttr>(a))
        symbols.insert(p.getSymbol());
  auto checkExtent = [&](Operation *op, Attribute d) -> LogicalResult {
    if (auto s = dyn_cast<StringAttr>(d); s && !symbols.contains(s.getValue()))
      return op->emitOpError() << "uses '" << s.getValue() << "', which is not a parameter of the program";
    return success();
  };
  WalkResult r = getRegion().walk([&](Operation *op) {
    if (auto p = dyn_cast<ParamOp>(op); p && !symbols.contains(p.getSymbol())) {
      p.emitOpError() << "'" << p.getSymbol() << "' is not a parameter of the program";
      return WalkResult::interrupt();
    }
    for (Value v : op->getResults())
      if (auto f = dyn_cast<FragmentType>(v.getType()))
        for (Attribute d : f.getShape())
          if (failed(checkExtent(op, d)))
            return WalkResult::interrupt();
    if (!isa<ContractOp, MergeKOp, RegionContractOp>(op))
      for (Value v : op->getOperands())
        if (auto f = dyn_cast<FragmentType>(v.getType()); f && f.getShape().size() == 1) {
          op->emitOpError() << "takes a rank-1 fragment, which only igpu.contract, igpu.merge_k and igpu.region_contract take";
          return WalkResult::interrupt();
        }
    if (auto split = dyn_cast<SplitRangeOp>(op); split && failed(checkExtent(op, split.getSplitAttr())))
      return WalkResult::interrupt();
    if (auto init = dyn_cast<InitAccOp>(op))
      for (Attribute d : init.getShape())
        if (failed(checkExtent(op, d)))
          return WalkResult::interrupt();
    Attribute step = isa<FoldOp>(op) ? cast<FoldOp>(op).getStep()
                     : isa<ScanOp>(op) ? cast<ScanOp>(op).getStep()
                     : isa<RangeOp>(op) ? cast<RangeOp>(op).getSize()
                                        : Attribute();
    if (step && failed(checkExtent(op, step)))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

void ProgramIdOp::getAsmResultNames(OpAsmSetValueNameFn f) { nameResult(*this, f, "pid"); }
void WideOp::getAsmResultNames(OpAsmSetValueNameFn f) { nameResult(*this, f, "wide"); }
void ParamOp::getAsmResultNames(OpAsmSetValueNameFn f) { nameResult(*this, f, getSymbol()); }
void ExtentOp::getAsmResultNames(OpAsmSetValueNameFn f) { nameResult(*this, f, getWhich()); }
void AxisExtentOp::getAsmResultNames(OpAsmSetValueNameFn f) { nameResult(*this, f, "extent"); }
void RangeOp::getAsmResultNames(OpAsmSetValueNameFn f) { nameResult(*this, f, "range"); }
void ZeroOp::getAsmResultNames(OpAsmSetValueNameFn f) { nameResult(*this, f, "zero"); }
void LessOp::getAsmResultNames(OpAsmSetValueNameFn f) { nameResult(*this, f, "lt"); }
void AndOp::getAsmResultNames(OpAsmSetValueNameFn f) { nameResult(*this, f, "and"); }
void SplitRangeOp::getAsmResultNames(OpAsmSetValueNameFn f) {
  f(getLo(), (getName() + "_lo").str());
  f(getHi(), (getName() + "_hi").str());
}

LogicalResult ExtentOp::verify() {
  if (getWhich() != "R" && getWhich() != "C")
    return emitOpError() << "names R (rows) or C (columns), got '" << getWhich() << "'";
  return success();
}

LogicalResult RangeOp::verify() {
  Builder b(getContext());
  Attribute one = b.getI64IntegerAttr(1);
  Attribute size = getSize();
  if (auto i = dyn_cast<IntegerAttr>(size); i && i.getInt() <= 0)
    return emitOpError() << "size must be positive";
  SmallVector<Attribute, 2> shape{one, one};
  shape[getDim()] = size;
  if (cast<FragmentType>(getType()).getShape().size() == 1) {
    if (getDim() != 0)
      return emitOpError() << "a rank-1 range lies along dim 0";
    shape = {size};
  }
  auto expected = FragmentType::get(getContext(), b.getIndexType(), shape);
  if (getType() != expected)
    return emitOpError() << "result must be " << expected << ", got " << getType();
  if (isa<FragmentType>(getStart().getType()))
    return emitOpError() << "the start is a scalar";
  return success();
}

LogicalResult ZeroOp::verify() {
  auto f = cast<FragmentType>(getType());
  if (!f.getElementType().isIndex() || f.getShape().size() != 2 || !isOne(f.getShape()[0]) ||
      !isOne(f.getShape()[1]))
    return emitOpError() << "yields !igpu.frag<index, [1, 1]>";
  return success();
}

LogicalResult LessOp::verify() { return verifyLaneWise(*this, IntegerType::get(getContext(), 1)); }
LogicalResult AndOp::verify() {
  if (!elementOf(getLhs()).isInteger(1) || !elementOf(getRhs()).isInteger(1))
    return emitOpError() << "operands are masks";
  return verifyLaneWise(*this, IntegerType::get(getContext(), 1));
}

LogicalResult AtOp::verify() {
  for (Value v : {getRows(), getCols()})
    if (!elementOf(v).isIndex())
      return emitOpError() << "coordinates are index fragments";
  for (Value m : {getRowMask(), getColMask()})
    if (m && !elementOf(m).isInteger(1))
      return emitOpError() << "masks are i1 fragments";
  return success();
}

namespace {
ProgramOp programOf(Operation *op) { return op->getParentOfType<ProgramOp>(); }

/// The n-th reduction of the kernel, which must be a `OpT`.
template <typename OpT>
LogicalResult verifyReductionRef(Operation *op, int64_t n, StringRef what) {
  ProgramOp program = programOf(op);
  if (!program)
    return op->emitOpError() << "appears only inside igpu.program";
  Operation *r = program.getReduction(n);
  if (!r || !isa<OpT>(r))
    return op->emitOpError() << "reduction " << n << " of the kernel is not a " << what;
  return success();
}
} // namespace

LogicalResult ReduceOp::verify() { return verifyReductionRef<intent::kir::ReduceOp>(*this, getReduction(), "kir.reduce"); }
LogicalResult AccumulateOp::verify() {
  return verifyReductionRef<intent::kir::ReduceOp>(*this, getReduction(), "kir.reduce");
}
LogicalResult InitAccOp::verify() {
  if (getShape().size() != 2)
    return emitOpError() << "an accumulator has rank 2";
  if (!llvm::all_of(getShape(), isExtent))
    return emitOpError() << "an accumulator extent is a parameter symbol or a positive integer";
  return verifyReductionRef<intent::kir::ReduceOp>(*this, getReduction(), "kir.reduce");
}
LogicalResult FinishOp::verify() { return verifyReductionRef<intent::kir::ReduceOp>(*this, getReduction(), "kir.reduce"); }
LogicalResult ScanOp::verify() {
  ArrayRef<int64_t> list = getScans();
  if (list.empty())
    return emitOpError() << "scans at least one kir.scan";
  std::optional<bool> reverse;
  for (int64_t n : list) {
    if (failed(verifyReductionRef<intent::kir::ScanOp>(*this, n, "kir.scan")))
      return failure();
    bool rev = cast<intent::kir::ScanOp>(programOf(*this).getReduction(n)).getReverse();
    if (reverse && *reverse != rev)
      return emitOpError() << "scans " << list.front() << " and " << n << " run in opposite directions";
    reverse = rev;
  }
  return success();
}

/// Whether `r` (an op of the kernel) is computed, through any chain of operands, from `from`.
static bool readsResultOf(Operation *r, Operation *from) {
  llvm::DenseSet<Operation *> seen;
  SmallVector<Value> work(r->getOperands().begin(), r->getOperands().end());
  while (!work.empty()) {
    Operation *d = work.pop_back_val().getDefiningOp();
    if (!d || !seen.insert(d).second)
      continue;
    if (d == from)
      return true;
    work.append(d->getOperands().begin(), d->getOperands().end());
  }
  return false;
}

LogicalResult FoldOp::verify() {
  ArrayRef<int64_t> list = getReductions();
  if (list.empty())
    return emitOpError() << "folds at least one reduction";
  SmallVector<Operation *> folded;
  for (int64_t n : list) {
    if (failed(verifyReductionRef<intent::kir::ReduceOp>(*this, n, "kir.reduce")))
      return failure();
    Operation *op = programOf(*this).getReduction(n);
    if (llvm::is_contained(folded, op))
      return emitOpError() << "lists reduction " << n << " twice";
    auto r = cast<intent::kir::ReduceOp>(op);
    std::string policy = intent::kir::stringifyPolicy(r.getEffectivePolicy()).str();
    if (getPolicy() != policy)
      return emitOpError() << "policy '" << getPolicy() << "' differs from reduction " << n << "'s '" << policy << "'";
    folded.push_back(op);
  }
  for (auto [i, a] : llvm::enumerate(folded))
    for (auto [j, b] : llvm::enumerate(folded))
      if (i != j && readsResultOf(a, b))
        return emitOpError() << "folds reduction " << list[i] << " in the pass of reduction " << list[j]
                             << ", whose result it reads";
  intent::kir::Policy pol = cast<intent::kir::ReduceOp>(folded.front()).getEffectivePolicy();
  bool strict = pol != intent::kir::Policy::unordered_tree;
  if (strict && !(isa<IntegerAttr>(getStep()) && cast<IntegerAttr>(getStep()).getInt() == 1))
    return emitOpError() << "a " << getPolicy() << " fold steps one column at a time";
  if (getReverse() != (pol == intent::kir::Policy::fold_right))
    return emitOpError() << "runs from the end exactly when the policy is fold_right";
  if (!getStores().empty()) {
    if (strict)
      return emitOpError() << "stores chunks only under a tree policy";
    for (Operation &op : getStores().front())
      if (!isa<StoreOp>(op))
        return emitOpError() << "holds only igpu.store ops in its stores, not '" << op.getName() << "'";
  }
  return success();
}

/// A store realizes the kernel's kir.store of argument `view`.
static LogicalResult verifyStoredView(Operation *op, int64_t view) {
  ProgramOp program = programOf(op);
  if (!program)
    return op->emitOpError() << "appears only inside igpu.program";
  Block &body = program.getKernel().getBody().front();
  if (view >= (int64_t)body.getNumArguments())
    return op->emitOpError() << "view " << view << " is not an argument of the kernel";
  for (Operation &o : body)
    if (auto st = dyn_cast<intent::kir::StoreOp>(o); st && st.getView() == body.getArgument(view))
      return success();
  return op->emitOpError() << "argument " << view << " is not stored by the kernel";
}

LogicalResult StoreOp::verify() {
  if (getDescriptor() && !isa<MergeKOp>((*this)->getParentOp()))
    return emitOpError() << "stores through a descriptor only in the epilogue of an igpu.merge_k";
  if (auto slices = getSlices()) {
    if (!getDescriptor())
      return emitOpError() << "slices apply to a store through a descriptor";
    if (*slices != 1 && *slices != 2)
      return emitOpError() << "slices " << *slices << ": a descriptor store goes out in 1 or 2 column slices";
  }
  return verifyStoredView(*this, getView());
}

LogicalResult SplitMergeOp::verify() {
  if (getLanes() != "rows" && getLanes() != "cols" && getLanes() != "total")
    return emitOpError() << "lanes are rows, cols or total, got '" << getLanes() << "'";
  if ((getLanes() == "total") != !getLane())
    return emitOpError() << "a lane fragment is given exactly when the lanes are not a total";
  if (getMask() && !getLane())
    return emitOpError() << "a mask needs a lane fragment";
  if (getLane() && !elementOf(getLane()).isIndex())
    return emitOpError() << "the lane fragment holds coordinates (index)";
  if (getMask() && !elementOf(getMask()).isInteger(1))
    return emitOpError() << "the mask is an i1 fragment";
  for (int64_t v : getViews())
    if (failed(verifyStoredView(*this, v)))
      return failure();
  return success();
}

// Loops (igpu.for, igpu.persistent): one index block argument, printed under the loop's name.
static void nameLoopArgument(Region &region, StringRef name, OpAsmSetValueNameFn setNameFn) {
  if (!region.empty() && region.front().getNumArguments() == 1)
    setNameFn(region.front().getArgument(0), name);
}

static LogicalResult verifyLoopArgument(Operation *op, Region &region, StringRef what) {
  Block &b = region.front();
  if (b.getNumArguments() != 1 || !b.getArgument(0).getType().isIndex())
    return op->emitOpError() << "body takes " << what << " (one index argument)";
  return success();
}

void ForOp::getAsmBlockArgumentNames(Region &region, OpAsmSetValueNameFn setNameFn) {
  nameLoopArgument(region, getName(), setNameFn);
}

void PersistentOp::getAsmBlockArgumentNames(Region &region, OpAsmSetValueNameFn setNameFn) {
  nameLoopArgument(region, getName(), setNameFn);
}

LogicalResult PersistentOp::verifyRegions() {
  return verifyLoopArgument(*this, getRegion(), "the work item's index");
}

namespace {
/// A contraction op: inside a program of a kernel with a kir.contract; its tile
/// coordinates are rank-1 igpu.range fragments (their starts are the tile's
/// offsets), its batch a program id.
LogicalResult verifyContractionOp(Operation *op, Value rows, Value cols, Value batch) {
  ProgramOp program = programOf(op);
  if (!program)
    return op->emitOpError() << "appears only inside igpu.program";
  if (!llvm::any_of(program.getKernel().getBody().front(),
                    [](Operation &o) { return isa<intent::kir::ContractOp>(o); }))
    return op->emitOpError() << "needs a kir.contract in the kernel";
  for (Value v : {rows, cols}) {
    auto f = cast<FragmentType>(v.getType());
    if (!f.getElementType().isIndex() || f.getShape().size() != 1 || !v.getDefiningOp<RangeOp>())
      return op->emitOpError() << "takes the tile's coordinates as rank-1 igpu.range fragments, got " << f;
  }
  if (batch && !batch.getDefiningOp<WideOp>())
    return op->emitOpError() << "takes the batch as an igpu.wide value";
  return success();
}
} // namespace

LogicalResult ContractOp::verify() { return verifyContractionOp(*this, getRows(), getCols(), getBatch()); }

/// A contraction op whose body is the epilogue: igpu.store ops only.
static LogicalResult verifyEpilogueBody(Operation *op, Region &body) {
  for (Operation &inner : body.front())
    if (!isa<StoreOp>(inner))
      return inner.emitOpError() << "cannot appear in an " << op->getName() << " (its body is the epilogue's stores)";
  return success();
}

LogicalResult MergeKOp::verify() {
  if (failed(verifyContractionOp(*this, getRows(), getCols(), getBatch())))
    return failure();
  return verifyEpilogueBody(*this, getRegion());
}

LogicalResult RegionContractOp::verify() {
  if (failed(verifyContractionOp(*this, getRows(), getCols(), getBatch())))
    return failure();
  return verifyEpilogueBody(*this, getRegion());
}

LogicalResult ForOp::verifyRegions() { return verifyLoopArgument(*this, getRegion(), "the step's start"); }
