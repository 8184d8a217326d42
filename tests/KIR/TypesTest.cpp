//===- TypesTest.cpp - !kir.view / !kir.tensor parameters and syntax ------===//
#include "intent/KIR/KIR.h"
#include "intent/KIR/Parse.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/SourceMgr.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace mlir;
using namespace intent::kir;
using KTensor = intent::kir::TensorType;

namespace {
/// A context with the KIR dialects loaded that records diagnostics instead of printing them.
struct Fixture {
  MLIRContext ctx;
  std::vector<std::string> diags;
  Fixture() {
    DialectRegistry registry;
    registerKIRDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
    ctx.getDiagEngine().registerHandler([this](Diagnostic &d) {
      diags.push_back(d.str());
      return success();
    });
  }
  Attribute sym(StringRef s) { return StringAttr::get(&ctx, s); }
  Attribute fixed(int64_t v) { return IntegerAttr::get(IntegerType::get(&ctx, 64), v); }
  Type f32() { return Float32Type::get(&ctx); }
  Type parse(StringRef text) { return parseType(text, &ctx); }
  std::string print(Type t) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << t;
    return s;
  }
  InFlightDiagnostic err() { return emitError(UnknownLoc::get(&ctx)); }
};
} // namespace

TEST_CASE("view type: get, print and parse round trip") {
  Fixture f;
  auto v = ViewType::get(&f.ctx, f.f32(), {f.sym("M"), f.sym("N")}, Access::In, false);
  CHECK(f.print(v) == "!kir.view<f32, [M, N], in>");
  CHECK(f.parse("!kir.view<f32, [M, N], in>") == v);
  CHECK(v.getRank() == 2);
  CHECK(v.isReadable());
  CHECK_FALSE(v.isWritable());

  auto c = ViewType::get(&f.ctx, Float16Type::get(&f.ctx), {f.fixed(4), f.sym("N")}, Access::InOut,
                         true);
  CHECK(f.print(c) == "!kir.view<f16, [4, N], inout, contiguous>");
  CHECK(f.parse(f.print(c)) == c);
  CHECK(c.getContiguous());
  CHECK(c != f.parse("!kir.view<f16, [4, N], inout>"));
}

TEST_CASE("view type: access modes") {
  Fixture f;
  struct Case { const char *text; Access access; bool readable, writable; };
  for (Case c : {Case{"in", Access::In, true, false}, Case{"out", Access::Out, false, true},
                 Case{"inout", Access::InOut, true, true}}) {
    CAPTURE(c.text);
    auto v = dyn_cast_or_null<ViewType>(
        f.parse(std::string("!kir.view<f32, [N], ") + c.text + ">"));
    REQUIRE(v);
    CHECK(v.getAccess() == c.access);
    CHECK(v.isReadable() == c.readable);
    CHECK(v.isWritable() == c.writable);
    CHECK(stringifyAccess(c.access) == c.text);
  }
  CHECK_FALSE(f.parse("!kir.view<f32, [N], readwrite>"));
  REQUIRE_FALSE(f.diags.empty());
  CHECK(f.diags.back() == "expected view access 'in', 'out' or 'inout', got 'readwrite'");
}

TEST_CASE("tensor type: get, print and parse round trip") {
  Fixture f;
  auto t = KTensor::get(&f.ctx, f.f32(), {f.sym("M"), f.fixed(128)});
  CHECK(f.print(t) == "!kir.tensor<f32, [M, 128]>");
  CHECK(f.parse("!kir.tensor<f32, [M, 128]>") == t);
  CHECK(t.withElementType(IntegerType::get(&f.ctx, 1)) == f.parse("!kir.tensor<i1, [M, 128]>"));
  for (const char *text : {"!kir.tensor<bf16, [B, H, M, D]>", "!kir.tensor<index, [8]>",
                           "!kir.tensor<i64, [N]>", "!kir.tensor<f8E4M3FN, [N]>",
                           "!kir.tensor<f8E5M2, [N]>", "!kir.tensor<f64, []>"}) {
    CAPTURE(text);
    Type parsed = f.parse(text);
    REQUIRE(parsed);
    CHECK(f.print(parsed) == text);
  }
}

TEST_CASE("dims: symbolic versus static") {
  Fixture f;
  auto t = cast<KTensor>(f.parse("!kir.tensor<f32, [N, 4, N]>"));
  ArrayRef<Attribute> shape = t.getShape();
  REQUIRE(shape.size() == 3);
  CHECK_FALSE(isStaticDim(shape[0]));
  CHECK(symbolicDimName(shape[0]) == "N");
  CHECK(isStaticDim(shape[1]));
  CHECK(staticDimValue(shape[1]) == 4);
  // The same symbol twice is the same (uniqued) attribute; a static extent never equals a symbol.
  CHECK(shape[0] == shape[2]);
  CHECK(shape[0] != shape[1]);
  CHECK(f.parse("!kir.tensor<f32, [N]>") != f.parse("!kir.tensor<f32, [4]>"));
  CHECK(dimToString(shape[1]) == "4");
  CHECK(shapeToString(shape) == "[N, 4, N]");
  // A symbol named like a keyword or with underscores and digits is still a symbol.
  auto s = cast<KTensor>(f.parse("!kir.tensor<f32, [in, seq_len2]>"));
  CHECK(symbolicDimName(s.getShape()[0]) == "in");
  CHECK(symbolicDimName(s.getShape()[1]) == "seq_len2");
}

TEST_CASE("rank 0") {
  Fixture f;
  auto t = KTensor::get(&f.ctx, f.f32(), {});
  CHECK(t.getRank() == 0);
  CHECK(f.print(t) == "!kir.tensor<f32, []>");
  CHECK(f.parse("!kir.tensor<f32, []>") == t);
  auto v = ViewType::get(&f.ctx, f.f32(), {}, Access::Out, false);
  CHECK(f.print(v) == "!kir.view<f32, [], out>");
  CHECK(f.parse("!kir.view<f32, [], out>") == v);
  CHECK(shapeToString({}) == "[]");
  // A rank-0 view has no last axis to be contiguous along.
  CHECK_FALSE(ViewType::getChecked([&] { return f.err(); }, &f.ctx, f.f32(),
                                   ArrayRef<Attribute>{}, Access::In, true));
  CHECK(f.diags.back() == "a rank-0 view cannot be 'contiguous'");
  CHECK_FALSE(f.parse("!kir.view<f32, [], in, contiguous>"));
}

TEST_CASE("getChecked rejects invalid element types and extents") {
  Fixture f;
  std::vector<Attribute> shapeStorage{f.sym("N")};
  ArrayRef<Attribute> shape = shapeStorage;
  auto badTensor = [&](Type elt) {
    return !KTensor::getChecked([&] { return f.err(); }, &f.ctx, elt, shape);
  };
  CHECK(badTensor(IntegerType::get(&f.ctx, 4)));
  CHECK(f.diags.back() == "invalid element type 'i4'");
  CHECK(badTensor(IntegerType::get(&f.ctx, 32, IntegerType::Unsigned)));
  CHECK(badTensor(Float128Type::get(&f.ctx)));
  CHECK(badTensor(ComplexType::get(f.f32())));
  CHECK(badTensor(KTensor::get(&f.ctx, f.f32(), shape))); // no tensors of tensors
  CHECK_FALSE(ViewType::getChecked([&] { return f.err(); }, &f.ctx, Type(Float64Type::get(&f.ctx)),
                                   shape, Access::In, false) == ViewType());
  for (Type ok : {Type(Float16Type::get(&f.ctx)), Type(BFloat16Type::get(&f.ctx)), f.f32(),
                  Type(Float64Type::get(&f.ctx)), Type(IntegerType::get(&f.ctx, 1)),
                  Type(IntegerType::get(&f.ctx, 8)), Type(IntegerType::get(&f.ctx, 16)),
                  Type(IntegerType::get(&f.ctx, 32)), Type(IntegerType::get(&f.ctx, 64)),
                  Type(IndexType::get(&f.ctx))}) {
    CAPTURE(f.print(ok));
    CHECK(isKirScalarType(ok));
    CHECK(KTensor::getChecked([&] { return f.err(); }, &f.ctx, ok, shape));
  }
  // Extents: zero, negative, empty symbol, and a non-dimension attribute.
  auto badShape = [&](Attribute d) {
    return !KTensor::getChecked([&] { return f.err(); }, &f.ctx, f.f32(), ArrayRef<Attribute>{d});
  };
  CHECK(badShape(f.fixed(0)));
  CHECK(f.diags.back() == "static extent must be positive");
  CHECK(badShape(f.fixed(-3)));
  CHECK(badShape(f.sym("")));
  CHECK(f.diags.back() == "empty dimension symbol");
  CHECK(badShape(FloatAttr::get(f.f32(), 2.0)));
  CHECK(f.diags.back() == "a dimension must be a symbol or an integer");
}

TEST_CASE("type syntax errors") {
  Fixture f;
  struct Case { const char *text, *diag; };
  for (Case c : {
           Case{"!kir.tensor<f32, [0]>", "static extent must be a positive integer, got 0"},
           Case{"!kir.tensor<f32, [-2]>", "static extent must be a positive integer, got -2"},
           Case{"!kir.tensor<f32, [\"N\"]>", "expected a dimension: an identifier or a positive integer"},
           Case{"!kir.tensor<i4, [N]>", "element type must be one of f16, bf16, f32, f64, i1, i8, "
                                        "i16, i32, i64, index (or an f8 type), got 'i4'"},
           Case{"!kir.view<f32, [N], in, strided>", "expected 'contiguous', got 'strided'"},
           Case{"!kir.tensor<f32, N>", "expected '['"},
       }) {
    CAPTURE(c.text);
    f.diags.clear();
    CHECK_FALSE(f.parse(c.text));
    REQUIRE_FALSE(f.diags.empty());
    CHECK(f.diags.front() == c.diag);
  }
}

TEST_CASE("parseKIR accepts an example and rejects a non-kernel module") {
  Fixture f;
  auto parse = [&](StringRef text) {
    llvm::SourceMgr sm;
    sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "t.kir"), llvm::SMLoc());
    return parseKIR(sm, f.ctx);
  };
  auto ok = parse("module {\n  kir.kernel @k(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [N], "
                  "out>) {\n    %v = kir.load %x : !kir.view<f32, [N], in>\n    kir.store %v, %y "
                  ": !kir.view<f32, [N], out>\n  }\n}\n");
  REQUIRE(ok);
  auto kernels = llvm::to_vector(ok->getOps<KernelOp>());
  REQUIRE(kernels.size() == 1);
  CHECK(kernels[0].getArgName(0) == "x");
  CHECK(kernels[0].getArgName(1) == "y");
  f.diags.clear();
  CHECK_FALSE(parse("module {\n  %c = arith.constant 1 : i32\n}\n"));
  REQUIRE_FALSE(f.diags.empty());
  CHECK(f.diags.front() == "only kir.kernel operations may appear at the top level of a KIR file");
  f.diags.clear();
  CHECK_FALSE(parse(std::string(kMaxNestingDepth + 1, '(')));
  REQUIRE_FALSE(f.diags.empty());
  CHECK(f.diags.front() == "input nests deeper than 200 brackets");
}
