// One test per diagnostic class of spec/tuning.md section 3: exact message,
// JSON path and line:col.
#include "TestUtil.h"

#include "intent/Tuning/ProfileTable.h"

#include <doctest/doctest.h>

using namespace intent::tuning;
using namespace intent::tuning::test;

namespace {
const std::string kColumnsTriton =
    "ownership_m, ownership_n, reduction, reduction_outer, scan, traversal_workers, "
    "traversal_group, NUM_WARPS, NUM_STAGES, NUM_CTAS, USE_TENSOR_DESCRIPTOR";
const std::string kFamiliesGpu =
    "pointwise, pointwise_narrow, reduction, multi_axis_reduction, region_reduction, scan, outer_reduction, "
    "outer_scan, contraction, contraction_narrow, region_contraction";

void checkAt(const Diagnostic &d, const std::string &path, int line, int col,
             const std::string &message) {
  CHECK(d.file == "ov.json");
  CHECK(d.jsonPath == path);
  CHECK(d.line == line);
  CHECK(d.col == col);
  CHECK(d.message == message);
}
} // namespace

TEST_CASE("Diagnostic::str formats like clang/MLIR") {
  CHECK(Diagnostic{"a.json", "triton.x[1][7]", 3, 9, "boom"}.str() ==
        "a.json:3:9: error: triton.x[1][7]: boom");
  CHECK(Diagnostic{"a.json", "", 3, 9, "boom"}.str() == "a.json:3:9: error: boom");
  CHECK(Diagnostic{"a.json", "triton", 0, 0, "boom"}.str() == "a.json: error: triton: boom");
  CHECK(Diagnostic{"a.json", "", 0, 0, "boom"}.str() == "a.json: error: boom");
}

TEST_CASE("diagnostic: unreadable file") {
  auto r = loadOverride("/nonexistent-intentc-dir/cfg.json");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().str() ==
        "/nonexistent-intentc-dir/cfg.json: error: cannot read file: No such file or directory");
  auto t = loadProfileTable("/nonexistent-intentc-dir/triton.json", Provider::Triton);
  REQUIRE_FALSE(t.ok());
  CHECK(t.error().line == 0);
  CHECK(t.error().jsonPath.empty());
  auto dir = readFile(INTENT_SOURCE_DIR);
  REQUIRE_FALSE(dir.ok());
  CHECK(dir.error().message == "cannot read file: Is a directory");
  auto f = readFile("/nonexistent-intentc-dir/x");
  REQUIRE_FALSE(f.ok());
  CHECK(f.error().message == "cannot read file: No such file or directory");
}

TEST_CASE("diagnostic: invalid JSON") {
  SUBCASE("bad literal") {
    Diagnostic d = overrideError("{\n  \"triton\": tru\n}\n");
    CHECK(d.jsonPath == "");
    CHECK(d.line == 2);
    CHECK(d.col == 16);
    CHECK(d.message.rfind("invalid JSON: syntax error while parsing value - invalid literal", 0) == 0);
  }
  SUBCASE("trailing comma") {
    Diagnostic d = overrideError("{\"triton\": {},}");
    checkAt(d, "", 1, 15,
            "invalid JSON: syntax error while parsing object key - unexpected '}'; expected string literal");
    CHECK(d.str() == "ov.json:1:15: error: invalid JSON: syntax error while parsing object key - "
                     "unexpected '}'; expected string literal");
  }
  SUBCASE("unexpected end of input") {
    Diagnostic d = overrideError("{\n  \"triton\": {}\n");
    CHECK(d.line == 3);
    CHECK(d.col == 1);
    CHECK(d.message ==
          "invalid JSON: syntax error while parsing object - unexpected end of input; expected '}'");
  }
  SUBCASE("empty input") {
    Diagnostic d = overrideError("");
    checkAt(d, "", 1, 1,
            "invalid JSON: syntax error while parsing value - unexpected end of input; expected "
            "'[', '{', or a literal");
  }
}

TEST_CASE("diagnostic: top level not an object") {
  checkAt(overrideError("[1, 2]"), "", 1, 1,
          "top-level value must be an object (mapping provider namespaces to families), found array");
  checkAt(overrideError("\n  42"), "", 2, 3,
          "top-level value must be an object (mapping provider namespaces to families), found integer");
  auto t = parseProfileTable("\"x\"", "ov.json", Provider::Triton);
  REQUIRE_FALSE(t.ok());
  checkAt(t.error(), "", 1, 1,
          "top-level value must be an object (a profile table with \"columns\" and \"families\"), "
          "found string");
}

TEST_CASE("diagnostic: duplicate key") {
  SUBCASE("namespace") {
    Diagnostic d = overrideError("{\n  \"triton\": {},\n  \"triton\": {}\n}");
    checkAt(d, "triton", 3, 3, "duplicate key \"triton\" (first defined at line 2, column 3)");
  }
  SUBCASE("family") {
    std::string row = "[128, 256, 64, 1, 1, 1, 8, 8, 3, 1, 0]";
    Diagnostic d = overrideError("{\"triton\": {\"scan\": [" + row + "],\n \"scan\": [" + row + "]}}");
    checkAt(d, "triton.scan", 2, 2, "duplicate key \"scan\" (first defined at line 1, column 13)");
  }
  SUBCASE("keys with escapes are compared decoded") {
    Diagnostic d = overrideError("{\"a\\\"b\": 1, \"a\\u0022b\": 2}");
    checkAt(d, "a\"b", 1, 13, "duplicate key \"a\"b\" (first defined at line 1, column 2)");
  }
}

TEST_CASE("diagnostic: unknown namespace") {
  Diagnostic d = overrideError("{\n  \"tritn\": {}\n}");
  checkAt(d, "tritn", 2, 3, "unknown provider namespace \"tritn\"; expected one of: triton, cutile, bangc");
}

TEST_CASE("diagnostic: namespace not an object") {
  checkAt(overrideError("{\"cutile\": []}"), "cutile", 1, 12,
          "provider namespace \"cutile\" must be an object mapping families to rows, found array");
}

TEST_CASE("diagnostic: unknown family") {
  Diagnostic d = overrideError("{\"triton\": {\n  \"matmul\": [[1]]}}");
  checkAt(d, "triton.matmul", 2, 3,
          "unknown family \"matmul\" for provider triton; valid families: " + kFamiliesGpu);
  Diagnostic b = overrideError("{\"bangc\": {\"pointwise\": [[1]]}}");
  checkAt(b, "bangc.pointwise", 1, 12, "unknown family \"pointwise\" for provider bangc; valid families: block");
}

TEST_CASE("diagnostic: family not an array") {
  checkAt(overrideError("{\"triton\": {\"scan\":\n   {\"a\": 1}}}"), "triton.scan", 2, 4,
          "family \"scan\" must be an array of rows, found object");
  checkAt(overrideError("{\"triton\": {\"scan\": 7}}"), "triton.scan", 1, 21,
          "family \"scan\" must be an array of rows, found integer");
}

TEST_CASE("diagnostic: row not an array") {
  checkAt(overrideError(tritonOverrideWithRow("{\"BM\": 64}")), "triton.contraction_narrow[1]", 5, 7,
          "row must be an array of 11 integers, found object");
  checkAt(overrideError(tritonOverrideWithRow("64")), "triton.contraction_narrow[1]", 5, 7,
          "row must be an array of 11 integers, found integer");
}

TEST_CASE("diagnostic: wrong column count") {
  checkAt(overrideError(tritonOverrideWithRow("[64, 128, 32, 1, 1, 1, 8, 4, 4, 1]")),
          "triton.contraction_narrow[1]", 5, 7,
          "row has 10 values, expected 11 columns for triton: " + kColumnsTriton);
  checkAt(overrideError(tritonOverrideWithRow("[]")), "triton.contraction_narrow[1]", 5, 7,
          "row has 0 values, expected 11 columns for triton: " + kColumnsTriton);
  Diagnostic b = overrideError("{\"bangc\": {\"block\": [[1, 2]]}}");
  checkAt(b, "bangc.block[0]", 1, 22,
          "row has 2 values, expected 7 columns for bangc: tile, tile_m, tile_n, tile_k, "
          "region_tile, tasks, local_bytes");
}

TEST_CASE("diagnostic: value not an integer") {
  // Index 7 (NUM_WARPS) of the second row starts at line 5, column 33.
  auto at7 = [](const std::string &v) {
    return overrideError(tritonOverrideWithRow("[64, 128, 32, 1, 1, 1, 8, " + v + ", 4, 1, 0]"));
  };
  const std::string path = "triton.contraction_narrow[1][7]";
  checkAt(at7("1.0"), path, 5, 33, "column NUM_WARPS expects an integer, found floating-point number 1.0");
  checkAt(at7("4e0"), path, 5, 33, "column NUM_WARPS expects an integer, found floating-point number 4e0");
  checkAt(at7("\"8\""), path, 5, 33, "column NUM_WARPS expects an integer, found string \"8\"");
  checkAt(at7("true"), path, 5, 33, "column NUM_WARPS expects an integer, found boolean true");
  checkAt(at7("false"), path, 5, 33, "column NUM_WARPS expects an integer, found boolean false");
  checkAt(at7("null"), path, 5, 33, "column NUM_WARPS expects an integer, found null");
  checkAt(at7("[4]"), path, 5, 33, "column NUM_WARPS expects an integer, found array");
  // A boolean column still takes 0/1, not true/false.
  Diagnostic b = overrideError(tritonOverrideWithRow("[64, 128, 32, 1, 1, 1, 8, 4, 4, 1, true]"));
  checkAt(b, "triton.contraction_narrow[1][10]", 5, 42,
          "column USE_TENSOR_DESCRIPTOR expects an integer, found boolean true");
}

TEST_CASE("diagnostic: value out of range") {
  auto at7 = [](const std::string &v) {
    return overrideError(tritonOverrideWithRow("[64, 128, 32, 1, 1, 1, 8, " + v + ", 4, 1, 0]"));
  };
  const std::string path = "triton.contraction_narrow[1][7]";
  const std::string dom = " of column NUM_WARPS is out of range; expected a positive 32-bit integer "
                          "(1..2147483647)";
  checkAt(at7("0"), path, 5, 33, "value 0" + dom);
  checkAt(at7("-1"), path, 5, 33, "value -1" + dom);
  checkAt(at7("1099511627776"), path, 5, 33, "value 1099511627776" + dom);
  checkAt(at7("2147483648"), path, 5, 33, "value 2147483648" + dom);
  checkAt(at7("18446744073709551615"), path, 5, 33, "value 18446744073709551615" + dom);
  checkAt(at7("123456789012345678901234567890"), path, 5, 33, "value 123456789012345678901234567890" + dom);
  CHECK(parseOverride(tritonOverrideWithRow("[64, 128, 32, 1, 1, 1, 8, 2147483647, 4, 1, 0]"), "ov.json").ok());

  Diagnostic b = overrideError(tritonOverrideWithRow("[64, 128, 32, 1, 1, 1, 8, 4, 4, 1, 2]"));
  checkAt(b, "triton.contraction_narrow[1][10]", 5, 42,
          "value 2 of column USE_TENSOR_DESCRIPTOR is out of range; expected 0 or 1");

  SUBCASE("cuTile ranges") {
    auto cut = [](const std::string &tail) {
      return overrideError("{\"cutile\": {\"scan\": [[1, 1, 1, 1, 1, 1, 1, " + tail + "]]}}");
    };
    // The eighth value starts at column 44.
    checkAt(cut("3, 1, 1, 1, 11"), "cutile.scan[0][7]", 1, 44,
            "value 3 of column CUTILE_CTAS is out of range; expected a power of two in 1..16");
    checkAt(cut("32, 1, 1, 1, 11"), "cutile.scan[0][7]", 1, 44,
            "value 32 of column CUTILE_CTAS is out of range; expected a power of two in 1..16");
    checkAt(cut("1, 2, 1, 1, 11"), "cutile.scan[0][8]", 1, 47,
            "value 2 of column CUTILE_WORKER_WARPS is out of range; expected one of 1, 4, 8");
    checkAt(cut("1, 1, 33, 1, 11"), "cutile.scan[0][9]", 1, 50,
            "value 33 of column CUTILE_OCCUPANCY is out of range; expected an integer in 1..32");
    checkAt(cut("1, 1, 1, 4, 11"), "cutile.scan[0][10]", 1, 53,
            "value 4 of column CUTILE_ACCESS_FORM is out of range; expected an integer in 1..3");
    checkAt(cut("1, 1, 1, 1, 12"), "cutile.scan[0][11]", 1, 56,
            "value 12 of column CUTILE_LOAD_POLICY is out of range; expected an integer in 1..11");
    CHECK(parseOverride("{\"cutile\": {\"scan\": [[1, 1, 1, 1, 1, 1, 1, 16, 8, 32, 3, 11]]}}", "x").ok());
  }
}

TEST_CASE("diagnostic: duplicate row within a family") {
  std::string text = tritonOverrideWithRow("[64, 128, 32, 1, 1, 1, 8, 4, 4, 1, 0],\n"
                                           "      [128, 256, 64, 1, 1, 1, 8, 8, 3, 1, 0]");
  checkAt(overrideError(text), "triton.contraction_narrow[2]", 6, 7,
          "duplicate row: identical to row 0 of family \"contraction_narrow\"");
}

TEST_CASE("diagnostic: empty family") {
  checkAt(overrideError("{\"triton\": {\n  \"pointwise\": []\n}}"), "triton.pointwise", 2, 16,
          "family \"pointwise\" is empty; supply at least one row or omit the family");
}

TEST_CASE("every namespace is validated, even when not applied") {
  std::string text = "{\"triton\": {\"scan\": [[1, 1, 1, 1, 1024, 1, 1, 4, 3, 1, 0]]},\n"
                     " \"cutile\": {\"scan\": [[1, 1, 1, 1, 1024, 1, 1, 1, 1, 1, 1, 0]]}}";
  checkAt(overrideError(text), "cutile.scan[0][11]", 2, 59,
          "value 0 of column CUTILE_LOAD_POLICY is out of range; expected an integer in 1..11");
}

TEST_CASE("default table diagnostics use families.<family> paths") {
  auto tableError = [](const std::string &text, Provider p = Provider::Triton) {
    auto r = parseProfileTable(text, "ov.json", p);
    REQUIRE_FALSE(r.ok());
    return r.error();
  };
  const std::string cols = "\"columns\": [\"tile\", \"tile_m\", \"tile_n\", \"tile_k\", \"region_tile\", "
                           "\"tasks\", \"local_bytes\"]";
  SUBCASE("value in a family") {
    Diagnostic d = tableError("{" + cols + ",\n\"families\": {\"block\": [[1, 2, 3, 0, 5, 6, 7]]}}",
                              Provider::BangC);
    checkAt(d, "families.block[0][3]", 2, 34,
            "value 0 of column tile_k is out of range; expected a positive 32-bit integer (1..2147483647)");
  }
  SUBCASE("missing family") {
    Diagnostic d = tableError("{" + cols + ",\n\"families\": {}}", Provider::BangC);
    checkAt(d, "families", 2, 13,
            "missing family \"block\"; a default table must define every bangc family: block");
  }
  SUBCASE("wrong column name") {
    Diagnostic d = tableError("{\"columns\": [\"tile\", \"tile_n\"], \"families\": {}}", Provider::BangC);
    checkAt(d, "columns[1]", 1, 22,
            "column 1 is \"tile_n\", expected \"tile_m\"; the bangc columns are: tile, tile_m, tile_n, "
            "tile_k, region_tile, tasks, local_bytes");
  }
  SUBCASE("wrong column count") {
    Diagnostic d = tableError("{\"columns\": [\"tile\"], \"families\": {}}", Provider::BangC);
    checkAt(d, "columns", 1, 13,
            "found 1 columns, expected 7 for bangc: tile, tile_m, tile_n, tile_k, region_tile, tasks, "
            "local_bytes");
  }
  SUBCASE("missing keys and unknown keys") {
    checkAt(tableError("{}"), "", 1, 1, "missing required key \"columns\"");
    checkAt(tableError("{" + cols + "}", Provider::BangC), "", 1, 1, "missing required key \"families\"");
    checkAt(tableError("{\"rows\": 1}"), "rows", 1, 2,
            "unknown key \"rows\"; a profile table has exactly the keys \"columns\" and \"families\"");
  }
  SUBCASE("unknown family") {
    Diagnostic d = tableError("{" + cols + ", \"families\": {\"tile\": [[1]]}}", Provider::BangC);
    CHECK(d.jsonPath == "families.tile");
    CHECK(d.message == "unknown family \"tile\" for provider bangc; valid families: block");
  }
}
