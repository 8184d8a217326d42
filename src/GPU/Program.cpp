//===- Program.cpp - igpu-build-program: the blocked program of a structure ===//
#include "intent/GPU/Program.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

#include <tuple>

using namespace mlir;
using namespace intent;
using namespace intent::gpu;

igpu::ProgramOp gpu::programOf(kir::KernelOp kernel) {
  for (auto p : kernel.getBody().front().getOps<igpu::ProgramOp>())
    return p;
  return {};
}

std::vector<gpu::DescriptorOutput> gpu::descriptorOutputs(igpu::ProgramOp program) {
  std::vector<DescriptorOutput> outs;
  program.walk([&](igpu::StoreOp st) {
    if (st.getDescriptor() && llvm::none_of(outs, [&](const DescriptorOutput &o) { return o.view == st.getView(); }))
      outs.push_back({unsigned(st.getView()), int64_t(st.getSlices().value_or(1))});
  });
  return outs;
}

bool gpu::hasColAxis(const ProgramStructure &ps, Value v) {
  return llvm::any_of(ps.axes.lookup(v), [&](int a) { return ps.isColAxis(a); });
}

bool gpu::splitKeepsCols(const ProgramStructure &ps) {
  if (ps.kind != StructureKind::SplitReduction || ps.extents.size() < 2)
    return false;
  auto r = cast<kir::ReduceOp>(ps.reductions[0]);
  const auto &in = ps.axes.lookup(r.getInputs()[0]);
  return llvm::none_of(r.getDims(), [&](int64_t d) { return ps.isColAxis(in[d]); });
}

std::vector<kir::ReduceOp> gpu::splitPartials(const ProgramStructure &ps, Block &body) {
  SmallVector<Value> work;
  for (Operation &op : body)
    if (auto st = dyn_cast<kir::StoreOp>(op))
      if (ps.kind == StructureKind::SplitReduction || !hasColAxis(ps, st.getView()))
        work.push_back(st.getValue());
  // Walk back from the stored values; a reduction ends the walk (its operands are per split).
  llvm::DenseSet<Operation *> reached = definingOps(
      work, [&](Operation *op) { return llvm::is_contained(ps.reductions, op); }, /*keepBoundary=*/true);
  std::vector<kir::ReduceOp> partials;
  for (Operation *r : ps.reductions)
    if (reached.contains(r))
      partials.push_back(cast<kir::ReduceOp>(r));
  return partials;
}

namespace {

/// Builds program ops at the end of a block; every value a Python variable
/// should hold gets a `name`.
class ProgramBuilder {
public:
  ProgramBuilder(kir::KernelOp kernel, const ProgramStructure &ps, Block *block)
      : kernel(kernel), ps(ps), b(kernel.getContext()), loc(kernel.getLoc()) {
    b.setInsertionPointToEnd(block);
  }

  kir::KernelOp kernel;
  const ProgramStructure &ps;
  OpBuilder b;
  Location loc;
  // Parameters, extents and constants: each made once, then hoisted to the top (hoist()).
  llvm::StringMap<Value> leaves;
  llvm::DenseMap<int64_t, Value> constants;
  SmallVector<Operation *> hoisted;

  Value leaf(Value v) {
    hoisted.push_back(v.getDefiningOp());
    return v;
  }
  /// Moves the leaves to the top of the program: parameters in declaration
  /// order, then the extents, then the constants in increasing order.
  void hoist(Block *block) {
    auto rank = [&](Operation *op) -> std::pair<int, int64_t> {
      if (auto p = dyn_cast<igpu::ParamOp>(op))
        return {0, llvm::find_if(ps.parameters, [&](const Parameter &q) { return q.symbol == p.getSymbol(); }) -
                       ps.parameters.begin()};
      if (auto x = dyn_cast<igpu::ExtentOp>(op))
        return {1, x.getWhich() == "R" ? 0 : 1};
      if (auto x = dyn_cast<igpu::AxisExtentOp>(op))
        return {1, 2 + (int64_t)x.getAxis()};
      return {2, cast<IntegerAttr>(cast<arith::ConstantOp>(op).getValue()).getInt()};
    };
    llvm::stable_sort(hoisted, [&](Operation *x, Operation *y) { return rank(x) < rank(y); });
    for (Operation *op : llvm::reverse(hoisted))
      op->moveBefore(&block->front());
  }

  /// Names the variable of `v`: the `name` of an igpu op, `igpu.name` on an arith op.
  Value named(Value v, StringRef name) {
    Operation *op = v.getDefiningOp();
    op->setAttr(igpu::variableNameAttr(op), b.getStringAttr(name));
    return v;
  }
  Value pid(int64_t axis) { return b.create<igpu::ProgramIdOp>(loc, b.getIndexType(), axis, StringAttr()); }
  Value wide(Value v) { return b.create<igpu::WideOp>(loc, b.getIndexType(), v, StringAttr()); }
  Value param(StringRef symbol) {
    Value &v = leaves["param " + symbol.str()];
    if (!v)
      v = leaf(b.create<igpu::ParamOp>(loc, b.getIndexType(), symbol, StringAttr()));
    return v;
  }
  Value extent(StringRef which) {
    Value &v = leaves["extent " + which.str()];
    if (!v)
      v = leaf(b.create<igpu::ExtentOp>(loc, b.getIndexType(), which, StringAttr()));
    return v;
  }
  Value axisExtent(int64_t axis) {
    Value &v = leaves["axis " + std::to_string(axis)];
    if (!v)
      v = leaf(b.create<igpu::AxisExtentOp>(loc, b.getIndexType(), axis, StringAttr()));
    return v;
  }
  Value cst(int64_t c) {
    Value &v = constants[c];
    if (!v)
      v = leaf(b.create<arith::ConstantIndexOp>(loc, c));
    return v;
  }
  Value mul(Value x, Value y) { return b.create<arith::MulIOp>(loc, x, y); }
  Value add(Value x, Value y) { return b.create<arith::AddIOp>(loc, x, y); }
  Value sub(Value x, Value y) { return b.create<arith::SubIOp>(loc, x, y); }
  // Program index values are never negative: unsigned division is Python's floor division.
  Value div(Value x, Value y) { return b.create<arith::DivUIOp>(loc, x, y); }
  Value rem(Value x, Value y) { return b.create<arith::RemUIOp>(loc, x, y); }
  Value cdiv(Value x, Value y) { return b.create<arith::CeilDivSIOp>(loc, x, y); }
  Value min(Value x, Value y) { return b.create<arith::MinSIOp>(loc, x, y); }
  Value max(Value x, Value y) { return b.create<arith::MaxSIOp>(loc, x, y); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) { return b.create<arith::CmpIOp>(loc, p, x, y); }

  Attribute dim(StringRef symbolOrInt) {
    int64_t v;
    if (!symbolOrInt.getAsInteger(10, v))
      return b.getI64IntegerAttr(v);
    return b.getStringAttr(symbolOrInt);
  }
  igpu::FragmentType frag(Type elt, ArrayRef<Attribute> shape) {
    return igpu::FragmentType::get(b.getContext(), elt, shape);
  }
  /// `start + [0, size)` along fragment dimension `d`.
  Value range(Value start, StringRef size, int64_t d, StringRef name) {
    SmallVector<Attribute, 2> shape{dim("1"), dim("1")};
    shape[d] = dim(size);
    return b.create<igpu::RangeOp>(loc, frag(b.getIndexType(), shape), start, dim(size), d,
                                   b.getStringAttr(name));
  }
  /// `start + [0, size)` as a rank-1 fragment: a contraction tile's coordinates.
  Value tileRange(Value start, StringRef size, StringRef name) {
    return b.create<igpu::RangeOp>(loc, frag(b.getIndexType(), {dim(size)}), start, dim(size), 0,
                                   b.getStringAttr(name));
  }
  /// The mask of a lane-wise op on `x` and `y` (the builder only combines shapes that broadcast).
  igpu::FragmentType maskOf(Value x, Value y) {
    return frag(b.getI1Type(), *igpu::broadcastLanes(igpu::laneShape(x), igpu::laneShape(y)));
  }
  Value lt(Value x, Value y) { return b.create<igpu::LessOp>(loc, maskOf(x, y), x, y, StringAttr()); }
  Value both(Value x, Value y) { return b.create<igpu::AndOp>(loc, maskOf(x, y), x, y, StringAttr()); }
  Value zero() { return b.create<igpu::ZeroOp>(loc, frag(b.getIndexType(), {dim("1"), dim("1")}), StringAttr()); }
  void at(Value rows, Value rmask, Value cols, Value cmask) {
    b.create<igpu::AtOp>(loc, rows, rmask, cols, cmask);
  }

  /// igpu.store for every kir.store `filter` accepts, in body order.
  void stores(llvm::function_ref<bool(kir::StoreOp)> filter) {
    for (kir::StoreOp st : kernelStores())
      if (filter(st))
        b.create<igpu::StoreOp>(loc, viewIndex(st));
  }
  void splitMerge(StringRef lanes, Value group, Value lane, Value mask,
                  llvm::function_ref<bool(kir::StoreOp)> filter) {
    SmallVector<int64_t> views;
    for (kir::StoreOp st : kernelStores())
      if (filter(st))
        views.push_back(viewIndex(st));
    b.create<igpu::SplitMergeOp>(loc, lanes, group, lane, mask, views);
  }
  SmallVector<kir::StoreOp> kernelStores() {
    return llvm::to_vector(kernel.getBody().front().getOps<kir::StoreOp>());
  }
  static int64_t viewIndex(kir::StoreOp st) { return cast<BlockArgument>(st.getView()).getArgNumber(); }

  /// The structure's chunked row passes, one igpu.fold each: tree folds over [treeLo,
  /// treeHi) in steps of `treeStep`, strict and ordered ones over the whole row a column
  /// at a time. The first pass also stores, from its chunks, the stores `firstStores`
  /// selects (ps.foldStores: that pass is a tree fold).
  void rowPassFolds(Value rows, Value rmask, Value treeLo, Value treeHi, StringRef treeStep,
                    llvm::function_ref<bool(kir::StoreOp)> firstStores = nullptr) {
    for (auto [i, pass] : llvm::enumerate(ps.rowPasses)) {
      kir::Policy pol = cast<kir::ReduceOp>(ps.reductions[pass.front()]).getEffectivePolicy();
      bool tree = pol == kir::Policy::unordered_tree;
      auto fold = b.create<igpu::FoldOp>(loc, b.getDenseI64ArrayAttr(pass), rows, rmask, tree ? treeLo : cst(0),
                                         tree ? treeHi : extent("C"), tree ? dim(treeStep) : dim("1"),
                                         kir::stringifyPolicy(pol), pol == kir::Policy::fold_right);
      if (i == 0 && firstStores) {
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToEnd(b.createBlock(&fold.getStores()));
        stores(firstStores);
      }
    }
  }
  /// A loop over [lo, hi) with `step`, its body built by `body(start)`.
  void loop(Value lo, Value hi, Value step, StringRef name, llvm::function_ref<void(Value)> body) {
    auto f = b.create<igpu::ForOp>(loc, lo, hi, step, name);
    OpBuilder::InsertionGuard g(b);
    Block *blk = b.createBlock(&f.getRegion(), {}, {b.getIndexType()}, {loc});
    body(blk->getArgument(0));
  }
  /// A choice per candidate: `then` and `otherwise` build the two branches.
  void choose(Value cond, llvm::function_ref<void()> then, llvm::function_ref<void()> otherwise) {
    auto op = b.create<igpu::IfOp>(loc, cond);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToEnd(b.createBlock(&op.getThenBody()));
    then();
    b.setInsertionPointToEnd(b.createBlock(&op.getElseBody()));
    otherwise();
  }

  void tiles();
  void rowReduction();
  void rowScan();
  void splitReduction();
  void matmul();
  void regionContraction();
  /// The contraction's output tiles: per row of tiles, per column of tiles, in all.
  struct TileGrid {
    Value m, n, all;
  };
  void outputTile(Value work, const TileGrid &grid);
  std::pair<Value, Value> splitBatch(Value work, Value tiles);
};

/// The row tiles vary fastest along grid dimension 0, as dimension 0 of a
/// [row tiles, column tiles] grid would; at least one row tile, like the grid.
void ProgramBuilder::tiles() {
  Value p = named(pid(0), "pid");
  Value tilesM = named(max(cdiv(extent("R"), param("OWN_M")), cst(1)), "num_pid_m");
  Value pidM = named(rem(p, tilesM), "pid_m"), pidN = named(div(p, tilesM), "pid_n");
  Value rows = range(mul(pidM, param("OWN_M")), "OWN_M", 0, "rows");
  Value cols = range(mul(pidN, param("OWN_N")), "OWN_N", 1, "cols");
  Value rmask = lt(rows, extent("R"));
  at(rows, rmask, cols, lt(cols, extent("C")));
  stores([](kir::StoreOp) { return true; });
}

void ProgramBuilder::rowReduction() {
  Value p = named(pid(0), "pid");
  Value rows = range(mul(p, param("OWN_M")), "OWN_M", 0, "rows");
  Value rmask = named(lt(rows, extent("R")), "rmask");
  // Columns of this program: all of them unless SPLIT programs share each row (they
  // split its folds, or only its full-size stores: ps.storeSplit).
  Value colsPer = named(mul(cdiv(cdiv(extent("C"), param("SPLIT")), param("RED_N")), param("RED_N")), "cols_per");
  Value cLo = named(mul(pid(1), colsPer), "c_lo");
  Value cHi = named(min(add(cLo, colsPer), extent("C")), "c_hi");
  auto isFull = [&](kir::StoreOp st) { return hasColAxis(ps, st.getView()); };
  auto resident = [&] {
    Value cols = range(cst(0), "COVER", 1, "cols");
    Value cmask = named(lt(cols, extent("C")), "cmask");
    at(rows, rmask, cols, cmask);
    Value full = both(rmask, cmask);
    for (size_t i = 0; i < ps.reductions.size(); ++i)
      b.create<igpu::ReduceOp>(loc, i, full);
    stores([](kir::StoreOp) { return true; });
  };
  // Chunked: the structure's passes (independent reductions share one; the first stores
  // full-row outputs that read no reduction), the row-space stores, then a pass for
  // full-row outputs that read one.
  auto chunked = [&] {
    llvm::function_ref<bool(kir::StoreOp)> foldedStores = nullptr;
    if (ps.foldStores)
      foldedStores = isFull;
    // Programs sharing only the row's stores each fold all of it.
    rowPassFolds(rows, rmask, ps.storeSplit ? cst(0) : cLo, ps.storeSplit ? extent("C") : cHi, "RED_N",
                 foldedStores);
    auto rowStore = [&](kir::StoreOp st) { return !isFull(st); };
    if (ps.splitMerge) {
      at(rows, rmask, zero(), Value());
      splitMerge("rows", p, rows, rmask, rowStore);
    } else if (ps.storeSplit && llvm::any_of(kernelStores(), rowStore)) {
      // Every program of the row holds the same results: the first one stores them.
      Value others = min(pid(1), cst(1));
      Value rowsStored = named(sub(extent("R"), mul(extent("R"), others)), "r_stored");
      at(rows, named(lt(rows, rowsStored), "rmask_stored"), zero(), Value());
      stores(rowStore);
    } else {
      at(rows, rmask, zero(), Value());
      stores(rowStore);
    }
    // Never with split rows: their full-row outputs read no reduction (a split merge
    // needs its results to reach only stores, through element-wise ops), so the first
    // pass stored them. Programs sharing a row's stores store their own columns.
    if (!ps.foldStores && llvm::any_of(kernelStores(), isFull)) {
      assert(!ps.splitMerge && "split rows store full-row outputs in their first pass");
      loop(ps.storeSplit ? cLo : cst(0), ps.storeSplit ? cHi : extent("C"), param("RED_N"), "c0", [&](Value c0) {
        Value cols = range(c0, "RED_N", 1, "cols");
        at(rows, rmask, cols, named(lt(cols, extent("C")), "cmask"));
        stores(isFull);
      });
    }
  };
  if (ps.sequential)
    return chunked();
  // Resident: the whole row (COVER = next_pow2(cols)) in registers, when it fits and rows are not split.
  Value fits = cmp(arith::CmpIPredicate::ule, mul(param("OWN_M"), param("COVER")), cst(32768));
  Value unsplit = cmp(arith::CmpIPredicate::eq, param("SPLIT"), cst(1));
  choose(b.create<arith::AndIOp>(loc, fits, unsplit), resident, chunked);
}

void ProgramBuilder::rowScan() {
  Value p = named(pid(0), "pid");
  Value rows = range(mul(p, param("OWN_M")), "OWN_M", 0, "rows");
  Value rmask = named(lt(rows, extent("R")), "rmask");
  // Row reductions first, over the whole row in chunks of SCAN_N (one column a step
  // under a strict policy): the scans' operands may read their results.
  if (!ps.rowPasses.empty())
    rowPassFolds(rows, rmask, cst(0), extent("C"), "SCAN_N");
  // Stores without the scanned axis cannot depend on the scan: once, before the
  // segments (also when there are no columns at all).
  auto rowOnly = [&](kir::StoreOp st) { return !hasColAxis(ps, st.getView()); };
  if (llvm::any_of(kernelStores(), rowOnly)) {
    at(rows, rmask, zero(), Value());
    stores(rowOnly);
  }
  SmallVector<int64_t> scans;
  for (auto [i, op] : llvm::enumerate(ps.reductions))
    if (isa<kir::ScanOp>(op))
      scans.push_back(i);
  auto scan = b.create<igpu::ScanOp>(loc, scans, rows, rmask, dim("SCAN_N"));
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToEnd(b.createBlock(&scan.getRegion()));
  stores([&](kir::StoreOp st) { return !rowOnly(st); });
}

void ProgramBuilder::splitReduction() {
  Value pidN = named(pid(0), "pid_n"), pidS = named(pid(1), "pid_s");
  Value rowsPer = named(mul(cdiv(cdiv(extent("R"), param("SPLIT")), param("RED_M")), param("RED_M")), "rows_per");
  Value rLo = named(mul(pidS, rowsPer), "r_lo");
  bool keepCols = splitKeepsCols(ps);
  b.create<igpu::InitAccOp>(loc, 0, b.getArrayAttr({dim("RED_M"), dim("OWN_N")}));
  auto rowLoop = [&](Value colStart) {
    loop(rLo, min(add(rLo, rowsPer), extent("R")), param("RED_M"), "r0", [&](Value r0) {
      Value rows = range(r0, "RED_M", 0, "rows");
      Value inRows = lt(rows, extent("R"));
      Value rmask = named(both(inRows, lt(rows, add(rLo, rowsPer))), "rmask");
      Value cols = range(colStart, "OWN_N", 1, "cols");
      Value cmask = named(lt(cols, extent("C")), "cmask");
      at(rows, rmask, cols, cmask);
      b.create<igpu::AccumulateOp>(loc, 0, both(rmask, cmask));
    });
  };
  if (keepCols)
    rowLoop(mul(pidN, param("OWN_N")));
  else
    loop(cst(0), extent("C"), param("OWN_N"), "c0", rowLoop);
  // The first split adds the reduction's initial value.
  Value seed;
  if (!cast<kir::ReduceOp>(ps.reductions.front()).getInits().empty())
    seed = cmp(arith::CmpIPredicate::eq, pidS, cst(0));
  b.create<igpu::FinishOp>(loc, 0, keepCols ? ArrayRef<int64_t>{0} : ArrayRef<int64_t>{0, 0}, keepCols, seed);
  Value cols, cmask;
  if (keepCols) {
    cols = range(mul(pidN, param("OWN_N")), "OWN_N", 1, "cols");
    cmask = lt(cols, extent("C"));
    at(zero(), Value(), cols, cmask);
  } else {
    Value z = zero();
    at(z, Value(), z, Value());
  }
  auto any = [](kir::StoreOp) { return true; };
  if (ps.splitMerge)
    splitMerge(keepCols ? "cols" : "total", pidN, cols, cmask, any);
  else
    stores(any);
}

/// A batch-major work item over `tiles` tiles per batch: its tile and its
/// (flattened) batch, held in 64 bits.
std::pair<Value, Value> ProgramBuilder::splitBatch(Value work, Value tiles) {
  Value tile = named(rem(work, tiles), "tile");
  return {tile, named(wide(named(div(work, tiles), "bid")), "pid_b")};
}

/// The contraction's output tile of work item `work` (batch-major: the tiles of
/// one batch, then the next; several batch labels flattened, the first
/// outermost): its grouped placement (GROUP_M rows of tiles at a time, for L2
/// reuse), its share of the K tiles, the K loop, and the split-K merge whose
/// body is the epilogue: every store, through a descriptor where the view is
/// indexed exactly by the tile's ([batch,] m, n) coordinates (32-bit outputs in
/// two column halves: igpu.store `slices`).
void ProgramBuilder::outputTile(Value work, const TileGrid &grid) {
  const int m = ps.contraction->batchAxes();
  Value tilesM = grid.m, tilesN = grid.n;
  Value index = work, batch;
  if (m > 0)
    std::tie(index, batch) = splitBatch(work, grid.all);
  Value group = named(mul(param("GROUP_M"), tilesN), "group");
  Value firstM = named(mul(div(index, group), param("GROUP_M")), "first_m");
  Value groupSize = named(min(sub(tilesM, firstM), param("GROUP_M")), "gsize");
  Value inGroup = rem(index, group);
  Value pidM = named(add(firstM, rem(inGroup, groupSize)), "pid_m");
  Value pidN = named(div(inGroup, groupSize), "pid_n");
  Value rows = tileRange(mul(pidM, param("BM")), "BM", "rm");
  Value cols = tileRange(mul(pidN, param("BN")), "BN", "rn");
  // K is the canonical axis after the output's.
  Value kTiles = cdiv(axisExtent(ps.extents.size()), param("BK"));
  auto k = b.create<igpu::SplitRangeOp>(loc, b.getIndexType(), b.getIndexType(), kTiles, "SPLIT_K", 2, "k");
  b.create<igpu::ContractOp>(loc, rows, cols, k.getLo(), k.getHi(), batch);
  // The split programs of a tile share one arrival counter per (batch, tile): its work item.
  auto merge = b.create<igpu::MergeKOp>(loc, work, rows, cols, batch);
  OpBuilder::InsertionGuard g(b);
  b.createBlock(&merge.getRegion());
  auto whole = llvm::to_vector(llvm::seq<int>(0, m + 2));
  for (kir::StoreOp st : kernelStores()) {
    auto store = b.create<igpu::StoreOp>(loc, viewIndex(st));
    if (ps.axes.lookup(st.getView()) != whole)
      continue;
    store.setDescriptor(true);
    if (kir::kirElementType(st.getView().getType()).getIntOrFloatBitWidth() >= 32)
      store.setSlices(2);
  }
}

/// Region (attention): one program per (m, d) output tile of the second contraction,
/// grid dim 0 over the m tiles times the d tiles, times the flattened batch (batch-major).
void ProgramBuilder::regionContraction() {
  const int rank = ps.extents.size();
  // At least one tile per row tile: row statistics stored beside an empty [M, 0] output still have rows.
  Value tilesD = named(max(cdiv(axisExtent(rank - 1), param("BD")), cst(1)), "num_pid_d");
  Value index = named(pid(0), "pid"), batch;
  if (ps.region->batch)
    std::tie(index, batch) =
        splitBatch(index, named(max(mul(cdiv(axisExtent(rank - 2), param("BM")), tilesD), cst(1)), "num_tiles"));
  Value pidM = named(div(index, tilesD), "pid_m");
  Value pidD = named(rem(index, tilesD), "pid_d");
  Value rows = tileRange(mul(pidM, param("BM")), "BM", "rm");
  Value cols = tileRange(mul(pidD, param("BD")), "BD", "rd");
  auto region = b.create<igpu::RegionContractOp>(loc, rows, cols, batch);
  OpBuilder::InsertionGuard g(b);
  b.createBlock(&region.getRegion());
  stores([](kir::StoreOp) { return true; });
}

/// One program per output tile (WORKERS 1), else persistent programs striding over the tiles.
void ProgramBuilder::matmul() {
  const int m = ps.contraction->batchAxes();
  // One tile grid for both traversals: the persistent one counts its work items with it.
  TileGrid grid{named(cdiv(axisExtent(m), param("BM")), "num_pid_m"),
                named(cdiv(axisExtent(m + 1), param("BN")), "num_pid_n"), {}};
  grid.all = named(mul(grid.m, grid.n), "num_tiles");
  Value single = cmp(arith::CmpIPredicate::eq, param("WORKERS"), cst(1));
  choose(
      single, [&] { outputTile(named(pid(0), "pid"), grid); },
      [&] {
        // Every (batch, tile) work item: the workers balance across batches too.
        Value items = grid.all;
        for (int a = 0; a < m; ++a)
          items = mul(items, axisExtent(a));
        if (m > 0)
          items = named(items, "num_work");
        auto walk = b.create<igpu::PersistentOp>(loc, items, "pid");
        OpBuilder::InsertionGuard g(b);
        Block *blk = b.createBlock(&walk.getRegion(), {}, {b.getIndexType()}, {loc});
        outputTile(blk->getArgument(0), grid);
      });
}

} // namespace

igpu::ProgramOp gpu::buildProgram(kir::KernelOp kernel, const ProgramStructure &ps) {
  if (igpu::ProgramOp old = programOf(kernel))
    old->erase();
  Block &body = kernel.getBody().front();
  OpBuilder b(kernel.getContext());
  b.setInsertionPoint(body.getTerminator());
  auto program = b.create<igpu::ProgramOp>(kernel.getLoc(), structureName(ps.kind));
  Block *block = b.createBlock(&program.getRegion());
  ProgramBuilder pb(kernel, ps, block);
  switch (ps.kind) {
  case StructureKind::Tiles: pb.tiles(); break;
  case StructureKind::RowReduction: pb.rowReduction(); break;
  case StructureKind::RowScan: pb.rowScan(); break;
  case StructureKind::SplitReduction: pb.splitReduction(); break;
  case StructureKind::Matmul: pb.matmul(); break;
  case StructureKind::RegionContraction: pb.regionContraction(); break;
  }
  if (!block->empty())
    pb.hoist(block);
  return program;
}
