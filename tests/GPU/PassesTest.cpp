// The shared pass pipeline (include/intent/GPU/Passes.td) run pass by pass on a
// parsed example: what each pass writes into the kernel, and how a pass run out
// of order or without the compile's provider context fails.
#include "intent/GPU/Passes.h"
#include "intent/GPU/Program.h"
#include "intent/GPU/Structure.h"
#include "intent/Providers/Triton.h"
#include "intent/KIR/Parse.h"
#include "intent/Tuning/ProfileTable.h"
#include "intent/Tuning/Targets.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/SourceMgr.h"

#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

using namespace mlir;
using namespace intent;

namespace {
struct Fixture {
  MLIRContext ctx{MLIRContext::Threading::DISABLED};
  std::vector<std::string> diags;
  OwningOpRef<ModuleOp> module;
  gpu::ProviderContext provider;
  gpu::PipelineState state;

  explicit Fixture(const char *example) : Fixture(example, nullptr) {}
  /// `source` (when given) is the KIR text itself, `example` then only its name.
  Fixture(const char *example, const char *source) {
    DialectRegistry registry;
    kir::registerKIRDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
    ctx.getDiagEngine().registerHandler([this](Diagnostic &d) {
      diags.push_back(d.str());
      return success();
    });
    llvm::SourceMgr sm;
    std::string path = std::string(INTENT_SOURCE_DIR) + "/examples/" + example;
    if (source)
      sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBuffer(source, example), llvm::SMLoc());
    else
      REQUIRE(sm.AddIncludeFile(path, llvm::SMLoc(), path) != 0);
    module = kir::parseKIR(sm, ctx);
    REQUIRE(module);
    std::string configs = std::string(INTENT_SOURCE_DIR) + "/configs/";
    auto targets = tuning::loadTargets(configs + "targets.json");
    REQUIRE(targets);
    auto table = tuning::loadProfileTable(configs + "triton.json", tuning::Provider::Triton);
    REQUIRE(table);
    provider.provider = tuning::Provider::Triton;
    provider.caps = targets->at("sm_90");
    provider.table = tuning::applyOverride(*table, nullptr, tuning::Provider::Triton);
    state.ctx = &provider;
  }
  kir::KernelOp kernel() { return *module->getOps<kir::KernelOp>().begin(); }
  LogicalResult run(std::vector<std::unique_ptr<Pass>> passes) {
    PassManager pm(&ctx, kir::KernelOp::getOperationName());
    for (auto &p : passes)
      pm.addPass(std::move(p));
    return pm.run(kernel());
  }
  /// Selects the structure and projects the profile rows (no filtering yet).
  void project() {
    std::vector<std::unique_ptr<Pass>> passes;
    passes.push_back(gpu::createSelectStructurePass(state));
    passes.push_back(gpu::createProjectProfilesPass(state));
    REQUIRE(succeeded(run(std::move(passes))));
  }
  /// Runs the pipeline up to a complete candidate set, igpu-build-program included.
  igpu::ProgramOp buildProgram() {
    std::vector<std::unique_ptr<Pass>> passes;
    passes.push_back(gpu::createSelectStructurePass(state));
    passes.push_back(gpu::createBuildProgramPass(state));
    passes.push_back(gpu::createProjectProfilesPass(state));
    passes.push_back(gpu::createFilterTritonCandidatesPass(state));
    REQUIRE(succeeded(run(std::move(passes))));
    return gpu::programOf(kernel());
  }
  /// The Triton source of the kernel as it is now, or the serializer's error.
  std::string emitTriton(std::string &src) {
    std::string error;
    bool ok = providers::emitTritonPython(kernel(), *state.structure, state.candidates, "key", src, error);
    return ok ? std::string() : error;
  }
  std::string attr(StringRef name) {
    std::string s;
    llvm::raw_string_ostream os(s);
    if (Attribute a = kernel()->getAttr(name))
      a.print(os);
    return s;
  }
};
} // namespace

TEST_CASE("igpu-select-structure writes the structure, family, facts and parameters") {
  Fixture f("softmax.kir");
  std::vector<std::unique_ptr<Pass>> passes;
  passes.push_back(gpu::createSelectStructurePass(f.state));
  REQUIRE(succeeded(f.run(std::move(passes))));
  CHECK(f.attr("igpu.structure") == "\"row_reduction\"");
  CHECK(f.attr("igpu.family") == "\"region_reduction\"");
  CHECK(f.attr("igpu.facts").find("broadcast back into its own source region") != std::string::npos);
  CHECK(f.attr("igpu.parameters").find("#igpu.parameter<\"COVER\", role = \"coverage\"") != std::string::npos);
  CHECK(f.attr("igpu.configurations").empty());
  REQUIRE(f.state.structure);
  // OWN_M, RED_N, SPLIT, COVER, NUM_WARPS, and DIV_FORM for the division by the row's sum
  CHECK(f.state.structure->parameters.size() == 6);
  CHECK(f.attr("igpu.parameters").find("#igpu.parameter<\"DIV_FORM\", role = \"division_form\"") != std::string::npos);
}

TEST_CASE("every row is projected once with each division form") {
  Fixture f("softmax.kir");
  f.project();
  size_t rows = f.provider.table.rows("region_reduction").size();
  REQUIRE(f.state.rows.size() == 2 * rows);
  for (size_t i = 0; i < rows; ++i) {
    CHECK(f.state.rows[2 * i].bound.at("DIV_FORM") == 0);
    CHECK(f.state.rows[2 * i + 1].bound.at("DIV_FORM") == 1);
    auto a = f.state.rows[2 * i].bound, b = f.state.rows[2 * i + 1].bound;
    a.erase("DIV_FORM");
    b.erase("DIV_FORM");
    CHECK(a == b);
  }
}

TEST_CASE("the pipeline projects, then filters into a complete configuration set") {
  Fixture f("gemm_f16.kir");
  f.project();
  CHECK(f.attr("igpu.configurations").rfind("#igpu.configurations<\"shared\"", 0) == 0);
  size_t rows = f.provider.table.rows("contraction_narrow").size();
  CHECK(f.state.rows.size() == rows);

  std::vector<std::unique_ptr<Pass>> filter;
  filter.push_back(gpu::createFilterTritonCandidatesPass(f.state));
  REQUIRE(succeeded(f.run(std::move(filter))));
  CHECK(f.attr("igpu.configurations").rfind("#igpu.configurations<\"complete\"", 0) == 0);
  CHECK(!f.state.candidates.empty());
  CHECK(f.state.candidates.size() <= rows);
  // Every complete row is one printed array.
  std::string set = f.attr("igpu.configurations");
  size_t arrays = 0;
  for (size_t at = set.find("array<i64"); at != std::string::npos; at = set.find("array<i64", at + 1))
    ++arrays;
  CHECK(arrays == f.state.candidates.size());
}

TEST_CASE("a pass run before the structure is chosen names the pass it needs") {
  Fixture f("add.kir");
  std::vector<std::unique_ptr<Pass>> passes;
  passes.push_back(gpu::createProjectProfilesPass(f.state));
  CHECK(failed(f.run(std::move(passes))));
  REQUIRE(!f.diags.empty());
  CHECK(f.diags[0] == "igpu-project-profiles needs 'igpu.parameters' (run igpu-select-structure first)");
}

TEST_CASE("a pass without the compile's provider context fails with a diagnostic") {
  Fixture f("add.kir");
  std::vector<std::unique_ptr<Pass>> passes;
  passes.push_back(gpu::createSelectStructure()); // the generated, context-free constructor
  CHECK(failed(f.run(std::move(passes))));
  REQUIRE(!f.diags.empty());
  CHECK(f.diags[0] == "igpu-select-structure runs inside the compile pipeline (it needs the provider context)");
}

TEST_CASE("igpu-build-program writes the program the Triton serializer emits") {
  Fixture f("softmax.kir");
  igpu::ProgramOp program = f.buildProgram();
  REQUIRE(program);
  CHECK(program.getStructure() == "row_reduction");
  CHECK(&f.kernel().getBody().front().back() == program->getNextNode()); // last, before the terminator
  auto emit = [&](std::string &src) { return f.emitTriton(src); };
  std::string before;
  REQUIRE(emit(before).empty());
  CHECK(before.find("rows = (pid * OWN_M + tl.arange(0, OWN_M)).to(IDXT)[:, None]") != std::string::npos);
  CHECK(before.find("for c0 in range(0 + RED_N, C, RED_N):") != std::string::npos);

  // Edit the program: the source follows it, not the structure analysis.
  program.walk([](igpu::RangeOp r) {
    if (r.getName() && *r.getName() == "rows")
      r.setNameAttr(StringAttr::get(r.getContext(), "row_ids"));
  });
  program.walk([](igpu::FoldOp fold) { fold.setStepAttr(StringAttr::get(fold.getContext(), "OWN_M")); });
  REQUIRE(succeeded(mlir::verify(program)));
  std::string after;
  REQUIRE(emit(after).empty());
  CHECK(after.find("row_ids = (pid * OWN_M + tl.arange(0, OWN_M)).to(IDXT)[:, None]") != std::string::npos);
  CHECK(after.find("rmask = row_ids < R") != std::string::npos);
  CHECK(after.find("for c0 in range(0 + OWN_M, C, OWN_M):") != std::string::npos);
  CHECK(after.find("RED_N, C, RED_N)") == std::string::npos);

  program->erase();
  std::string none;
  CHECK(emit(none) == "the kernel has no igpu.program (run igpu-build-program first)");
}

TEST_CASE("a split merge counts arrivals on the group the program names") {
  Fixture f("row_sum.kir");
  igpu::ProgramOp program = f.buildProgram();
  REQUIRE(program);
  auto emit = [&] {
    std::string src;
    REQUIRE(f.emitTriton(src).empty());
    return src;
  };
  CHECK(emit().find("tl.atomic_add(sem + pid, 1") != std::string::npos);
  program.walk([](igpu::ProgramIdOp p) {
    if (p.getName() && *p.getName() == "pid")
      p.setNameAttr(StringAttr::get(p.getContext(), "row_block"));
  });
  std::string src = emit();
  CHECK(src.find("row_block = tl.program_id(0)") != std::string::npos);
  CHECK(src.find("tl.atomic_add(sem + row_block, 1") != std::string::npos);
  CHECK(src.find("tl.atomic_xchg(sem + row_block, 0)") != std::string::npos);
}

TEST_CASE("a contraction's traversal, tile placement, K share and descriptor stores come from its igpu.program") {
  Fixture f("gemm_f16.kir");
  igpu::ProgramOp program = f.buildProgram();
  REQUIRE(program);
  CHECK(program.getStructure() == "matmul");
  auto emit = [&] {
    std::string src;
    REQUIRE(f.emitTriton(src).empty());
    return src;
  };
  std::string before = emit();
  CHECK(before.find("for pid in tl.range(tl.program_id(0), num_tiles, tl.num_programs(0)):") != std::string::npos);
  CHECK(before.find("first_m = (pid // group) * GROUP_M") != std::string::npos);
  CHECK(before.find("pid_n = (pid % group) // gsize") != std::string::npos);
  CHECK(before.find("k_per = tl.cdiv(tl.cdiv(K, BK), SPLIT_K)") != std::string::npos);
  CHECK(before.find("for k in tl.range(k_lo, k_hi, num_stages=NUM_STAGES):") != std::string::npos);
  CHECK(before.find("a_desc.load([pid_m * BM, k * BK])") != std::string::npos);
  CHECK(before.find("c_odesc.store([pid_m * BM, pid_n * BN]") != std::string::npos);

  // Rename the traversal's work item, the tile row and the K share; store the output by pointer.
  program.walk([](igpu::PersistentOp p) { p.setName("work"); });
  program.walk([](Operation *op) {
    auto name = op->getAttrOfType<StringAttr>(igpu::variableNameAttr(op));
    if (name && name.getValue() == "pid_m")
      op->setAttr(igpu::variableNameAttr(op), StringAttr::get(op->getContext(), "tile_m"));
  });
  program.walk([](igpu::SplitRangeOp k) { k.setName("ks"); });
  program.walk([](igpu::StoreOp st) { st.setDescriptor(false); });
  REQUIRE(succeeded(mlir::verify(program)));
  std::string after = emit();
  CHECK(after.find("for work in tl.range(tl.program_id(0), num_tiles, tl.num_programs(0)):") != std::string::npos);
  CHECK(after.find("first_m = (work // group) * GROUP_M") != std::string::npos);
  CHECK(after.find("a_desc.load([tile_m * BM, k * BK])") != std::string::npos);
  CHECK(after.find("ks_per = tl.cdiv(tl.cdiv(K, BK), SPLIT_K)") != std::string::npos);
  CHECK(after.find("for k in tl.range(ks_lo, ks_hi, num_stages=NUM_STAGES):") != std::string::npos);
  CHECK(after.find("c_odesc") == std::string::npos); // neither the store nor the kernel parameter
}

TEST_CASE("a program op the serializer has no form for is an error, not a crash") {
  Fixture f("softmax.kir");
  igpu::ProgramOp program = f.buildProgram();
  REQUIRE(program);
  program.walk([](igpu::RangeOp r) {
    if (r.getName() && *r.getName() == "rows") {
      OpBuilder b(r);
      r.getStartMutable().assign(b.create<arith::XOrIOp>(r.getLoc(), r.getStart(), r.getStart()));
    }
  });
  REQUIRE(succeeded(mlir::verify(program)));
  std::string src;
  CHECK(f.emitTriton(src) == "the Triton serializer has no form for 'arith.xori'");
}

TEST_CASE("program invariants: scalars of arguments, extents and constants, never an integer division") {
  Fixture f("invariants.kir", R"(
module {
  kir.kernel @k(%x: !kir.view<f32, [M, N], in>, %a: i32, %b: i32, %s: f32, %y: !kir.view<f32, [M, N], out>) {
    %v = kir.load %x : !kir.view<f32, [M, N], in>
    %n = kir.extent %x[1] : !kir.view<f32, [M, N], in>
    %nf = kir.cast %n : index to f32
    %q = kir.div %a, %b : i32, i32
    %qf = kir.cast %q : i32 to f32
    %t = kir.mul %s, %nf : f32, f32
    %u = arith.addf %t, %s : f32
    %m = kir.mul %v, %u : !kir.tensor<f32, [M, N]>, f32
    %r = kir.add %m, %qf : !kir.tensor<f32, [M, N]>, f32
    kir.store %r, %y : !kir.view<f32, [M, N], out>
  }
})");
  llvm::DenseSet<Value> inv = gpu::programInvariants(f.kernel());
  std::map<std::string, bool> got;
  for (Operation &op : f.kernel().getBody().front())
    if (op.getNumResults() == 1)
      got[op.getName().getStringRef().str() + "#" + std::to_string(got.size())] = inv.contains(op.getResult(0));
  std::map<std::string, bool> want = {{"kir.load#0", false}, {"kir.extent#1", true}, {"kir.cast#2", true},
                                      {"kir.div#3", false},  {"kir.cast#4", false},  {"kir.mul#5", true},
                                      {"arith.addf#6", true}, {"kir.mul#7", false},  {"kir.add#8", false}};
  CHECK(got == want);
  Block &body = f.kernel().getBody().front();
  CHECK(inv.contains(body.getArgument(1)));
  CHECK(!inv.contains(body.getArgument(0)));
}

/// The body of the Triton kernel `name` in `src` (its def line up to the candidate table).
static std::string kernelBody(const std::string &src, const std::string &name) {
  size_t at = src.find("def " + name + "(");
  REQUIRE(at != std::string::npos);
  return src.substr(at, src.find("\nCANDIDATES", at) - at);
}

TEST_CASE("an extent divisor's reciprocal comes from the launcher, correctly rounded, as an f64 parameter") {
  Fixture f("layernorm.kir");
  f.buildProgram();
  std::string src;
  REQUIRE(f.emitTriton(src).empty());
  std::string body = kernelBody(src, "layernorm_kernel");
  CHECK(body.find("R, C, _rcp0: tl.float64, OWN_M: tl.constexpr") != std::string::npos);
  CHECK(body.find("_recip_f64(") == std::string::npos); // no Newton steps in any program
  CHECK(body.find("tl.zeros([], tl.int64) + N") == std::string::npos); // nor the divisor itself
  CHECK(body.find("_div_by_recip(") != std::string::npos);
  CHECK(body.find("_div_by_recip(", body.find("_div_by_recip(") + 1) != std::string::npos); // mean and variance
  CHECK(src.find("R, C, _recip_host(_ext['N'])]") != std::string::npos);
  CHECK(src.find("def _recip_host(n):") != std::string::npos);
}

TEST_CASE("an invariant divisor the launcher does not know is inverted once, before anything else the program computes") {
  Fixture f("scale.kir", R"(
module {
  kir.kernel @scale(%x: !kir.view<f32, [M, N], in>, %s: f32, %y: !kir.view<f32, [M, N], out>) {
    %v = kir.load %x : !kir.view<f32, [M, N], in>
    %t = kir.mul %s, %s : f32, f32
    %q = kir.div %v, %t : !kir.tensor<f32, [M, N]>, f32
    kir.store %q, %y : !kir.view<f32, [M, N], out>
  }
})");
  f.buildProgram();
  std::string src;
  REQUIRE(f.emitTriton(src).empty());
  std::string body = kernelBody(src, "scale_kernel");
  // (`s` names something else in the Triton kernel: the argument is s_)
  size_t square = body.find(" = s_ * s_\n"), recip = body.find(" = _recip_f64(");
  REQUIRE(square != std::string::npos);
  REQUIRE(recip != std::string::npos);
  CHECK(square < recip);
  CHECK(recip < body.find("tl.program_id(0)"));
  CHECK(body.find(" = _recip_f64(", recip + 1) == std::string::npos);
  CHECK(body.find("_rcp0") == std::string::npos);
}
