//===- ModuleEmitter.cpp - the Triton module around the kernel -------------===//
//
// kernel.py: imports, argument checks, the @triton.jit kernel (KernelEmitter.cpp),
// CANDIDATES, the launcher's _prepare (extents, grid, descriptor eligibility,
// 32/64-bit offsets), the autotuner, and launch / bind / prepare.
//
//===----------------------------------------------------------------------===//
#include "Emitter.h"
#include "intent/Providers/Triton.h"

#include "llvm/ADT/StringExtras.h"

#include <sstream>

using namespace mlir;
using namespace intent;
using namespace intent::providers::triton;

namespace {
/// One kernel.py. The constructor reads the launch side of the kernel (access forms,
/// descriptor outputs, parameters); write() emits the body, then the module section by
/// section, in the order Python needs them.
class ModuleWriter {
public:
  ModuleWriter(kir::KernelOp kernel, const ProgramStructure &ps, const std::vector<providers::Candidate> &candidates,
               const std::string &programKey)
      : kernel(kernel), ps(ps), candidates(candidates), programKey(programKey), block(kernel.getBody().front()),
        mergeLanesName(splitMergeLanes(kernel)), splitMerge(mergeLanesName.has_value()), e(kernel, ps, body),
        name(kernel.getSymName().str()), jitName(name + "_kernel"), syms(providers::extentSymbols(kernel)),
        params(providers::launchParameterList(kernel)) {
    body.push();
    for (const auto &p : ps.parameters)
      tma |= p.symbol == "USE_TENSOR_DESCRIPTOR";
    batchedMM = ps.contraction && ps.contraction->batchAxes() > 0;
    hostDesc = tma && ps.contraction;
    deviceDesc = tma && batchedMM;
    if (igpu::ProgramOp p = programOf(kernel); p && hostDesc)
      for (const DescriptorOutput &o : descriptorOutputs(p)) {
        outDescViews.push_back(block.getArgument(o.view));
        outDescSlices[outDescViews.back()] = o.slices;
      }
  }

  bool write(std::string &source, std::string &error) {
    if (!emitBody(error))
      return false;
    collectParameters();
    writeHeader();
    collectOncePrologues();
    writeKernel();
    writeCandidates();
    if (hostDesc)
      writeDescriptors();
    writeLaunchOptions();
    writeAutotuner();
    writeHostHelpers();
    writePrepare();
    writeValidation();
    writeWorkspaces();
    writeRunValidated();
    writeBind();
    writeLaunch();
    source = os.str();
    return true;
  }

private:
  kir::KernelOp kernel;
  const ProgramStructure &ps;
  const std::vector<providers::Candidate> &candidates;
  const std::string &programKey;
  Block &block;
  // The host side follows the program: a split merge needs its workspace and counters.
  const std::optional<std::string> mergeLanesName;
  const bool splitMerge;
  Py body; ///< the @triton.jit body
  Emitter e;
  bool tma = false;
  // Descriptors come from the launcher (host): for plain GEMMs always, for batched
  // ones over the flattened batch when the launcher finds that valid (FLAT);
  // otherwise batched GEMMs build them in the kernel (device, needs Triton's allocator).
  bool batchedMM = false, hostDesc = false, deviceDesc = false;
  std::vector<Value> outDescViews;              // output views stored through descriptors, each once
  llvm::DenseMap<Value, int64_t> outDescSlices; // ... and in how many column slices
  const std::string name, jitName;
  const std::vector<std::string> syms;
  const std::string params; ///< the launch parameter list
  // Kernel parameters: views (pointer + strides), scalars, extent symbols, R, C.
  std::vector<std::string> kparams, kargs, access, keyNames;
  std::map<unsigned, size_t> kargOf;      // view argument -> position of its pointer in `args`
  std::vector<std::string> runtimeParams; // what a prologue kernel takes too
  bool cover = false, region = false;
  std::vector<std::string> constexprs;
  // PROLOGUE_ONCE: each operand prologue as its own kernel.
  struct OncePrologue {
    unsigned arg;      ///< the view's argument index
    std::string fn;    ///< its kernel
    std::string dtype; ///< torch dtype of the MMA operand
  };
  std::vector<OncePrologue> once;
  std::string onceKernels;
  std::ostringstream os;

  bool emitBody(std::string &error) {
    if (ps.kind != StructureKind::Matmul) {
      // Index arithmetic in 32 bits unless the launcher saw offsets that need 64.
      body.line("if IDX64:");
      body.line("    IDXT: tl.constexpr = tl.int64");
      body.line("else:");
      body.line("    IDXT: tl.constexpr = tl.int32");
    }
    igpu::ProgramOp program = programOf(kernel);
    if (program) {
      emitProgram(e, block, program, tma);
    } else {
      error = "the kernel has no igpu.program (run igpu-build-program first)";
      return false;
    }
    if (!e.error.empty()) {
      error = e.error;
      return false;
    }
    return true;
  }

  void collectParameters() {
    for (unsigned i = 0; i < kernel.getNumArguments(); ++i) {
      std::string n = e.names.kernelArgument(i), ln = e.names.argument(i);
      Type t = kernel.getArgumentTypes()[i];
      if (auto v = dyn_cast<kir::ViewType>(t)) {
        kargOf[i] = kargs.size();
        kparams.push_back(n);
        kargs.push_back(ln);
        for (int64_t d = 0; d < v.getRank(); ++d) {
          kparams.push_back(n + "_s" + std::to_string(d));
          kargs.push_back(ln + ".stride(" + std::to_string(d) + ")");
          keyNames.push_back(n + "_s" + std::to_string(d));
        }
        access.push_back(kir::stringifyAccess(v.getAccess()).str());
      } else {
        // f64 scalars keep their precision (Triton passes a Python float as f32 unless
        // annotated); f16/bf16 scalars are rounded to their type before the launch, so the
        // kernel sees the declared value (a Python float is passed as f32).
        kparams.push_back(n + (t.isF64() ? ": tl.float64" : ""));
        kargs.push_back(t.isF16() || t.isBF16()
                            ? "torch.tensor(float(" + ln + "), dtype=" + providers::torchDType(t) + ").item()"
                            : ln);
        access.push_back("scalar");
      }
    }
    for (const auto &s : syms) {
      kparams.push_back(e.names.symbol(s));
      kargs.push_back("_ext['" + s + "']"); // symbols are KIR identifiers
      keyNames.push_back(e.names.symbol(s));
    }
    kparams.push_back("R");
    kparams.push_back("C");
    for (const auto &hr : e.hostRecips)
      kparams.push_back(hr.first + ": tl.float64");
    for (const auto &sym : e.hostDivisors)
      kparams.push_back(e.divisorMagic(sym));
    runtimeParams = kparams;
    if (hostDesc) { // host-side tensor descriptors, None for pointer-form candidates
      kparams.push_back("a_desc");
      kparams.push_back("b_desc");
      for (Value v : outDescViews)
        kparams.push_back(e.argName(v) + "_odesc");
    }
    if (ps.kind == StructureKind::Matmul || splitMerge) {
      kparams.push_back("ws");  // split partials (matmul: None unless SPLIT_K > 1)
      kparams.push_back("sem"); // per-group arrival counters, left at zero by every launch
    }
    kargs.push_back("R");
    kargs.push_back("C");
    for (const auto &hr : e.hostRecips)
      kargs.push_back("_recip_host(" + hr.second + ")");
    for (const auto &sym : e.hostDivisors)
      kargs.push_back("_udiv_magic(_ext['" + sym + "'])");
    keyNames.push_back("R");
    keyNames.push_back("C");
    cover = ps.kind == StructureKind::RowReduction;
    for (const auto &p : ps.parameters)
      if (!p.isLaunchBound() && p.symbol != "NUM_WARPS" && p.symbol != "NUM_STAGES" && p.symbol != "NUM_CTAS")
        constexprs.push_back(p.symbol);
    region = ps.kind == StructureKind::RegionContraction;
    if (ps.kind == StructureKind::Matmul) {
      constexprs.push_back("NUM_STAGES");
      if (tma && batchedMM)
        constexprs.push_back("FLAT");
    }
    if (region)
      constexprs.insert(constexprs.end(), {"NUM_STAGES", "BD", "KC", "KONE"});
    if (cover)
      constexprs.push_back("COVER");
    if (ps.kind != StructureKind::Matmul)
      constexprs.push_back("IDX64");
    for (const auto &sym : e.alignedExtents)
      constexprs.push_back(e.extentAligned(sym));
  }

  void writeHeader() {
    os << "# Generated by intentc: Triton provider, kernel '" << name << "', family " << ps.family << ", structure "
       << structureName(ps.kind) << ".\n# Do not edit: recompile the KIR instead.\n";
    os << "import os\nimport struct\nimport torch\nimport triton\nimport triton.language as tl\n";
    os << "_INTERPRETED = tl.constexpr(os.environ.get(\"TRITON_INTERPRET\", \"0\") == \"1\")\n";
    if (hostDesc)
      os << "from triton.tools.tensor_descriptor import TensorDescriptor\n";
    os << "try:\n    from triton.language.extra.libdevice import fmod as libdevice_fmod\nexcept Exception:  # pragma: "
          "no cover\n    libdevice_fmod = None\n";
    os << "try:  # optional: winner timings and exact trial state (docs/runtime.md)\n"
          "    import intent_runtime as _rt\nexcept ImportError:\n    _rt = None\n\n";
    os << "PROGRAM_KEY = \"" << programKey << "\"\n";
    os << "FAMILY = \"" << ps.family << "\"\n\n";
    os << providers::emitArgumentChecks(kernel) << "\n";
  }

  // Before the helpers are written: a prologue kernel may add some.
  void collectOncePrologues() {
    if (ps.contraction && (ps.contraction->lhsPrologue || ps.contraction->rhsPrologue)) {
      ContractionInfo ci = *ps.contraction;
      for (auto [operand, load, tag] : {std::make_tuple(Value(ci.op.getLhs()), ci.lhsLoad, "a"),
                                        std::make_tuple(Value(ci.op.getRhs()), ci.rhsLoad, "b")}) {
        if (operand == load.getResult())
          continue;
        std::string fn = name + "_prologue_" + tag;
        onceKernels += emitPrologueKernel(kernel, ps, operand, load, fn, runtimeParams, e.numericHelpers);
        once.push_back({cast<BlockArgument>(load.getView()).getArgNumber(), fn,
                        providers::torchDType(kir::kirElementType(operand.getType()))});
      }
    }
  }

  void writeKernel() {
    for (const auto &h : e.numericHelpers)
      os << numericHelperSources().at(h) << "\n";
    for (const auto &h : e.helperFns)
      os << h << "\n";
    os << onceKernels;
    os << "@triton.jit\ndef " << name << "_kernel(" << llvm::join(kparams, ", ");
    for (const auto &c : constexprs)
      os << ", " << c << ": tl.constexpr";
    os << "):\n" << body.take() << "\n";
  }

  // Candidates: exactly the complete rows.
  void writeCandidates() {
    os << "CANDIDATES = [\n";
    for (const auto &c : candidates) {
      os << "    {";
      bool first = true;
      for (const auto &[k, v] : c) {
        os << (first ? "" : ", ") << "\"" << k << "\": " << v;
        first = false;
      }
      os << "},\n";
    }
    os << "]\n\n";
    os << "def _meta(cand):\n"
          "    return {k: v for k, v in cand.items() if k not in (\"NUM_WARPS\", \"NUM_STAGES\", \"NUM_CTAS\")"
       << (ps.kind == StructureKind::Matmul || region ? " or k == \"NUM_STAGES\"" : "") << "}\n\n";
  }

  void writeDescriptors() {
    ContractionInfo ci = *ps.contraction;
    const int nb = ci.batchAxes();
    bool batched = nb > 0;
    // Descriptor of one operand: dims (outer, inner), inner = unit stride; a batched
    // operand is flattened to [batch... * outer, inner] (valid under FLAT only).
    // Each flattened view also yields its _flat_ok condition: batch-contiguous, and
    // `outer` a multiple of the largest block along it among the candidates. An
    // operand without batch dims keeps its 2-D descriptor; one without some of
    // them has no flat form.
    std::vector<std::string> flatConds;
    auto dimOf = [&](Value view, int axis) {
      for (auto [d, c] : llvm::enumerate(ps.axes.lookup(view)))
        if (c == axis)
          return std::to_string(d);
      return std::string("-1");
    };
    auto descExpr = [&](Value view, bool transposed, int outerAx, int innerAx, const std::string &outerBlk,
                        const std::string &innerBlk, std::string &block) {
      std::string t = e.launchName(view);
      std::string o = dimOf(view, transposed ? innerAx : outerAx), i = dimOf(view, transposed ? outerAx : innerAx);
      block = transposed ? "[" + innerBlk + ", " + outerBlk + "]" : "[" + outerBlk + ", " + innerBlk + "]";
      std::string rows = t + ".shape[" + o + "]";
      std::vector<std::string> dbs;
      for (int b = 0; b < nb; ++b)
        if (std::string db = dimOf(view, b); db != "-1")
          dbs.push_back(db);
      if (!dbs.empty() && (int)dbs.size() < nb) {
        flatConds.push_back("False");
      } else if (!dbs.empty()) {
        // Each batch dim steps over everything after it: the later batches' matrices.
        std::string span = t + ".shape[" + o + "] * " + t + ".stride(" + o + ")", conds;
        for (int b = nb - 1; b >= 0; --b) {
          std::string sh = t + ".shape[" + dbs[b] + "]";
          conds = "(" + sh + " <= 1 or " + t + ".stride(" + dbs[b] + ") == " + span + ") and " + conds;
          span = sh + " * " + span;
          rows = sh + " * " + rows;
        }
        flatConds.push_back(conds + t + ".shape[" + o + "] % _MAXB[\"" + (transposed ? innerBlk : outerBlk) +
                            "\"] == 0");
      }
      return "TensorDescriptor(" + t + ", [" + rows + ", " + t + ".shape[" + i + "]], [" + t + ".stride(" + o + "), " +
             t + ".stride(" + i + ")], " + block + ")";
    };
    // Canonical axes: [batch...,] m, n, then k.
    int mAx = nb, nAx = nb + 1, kAx = nb + 2;
    std::string aBlock, bBlock, oBlock;
    std::string aDesc = descExpr(ci.lhsLoad.getView(), ci.lhsTransposed, mAx, kAx, "BM", "BK", aBlock);
    std::string bDesc = descExpr(ci.rhsLoad.getView(), ci.rhsTransposed, kAx, nAx, "BK", "BN", bBlock);
    std::string params = providers::launchParameterList(kernel);
    std::string noneOut, outDescs, outBlocks, outNames;
    for (Value v : outDescViews) {
      std::string n = e.argName(v);
      noneOut += ", \"" + n + "_odesc\": None";
      std::string cols = outDescSlices.lookup(v) == 2 ? "BN // 2" : "BN"; // one column slice per store
      outDescs += ",\n            \"" + n + "_odesc\": " + descExpr(v, false, mAx, nAx, "BM", cols, oBlock);
      outBlocks += "        nargs[\"" + n + "_odesc\"].block_shape = " + oBlock + "\n";
      outNames += ", " + e.launchName(v);
    }
    if (batched) {
      os << "_MAXB = {k: max(c.get(k, 1) for c in CANDIDATES) for k in (\"BM\", \"BN\", \"BK\")}\n\n";
      os << "def _flat_ok(" << params
         << "):\n"
            "    # One 2-D descriptor over [batch * rows, cols] per operand and output: every tensor\n"
            "    # batch-contiguous, and no candidate's tile crossing from one batch into the next.\n"
            "    return ("
         << llvm::join(flatConds, "\n            and ") << "\n            and _tma_eligible("
         << (outNames.empty() ? "" : outNames.substr(2)) << "))\n\n";
    }
    os << "def _descs(cand, " << params
       << "):\n"
          "    # Host-side tensor descriptors (TMA) of the operands and [M, N] outputs for this candidate's blocks.\n"
          "    if not cand.get(\"USE_TENSOR_DESCRIPTOR\", 0)"
       << (batched ? " or not _flat_ok(" + params + ")" : "")
       << ":\n"
          "        return {\"a_desc\": None, \"b_desc\": None"
       << noneOut
       << "}\n"
          "    BM, BN, BK = cand[\"BM\"], cand[\"BN\"], cand[\"BK\"]\n"
          "    return {\"a_desc\": "
       << aDesc << ",\n            \"b_desc\": " << bDesc << outDescs << "}\n\n";
    os << "def _set_blocks(nargs):\n"
          "    # Autotuning shares one descriptor pair: give it each config's block shape.\n"
          "    BM, BN, BK = nargs[\"BM\"], nargs[\"BN\"], nargs[\"BK\"]\n"
          "    if nargs.get(\"a_desc\") is not None:\n"
          "        nargs[\"a_desc\"].block_shape = "
       << aBlock
       << "\n"
          "        nargs[\"b_desc\"].block_shape = "
       << bBlock << "\n"
       << outBlocks << "\n";
  }

  void writeLaunchOptions() {
    os << "def _opts(cand):\n"
          "    \"\"\"A candidate's launch options (warps, stages, CTAs per cluster).\"\"\"\n"
          "    return dict(num_warps=cand[\"NUM_WARPS\"], num_stages=cand.get(\"NUM_STAGES\", 1), "
          "num_ctas=cand.get(\"NUM_CTAS\", 1))\n\n";
    os << "_GRID_CAPS = (2 ** 31 - 1, 65535, 65535)\n\n"
          "def _grid_error(g):\n"
          "    \"\"\"Why CUDA cannot launch grid g, or None.\"\"\"\n"
          "    for d, (n, cap) in enumerate(zip(g, _GRID_CAPS)):\n"
          "        if n > cap:\n"
          "            return (f\"the grid needs {n} programs along dimension {d}, more than CUDA launches ({cap}): "
          "\"\n"
          "                    \"the candidate's tiles are too small for these extents\")\n"
          "    return None\n\n"
          "def _fits(g):\n"
          "    err = _grid_error(g)\n"
          "    if err:\n"
          "        raise ValueError(err)\n"
          "    return g\n\n"
          "def _grid_failure(grid, cand, extra):\n"
          "    \"\"\"The ValueError of cand's grid on these arguments, or None where it launches.\"\"\"\n"
          "    try:\n"
          "        grid(dict(_meta(cand), **extra))\n"
          "        return None\n"
          "    except ValueError as e:\n"
          "        return e\n\n";
    os << "def _config(cand):\n"
          "    return triton.Config(_meta(cand), **_opts(cand)"
       << (hostDesc ? ", pre_hook=_set_blocks" : "") << ")\n\n";
  }

  std::string gridExpression() {
    std::string gridExpr;
    switch (ps.kind) {
    // At least one row tile and one column tile: with no rows (or no columns) an
    // output without that axis, e.g. a row vector stored next to an empty [M, 0]
    // result, still has elements to write; the masks keep the rest untouched.
    // Problem-sized counts go on dimension 0 only (igpu.program_id).
    case StructureKind::Tiles:
      gridExpr = "(max(1, triton.cdiv(R, META['OWN_M'])) * max(1, triton.cdiv(C, META['OWN_N'])),)";
      break;
    // Split grids never launch programs that would own no part of the range.
    case StructureKind::RowReduction:
      gridExpr = "(max(1, triton.cdiv(R, META['OWN_M'])), max(1, min(META['SPLIT'], triton.cdiv(C, META['RED_N']))))";
      break;
    case StructureKind::RowScan:
      gridExpr = "(max(1, triton.cdiv(R, META['OWN_M'])),)";
      break;
    case StructureKind::SplitReduction: {
      std::string split = "max(1, min(META['SPLIT'], triton.cdiv(R, META['RED_M'])))";
      gridExpr = splitKeepsCols(ps) ? "(triton.cdiv(C, META['OWN_N']), " + split + ")" : "(1, " + split + ")";
      break;
    }
    case StructureKind::RegionContraction:
      // Every (m, d) tile, at least one: row statistics stored beside an empty output still have rows.
      gridExpr = "(max(1, triton.cdiv(_ext_m, META['BM']) * max(1, triton.cdiv(_ext_d, META['BD'])))" +
                 std::string(ps.region->batch ? " * _ext_b" : "") + ",)";
      break;
    case StructureKind::Matmul: {
      // Persistent candidates launch at most WORKERS programs over the (batch, tile) work items.
      gridExpr = "(min(triton.cdiv(_ext_m, META['BM']) * triton.cdiv(_ext_n, META['BN'])" +
                 std::string(ps.contraction->batchAxes() ? " * _ext_b" : "") +
                 ", META['WORKERS'] if META['WORKERS'] > 1 else 2 ** 63), 1, META['SPLIT_K'])";
      break;
    }
    }
    return gridExpr;
  }

  void writeAutotuner() {
    std::vector<std::string> restore;
    for (unsigned i = 0; i < kernel.getNumArguments(); ++i)
      if (auto v = dyn_cast<kir::ViewType>(kernel.getArgumentTypes()[i]))
        if (v.getAccess() == kir::Access::InOut)
          restore.push_back("\"" + e.names.kernelArgument(i) + "\"");
    os << "_KEY = [" <<
        [&] {
          std::string s;
          for (auto &k : keyNames)
            s += "\"" + k + "\", ";
          return s;
        }()
       << "]\n_RESTORE = [" << llvm::join(restore, ", ") << "]\n\n";
    os << "KERNEL = triton.autotune(\n    configs=[_config(c) for c in CANDIDATES"
       << (ps.kind == StructureKind::Matmul
               ? std::string(" if c.get(\"SPLIT_K\", 1) == 1") + (once.empty() ? "" : " and not c[\"PROLOGUE_ONCE\"]") +
                     "] or [_config(CANDIDATES[0])"
               : std::string())
       << "],\n    key=_KEY,\n    restore_value=_RESTORE,\n)(" << jitName << ")\n\n";
    // Triton's autotuner remembers a winner per key, and eligibility (descriptor alignment, grid
    // limits) is not in the key: narrowing KERNEL's configs in place would let a later launch
    // reuse a winner its arguments cannot run.
    os << "_NARROWED = {}\n\n"
          "def _autotuned(cands):\n"
          "    \"\"\"KERNEL when every candidate it tunes is eligible for these arguments, else an autotuner of\n"
          "    the same key over the eligible ones (one per candidate set, each with its own winners).\"\"\"\n"
          "    if len(cands) == len(KERNEL.configs):\n"
          "        return KERNEL\n"
          "    ids = tuple(CANDIDATES.index(c) for c in cands)\n"
          "    if ids not in _NARROWED:\n"
          "        _NARROWED[ids] = triton.autotune(configs=[_config(c) for c in cands], key=_KEY,\n"
          "                                         restore_value=_RESTORE)("
       << jitName
       << ")\n"
          "    return _NARROWED[ids]\n\n";
  }

  void writeHostHelpers() {
    // Only lanes inside every extent are unmasked, so only their offsets must fit; a masked
    // lane's offset may wrap (32-bit arithmetic wraps; it is never dereferenced). A per-axis
    // tile overrun counted in, as before, made every tensor with an outer stride of 2^17 or
    // more take 64-bit divisions (docs/performance.md, stop 23).
    os << "def _needs_idx64(R, C, *args):\n"
          "    # 32-bit offsets suffice when the flat row and column indices (a tile past their extents)\n"
          "    # and every element's offset stay below 2^31.\n"
          "    if R + 65536 >= 2**31 or C + 65536 >= 2**31:\n"
          "        return True\n"
          "    for t in args:\n"
          "        if isinstance(t, torch.Tensor) and t.numel():\n"
          "            span = sum((n - 1) * abs(st) for n, st in zip(t.shape, t.stride()))\n"
          "            if span + 65536 >= 2**31:\n"
          "                return True\n"
          "    return False\n\n";
    if (!e.hostRecips.empty())
      os << "def _recip_host(n):\n"
            "    # 1 / f32(n) in f64, correctly rounded (n is an extent; 1/0 is inf): _div_by_recip's reciprocal.\n"
            "    b = struct.unpack(\"f\", struct.pack(\"f\", n))[0]\n"
            "    return 1.0 / b if b else float(\"inf\")\n\n";
    if (!e.hostDivisors.empty())
      os << "def _udiv_magic(d):\n"
            "    # _divmod's divisor for 1 <= d < 2^31: m = ceil(2^(31+l) / d) < 2^32, l = ceil(log2 d), as\n"
            "    # m | (l + 1) << 32: at least 2^32, so always passed as a 64-bit integer. Other extents take\n"
            "    # the 64-bit path, which divides.\n"
            "    if not 1 <= d < 2**31:\n"
            "        return 1 << 32\n"
            "    l = (d - 1).bit_length()\n"
            "    return ((1 << (31 + l)) + d - 1) // d | (l + 1) << 32\n\n";
    if (deviceDesc)
      os << "def _tma_alloc(size, alignment, stream):\n    return torch.empty(size, device=\"cuda\", "
            "dtype=torch.int8)\n\n";
    os << "def _tma_eligible(*tensors):\n"
          "    for t in tensors:\n"
          "        es = t.element_size()\n"
          "        if t.stride(-1) != 1 or t.data_ptr() % 16 or any((s * es) % 16 or (s == 0 and n > 1) for n, s in "
          "zip(t.shape[:-1], t.stride()[:-1])):\n"
          "            return False\n"
          "    return True\n\n";
  }

  void writePrepare() {
    std::optional<ContractionInfo> contraction = ps.contraction; // ops' accessors are non-const
    std::string aName = contraction ? e.launchName(contraction->lhsLoad.getView()) : "";
    std::string bName = contraction ? e.launchName(contraction->rhsLoad.getView()) : "";
    if (tma)
      os << "def _tma_ok(" << params << "):\n"
         << "    return torch.cuda.is_available() and " << aName << ".is_cuda and _tma_eligible(" << aName << ", "
         << bName <<
          [&] {
            std::string r;
            if (!batchedMM)
              for (Value v : outDescViews)
                r += ", " + e.launchName(v);
            return r;
          }()
         << ")\n\n";
    os << "def _prepare(" << params << "):\n";
    os << "    _ext = _check_args(" << params << ")\n";
    for (const auto &s : syms)
      os << "    " << e.names.symbol(s) << " = _ext['" << s << "']\n";
    os << "    R = " << rowsExpr(ps, e.names) << "\n    C = " << colsExpr(ps, e.names) << "\n";
    os << "    args = [" << llvm::join(kargs, ", ") << "]\n";
    os << "    extra = {}\n";
    if (ps.kind != StructureKind::Matmul)
      os << "    extra['IDX64'] = _needs_idx64(R, C, " << params << ")\n";
    if (cover)
      os << "    extra['COVER'] = triton.next_power_of_2(max(C, 1))\n";
    for (const auto &sym : e.alignedExtents)
      os << "    extra['" << e.extentAligned(sym) << "'] = _ext['" << sym << "'] % 16 == 0\n";
    if (region) {
      const int rank = ps.extents.size();
      RegionInfo ri = *ps.region;
      std::string K = viewAxisExtent(e, ri.scores.lhsLoad.getView(), ri.innerAxis(rank));
      os << "    _ext_m, _ext_d, _ext_k = " << e.dim(ps.extents[rank - 2]) << ", " << e.dim(ps.extents[rank - 1])
         << ", " << K << "\n";
      if (ri.batch)
        os << "    _ext_b = " << batchCount(e, ri.batch) << "\n";
      // Tensor-core tiles need 16 lanes; the output's columns and the scores' K are held whole up to 256 / 128.
      os << "    extra['BD'] = max(16, min(256, triton.next_power_of_2(max(_ext_d, 1))))\n";
      os << "    extra['KC'] = max(16, min(128, triton.next_power_of_2(max(_ext_k, 1))))\n";
      os << "    extra['KONE'] = _ext_k <= extra['KC']\n";
    }
    // Grids past what CUDA launches fail with a named reason before any launch (the
    // driver's "invalid argument" names none; the interpreter would run them for hours).
    std::string gridLine = "    grid = lambda META: _fits(" + gridExpression() + ")\n";
    if (ps.kind == StructureKind::Matmul) {
      auto [M, N] = matmulMN(ps, e.names);
      os << "    _ext_m, _ext_n = " << M << ", " << N << "\n";
      if (batchedMM)
        os << "    _ext_b = " << batchCount(e, ps.contraction->batchAxes()) << "\n";
      os << "    extra['ws'] = None\n    extra['sem'] = None\n";
      os << gridLine;
      // Split-K workspace: [SPLIT_K, batch, M, N] f32 on the operands' device.
      os << "    wshape = ((" << (batchedMM ? "_ext_b" : "1") << ", _ext_m, _ext_n), " << aName << ".device)\n";
    } else if (splitMerge) {
      // Split merge: one partial per merged reduction, split and lane (rows, kept columns or one).
      size_t merged = splitPartials(ps, kernel.getBody().front()).size();
      std::string lanes = mergeLanes(*mergeLanesName).width;
      os << gridLine;
      Value firstView = *llvm::find_if(kernel.getArguments(), [](Value a) { return isa<kir::ViewType>(a.getType()); });
      os << "    wshape = (" << lanes << ", " << merged << ", " << e.launchName(firstView) << ".device)\n";
    } else {
      os << "    wshape = None\n";
      os << gridLine;
    }
    if (tma)
      os << "    tma_ok = _tma_ok(" << params << ")\n";
    else
      os << "    tma_ok = False\n";
    if (tma && batchedMM) // batched outputs only need eligibility for the flattened form
      os << "    extra['FLAT'] = bool(tma_ok and _flat_ok(" << params << "))\n";
    // Nothing to do only when no output element exists: an empty reduced axis
    // still writes identities (or seeds), an empty row axis still lets a column
    // vector output be written.
    std::string outputsEmpty;
    for (unsigned i = 0; i < kernel.getNumArguments(); ++i)
      if (auto v = dyn_cast<kir::ViewType>(kernel.getArgumentTypes()[i]); v && v.getAccess() != kir::Access::In)
        outputsEmpty += (outputsEmpty.empty() ? "" : " and ") + e.launchName(kernel.getArgument(i)) + ".numel() == 0";
    std::string emptyExpr;
    switch (ps.kind) {
    case StructureKind::Tiles:
    case StructureKind::RowScan:
    case StructureKind::RowReduction:
    case StructureKind::RegionContraction:
      emptyExpr = outputsEmpty.empty() ? "True" : outputsEmpty;
      break;
    case StructureKind::SplitReduction: {
      emptyExpr = splitKeepsCols(ps) ? "C == 0" : "False";
      break;
    }
    case StructureKind::Matmul:
      emptyExpr = "_ext_m == 0 or _ext_n == 0";
      break;
    }
    os << "    empty = " << emptyExpr << "\n";
    os << "    return args, extra, grid, tma_ok, empty, wshape\n\n";
  }

  void writeValidation() {
    // Trials launch many times on the same arguments: validate them once.
    os << "_LAST = [None, None, {}]\n\n";
    // Floats by their bits: the prepared arguments carry the value, and -0.0 == 0.0 in Python.
    os << "def _args_key(launch_args):\n"
          "    return tuple((a.data_ptr(), a.dtype, tuple(a.shape), a.stride(), a.device) if isinstance(a, "
          "torch.Tensor)\n"
          "                 else (float, struct.pack(\"<d\", a)) if type(a) is float else (type(a), a) for a in "
          "launch_args)\n\n";
    os << "def _validated(launch_args):\n"
          "    \"\"\"_prepare's result for these arguments, validated once while they stay the same.\"\"\"\n"
          "    key = _args_key(launch_args)\n"
          "    if _LAST[0] != key:\n"
          "        _LAST[0], _LAST[1], _LAST[2] = key, _prepare(*launch_args), {}\n"
          "    return _LAST[1]\n\n";
    // Triton's JIT binds, specializes and looks up its cache on every launch: most of a launch's
    // host time (measured: docs/performance.md, stop 20). Launches that repeat on the same
    // arguments call the compiled kernel directly.
    os << "def _jit_once(jit, g, args, meta, opts):\n"
          "    \"\"\"Launches through Triton's JIT, then returns a launcher of the compiled kernel for these\n"
          "    same arguments, or None where there is none (the CPU interpreter; a compiled kernel whose\n"
          "    signature is not the JIT function's parameters in order).\"\"\"\n"
          "    ck = jit[g](*args, **meta, **opts)\n"
          "    if not hasattr(ck, \"run\"):\n"
          "        return None\n"
          "    names = list(jit.arg_names)\n"
          "    if list(getattr(getattr(ck, \"src\", None), \"signature\", None) or ()) != names:\n"
          "        return None\n"
          "    full = [*args, *(meta[n] for n in names[len(args):])]\n"
          "    run = ck[(*g, 1, 1)[:3]]  # the compiled kernel's launcher takes all three grid dimensions\n"
          "    return lambda: run(*full)\n\n";
  }

  void writeWorkspaces() {
    if (!once.empty()) {
      os << "def _once_alloc(" << params
         << "):\n"
            "    \"\"\"PROLOGUE_ONCE: a workspace per operand prologue, of its view's shape in the MMA operand "
            "type.\"\"\"\n"
            "    return [";
      for (auto [k, o] : llvm::enumerate(once)) {
        std::string v = e.names.argument(o.arg);
        os << (k ? ", " : "") << "torch.empty(" << v << ".shape, device=" << v << ".device, dtype=" << o.dtype << ")";
      }
      os << "]\n\n";
      os << "def _once_run(args, ws):\n"
            "    \"\"\"Runs each operand prologue once over its whole view into its workspace (the caller's "
            "stream).\"\"\"\n";
      for (auto [k, o] : llvm::enumerate(once)) {
        OperandDims d = operandDims(ps, kernel.getArgument(o.arg));
        auto extent = [](int dim) { return "w.shape[" + std::to_string(dim) + "]"; };
        os << "    w = ws[" << k << "]\n    if w.numel():\n        " << o.fn << "[(triton.cdiv(" << extent(d.rows)
           << ", 16) * triton.cdiv(" << extent(d.cols) << ", 256)"
           << (d.batch.empty() ? "" : " * " + llvm::join(llvm::map_range(d.batch, extent), " * "))
           << ",)](*args, w, *w.stride(), _PR=16, _PC=256, num_warps=4)\n";
      }
      os << "\ndef _once_swap(launch_args, args, ws):\n"
            "    \"\"\"The launch and kernel arguments with each workspace in its view's place.\"\"\"\n"
            "    la, ka = list(launch_args), list(args)\n";
      for (auto [k, o] : llvm::enumerate(once)) {
        size_t at = kargOf.at(o.arg);
        int64_t rank = cast<kir::ViewType>(kernel.getArgumentTypes()[o.arg]).getRank();
        os << "    la[" << o.arg << "] = ws[" << k << "]\n    ka[" << at << ":" << at + 1 + rank << "] = [ws[" << k
           << "], *ws[" << k << "].stride()]\n";
      }
      os << "    return tuple(la), ka\n\n";
    }
    if (ps.kind == StructureKind::Matmul)
      os << "def _workspace(cand, wshape):\n"
            "    \"\"\"Split K: the f32 partials [SPLIT_K, batch, M, N] and one zeroed arrival counter per\n"
            "    output tile (the last arriver resets it), allocated per launch on the caller's stream.\"\"\"\n"
            "    k = cand.get(\"SPLIT_K\", 1)\n"
            "    if k == 1:\n"
            "        return {}\n"
            "    (b, m, n), dev = wshape\n"
            "    tiles = b * triton.cdiv(m, cand[\"BM\"]) * triton.cdiv(n, cand[\"BN\"])\n"
            "    return dict(ws=torch.empty((k, b, m, n), device=dev, dtype=torch.float32),\n"
            "                sem=torch.zeros(tiles, device=dev, dtype=torch.int32))\n\n"
            "def _launch(grid, args, meta, cand, wshape, work=None):\n"
            "    m = dict(meta, **(_workspace(cand, wshape) if work is None else work))\n"
            "    return _jit_once("
         << jitName << ", grid(m), args, m, _opts(cand))\n\n";
    if (splitMerge)
      os << "_WORK = {}\n\n"
            "def _split_work(g, wshape):\n"
            "    \"\"\"Split merge: the partials [reductions, splits, lanes] and one arrival counter per program group.\n"
            "    Kept per device and stream and grown on demand: every launch leaves the counters at zero, so\n"
            "    reuse needs no zeroing launch, and launches on one stream never overlap.\"\"\"\n"
            "    lanes, reductions, dev = wshape\n"
            "    nws, nsem = max(1, reductions * g[1] * lanes), max(1, g[0])\n"
            "    key = (dev, torch.cuda.current_stream(dev).cuda_stream if dev.type == \"cuda\" else 0)\n"
            "    w = _WORK.get(key)\n"
            "    if w is None or w[0].numel() < nws or w[1].numel() < nsem:\n"
            "        have = (w[0].numel(), w[1].numel()) if w is not None else (0, 0)\n"
            "        w = (torch.empty(max(nws, have[0]), device=dev, dtype=torch.float32),\n"
            "             torch.zeros(max(nsem, have[1]), device=dev, dtype=torch.int32))\n"
            "        _WORK[key] = w\n"
            "    return {\"ws\": w[0], \"sem\": w[1]}\n\n";
  }

  /// The launcher's swap of the run-once prologues' workspaces for their views.
  std::string onceSwap() const {
    std::string swap = "        ws = _once_alloc(*launch_args)\n"
                       "        view_args = args\n"
                       "        launch_args, args = _once_swap(launch_args, args, ws)\n";
    if (tma)
      swap += "        tma_ok = _tma_ok(*launch_args)\n";
    if (tma && batchedMM)
      swap += "        extra = dict(extra, FLAT=bool(tma_ok and _flat_ok(*launch_args)))\n";
    return swap;
  }

  void writeRunValidated() {
    os << "def _run_candidate(cand, launch_args):\n"
          "    _run_validated(cand, launch_args, _validated(launch_args))\n\n";
    os << "def _run_validated(cand, launch_args, validated):\n";
    os << "    args, extra, grid, tma_ok, empty, wshape = validated\n";
    os << "    if empty:\n        return\n";
    // Kept while the arguments stay the same (_LAST); a split merge's workspace is per stream.
    os << "    fk = (\"fast\", "
       << (splitMerge ? "torch.cuda.current_stream(wshape[2]).cuda_stream if wshape[2].type == \"cuda\" else 0"
                      : "None")
       << ", *cand.items())\n"
          "    fast = _LAST[2].get(fk)\n"
          "    if fast is not None:\n";
    if (deviceDesc)
      os << "        triton.set_allocator(_tma_alloc)\n";
    os << "        fast()\n        return\n";
    // PROLOGUE_ONCE: the contraction reads workspaces, written first (per launch: the views may change).
    if (!once.empty())
      os << "    once = cand.get(\"PROLOGUE_ONCE\", 0)\n    if once:\n" << onceSwap();
    os << "    if cand.get(\"USE_TENSOR_DESCRIPTOR\", 0) and not tma_ok:\n"
          "        raise ValueError(\"candidate needs tensor descriptors but the arguments are not 16-byte aligned "
          "with unit last stride\")\n";
    os << "    meta = _meta(cand)\n    meta.update(extra)\n";
    if (splitMerge)
      os << "    meta.update(_split_work(grid(meta), wshape))\n";
    if (deviceDesc)
      os << "    triton.set_allocator(_tma_alloc)\n";
    if (hostDesc) {
      // Descriptors of the caller's tensors are kept per block shape; workspaces are new each launch.
      std::string in = once.empty() ? "    " : "        ";
      if (!once.empty())
        os << "    if once:\n        meta.update(_descs(cand, *launch_args))\n    else:\n";
      os << in << "blocks = tuple(cand.get(k, 0) for k in (\"USE_TENSOR_DESCRIPTOR\", \"BM\", \"BN\", \"BK\"))\n"
         << in << "if blocks not in _LAST[2]:\n"
         << in << "    _LAST[2][blocks] = _descs(cand, *launch_args)\n"
         << in << "meta.update(_LAST[2][blocks])\n";
    }
    if (!once.empty())
      os << "    if once:\n        _once_run(view_args, ws)\n";
    if (ps.kind == StructureKind::Matmul)
      // Split K and run-once prologues allocate workspaces per launch: not kept.
      os << "    fast = _launch(grid, args, meta, cand, wshape)\n"
            "    if fast is not None and cand.get(\"SPLIT_K\", 1) == 1"
         << (once.empty() ? "" : " and not once")
         << ":\n"
            "        _LAST[2][fk] = fast\n\n";
    else
      os << "    fast = _jit_once(" << jitName
         << ", grid(meta), args, meta, _opts(cand))\n"
            "    if fast is not None:\n"
            "        _LAST[2][fk] = fast\n\n";
  }

  void writeBind() {
    // A pre-validated launcher of one candidate: kernel-only timing and graph capture.
    os << "def bind(cand, *launch_args):\n";
    os << "    \"\"\"Validates once and returns a zero-argument callable that launches `cand` on these "
          "tensors.\"\"\"\n";
    os << "    args, extra, grid, tma_ok, empty, wshape = _prepare(*launch_args)\n";
    if (!once.empty())
      os << "    once = cand.get(\"PROLOGUE_ONCE\", 0)\n    if once:  # the workspaces are reused by every run\n"
         << onceSwap();
    os << "    meta = _meta(cand)\n    meta.update(extra)\n    g = grid(meta)\n";

    if (hostDesc)
      os << "    meta.update(_descs(cand, *launch_args))\n";
    if (deviceDesc)
      os << "    triton.set_allocator(_tma_alloc)\n";
    if (ps.kind == StructureKind::Matmul)
      os << "    work = _workspace(cand, wshape)  # reused: each run leaves the counters at zero\n";
    if (splitMerge)
      os << "    meta.update(_split_work(g, wshape))  # reused: each run leaves the counters at zero\n";
    os << "    fast = []  # the compiled kernel's launcher, after the first run\n";
    os << "    def run():\n";
    os << "        if empty:\n            return\n";
    if (!once.empty())
      os << "        if once:\n            _once_run(view_args, ws)\n";
    os << "        if fast:\n            fast[0]()\n            return\n";
    if (ps.kind == StructureKind::Matmul)
      os << "        f = _launch(grid, args, meta, cand, wshape, work)\n";
    else
      os << "        f = _jit_once(" << jitName << ", g, args, meta, _opts(cand))\n";
    os << "        if f is not None:\n            fast.append(f)\n";
    os << "    return run\n\n";
  }

  void writeLaunch() {
    os << "_ACCESS = [" << [&] {
      std::string s;
      for (auto &a : access)
        s += "\"" + a + "\", ";
      return s;
    }() << "]\n";
    os << "_TUNED = None\n";
    os << "_WIN = [None, None, None]  # the argument key of the last launch(), its tuner and its winner\n\n";
    os << "def _tuned():\n"
          "    global _TUNED\n"
          "    if _TUNED is None:\n"
          "        _TUNED = _rt.TunedKernel(\""
       << name
       << "\", PROGRAM_KEY, CANDIDATES, _run_candidate, access=_ACCESS)\n"
          "    return _TUNED\n\n";
    os << "def _use_runtime():\n"
          "    return _rt is not None and os.environ.get(\"INTENT_RUNTIME\", \"1\") != \"0\"\n\n";
    // The launch arguments as one Python tuple (a 1-tuple needs its comma).
    std::string argTuple = "(" + params + (kernel.getNumArguments() == 1 ? ",)" : ")");
    os << "def launch(" << params << "):\n";
    os << "    \"\"\"Runs the kernel on the caller's tensors (outputs included), tuning on first use.\"\"\"\n";
    // Argument errors surface as themselves, not as "every tuning candidate failed".
    // (validated once per set of arguments, as the trials do: not on every launch).
    // A launch on the previous launch's arguments reuses its winner: one argument key per call.
    // (Locals start with '_': no argument's Python name does.)
    os << "    if _use_runtime():\n"
          "        _call = "
       << argTuple
       << "\n"
          "        _checked = _validated(_call)\n"
          "        _t = _tuned()\n"
          "        if _WIN[0] != _LAST[0] or _WIN[1] is not _t:\n"
          "            _key = _LAST[0]\n"
          "            _WIN[:] = [None, _t, _t.prepare(*_call)]  # trials may validate other arguments\n"
          "            _checked = _validated(_call)\n"
          "            _WIN[0] = _key\n"
          "        _run_validated(_WIN[2], _call, _checked)\n"
          "        return\n";
    // Validated, and the eligible candidates found (every candidate's grid evaluated: ~100 us of
    // Python), once while the arguments stay the same; `extra` is copied, the launch adds to it.
    os << "    args, extra, grid, tma_ok, empty, wshape = _validated(" << argTuple << ")\n";
    os << "    if empty:\n        return\n";
    os << "    extra = dict(extra)\n";
    os << "    cands = _LAST[2].get(\"eligible\")\n"
          "    if cands is None:\n"
          "        cands = [c for c in CANDIDATES if tma_ok or not c.get(\"USE_TENSOR_DESCRIPTOR\", 0)]\n"
          "        failures = [_grid_failure(grid, c, extra) for c in cands]\n"
          "        if cands and all(failures):\n"
          "            raise failures[0]\n"
          "        cands = _LAST[2][\"eligible\"] = [c for c, f in zip(cands, failures) if f is None]\n";
    if (ps.kind == StructureKind::Matmul)
      os << "    # Split-K" << (once.empty() ? "" : " and prologue-once")
         << " candidates need a workspace per configuration: Triton's autotuner cannot run them.\n"
            "    whole = [c for c in cands if c.get(\"SPLIT_K\", 1) == 1"
         << (once.empty() ? "" : " and not c[\"PROLOGUE_ONCE\"]")
         << "]\n"
            "    if cands and not whole:\n"
            "        _run_candidate(cands[0], "
         << argTuple
         << ")\n"
            "        return\n"
            "    cands = whole\n";
    os << "    if not cands:\n        raise ValueError(\"no declared candidate can run on these arguments (tensor "
          "descriptors need 16-byte alignment)\")\n";
    if (deviceDesc)
      os << "    triton.set_allocator(_tma_alloc)\n";
    if (hostDesc)
      os << "    extra.update(_descs({\"USE_TENSOR_DESCRIPTOR\": int(tma_ok), \"BM\": 16, \"BN\": 16, \"BK\": 16}, "
         << params << "))\n";
    os << "    if len(cands) == 1 and len(cands) != len(CANDIDATES):  # nothing left to tune\n"
          "        _run_candidate(cands[0], "
       << argTuple
       << ")\n"
          "        return\n";
    // Room for the widest split among the candidates, found once per arguments like the eligible
    // ones: evaluated on every launch, the grids outlasted a 70 us kernel (do_bench read 1/3 of it).
    if (splitMerge)
      os << "    widest = _LAST[2].get(\"widest\")\n"
            "    if widest is None:\n"
            "        gs = [grid(dict(_meta(c), **extra)) for c in cands]\n"
            "        widest = _LAST[2][\"widest\"] = (max(g[0] for g in gs), max(g[1] for g in gs))\n"
            "    extra.update(_split_work(widest, wshape))\n";
    os << "    _autotuned(cands)[grid](*args, **extra)\n\n";
    os << "def prepare(" << params
       << "):\n"
          "    \"\"\"Resolves (tuning if needed) the winner for these shapes without launching.\"\"\"\n"
          "    if _use_runtime():\n        _validated("
       << argTuple << ")\n        return _tuned().prepare(" << params
       << ")\n"
          "    return None\n";
  }
};
} // namespace

bool providers::emitTritonPython(kir::KernelOp kernel, const ProgramStructure &ps,
                                 const std::vector<providers::Candidate> &candidates, const std::string &programKey,
                                 std::string &source, std::string &error) {
  return ModuleWriter(kernel, ps, candidates, programKey).write(source, error);
}
