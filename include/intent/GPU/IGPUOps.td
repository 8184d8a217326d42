//===- IGPUOps.td - the blocked GPU program ------------------------*- tablegen -*-===//
//
// `igpu.program` is what igpu-build-program makes of a kernel once its
// structure is fixed (mapping-notes.md): program ids and their mapping to
// the logical coordinates, index fragments whose shapes are parameter
// expressions, validity masks, loops with parameter steps, and the points where
// reductions, scans and stores happen, each with its policy; for a contraction,
// the traversal of its output tiles, the grouped placement of each tile (index
// arithmetic), its share of K, the K loop and the split-K merge. The kernel's
// dataflow stays in KIR: a store or reduction op names the KIR op it realizes
// and evaluates that op's operands at the coordinates set by the last
// `igpu.at`. Providers serialize the program op by op.
//
//===----------------------------------------------------------------------===//
#ifndef INTENT_IGPU_OPS
#define INTENT_IGPU_OPS

include "intent/GPU/IGPUDialect.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def IGPU_FragmentType : TypeDef<IGPU_Dialect, "Fragment"> {
  let mnemonic = "frag";
  let summary = "a block of values, one per lane of a program";
  let description = [{
    `!igpu.frag<index, [OWN_M, 1]>`: each extent is a positive integer or the
    symbol of a parameter of the program (bound per candidate, or at launch).
    Rank 2 (rows, columns) for lane-wise values; rank 1 for the row or column
    coordinates of a contraction's output tile (`[BM]`, `[BN]`), which only
    igpu.contract and igpu.merge_k take.
  }];
  let parameters = (ins "::mlir::Type":$elementType,
                        ArrayRefParameter<"::mlir::Attribute">:$shape);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def IGPU_Index : AnyTypeOf<[Index, IGPU_FragmentType]>;
def IGPU_Mask : AnyTypeOf<[I1, IGPU_FragmentType]>;

class IGPU_Op<string mnemonic, list<Trait> traits = []> : Op<IGPU_Dialect, mnemonic, traits>;

// Ops that may carry `name`: the variable the serializer binds the value to
// (unnamed values are used inline); also the result's name in printed IR.
class IGPU_NamedOp<string mnemonic, list<Trait> traits = []>
    : IGPU_Op<mnemonic, traits # [Pure, DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]>;

def IGPU_ProgramOp : IGPU_Op<"program", [
    IsolatedFromAbove, NoTerminator, SingleBlock, HasParent<"::intent::kir::KernelOp">]> {
  let summary = "the blocked program of the enclosing kernel";
  let description = [{
    One per kernel, last in its body. `structure` repeats the kernel's
    `igpu.structure`. Parameters, extents, reductions and stores inside refer
    to the enclosing kernel, which the verifier checks.
  }];
  let arguments = (ins StrAttr:$structure);
  let regions = (region SizedRegion<1>:$region);
  let assemblyFormat = "$structure attr-dict-with-keyword $region";
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::intent::kir::KernelOp getKernel() { return ::llvm::cast<::intent::kir::KernelOp>((*this)->getParentOp()); }
    /// The n-th kir.reduce or kir.scan of the kernel body (null when there is none).
    ::mlir::Operation *getReduction(int64_t n);
  }];
}

def IGPU_ProgramIdOp : IGPU_NamedOp<"program_id"> {
  let summary = "this program's coordinate along a grid dimension";
  let description = [{
    Only dimension 0 takes more than 65535 programs (CUDA), so every count that
    grows with the problem (tiles, a batch) is a factor of dimension 0; 1 and 2
    hold bounded parameters (splits).
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<2>]>:$axis,
                       OptionalAttr<StrAttr>:$name);
  let results = (outs Index:$result);
  let assemblyFormat = "$axis attr-dict";
}

def IGPU_WideOp : IGPU_NamedOp<"wide"> {
  let summary = "an index value held as a 64-bit integer";
  let description = [{
    For values that multiply strides (a batch): grid-derived values are 32-bit.
  }];
  let arguments = (ins Index:$value, OptionalAttr<StrAttr>:$name);
  let results = (outs Index:$result);
  let assemblyFormat = "$value attr-dict";
}

def IGPU_ParamOp : IGPU_NamedOp<"param"> {
  let summary = "the value of a typed parameter of the program";
  let arguments = (ins StrAttr:$symbol, OptionalAttr<StrAttr>:$name);
  let results = (outs Index:$result);
  let assemblyFormat = "$symbol attr-dict";
}

def IGPU_ExtentOp : IGPU_NamedOp<"extent"> {
  let summary = "an extent of the iteration space: rows (R, the leading axes flattened) or columns (C)";
  let arguments = (ins StrAttr:$which, OptionalAttr<StrAttr>:$name);
  let results = (outs Index:$result);
  let assemblyFormat = "$which attr-dict";
  let hasVerifier = 1;
}

def IGPU_AxisExtentOp : IGPU_NamedOp<"axis_extent"> {
  let summary = "the extent of one canonical axis (a contraction's [batch,] M, N, then K)";
  let arguments = (ins ConfinedAttr<I64Attr, [IntMinValue<0>]>:$axis, OptionalAttr<StrAttr>:$name);
  let results = (outs Index:$result);
  let assemblyFormat = "$axis attr-dict";
}

def IGPU_RangeOp : IGPU_NamedOp<"range"> {
  let summary = "consecutive coordinates from a start, laid along one fragment dimension";
  let description = [{
    `start + [0, size)`: a fragment of rank 2 whose extent is `size` along
    `dim` and 1 along the other, or of rank 1 (`dim` 0) for a contraction
    tile's coordinates.
  }];
  let arguments = (ins Index:$start, AnyAttrOf<[StrAttr, I64Attr]>:$size,
                       ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<1>]>:$dim,
                       OptionalAttr<StrAttr>:$name);
  let results = (outs IGPU_FragmentType:$result);
  let assemblyFormat = "$start `size` $size `dim` $dim attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def IGPU_ZeroOp : IGPU_NamedOp<"zero"> {
  let summary = "the coordinate 0 as a [1, 1] fragment (an axis a value does not have)";
  let arguments = (ins OptionalAttr<StrAttr>:$name);
  let results = (outs IGPU_FragmentType:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def IGPU_LessOp : IGPU_NamedOp<"lt"> {
  let summary = "lane-wise lhs < rhs (a validity mask)";
  let arguments = (ins IGPU_Index:$lhs, IGPU_Index:$rhs, OptionalAttr<StrAttr>:$name);
  let results = (outs IGPU_Mask:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` qualified(type($lhs)) `,` qualified(type($rhs)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def IGPU_AndOp : IGPU_NamedOp<"and"> {
  let summary = "lane-wise conjunction of masks, broadcast to the result";
  let arguments = (ins IGPU_Mask:$lhs, IGPU_Mask:$rhs, OptionalAttr<StrAttr>:$name);
  let results = (outs IGPU_Mask:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` qualified(type($lhs)) `,` qualified(type($rhs)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def IGPU_AtOp : IGPU_Op<"at", [AttrSizedOperandSegments]> {
  let summary = "the coordinates of the iteration space where the following ops evaluate KIR values";
  let description = [{
    `rows` are flat coordinates of the leading axes (delinearized by the
    serializer), `cols` of the innermost axis; a missing mask means always
    valid. Values evaluated at earlier coordinates are not reused, except the
    results of reductions.
  }];
  let arguments = (ins IGPU_FragmentType:$rows, Optional<IGPU_FragmentType>:$row_mask,
                       IGPU_FragmentType:$cols, Optional<IGPU_FragmentType>:$col_mask);
  let assemblyFormat = [{
    `rows` `(` $rows (`mask` $row_mask^)? `)` `cols` `(` $cols (`mask` $col_mask^)? `)` attr-dict `:`
    qualified(type($rows)) `,` qualified(type($cols)) (`,` qualified(type($row_mask))^)? (`,` qualified(type($col_mask))^)?
  }];
  let hasVerifier = 1;
}

def IGPU_StoreOp : IGPU_Op<"store"> {
  let summary = "realizes the kir.store of a view at the current coordinates";
  let description = [{
    `descriptor` (in the epilogue of an igpu.merge_k): the view is indexed
    exactly by the tile's [batch,] M and N coordinates, so candidates that use
    tensor descriptors store it through one (a TMA store). `slices 2`: the tile
    goes out as two [BM, BN / 2] column halves, so the shared-memory staging
    tile of a 32-bit output is no larger than a 16-bit one's and leaves room for
    the operand pipeline.
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntMinValue<0>]>:$view, UnitAttr:$descriptor,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntMinValue<1>]>>:$slices);
  let assemblyFormat = "`view` $view (`descriptor` $descriptor^)? (`slices` $slices^)? attr-dict";
  let builders = [OpBuilder<(ins "int64_t":$view), [{
    build($_builder, $_state, $_builder.getI64IntegerAttr(view), nullptr, nullptr);
  }]>];
  let hasVerifier = 1;
}

def IGPU_SplitMergeOp : IGPU_Op<"split_merge", [AttrSizedOperandSegments]> {
  let summary = "stores of values summed by SPLIT programs: the last to arrive adds the partials";
  let description = [{
    With one split the stores happen directly. Otherwise every split writes its
    partial sums to a workspace slot per lane (`lanes`: the rows of a row
    reduction, the kept columns of a column sum, or one `total`), counts itself
    in on the arrival counter of its `group` (the program id the splits share),
    and the last to arrive adds the partials in split order (a fixed tree per
    chunk), stores `views` and resets the counter. `lane` and `mask` are the
    lanes' coordinates and validity (none for a total).
  }];
  let arguments = (ins StrAttr:$lanes, Index:$group, Optional<IGPU_FragmentType>:$lane,
                       Optional<IGPU_FragmentType>:$mask, DenseI64ArrayAttr:$views);
  let assemblyFormat = [{
    $lanes `group` $group (`lane` $lane^ `:` qualified(type($lane)))? (`mask` $mask^ `:` qualified(type($mask)))?
    `views` $views attr-dict
  }];
  let hasVerifier = 1;
}

def IGPU_ReduceOp : IGPU_Op<"reduce"> {
  let summary = "the n-th kir.reduce over the resident columns at the current coordinates (a tree)";
  let arguments = (ins ConfinedAttr<I64Attr, [IntMinValue<0>]>:$reduction, IGPU_FragmentType:$mask);
  let assemblyFormat = "$reduction `mask` $mask attr-dict `:` qualified(type($mask))";
  let hasVerifier = 1;
}

def IGPU_FoldOp : IGPU_Op<"fold", [NoTerminator]> {
  let summary = "the listed kir.reduces over the columns [lo, hi) in chunks of `step`, in one pass, per their policy";
  let description = [{
    One pass over the columns folds every listed reduction: they share a
    policy, and none reads the result of another listed one (the structure
    pass groups independent reductions, so a row is read once per group). An
    accumulator per reduction, row and lane of the chunk; a tree policy reduces
    the lanes at the end (`step` a parameter), a strict fold runs one column per
    step (`step` 1), from the end with `reverse` (fold_right). A tree fold may
    hold `stores`: igpu.stores run at every chunk's coordinates (full-size
    outputs that read no reduction, written from the chunks the pass reads).
  }];
  let arguments = (ins DenseI64ArrayAttr:$reductions, IGPU_FragmentType:$rows,
                       IGPU_FragmentType:$row_mask, Index:$lo, Index:$hi,
                       AnyAttrOf<[StrAttr, I64Attr]>:$step, StrAttr:$policy, UnitAttr:$reverse);
  let regions = (region MaxSizedRegion<1>:$stores);
  let assemblyFormat = [{
    $reductions `rows` `(` $rows `mask` $row_mask `)` `from` $lo `to` $hi `step` $step `policy` $policy
    (`reverse` $reverse^)? attr-dict `:` qualified(type($rows)) `,` qualified(type($row_mask))
    (`stores` $stores^)?
  }];
  let hasVerifier = 1;
}

def IGPU_ScanOp : IGPU_Op<"scan", [NoTerminator, SingleBlock]> {
  let summary = "the listed kir.scans along the columns in segments of `step`, each carrying its prefix";
  let description = [{
    Each segment sets the coordinates (rows, the segment's columns), scans each
    listed scan in order (a later one may read an earlier one's segment),
    combines each with its carried prefix, and runs the body: the stores of the
    segment. Every listed scan runs in the same direction.
  }];
  let arguments = (ins DenseI64ArrayAttr:$scans, IGPU_FragmentType:$rows,
                       IGPU_FragmentType:$row_mask, AnyAttrOf<[StrAttr, I64Attr]>:$step);
  let regions = (region SizedRegion<1>:$region);
  let assemblyFormat = [{
    $scans `step` $step `rows` `(` $rows `mask` $row_mask `)` attr-dict-with-keyword `:`
    qualified(type($rows)) `,` qualified(type($row_mask)) $region
  }];
  let hasVerifier = 1;
}

def IGPU_InitAccOp : IGPU_Op<"init_acc"> {
  let summary = "creates the n-th kir.reduce's accumulator: a fragment of `shape` holding the identity";
  let arguments = (ins ConfinedAttr<I64Attr, [IntMinValue<0>]>:$reduction, ArrayAttr:$shape);
  let assemblyFormat = "$reduction `shape` $shape attr-dict";
  let hasVerifier = 1;
}

def IGPU_AccumulateOp : IGPU_Op<"accumulate"> {
  let summary = "combines the n-th kir.reduce's operand at the current coordinates into its accumulator";
  let description = [{
    Lane-wise, into the accumulator of `igpu.init_acc`; lanes outside `mask`
    add the identity.
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntMinValue<0>]>:$reduction, IGPU_FragmentType:$mask);
  let assemblyFormat = "$reduction `mask` $mask attr-dict `:` qualified(type($mask))";
  let hasVerifier = 1;
}

def IGPU_FinishOp : IGPU_Op<"finish"> {
  let summary = "reduces the n-th accumulator over `dims` (one after the other) into the KIR result";
  let description = [{
    `keep` keeps the reduced dimension (a column sum's [1, OWN_N]). With
    `seed`, the programs where it holds combine the reduction's initial value
    into their result (the first split).
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntMinValue<0>]>:$reduction, DenseI64ArrayAttr:$dims,
                       UnitAttr:$keep, Optional<I1>:$seed);
  let assemblyFormat = "$reduction `dims` $dims (`keep` $keep^)? (`seed` $seed^)? attr-dict";
  let hasVerifier = 1;
}

def IGPU_PersistentOp : IGPU_Op<"persistent", [NoTerminator, SingleBlock,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>]> {
  let summary = "persistent traversal: the programs of grid dimension 0 stride over [0, count)";
  let description = [{
    Program p runs the body for p, p + P, p + 2P, ... below `count`, where P is
    the number of programs (the launcher makes min(count, WORKERS) of them).
    The block argument is the index of the work item.
  }];
  let arguments = (ins Index:$count, StrAttr:$name);
  let regions = (region SizedRegion<1>:$region);
  let assemblyFormat = "`over` $count attr-dict-with-keyword $region";
  let hasRegionVerifier = 1;
}

def IGPU_SplitRangeOp : IGPU_Op<"split_range", [Pure,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "this program's share [lo, hi) of [0, count) when `split` programs divide it";
  let description = [{
    The programs along grid dimension `axis` take consecutive shares of
    ceil(count / split) items each (the last shorter or empty); with one split
    the share is [0, count). `split` is a parameter; the serializer binds
    `<name>_lo` and `<name>_hi`.
  }];
  let arguments = (ins Index:$count, StrAttr:$split, ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<2>]>:$axis,
                       StrAttr:$name);
  let results = (outs Index:$lo, Index:$hi);
  let assemblyFormat = "$count `split` $split `axis` $axis attr-dict";
}

def IGPU_ContractOp : IGPU_Op<"contract"> {
  let summary = "the kernel's kir.contract on one output tile, over the K tiles [lo, hi), into an f32 accumulator";
  let description = [{
    `rows` and `cols` are the tile's M and N coordinates (rank-1 fragments of
    BM and BN); `batch` selects the batch of a batched contraction. The
    accumulator starts at zero; each K tile of BK adds the product of the
    operands' tiles, loaded through tensor descriptors (TMA) by candidates with
    USE_TENSOR_DESCRIPTOR and by pointer with masks otherwise, in a loop
    pipelined over NUM_STAGES.
  }];
  let arguments = (ins IGPU_FragmentType:$rows, IGPU_FragmentType:$cols, Index:$lo, Index:$hi,
                       Optional<Index>:$batch);
  let assemblyFormat = [{
    `rows` $rows `cols` $cols `k` `from` $lo `to` $hi (`batch` $batch^)? attr-dict `:`
    qualified(type($rows)) `,` qualified(type($cols))
  }];
  let hasVerifier = 1;
}

def IGPU_MergeKOp : IGPU_Op<"merge_k", [NoTerminator, SingleBlock]> {
  let summary = "the last of an output tile's SPLIT_K programs adds their accumulators, then runs the epilogue";
  let description = [{
    With SPLIT_K > 1 each program writes its f32 partial to the tile's
    workspace slot, passes a block barrier and counts itself in on the arrival
    counter of `group` (acquire-release); the last to arrive adds the partials
    in split order (the sum does not depend on arrival order), resets the
    counter and runs the body; with one split the body runs directly. The body
    runs at the tile's output coordinates (`rows` x `cols`, `batch`): the
    epilogue's stores.
  }];
  let arguments = (ins Index:$group, IGPU_FragmentType:$rows, IGPU_FragmentType:$cols, Optional<Index>:$batch);
  let regions = (region SizedRegion<1>:$region);
  let assemblyFormat = [{
    `group` $group `rows` $rows `cols` $cols (`batch` $batch^)? `:` qualified(type($rows)) `,`
    qualified(type($cols)) attr-dict-with-keyword $region
  }];
  let hasVerifier = 1;
}

def IGPU_RegionContractOp : IGPU_Op<"region_contract", [NoTerminator, SingleBlock]> {
  let summary = "two kir.contracts with row-local ops between them (attention) on one output tile";
  let description = [{
    The kernel's first kir.contract gives a [rows, keys] score tile per chunk of
    the keys (RN); the row-local ops between the two contractions run on it at
    the tile's (row, key) coordinates. Each reduction over the keys takes one
    pass over every key chunk (recomputing the scores), in dependency order, so
    every reduction is the exact tree of its policy; a last pass accumulates the
    second kir.contract over the key chunks into an f32 tile of (rows x cols).
    The body runs at the tile's output coordinates (`rows` x `cols`, `batch`):
    the epilogue's stores.
  }];
  let arguments = (ins IGPU_FragmentType:$rows, IGPU_FragmentType:$cols, Optional<Index>:$batch);
  let regions = (region SizedRegion<1>:$region);
  let assemblyFormat = [{
    `rows` $rows `cols` $cols (`batch` $batch^)? `:` qualified(type($rows)) `,`
    qualified(type($cols)) attr-dict-with-keyword $region
  }];
  let hasVerifier = 1;
}

def IGPU_ForOp : IGPU_Op<"for", [NoTerminator, SingleBlock,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>]> {
  let summary = "a loop over [lo, hi) with a step (a parameter); the block argument is the start of each step";
  let arguments = (ins Index:$lo, Index:$hi, Index:$step, StrAttr:$name);
  let regions = (region SizedRegion<1>:$region);
  let assemblyFormat = "$lo `to` $hi `step` $step attr-dict-with-keyword $region";
  let hasRegionVerifier = 1;
}

def IGPU_IfOp : IGPU_Op<"if", [NoTerminator, SingleBlock]> {
  let summary = "a structural choice decided per candidate (a condition over parameters)";
  let arguments = (ins I1:$condition);
  let regions = (region SizedRegion<1>:$then_body, SizedRegion<1>:$else_body);
  let assemblyFormat = "$condition attr-dict-with-keyword $then_body `else` $else_body";
}

#endif // INTENT_IGPU_OPS
