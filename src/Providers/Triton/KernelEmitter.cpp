//===- KernelEmitter.cpp - igpu.program -> @triton.jit body ----------------===//
//
// Mechanical serialization: igpu-build-program wrote the program (igpu.program;
// for a contraction down to the tile placement, K share, K loop and split-K
// merge, whose operand access forms are written here), the structure pass fixed the axis of every value, the
// candidates fix the parameters. Values are emitted as Triton blocks whose dimensions follow the
// canonical axes: row axes along block dim 0, the innermost axis along block
// dim 1, so broadcasting between row values ([BM, 1]) and full values
// ([BM, BN]) is Triton's own.
//
//
//===----------------------------------------------------------------------===//
#include "Emitter.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <sstream>

namespace intent::providers::triton {

std::string tlType(Type t) {
  t = kir::kirElementType(t);
  if (t.isF16()) return "tl.float16";
  if (t.isBF16()) return "tl.bfloat16";
  if (t.isF32()) return "tl.float32";
  if (t.isF64()) return "tl.float64";
  if (t.isIndex()) return "tl.int64";
  if (t.isInteger(1)) return "tl.int1";
  if (auto i = dyn_cast<IntegerType>(t)) return "tl.int" + std::to_string(i.getWidth());
  if (isa<Float8E4M3FNType>(t)) return "tl.float8e4nv";
  if (isa<Float8E5M2Type>(t)) return "tl.float8e5";
  return "tl.float32";
}

bool isNarrowFloat(Type t) {
  t = kir::kirElementType(t);
  return t.isF16() || t.isBF16() || isa<Float8E4M3FNType, Float8E5M2Type>(t);
}

/// Python literal of a float attribute, exact for infinities and NaN.
std::string floatLiteral(double v) {
  if (std::isnan(v)) return "float('nan')";
  if (std::isinf(v)) return v > 0 ? "float('inf')" : "float('-inf')";
  std::ostringstream os;
  os.precision(17);
  os << v;
  std::string s = os.str();
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s;
}

/// Numeric helpers shared by every kernel that uses them (emitted once each).
/// `_recip_f64` and `_div_by_recip` make f32 division by a row-uniform divisor
/// IEEE-exact without `div.rn` per element, whose slow-path call costs
/// registers in every kernel holding a row (docs/gpu.md "Numerics").
const std::map<std::string, std::string> &numericHelperSources() {
  static const std::map<std::string, std::string> src = {
      {"_recip_f64",
       "@triton.jit\n"
       "def _recip_f64(b):\n"
       "    # 1/b in f64 within 2^-52 (two Newton steps from the f32 approximation, scaled\n"
       "    # into range); 0, inf and NaN give the IEEE reciprocal.\n"
       "    b = tl.cast(b, tl.float32)  # scalar arguments arrive as Python floats\n"
       "    ab = tl.abs(b)\n"
       "    scale = tl.where(ab < 7.888609052210118e-31, 18446744073709551616.0,\n"
       "                     tl.where(ab > 1.2676506002282294e+30, 5.421010862427522e-20, 1.0))\n"
       "    y = (1.0 / (b * scale)).to(tl.float64) * scale.to(tl.float64)\n"
       "    b64 = b.to(tl.float64)\n"
       "    n = tl.fma(y, tl.fma(-b64, y, 1.0), y)\n"
       "    n = tl.fma(n, tl.fma(-b64, n, 1.0), n)\n"
       "    return tl.where((ab > 0) & (ab < float('inf')), n, y)\n"},
      {"_div_by_recip",
       "@triton.jit\n"
       "def _div_by_recip(a, r):\n"
       "    # RN32(a * r) == RN32(a / b) for r = _recip_f64(b): the f64 product is within\n"
       "    # 2^-51 of a/b, and a quotient of two f32 values that is not an f32 value lies\n"
       "    # at least 2^-49 (relative) away from every f32 rounding midpoint.\n"
       "    return (a.to(tl.float64) * r).to(tl.float32)\n"},
      {"_div_rows",
       "@triton.jit\n"
       "def _div_rows(a, b, r, FORM: tl.constexpr):\n"
       "    # RN32(a / b) for r = _recip_f64(b), both forms exact. 0: the f64 product per element.\n"
       "    # 1: two Markstein steps in f32 from y = RN(1/b), exact unless |a| <= 2^-100, a is 0 or\n"
       "    # NaN, |q| is outside [2^-124, 2^126) or b outside [2^-125, 2^125]; a warp holding such\n"
       "    # an element takes the f64 product instead (one uniform branch: no divergence, and the\n"
       "    # conversions are skipped, not predicated). The interpreter has no PTX: form 0.\n"
       "    if FORM == 0 or _INTERPRETED:\n"
       "        q = _div_by_recip(a, r)\n"
       "    else:\n"
       "        b = tl.cast(b, tl.float32)\n"
       "        y = tl.div_rn(tl.full(b.shape, 1.0, tl.float32), b)\n"
       "        bb = tl.abs(b)\n"
       "        lo = tl.where((bb >= 2.350988701644575e-38) & (bb <= 4.253529586511731e+37),\n"
       "                      7.888609052210118e-31, float('inf'))\n"
       "        q = tl.inline_asm_elementwise(\"\"\"{\n"
       "        .reg .f32 q, rm, t;\n"
       "        .reg .pred bad, anybad;\n"
       "        .reg .f64 ad, qd;\n"
       "        mul.rn.f32 q, $1, $3;\n"
       "        neg.f32 t, q;\n"
       "        fma.rn.f32 rm, t, $2, $1;\n"
       "        fma.rn.f32 q, rm, $3, q;\n"
       "        neg.f32 t, q;\n"
       "        fma.rn.f32 rm, t, $2, $1;\n"
       "        fma.rn.f32 q, rm, $3, q;\n"
       "        abs.f32 t, $1;\n"
       "        setp.leu.f32 bad, t, $4;\n"
       "        abs.f32 t, q;\n"
       "        setp.ltu.or.f32 bad, t, 0f01800000, bad;\n"
       "        setp.geu.or.f32 bad, t, 0f7E800000, bad;\n"
       "        vote.sync.any.pred anybad, bad, 0xffffffff;\n"
       "        @!anybad bra DONE${:uid};\n"
       "        cvt.f64.f32 ad, $1;\n"
       "        mul.rn.f64 qd, ad, $5;\n"
       "        cvt.rn.f32.f64 q, qd;\n"
       "        DONE${:uid}:\n"
       "        mov.f32 $0, q;\n"
       "        }\"\"\", \"=f,f,f,f,f,d\", [a, b, y, lo, r], dtype=tl.float32, is_pure=True, pack=1)\n"
       "    return q\n"},
      {"_divmod",
       "@triton.jit\n"
       "def _divmod_mulhi(q, d, dm):\n"
       "    # (q // d, q % d) by a multiply-high with the launcher's m = ceil(2^(31+l) / d),\n"
       "    # l = ceil(log2 d), packed as m | (l + 1) << 32: exact for 0 <= q < 2^31 (Granlund and\n"
       "    # Montgomery, 1994), a few instructions instead of an emulated 32-bit division.\n"
       "    m = (dm & 0xFFFFFFFF).to(tl.uint32)\n"
       "    l = ((dm >> 32) - 1).to(tl.uint32)\n"
       "    quot = (tl.umulhi(q.to(tl.uint32) * 2, m) >> l).to(q.dtype)\n"
       "    return quot, q - quot * d\n\n"
       "@triton.jit\n"
       "def _divmod(q, d, dm, WIDE: tl.constexpr, ALIGNED: tl.constexpr):\n"
       "    # (q // d, q % d); the 32-bit path by _divmod_mulhi. ALIGNED: the column digits of an\n"
       "    # innermost extent that is a multiple of 16 divide, so that Triton's contiguity analysis\n"
       "    # still sees runs of 16 and vectorizes their loads. The interpreter divides (numpy has\n"
       "    # no emulated division to avoid; its per-op cost is what CI pays).\n"
       "    if WIDE or ALIGNED or _INTERPRETED:\n"
       "        return q // d, q % d\n"
       "    else:\n"
       "        return _divmod_mulhi(q, d, dm)\n"},
      {"_tanh",
       "@triton.jit\n"
       "def _tanh(x):\n"
       "    # 2 * sigmoid(2x) - 1 cancels near 0 (relative error 1e-3 at |x| = 1e-5): small |x|\n"
       "    # by a series (f32: the minimax odd polynomial of Cephes' tanhf; f64: the continued\n"
       "    # fraction x / (1 + x^2 / (3 + x^2 / (5 + ...)))), larger |x| by 1 - 2 / (exp(2|x|) + 1).\n"
       "    ax = tl.abs(x)\n"
       "    big = 1.0 - 2.0 / (tl.exp(2.0 * ax) + 1.0)\n"
       "    big = tl.where(x < 0, -big, big)\n"
       "    s = x * x\n"
       "    if x.dtype == tl.float64:\n"
       "        d = 23.0 + s / 25.0\n"
       "        for k in tl.static_range(11):\n"
       "            d = (21.0 - 2.0 * k) + s / d\n"
       "        small = x / d\n"
       "    else:\n"
       "        p = (((-5.70498872745e-3 * s + 2.06390887954e-2) * s - 5.37397155531e-2) * s\n"
       "             + 1.33314422036e-1) * s - 3.33332819422e-1\n"
       "        small = tl.where(x == 0, x, p * s * x + x)  # keeps the sign of zero\n"
       "    return tl.where(ax < 0.625, small, big)\n"},
      {"_rsqrt",
       "@triton.jit\n"
       "def _rsqrt(x):\n"
       "    # rsqrt.approx flushes subnormal inputs: scale them into the normal range.\n"
       "    tiny = tl.abs(x) < 1.1754943508222875e-38\n"
       "    r = tl.math.rsqrt(tl.where(tiny, x * 16777216.0, x))\n"
       "    return tl.where(tiny, r * 4096.0, r)\n"},
  };
  return src;
}

std::string Emitter::unaryExpr(StringRef name, const std::string &x, Type t) {
  if (name == "neg") return "-" + x;
  if (name == "abs") return "tl.abs(" + x + ")";
  if (name == "not") return kir::kirElementType(t).isInteger(1) ? "(" + x + " == 0)" : "~" + x;
  if (name == "exp") return "tl.exp(" + x + ")";
  if (name == "exp2") return "tl.exp2(" + x + ")";
  if (name == "log") return "tl.log(" + x + ")";
  if (name == "log2") return "tl.log2(" + x + ")";
  if (name == "sqrt") return "tl.sqrt_rn(" + x + ")";
  if (name == "rsqrt") {
    numericHelpers.insert("_rsqrt");
    return "_rsqrt(" + x + ")";
  }
  if (name == "sin") return "tl.sin(" + x + ")";
  if (name == "cos") return "tl.cos(" + x + ")";
  if (name == "tanh") {
    numericHelpers.insert("_tanh");
    return "_tanh(" + x + ")";
  }
  if (name == "erf") return "tl.erf(" + x + ")";
  if (name == "sigmoid") return "tl.sigmoid(" + x + ")";
  if (name == "floor") return "tl.floor(" + x + ")";
  if (name == "ceil") return "tl.ceil(" + x + ")";
  error = ("unsupported unary op " + name).str();
  return x;
}

std::string Emitter::binaryExpr(StringRef name, const std::string &a, const std::string &b, Type t) {
  Type e = kir::kirElementType(t);
  bool isFloat = isa<FloatType>(e);
  if (e.isInteger(1) && (name == "add" || name == "sub")) return a + " ^ " + b; // i1 wraps (also combiners)
  if (e.isInteger(1) && name == "mul") return a + " & " + b;
  if (name == "add") return a + " + " + b;
  if (name == "sub") return a + " - " + b;
  if (name == "mul") return a + " * " + b;
  if (name == "div") // tl.div_rn is f32-only; f64 `/` is already IEEE (div.rn.f64)
    return !isFloat ? a + " // " + b : e.isF64() ? a + " / " + b : "tl.div_rn(" + a + ", " + b + ")";
  if (name == "rem") return isFloat ? "libdevice_fmod(" + a + ", " + b + ")" : a + " % " + b;
  if (name == "pow") return "tl.exp2(tl.log2(" + a + ") * " + b + ")";
  if (name == "max")
    return isFloat ? "tl.maximum(" + a + ", " + b + ", propagate_nan=tl.PropagateNan.ALL)"
                   : "tl.maximum(" + a + ", " + b + ")";
  if (name == "min")
    return isFloat ? "tl.minimum(" + a + ", " + b + ", propagate_nan=tl.PropagateNan.ALL)"
                   : "tl.minimum(" + a + ", " + b + ")";
  if (name == "and") return a + " & " + b;
  if (name == "or") return a + " | " + b;
  if (name == "xor") return a + " ^ " + b;
  if (name == "shl") return a + " << " + b;
  if (name == "shr") return a + " >> " + b;
  error = ("unsupported binary op " + name).str();
  return a;
}

std::string Emitter::value(Value v) {
  if (auto it = cache.find(v); it != cache.end())
    return it->second;
  std::string r;
  if (auto ba = dyn_cast<BlockArgument>(v)) {
    r = argName(v); // scalar argument (views are only used through loads)
  } else {
    Operation *op = v.getDefiningOp();
    StringRef name = op->getName().stripDialect();
    if (auto load = dyn_cast<kir::LoadOp>(op)) {
      auto [off, mask] = address(load.getView());
      std::string ptr = argName(load.getView()) + " + " + off;
      auto fill = loadFill.find(v);
      auto evict = load->getAttrOfType<StringAttr>(igpu::IGPUDialect::kEvictAttr);
      std::string hint = evict ? ", eviction_policy=\"evict_" + evict.getValue().str() + "\"" : "";
      r = bind(mask.empty() ? "tl.load(" + ptr + hint + ")"
                            : "tl.load(" + ptr + ", mask=" + mask + ", other=" +
                                  (fill == loadFill.end() ? "0" : fill->second) + hint + ")");
    } else if (auto c = dyn_cast<arith::ConstantOp>(op)) {
      r = scalarConst(c);
    } else if (auto b = dyn_cast<kir::BroadcastOp>(op)) {
      r = value(b.getInput());
    } else if (auto t = dyn_cast<kir::TransposeOp>(op)) {
      r = value(t.getInput());
    } else if (auto io = dyn_cast<kir::IotaOp>(op)) {
      int axis = ps.axes.lookup(io.getResult())[io.getDim()];
      r = bind("(" + coords.coord[axis] + ").to(" + tlType(io.getType()) + ")");
    } else if (auto ex = dyn_cast<kir::ExtentOp>(op)) {
      Attribute d = cast<kir::ViewType>(ex.getView().getType()).getShape()[ex.getAxis()];
      // A tensor, not a Python int: Triton may specialize an extent of 1 to a constexpr.
      r = bind("(tl.zeros([], tl.int64) + " + dim(d) + ")");
    } else if (auto cast = dyn_cast<kir::CastOp>(op)) {
      std::string x = value(cast.getInput());
      Type to = kir::kirElementType(cast.getType());
      // A scalar kernel argument may arrive as a Python number (the interpreter): no tensor methods.
      r = bind(isa<BlockArgument>(cast.getInput()) ? "tl.cast(" + x + ", " + tlType(to) + ")"
                                                   : x + ".to(" + tlType(to) + ")");
    } else if (auto cmp = dyn_cast<kir::CmpOp>(op)) {
      static const char *ops[] = {"==", "!=", "<", "<=", ">", ">="};
      r = bind("(" + value(cmp.getLhs()) + " " + ops[(int)cmp.getPredicate()] + " " +
               value(cmp.getRhs()) + ")");
    } else if (auto sel = dyn_cast<kir::SelectOp>(op)) {
      r = bind("tl.where(" + value(sel.getCondition()) + ", " + value(sel.getTrueValue()) + ", " +
               value(sel.getFalseValue()) + ")");
    } else if (op->getNumOperands() == 1 && op->getDialect()->getNamespace() == "kir") {
      Type t = op->getResult(0).getType();
      bool narrow = isNarrowFloat(t);
      r = arith(t, unaryExpr(name, up(value(op->getOperand(0)), t), t), narrow);
    } else if (auto div = dyn_cast<kir::DivOp>(op); div && gpu::isRowUniformDivision(div, ps)) {
      Type t = op->getResult(0).getType();
      numericHelpers.insert("_div_by_recip");
      bool tuned = divisionFormTuned;
      auto known = invariantRecip.find(div.getRhs());
      std::string divisor = known == invariantRecip.end() || tuned ? up(value(div.getRhs()), t) : std::string();
      std::string recip = known != invariantRecip.end() ? known->second : reciprocal(divisor);
      std::string a = up(value(div.getLhs()), t);
      if (tuned)
        numericHelpers.insert("_div_rows");
      r = arith(t, tuned ? "_div_rows(" + a + ", " + divisor + ", " + recip + ", DIV_FORM)"
                         : "_div_by_recip(" + a + ", " + recip + ")",
                isNarrowFloat(t));
    } else if (op->getNumOperands() == 2 && op->getDialect()->getNamespace() == "kir") {
      Type t = op->getResult(0).getType();
      bool narrow = isNarrowFloat(t);
      r = arith(t, binaryExpr(name, up(value(op->getOperand(0)), t), up(value(op->getOperand(1)), t), t),
                narrow);
    } else if (isa<arith::AddFOp, arith::AddIOp, arith::SubFOp, arith::SubIOp, arith::MulFOp, arith::MulIOp,
                   arith::DivFOp>(op)) {
      // Combiner-region arithmetic: the same lowering as the KIR ops (i1 wraps, IEEE division).
      const char *kind = isa<arith::AddFOp, arith::AddIOp>(op)   ? "add"
                         : isa<arith::SubFOp, arith::SubIOp>(op) ? "sub"
                         : isa<arith::MulFOp, arith::MulIOp>(op) ? "mul"
                                                                 : "div";
      r = bind(binaryExpr(kind, value(op->getOperand(0)), value(op->getOperand(1)), op->getResult(0).getType()));
    } else if (isa<arith::MaximumFOp>(op)) {
      r = bind("tl.maximum(" + value(op->getOperand(0)) + ", " + value(op->getOperand(1)) +
               ", propagate_nan=tl.PropagateNan.ALL)");
    } else if (isa<arith::MinimumFOp>(op)) {
      r = bind("tl.minimum(" + value(op->getOperand(0)) + ", " + value(op->getOperand(1)) +
               ", propagate_nan=tl.PropagateNan.ALL)");
    } else if (isa<arith::MaxSIOp>(op)) {
      r = bind("tl.maximum(" + value(op->getOperand(0)) + ", " + value(op->getOperand(1)) + ")");
    } else if (isa<arith::MinSIOp>(op)) {
      r = bind("tl.minimum(" + value(op->getOperand(0)) + ", " + value(op->getOperand(1)) + ")");
    } else if (auto s = dyn_cast<arith::SelectOp>(op)) {
      r = bind("tl.where(" + value(s.getCondition()) + ", " + value(s.getTrueValue()) + ", " +
               value(s.getFalseValue()) + ")");
    } else if (auto c = dyn_cast<arith::CmpFOp>(op)) {
      std::string p = arith::stringifyCmpFPredicate(c.getPredicate()).str();
      std::string o = p.substr(1);
      std::string sym = o == "eq" ? "==" : o == "ne" ? "!=" : o == "lt" ? "<" : o == "le" ? "<=" : o == "gt" ? ">" : ">=";
      r = bind("(" + value(c.getLhs()) + " " + sym + " " + value(c.getRhs()) + ")");
    } else if (auto c = dyn_cast<arith::CmpIOp>(op)) {
      std::string p = arith::stringifyCmpIPredicate(c.getPredicate()).str();
      std::string o = p.size() > 2 ? p.substr(1) : p;
      std::string sym = o == "eq" ? "==" : o == "ne" ? "!=" : o == "lt" ? "<" : o == "le" ? "<=" : o == "gt" ? ">" : ">=";
      r = bind("(" + value(c.getLhs()) + " " + sym + " " + value(c.getRhs()) + ")");
    } else if (isa<math::ExpOp>(op)) {
      r = bind("tl.exp(" + value(op->getOperand(0)) + ")");
    } else if (isa<math::SqrtOp>(op)) {
      r = bind("tl.sqrt_rn(" + value(op->getOperand(0)) + ")");
    } else if (isa<arith::SIToFPOp, arith::FPToSIOp, arith::ExtFOp, arith::TruncFOp,
                   arith::ExtSIOp, arith::TruncIOp, arith::IndexCastOp>(op)) {
      r = bind(value(op->getOperand(0)) + ".to(" + tlType(op->getResult(0).getType()) + ")");
    } else {
      error = "the Triton serializer has no form for '" + op->getName().getStringRef().str() + "'";
      r = "None";
    }
  }
  cache[v] = r;
  return r;
}

/// Identity of operand `i` of a reduce/scan for padding masked lanes.
std::string Emitter::identityOf(Operation *op, unsigned i, Type elt) {
  std::optional<kir::ReduceKind> kind;
  ValueRange ids;
  if (auto r = dyn_cast<kir::ReduceOp>(op)) {
    kind = r.getKind();
    ids = r.getIdentities();
  } else {
    auto s = cast<kir::ScanOp>(op);
    kind = s.getKind();
    ids = s.getIdentities();
  }
  if (!kind) {
    if (i < ids.size())
      return value(ids[i]);
    return "0";
  }
  bool isFloat = isa<FloatType>(elt);
  std::string itype = tlType(elt);
  switch (*kind) {
  case kir::ReduceKind::add: case kir::ReduceKind::or_: case kir::ReduceKind::xor_:
    return isFloat ? "0.0" : "0";
  case kir::ReduceKind::mul: return isFloat ? "1.0" : "1";
  case kir::ReduceKind::and_: return elt.isInteger(1) ? "1" : "-1";
  // i1 orders False < True (as the reference does), so its max identity is 0 and min identity 1.
  case kir::ReduceKind::max: case kir::ReduceKind::argmax:
    if (i == 1) return "2147483647";
    if (elt.isInteger(1)) return "0";
    return isFloat ? "float('-inf')" : std::to_string(-(int64_t(1) << (elt.getIntOrFloatBitWidth() - 1)));
  case kir::ReduceKind::min: case kir::ReduceKind::argmin:
    if (i == 1) return "2147483647";
    if (elt.isInteger(1)) return "1";
    return isFloat ? "float('inf')" : std::to_string((int64_t(1) << (elt.getIntOrFloatBitWidth() - 1)) - 1);
  }
  return "0";
}

/// A @triton.jit combine function for a reduce/scan (named or general).
std::string Emitter::combineFn(Operation *op) {
  std::string fn = "_combine_" + std::to_string(helperFns.size());
  std::optional<kir::ReduceKind> kind;
  Region *region;
  if (auto r = dyn_cast<kir::ReduceOp>(op)) {
    kind = r.getKind();
    region = &r.getCombiner();
  } else {
    auto s = cast<kir::ScanOp>(op);
    kind = s.getKind();
    region = &s.getCombiner();
  }
  Type elt = kir::kirElementType(op->getOperand(0).getType());
  bool isFloat = isa<FloatType>(elt);
  std::string src = "@triton.jit\ndef " + fn;
  if (kind) {
    switch (*kind) {
    // Through binaryExpr: i1 add is xor and mul is and (Triton's + on int1 widens,
    // and the cast back to int1 then tests != 0).
    case kir::ReduceKind::add: src += "(a, b):\n    return " + binaryExpr("add", "a", "b", elt) + "\n"; break;
    case kir::ReduceKind::mul: src += "(a, b):\n    return " + binaryExpr("mul", "a", "b", elt) + "\n"; break;
    case kir::ReduceKind::and_: src += "(a, b):\n    return a & b\n"; break;
    case kir::ReduceKind::or_: src += "(a, b):\n    return a | b\n"; break;
    case kir::ReduceKind::xor_: src += "(a, b):\n    return a ^ b\n"; break;
    case kir::ReduceKind::max:
      src += isFloat ? "(a, b):\n    return tl.maximum(a, b, propagate_nan=tl.PropagateNan.ALL)\n"
                     : "(a, b):\n    return tl.maximum(a, b)\n";
      break;
    case kir::ReduceKind::min:
      src += isFloat ? "(a, b):\n    return tl.minimum(a, b, propagate_nan=tl.PropagateNan.ALL)\n"
                     : "(a, b):\n    return tl.minimum(a, b)\n";
      break;
    case kir::ReduceKind::argmax:
    case kir::ReduceKind::argmin: {
      // Ties pick the lowest index; NaN wins (the lowest-index NaN).
      std::string better = *kind == kir::ReduceKind::argmax ? ">" : "<";
      src += "(av, ai, bv, bi):\n";
      if (isFloat)
        src += "    an = av != av\n    bn = bv != bv\n"
               "    take_b = (bn & ~an) | ((bn == an) & ((bv " + better + " av) | ((bv == av) | (an & bn)) & (bi < ai)))\n";
      else
        src += "    take_b = (bv " + better + " av) | ((bv == av) & (bi < ai))\n";
      src += "    return tl.where(take_b, bv, av), tl.where(take_b, bi, ai)\n";
      break;
    }
    }
    helperFns.push_back(src);
    return fn;
  }
  // General: translate the region's scalar ops.
  Block &blk = region->front();
  Py body;
  Emitter sub(kernel, ps, body);
  std::vector<std::string> params;
  for (BlockArgument a : blk.getArguments()) {
    std::string n = "p" + std::to_string(a.getArgNumber());
    sub.cache[a] = n;
    params.push_back(n);
  }
  body.push();
  auto yield = cast<kir::YieldOp>(blk.getTerminator());
  std::vector<std::string> outs;
  for (Value y : yield.getValues())
    outs.push_back(sub.value(y));
  body.line("return " + llvm::join(outs, ", "));
  if (!sub.error.empty())
    error = sub.error;
  numericHelpers.insert(sub.numericHelpers.begin(), sub.numericHelpers.end());
  src += "(" + llvm::join(params, ", ") + "):\n" + body.take();
  helperFns.push_back(src);
  return fn;
}

namespace {
/// A Python literal (`1.5`, `-2`, `float('inf')`) rather than a tensor expression.
bool isLiteralExpr(const std::string &v) {
  return v.find_first_not_of("0123456789.-") == std::string::npos || v.rfind("float(", 0) == 0;
}
} // namespace

void Emitter::store(kir::StoreOp st) {
  auto [off, mask] = address(st.getView());
  std::string v = value(st.getValue());
  Type elt = cast<kir::ViewType>(st.getView().getType()).getElementType();
  if (cast<kir::ViewType>(st.getView().getType()).getRank() == 0 && !coords.rows.empty()) {
    // A reduced value is a row block even when the view has no axis: store its one row.
    off = "0 * " + coords.rows;
    mask = coords.rowMask;
  }
  std::string ptr = argName(st.getView()) + " + " + off;
  std::string val = v + ".to(" + tlType(elt) + ")";
  if (isLiteralExpr(v))
    val = "tl.full([1], " + v + ", " + tlType(elt) + ")";
  py.line(mask.empty() ? "tl.store(" + ptr + ", " + val + ")"
                       : "tl.store(" + ptr + ", " + val + ", mask=" + mask + ")");
}

//===----------------------------------------------------------------------===//
// Kernel bodies per structure
//===----------------------------------------------------------------------===//
namespace {
/// A fragment extent, step or accumulator extent: an integer or a parameter symbol.
std::string extentExpr(Attribute d) {
  if (auto i = dyn_cast<IntegerAttr>(d))
    return std::to_string(i.getInt());
  return cast<StringAttr>(d).str();
}
} // namespace

/// A dimension as a Python expression: its static value or its symbol's Python name.
std::string dimExpr(Attribute d, const providers::PythonNames &names) {
  return kir::isStaticDim(d) ? std::to_string(kir::staticDimValue(d)) : names.symbol(kir::symbolicDimName(d));
}

namespace {
/// The digits of `flat` in the mixed radix `extents` (the first outermost, the last
/// fastest), each but the first bound to a name prefixed `digit`; the quotients carried
/// between them are bound with the prefix `rest`. A level for which `divmodArgs` gives
/// the trailing arguments of a `_divmod` call splits through it, the others by `//` and `%`.
std::vector<std::string> mixedRadix(Emitter &e, const std::string &flat, const std::vector<std::string> &extents,
                                    const char *digit, const char *rest,
                                    llvm::function_ref<std::string(int)> divmodArgs = nullptr) {
  std::vector<std::string> d(extents.size());
  std::string rem = flat;
  for (int i = extents.size() - 1; i >= 1; --i) {
    if (std::string args = divmodArgs ? divmodArgs(i) : ""; !args.empty()) {
      e.numericHelpers.insert("_divmod");
      std::string quot = e.fresh(rest);
      d[i] = e.fresh(digit);
      e.py.line(quot + ", " + d[i] + " = _divmod(" + rem + ", " + extents[i] + ", " + args + ")");
      rem = quot;
      continue;
    }
    d[i] = e.bind(rem + " % " + extents[i], digit);
    rem = e.bind(rem + " // " + extents[i], rest);
  }
  if (!extents.empty())
    d[0] = rem;
  return d;
}

/// mixedRadix of a flat index in IDXT: symbolic extents divide through _divmod (one
/// multiply-high on the 32-bit path unless `aligned`, a constexpr expression, holds);
/// constant divisors take the compiler's own multiply-high.
std::vector<std::string> flatIndexDigits(Emitter &e, const std::string &flat, ArrayRef<Attribute> extents,
                                         const std::string &aligned, const char *digit, const char *rest) {
  std::vector<std::string> names;
  for (Attribute d : extents)
    names.push_back(e.dim(d));
  return mixedRadix(e, flat, names, digit, rest, [&](int i) -> std::string {
    if (kir::isStaticDim(extents[i]))
      return "";
    return e.divisorMagic(kir::symbolicDimName(extents[i])) + ", IDX64, " + aligned;
  });
}

/// Emits the coordinates of the row axes from a flat row index block `rows` ([BM, 1])
/// and of the column axes from the flat column block `cols` ([1, BN]); the outermost
/// axis of each group carries its mask (the others' digits stay within their extents).
void rowColCoords(Emitter &e, int rank, const std::string &rows, const std::string &rmask,
                  const std::string &cols, const std::string &cmask) {
  e.coords.coord.assign(rank, "");
  e.coords.mask.assign(rank, "");
  e.coords.rows = rows;
  e.coords.rowMask = rmask;
  if (rank == 0)
    return;
  auto group = [&](int from, int to, bool columns, const std::string &flat, const std::string &mask,
                   const char *digit, const char *rest) {
    if (from == to)
      return;
    e.coords.mask[from] = mask;
    if (to - from == 1) {
      e.coords.coord[from] = flat;
      return;
    }
    // Only the columns are contiguous runs (a row block is broadcast along them).
    std::string aligned = "False";
    if (Attribute inner = e.ps.extents[to - 1]; columns)
      aligned = kir::isStaticDim(inner) ? (kir::staticDimValue(inner) % 16 ? "False" : "True")
                                        : e.extentAligned(kir::symbolicDimName(inner));
    std::vector<std::string> c =
        flatIndexDigits(e, e.bind(flat, rest), ArrayRef(e.ps.extents).slice(from, to - from), aligned, digit, rest);
    std::copy(c.begin(), c.end(), e.coords.coord.begin() + from);
  };
  int firstCol = e.ps.firstColAxis();
  group(firstCol, rank, /*columns=*/true, cols, cmask, "q", "q");
  group(0, firstCol, /*columns=*/false, rows, rmask, "c", "r");
}

/// The product of the extents of canonical axes [from, to) as a Python expression.
std::string extentProduct(const ProgramStructure &ps, const providers::PythonNames &names, int from, int to) {
  std::string r;
  for (int i = from; i < to; ++i)
    r += (r.empty() ? "" : " * ") + dimExpr(ps.extents[i], names);
  return r.empty() ? "1" : r;
}
} // namespace

std::string rowsExpr(const ProgramStructure &ps, const providers::PythonNames &names) {
  return extentProduct(ps, names, 0, ps.firstColAxis());
}

std::string colsExpr(const ProgramStructure &ps, const providers::PythonNames &names) {
  return extentProduct(ps, names, ps.firstColAxis(), ps.extents.size());
}

namespace {
void emitStores(Emitter &e, Block &body, llvm::function_ref<bool(kir::StoreOp)> filter) {
  for (Operation &op : body)
    if (auto st = dyn_cast<kir::StoreOp>(op))
      if (filter(st))
        e.store(st);
}
} // namespace

/// Where split partials live (`igpu.split_merge` lanes): rows of a row
/// reduction, kept columns of a column sum, or one lane for a total.
MergeLanes mergeLanes(StringRef lanes) {
  if (lanes == "rows")
    return {"", "", "", "R", "[None, :]", "32", 1, true};
  if (lanes == "cols")
    return {"", "", "", "C", "[:, None]", "16", 0, true};
  return {"", "0", "", "1", "", "1024", 0, false};
}

/// The lanes of the kernel's split merge, if its program has one.
std::optional<std::string> splitMergeLanes(kir::KernelOp kernel) {
  igpu::ProgramOp program = programOf(kernel);
  if (!program)
    return std::nullopt;
  std::optional<std::string> lanes;
  program.walk([&](igpu::SplitMergeOp m) { lanes = m.getLanes().str(); });
  return lanes;
}

namespace {
/// Split programs merge their partial results of the selected stores in one
/// launch: with one split the program stores directly; otherwise each writes
/// the partial result of every reduction those stores read to
/// `ws[reduction, split, lane]` (f32 lanes; i32 bitcast), passes a block barrier
/// and counts itself in on its group's arrival counter (acquire-release); the last
/// to arrive combines the partials (sums add, maxima and minima take their
/// combiner), a chunk of splits per load in a fixed tree and the chunks in split
/// order (the result does not depend on arrival order), evaluates the stores'
/// epilogue on the merged results, stores and resets the counter. No zeroing
/// launch is needed before it: the counters are left at zero.
void emitSplitMerge(Emitter &e, Block &body, const MergeLanes &l, llvm::function_ref<bool(kir::StoreOp)> filter) {
  Py &py = e.py;
  // Only reduced values are partial per split; everything else the stores read (e.g. a
  // loaded row vector) is the same in every split. Values are bound on first use: bind
  // the partials here, outside both branches, and let each branch bind its own epilogue.
  std::vector<kir::ReduceOp> partials = splitPartials(e.ps, body);
  for (kir::ReduceOp r : partials)
    e.value(r.getResult(0));
  const llvm::DenseMap<Value, std::string> outside = e.cache;
  py.line("if tl.num_programs(1) == 1:");
  py.push();
  emitStores(e, body, filter);
  py.pop();
  e.cache = outside;
  py.line("else:");
  py.push();
  py.line("ns = tl.num_programs(1)");
  auto isInt = [](kir::ReduceOp r) { return isa<IntegerType>(kir::kirElementType(r.getResult(0).getType())); };
  std::string m = l.mask.empty() ? "" : ", mask=" + l.mask;
  for (auto [k, r] : llvm::enumerate(partials)) {
    std::string v = e.value(r.getResult(0));
    py.line("tl.store(ws + (" + std::to_string(k) + " * ns + tl.program_id(1)).to(tl.int64) * " + l.width + " + " +
            l.lane + ", " + (isInt(r) ? v + ".to(tl.float32, bitcast=True)" : v) + m + ")");
  }
  py.line("tl.debug_barrier()");
  py.line("if tl.atomic_add(sem + " + l.group + ", 1, sem=\"acq_rel\", scope=\"gpu\") == ns - 1:");
  py.push();
  py.line("js = tl.arange(0, " + l.chunk + ")" + l.splits);
  std::string keep = l.keep ? ", keep_dims=True" : "";
  for (auto [k, r] : llvm::enumerate(partials)) {
    // Sums add; a maximum or minimum combines with its own (NaN-propagating) combiner, the
    // splits past the last padded with its identity.
    bool sum = *r.getKind() == kir::ReduceKind::add;
    std::string fn = sum ? "" : e.combineFn(r);
    std::string ident = sum ? "0" : e.identityOf(r, 0, kir::kirElementType(r.getInputs()[0].getType()));
    auto part = [&, k = k, r = r](const std::string &j0) {
      std::string splits = "(" + j0 + " + js < ns)";
      std::string ld = "tl.load(ws + (" + std::to_string(k) + " * ns + " + j0 + " + js).to(tl.int64) * " + l.width +
                       " + " + l.lane + ", mask=" + splits + (l.mask.empty() ? "" : " & (" + l.mask + ")") +
                       ", other=0, cache_modifier=\".cg\")";
      if (isInt(r))
        ld += ".to(tl.int32, bitcast=True)";
      if (sum)
        return "tl.sum(" + ld + ", " + std::to_string(l.axis) + keep + ")";
      return "tl.reduce(tl.where(" + splits + ", " + ld + ", " + ident + "), " + std::to_string(l.axis) + ", " + fn +
             keep + ")";
    };
    std::string acc = e.fresh("merged");
    py.line(acc + " = " + part("0"));
    py.line("for j0 in range(" + l.chunk + ", ns, " + l.chunk + "):");
    py.push();
    py.line(sum ? acc + " += " + part("j0") : acc + " = " + fn + "(" + acc + ", " + part("j0") + ")");
    py.pop();
    e.cache[r.getResult(0)] = acc;
  }
  emitStores(e, body, filter);
  py.line("tl.atomic_xchg(sem + " + l.group + ", 0)  # ready for the next launch");
  py.pop();
  py.pop();
  e.cache = outside;
}
} // namespace

/// Operand `i` of a reduce/scan with its identity in the lanes outside `mask`
/// (f16/bf16 widened to f32). `tileMask`: `mask` is the tile's validity, whose
/// only false lanes in a valid row are those outside the column mask. An
/// operand that is a load of a view with the column axis, not yet emitted, is
/// loaded with the identity in those lanes instead of selected afterwards: no
/// other use reads them (stores are masked, every other reduction and scan pads
/// its own operand), and the select costs per element (the long-row softmax,
/// docs/performance.md stop 14).
std::string Emitter::padded(Operation *r, unsigned i, bool tileMask, const std::string &mask) {
  auto red = dyn_cast<kir::ReduceOp>(r);
  auto scan = dyn_cast<kir::ScanOp>(r);
  Value operand = red ? red.getInputs()[i] : scan.getInputs()[i];
  std::optional<kir::ReduceKind> kind = red ? red.getKind() : scan.getKind();
  Type elt = kir::kirElementType(operand.getType());
  std::string ident = identityOf(r, i, elt);
  // A float-to-float cast of such a load claims it too: a named reduction's identity
  // (0, 1 or an infinity) is exact in every float type, so the cast maps it to itself.
  Value loaded = operand;
  if (auto c = operand.getDefiningOp<kir::CastOp>();
      c && isa<FloatType>(elt) && isa<FloatType>(kir::kirElementType(c.getInput().getType())))
    loaded = c.getInput();
  auto load = loaded.getDefiningOp<kir::LoadOp>();
  bool claim = tileMask && load && kind && !cache.count(operand) && !cache.count(loaded) &&
               hasColAxis(ps, load.getView());
  if (claim)
    loadFill[loaded] = ident;
  std::string x = value(operand);
  if (isNarrowFloat(elt))
    x += ".to(tl.float32)";
  return claim ? x : bind("tl.where(" + mask + ", " + x + ", " + ident + ")");
}

namespace {
// --- reductions along the innermost axis --------------------------------------
/// argmax/argmin: a value result plus an index result (padding index 2^31 - 1).
bool isArgReduce(kir::ReduceOp r) {
  return r.getKind() && (*r.getKind() == kir::ReduceKind::argmax || *r.getKind() == kir::ReduceKind::argmin);
}

/// Reduction `op` over the column axis at the current coordinates, resident.
/// Returns the result variables ([BM, 1] blocks).
std::vector<std::string> treeReduce(Emitter &e, kir::ReduceOp r, const std::string &fullMask,
                                    const std::string &fn) {
  std::vector<std::string> ins;
  unsigned n = r.getInputs().size();
  bool arg = isArgReduce(r);
  for (unsigned i = 0; i < n; ++i)
    ins.push_back(e.padded(r, i, /*tileMask=*/true, fullMask));
  if (arg) {
    std::string idx = e.bind("tl.where(" + fullMask + ", (" + e.coords.coord.back() +
                             ").to(tl.int32) + tl.zeros_like(" + ins[0] + ").to(tl.int32), 2147483647)");
    ins.push_back(idx);
  }
  std::string tuple = ins.size() == 1 ? ins[0] : "(" + llvm::join(ins, ", ") + ")";
  std::vector<std::string> outs;
  for (size_t i = 0; i < ins.size(); ++i)
    outs.push_back(e.fresh("red"));
  e.py.line(llvm::join(outs, ", ") + (outs.size() == 1 ? "" : "") + " = tl.reduce(" + tuple +
            ", 1, " + fn + ", keep_dims=True)");
  return outs;
}

/// Applies a seed once: op(seed, result) (the seed is the leftmost contribution).
void applySeeds(Emitter &e, kir::ReduceOp r, std::vector<std::string> &res, const std::string &fn) {
  if (r.getInits().empty())
    return;
  std::vector<std::string> args;
  for (Value s : r.getInits())
    args.push_back(e.value(s));
  for (auto &x : res)
    args.push_back(x);
  std::vector<std::string> outs;
  for (size_t i = 0; i < res.size(); ++i)
    outs.push_back(e.fresh("seeded"));
  e.py.line(llvm::join(outs, ", ") + " = " + fn + "(" + llvm::join(args, ", ") + ")");
  res = outs;
}

void castResults(Emitter &e, kir::ReduceOp r, std::vector<std::string> &res) {
  // An arg-reduction over an empty axis saw only padding (index 2^31 - 1): its index is -1.
  bool arg = isArgReduce(r);
  for (auto [i, v] : llvm::enumerate(res)) {
    if (arg && i == 1)
      v = e.bind("tl.where(" + v + " == 2147483647, -1, " + v + ")");
    v = e.bind(v + ".to(" + tlType(r.getResult(i).getType()) + ")");
  }
}
} // namespace

// --- contraction ------------------------------------------------------------------
/// The M and N extents of a matmul (canonical axes: [batch...,] m, n, k).
std::pair<std::string, std::string> matmulMN(const ProgramStructure &ps, const providers::PythonNames &names) {
  const int m = ps.contraction->batchAxes();
  return {dimExpr(ps.extents[m], names), dimExpr(ps.extents[m + 1], names)};
}

namespace {
/// What igpu.contract and igpu.merge_k read of the contraction: its operands'
/// names and strides, and the M, N, K extents.
struct MatmulOperands {
  ContractionInfo ci;
  int nb; ///< batch axes (canonical 0 .. nb-1)
  bool batched;
  std::string a, b, M, N, K;
  std::vector<std::string> kExtents; ///< of each contracted axis; K is their product
  MatmulOperands(Emitter &e) : ci(*e.ps.contraction), nb(ci.batchAxes()), batched(nb > 0) {
    const ProgramStructure &ps = e.ps;
    a = e.argName(ci.lhsLoad.getView());
    b = e.argName(ci.rhsLoad.getView());
    std::tie(M, N) = matmulMN(ps, e.names);
    kExtents.assign(ci.kAxes(), "1");
    auto shape = cast<kir::ViewType>(ci.lhsLoad.getView().getType()).getShape();
    for (auto [d, c] : llvm::enumerate(ps.axes.lookup(ci.lhsLoad.getView())))
      if (c >= (int)ps.extents.size())
        kExtents[c - ps.extents.size()] = e.dim(shape[d]);
    K = llvm::join(kExtents, " * ");
  }
  /// Stride of operand `view` along the canonical axis `axis` ("0" when it has none).
  std::string stride(Emitter &e, Value view, int axis) const {
    for (auto [d, c] : llvm::enumerate(e.ps.axes.lookup(view)))
      if (c == axis)
        return e.argName(view) + "_s" + std::to_string(d);
    return "0";
  }
  /// How many batch axes `view` has (0 .. nb: a missing one is broadcast).
  int batchAxesOf(Emitter &e, Value view) const {
    return llvm::count_if(e.ps.axes.lookup(view), [&](int c) { return c < nb; });
  }
  /// `view` + the offset of the batch at `coords` (one per batch axis).
  std::string base(Emitter &e, Value view, const std::vector<std::string> &coords) const {
    std::string r = e.argName(view);
    for (int i = 0; i < nb; ++i)
      if (std::string st = stride(e, view, i); st != "0")
        r += " + " + coords[i] + " * " + st;
    return r;
  }
};
} // namespace

/// The product of the extents of the canonical batch axes (the flattened batch count).
std::string batchCount(Emitter &e, int nb) {
  std::vector<std::string> f;
  for (int i = 0; i < nb; ++i)
    f.push_back(e.dim(e.ps.extents[i]));
  return f.empty() ? "1" : llvm::join(f, " * ");
}

namespace {
/// An output tile as the serializer writes it: its coordinate vectors, their
/// starts (a descriptor's offsets), and the batch (the flattened one, wide, and
/// its grid id; the coordinate of each batch axis).
struct TileText {
  std::string rm, rn, mStart, nStart, batch, batchId;
  std::vector<std::string> batchCoords;
};

/// Evaluation coordinates on a contraction tile: the vector `rows` of canonical
/// axis `rowAxis` along block dim 0, `cols` of `colAxis` along dim 1, each
/// masked by its extent; the batch coordinates (if any) on axes 0, 1, ....
/// `extraAxes`: the canonical axes past the iteration space that get a slot (a
/// matmul's K; a region's keys and the scores' K).
void setTileCoords(Emitter &e, const TileText &t, int rowAxis, const std::string &rows, const std::string &rowExtent,
                   int colAxis, const std::string &cols, const std::string &colExtent, int extraAxes = 1) {
  int rank = e.ps.extents.size();
  e.coords = Coords();
  e.coords.coord.assign(rank + extraAxes, "");
  e.coords.mask.assign(rank + extraAxes, "");
  for (auto [i, c] : llvm::enumerate(t.batchCoords))
    if (!c.empty())
      e.coords.coord[i] = c;
  e.coords.coord[rowAxis] = rows + ".to(tl.int64)[:, None]";
  e.coords.mask[rowAxis] = rows + "[:, None] < " + rowExtent;
  e.coords.coord[colAxis] = cols + ".to(tl.int64)[None, :]";
  e.coords.mask[colAxis] = cols + "[None, :] < " + colExtent;
}

/// The input_precision of a tl.dot realizing `op`: IEEE for f32 operands unless the op
/// says tf32 (16-bit and 8-bit operands ignore it).
std::string dotPrecision(kir::ContractOp op) {
  return kir::kirElementType(op.getLhs().getType()).isF32() ? (op.getTf32() ? "\"tf32\"" : "\"ieee\"") : "\"tf32\"";
}

/// Triton's CPU interpreter reads bf16 dot operands as raw bits; bf16 products are exact
/// in f32, so the dot of `a` and `b` cast to f32 there computes the same sum.
void interpretedBf16(Py &py, Type operandElt, const std::string &a, const std::string &b) {
  if (!operandElt.isBF16())
    return;
  py.line("if _INTERPRETED:");
  py.line("    " + a + ", " + b + " = " + a + ".to(tl.float32), " + b + ".to(tl.float32)");
}

/// igpu.contract: the f32 accumulator of the output tile (rows x cols) over the
/// K tiles [lo, hi), operands through host-side tensor descriptors (candidates
/// with USE_TENSOR_DESCRIPTOR) or by pointer.
void emitContract(Emitter &e, bool tma, const TileText &t, const std::string &lo, const std::string &hi) {
  MatmulOperands mo(e);
  const std::string &rm = t.rm, &rn = t.rn;
  ContractionInfo &ci = mo.ci;
  Py &py = e.py;
  int rank = e.ps.extents.size(); // [batch...,] m, n
  int mAx = mo.nb, nAx = mo.nb + 1, kAx = rank;
  const std::string &M = mo.M, &N = mo.N, &kDim = mo.K;
  Value lhs = ci.lhsLoad.getView(), rhs = ci.rhsLoad.getView();
  Type inElt = kir::kirElementType(ci.op.getLhs().getType());
  // A pointwise prologue runs on each K tile after the load, at the tile's
  // coordinates; past K its lanes are zeroed again unless it is casts only.
  bool anyPrologue = ci.lhsPrologue || ci.rhsPrologue;
  auto prologue = [&](Value operand, kir::LoadOp load, bool zeroPreserving, const char *var, bool isLhs) {
    if (operand == load.getResult())
      return;
    if (isLhs)
      setTileCoords(e, t, mAx, rm, M, kAx, "rk", kDim);
    else
      setTileCoords(e, t, kAx, "rk", kDim, nAx, rn, N);
    e.cache = e.invariant;
    e.cache[load.getResult()] = var;
    std::string v = e.value(operand);
    py.line(std::string(var) + " = " + (zeroPreserving ? v : "tl.where(" + e.coords.mask[kAx] + ", " + v + ", 0.0)"));
  };
  // PROLOGUE_ONCE candidates load workspaces that already hold the prologues' values.
  auto prologues = [&] {
    if (anyPrologue) {
      py.line("if not PROLOGUE_ONCE:");
      py.push();
    }
    prologue(ci.op.getLhs(), ci.lhsLoad, ci.lhsZeroPreserving, "av", true);
    prologue(ci.op.getRhs(), ci.rhsLoad, ci.rhsZeroPreserving, "bv", false);
    if (anyPrologue)
      py.pop();
  };
  std::string precision = dotPrecision(ci.op);
  py.line("acc = tl.zeros([BM, BN], dtype=tl.float32)");
  std::string aBase = mo.base(e, lhs, t.batchCoords), bBase = mo.base(e, rhs, t.batchCoords);
  std::string sam = mo.stride(e, lhs, mAx), sak = mo.stride(e, lhs, kAx);
  std::string sbk = mo.stride(e, rhs, kAx), sbn = mo.stride(e, rhs, nAx);
  std::string loop = "for k in tl.range(" + lo + ", " + hi + ", num_stages=NUM_STAGES):";
  if (tma) {
    // Unbatched: host-side descriptors built by the launcher for the candidate's
    // block shape (measured 2-6% faster than device-side ones on the H200).
    auto descLoad = [](const char *desc, bool transposed, const std::string &outer,
                       const std::string &inner) {
      return transposed ? std::string(desc) + ".load([" + inner + ", " + outer + "]).T"
                        : std::string(desc) + ".load([" + outer + ", " + inner + "])";
    };
    auto descLoop = [&](const char *ad, const char *bd, const std::string &aRows, const std::string &bRows) {
      py.line(loop);
      py.push();
      py.line("av = " + descLoad(ad, ci.lhsTransposed, (ci.lhsTransposed ? "" : aRows) + t.mStart,
                                 (ci.lhsTransposed ? aRows : "") + "k * BK"));
      py.line("bv = " + descLoad(bd, ci.rhsTransposed, (ci.rhsTransposed ? "" : bRows) + "k * BK",
                                 (ci.rhsTransposed ? bRows : "") + t.nStart));
      if (anyPrologue) {
        py.line("rk = k * BK + tl.arange(0, BK)");
        prologues();
      }
      interpretedBf16(py, inElt, "av", "bv");
      py.line("acc = tl.dot(av, bv, acc, input_precision=" + precision + ")");
      py.pop();
    };
    py.line("if USE_TENSOR_DESCRIPTOR:");
    py.push();
    if (mo.batched) {
      // FLAT (launcher): every operand is batch-contiguous and no tile crosses a
      // batch, so 2-D host descriptors over [batch * rows, cols] serve every batch
      // (probe: 689 vs 600 TFLOP/s for one row at 16x2048^3). 3-D host descriptors (block
      // [1, BM, BK] + reshape) measured 3x slower; otherwise build 2-D ones per
      // program here.
      py.line("if FLAT:");
      py.push();
      // An operand without batch axes is one 2-D matrix for every batch.
      auto flatRows = [&](Value view, const std::string &outer) {
        return mo.batchAxesOf(e, view) ? t.batchId + " * " + outer + " + " : std::string();
      };
      descLoop("a_desc", "b_desc", flatRows(lhs, ci.lhsTransposed ? kDim : M),
               flatRows(rhs, ci.rhsTransposed ? N : kDim));
      py.pop();
      py.line("else:");
      py.push();
      if (ci.lhsTransposed)
        py.line("a_ddesc = tl.make_tensor_descriptor(" + aBase + ", shape=[" + kDim + ", " + M + "], strides=[" + sak + ", 1], block_shape=[BK, BM])");
      else
        py.line("a_ddesc = tl.make_tensor_descriptor(" + aBase + ", shape=[" + M + ", " + kDim + "], strides=[" + sam + ", 1], block_shape=[BM, BK])");
      if (ci.rhsTransposed)
        py.line("b_ddesc = tl.make_tensor_descriptor(" + bBase + ", shape=[" + N + ", " + kDim + "], strides=[" + sbn + ", 1], block_shape=[BN, BK])");
      else
        py.line("b_ddesc = tl.make_tensor_descriptor(" + bBase + ", shape=[" + kDim + ", " + N + "], strides=[" + sbk + ", 1], block_shape=[BK, BN])");
      descLoop("a_ddesc", "b_ddesc", "", "");
      py.pop();
    } else {
      descLoop("a_desc", "b_desc", "", "");
    }
    py.pop();
    py.line("else:");
    py.push();
  }
  py.line(loop);
  py.push();
  py.line("rk = k * BK + tl.arange(0, BK)");
  // Several contracted axes: rk indexes their product, the last fastest.
  std::vector<std::string> kIdx = mixedRadix(e, "rk", mo.kExtents, "rk", "rk");
  std::string aK, bK;
  for (auto [j, idx] : llvm::enumerate(kIdx)) {
    aK += " + " + idx + "[None, :].to(tl.int64) * " + mo.stride(e, lhs, kAx + j);
    bK += " + " + idx + "[:, None].to(tl.int64) * " + mo.stride(e, rhs, kAx + j);
  }
  py.line("av = tl.load(" + aBase + " + " + rm + "[:, None].to(tl.int64) * " + sam + aK +
          ", mask=(" + rm + "[:, None] < " + M + ") & (rk[None, :] < " + kDim + "), other=0.0)");
  py.line("bv = tl.load(" + bBase + bK + " + " + rn + "[None, :].to(tl.int64) * " + sbn +
          ", mask=(rk[:, None] < " + kDim + ") & (" + rn + "[None, :] < " + N + "), other=0.0)");
  prologues();
  interpretedBf16(py, inElt, "av", "bv");
  py.line("acc = tl.dot(av, bv, acc, input_precision=" + precision + ")");
  py.pop();
  if (tma)
    py.pop();
}

/// A store of the epilogue, and whether descriptor candidates store it through one.
struct EpilogueStore {
  kir::StoreOp store;
  bool descriptor;
  int64_t slices; ///< column slices of a descriptor store (1 or 2)
};

/// igpu.merge_k: split K programs write f32 partials to a workspace and count
/// themselves in on the tile's arrival counter (`group`); the last to arrive
/// adds the partials in split order (so the sum does not depend on arrival
/// order), resets the counter and runs the epilogue (`stores`) at the tile's
/// coordinates. One launch: no second kernel, no second host launch.
void emitMergeK(Emitter &e, bool tma, const std::string &group, const TileText &t,
                const std::vector<EpilogueStore> &stores) {
  MatmulOperands mo(e);
  const std::string &rm = t.rm, &rn = t.rn, &batch = t.batch;
  Py &py = e.py;
  int mAx = mo.nb, nAx = mo.nb + 1;
  const std::string &M = mo.M, &N = mo.N;
  std::string wsOffset = "((s * " + batchCount(e, mo.nb) + " + " +
                         (mo.batched ? batch : "0") + ") * " + M + " + " + rm + ".to(tl.int64)[:, None]) * " + N +
                         " + " + rn + ".to(tl.int64)[None, :]";
  std::string outMask = "(" + rm + "[:, None] < " + M + ") & (" + rn + "[None, :] < " + N + ")";
  py.line("last = True");
  py.line("if SPLIT_K > 1:");
  py.line("    s = tl.program_id(2)");
  py.line("    tl.store(ws + " + wsOffset + ", acc, mask=" + outMask + ")");
  py.line("    tl.debug_barrier()  # every thread's partial is written before the count");
  py.line("    last = tl.atomic_add(sem + " + group + ", 1, sem=\"acq_rel\", scope=\"gpu\") == SPLIT_K - 1");
  py.line("if last:");
  py.push();
  py.line("if SPLIT_K > 1:");
  py.line("    acc = tl.zeros([BM, BN], dtype=tl.float32)");
  py.line("    for s in range(0, SPLIT_K):");
  py.line("        acc += tl.load(ws + " + wsOffset + ", mask=" + outMask + ", other=0.0, cache_modifier=\".cg\")");
  py.line("    tl.atomic_xchg(sem + " + group + ", 0)  # ready for the next launch");
  // Epilogue: the rest of the kernel at output coordinates.
  setTileCoords(e, t, mAx, rm, M, nAx, rn, N);
  e.cache = e.invariant;
  Type accElt = kir::kirElementType(mo.ci.op.getType());
  e.cache[mo.ci.op.getResult()] = accElt.isF32() ? "acc" : e.bind("acc.to(" + tlType(accElt) + ")");
  auto storeAll = [&] {
    for (const EpilogueStore &s : stores)
      e.store(s.store);
  };
  bool anyDescriptor = llvm::any_of(stores, [](const EpilogueStore &s) { return s.descriptor; });
  if (tma && anyDescriptor) {
    // Descriptor candidates store [M, N] outputs through host-side descriptors
    // too (TMA store, like the hand-written TMA kernel; it clips at the edges).
    // Batched: only with FLAT, through [batch * M, N].
    auto entry = e.cache;
    std::string rowOff = mo.batched ? t.batchId + " * " + M + " + " : "";
    py.line("if USE_TENSOR_DESCRIPTOR:");
    py.push();
    if (mo.batched) {
      py.line("if FLAT:");
      py.push();
    }
    for (const EpilogueStore &es : stores) {
      kir::StoreOp st = es.store;
      if (!es.descriptor) {
        e.store(st);
        continue;
      }
      std::string v = e.value(st.getValue());
      std::string elt = tlType(cast<kir::ViewType>(st.getView().getType()).getElementType());
      std::string tile = isLiteralExpr(v) ? "tl.full([BM, BN], " + v + ", " + elt + ")"
                                  : "tl.broadcast_to(" + v + ".to(" + elt + "), [BM, BN])";
      std::string out = e.argName(st.getView()), at = "[" + rowOff + t.mStart + ", ";
      if (es.slices == 2) {
        py.line(out + "_olo, " + out + "_ohi = tl.split(tl.permute(tl.reshape(" + tile + ", [BM, 2, BN // 2]), (0, 2, 1)))");
        py.line(out + "_odesc.store(" + at + t.nStart + "], " + out + "_olo)");
        py.line(out + "_odesc.store(" + at + t.nStart + " + BN // 2], " + out + "_ohi)");
      } else {
        py.line(out + "_odesc.store(" + at + t.nStart + "], " + tile + ")");
      }
    }
    py.pop();
    if (mo.batched) {
      py.line("else:");
      py.push();
      e.cache = entry; // names bound in the descriptor branch do not exist here
      storeAll();
      py.pop();
      py.pop();
    }
    py.line("else:");
    py.push();
    e.cache = entry;
    storeAll();
    py.pop();
  } else {
    storeAll();
  }
  py.pop();
}

// --- the blocked program (igpu.program) ------------------------------------------
/// Serializes an igpu.program op by op. Index values become Python expressions,
/// inline unless the program named them (then bound once, where they are
/// defined); the ops that evaluate KIR values do so at the coordinates of the
/// last igpu.at.
class ProgramEmitter {
public:
  ProgramEmitter(Emitter &e, Block &body, bool tma) : e(e), py(e.py), body(body), tma(tma) {}

  void run(igpu::ProgramOp program) {
    // Combiners first, in reduction order: their helper names do not depend on the body.
    for (Operation *op : e.ps.reductions)
      fns[op] = e.combineFn(op);
    e.hoistInvariants(body);
    kept = e.invariant;
    walk(program.getRegion().front());
  }

private:
  struct Expr {
    std::string text;
    int prec; ///< Python precedence: 1 and, 3 comparison, 5 &, 7 + -, 8 *, 100 atom
  };
  Emitter &e;
  Py &py;
  Block &body;
  bool tma; ///< the program has USE_TENSOR_DESCRIPTOR candidates
  llvm::DenseMap<Value, Expr> exprs;
  /// Values valid at any coordinates: the program invariants and the results of
  /// the reductions run so far.
  llvm::DenseMap<Value, std::string> kept;
  std::map<Operation *, std::string> fns;

  std::string text(Value v, int minPrec = 0) {
    auto it = exprs.find(v);
    if (it == exprs.end()) { // an operand the serializer could not form (e.error says which)
      if (e.error.empty())
        e.error = "the Triton serializer met a program value it has no form for";
      return "None";
    }
    return it->second.prec < minPrec ? "(" + it->second.text + ")" : it->second.text;
  }
  Expr binary(Operation *op, const char *sym, int prec) {
    // `(a // b) * c`, `(a % b) % c`: only a chain of products goes without parentheses.
    Operation *lhs = op->getOperand(0).getDefiningOp();
    bool mixed = lhs && isa<arith::DivUIOp, arith::RemUIOp>(lhs) && isa<arith::MulIOp, arith::DivUIOp, arith::RemUIOp>(op);
    return {text(op->getOperand(0), mixed ? 100 : prec) + " " + sym + " " + text(op->getOperand(1), prec + 1), prec};
  }
  Operation *reduction(int64_t n) { return e.ps.reductions[n]; }
  kir::StoreOp storeOf(int64_t view) {
    for (auto st : body.getOps<kir::StoreOp>())
      if (st.getView() == body.getArgument(view))
        return st;
    llvm_unreachable("verified: the view is stored");
  }
  void results(Operation *r, const std::vector<std::string> &res) {
    for (unsigned k = 0; k < r->getNumResults(); ++k) {
      e.cache[r->getResult(k)] = res[k];
      kept[r->getResult(k)] = res[k];
    }
  }

  void walk(Block &b) {
    for (Operation &op : b)
      visit(&op);
  }
  /// A loop `header`, whose body (one block, its argument the Python variable `iv`) runs indented.
  void loop(const std::string &header, const std::string &iv, Region &region) {
    py.line(header);
    exprs[region.front().getArgument(0)] = Expr{iv, 100};
    py.push();
    walk(region.front());
    py.pop();
  }
  std::optional<Expr> indexExpr(Operation *op);
  void visit(Operation *op);
  /// The tile of igpu.contract / igpu.merge_k (verified: igpu.range coordinates, a program-id batch).
  TileText tileText(Value rows, Value cols, Value batch) {
    TileText t{text(rows), text(cols), text(rows.getDefiningOp<igpu::RangeOp>().getStart()),
               text(cols.getDefiningOp<igpu::RangeOp>().getStart()), "", ""};
    if (batch) {
      t.batch = text(batch);
      t.batchId = text(batch.getDefiningOp<igpu::WideOp>().getValue()); // 32 bits, for descriptor coordinates
      std::vector<std::string> extents;
      int nb = e.ps.region ? e.ps.region->batch : e.ps.contraction->batchAxes();
      for (int i = 0; i < nb; ++i)
        extents.push_back(e.dim(e.ps.extents[i]));
      t.batchCoords = mixedRadix(e, t.batch, extents, "b", "b");
    }
    return t;
  }
  void fold(igpu::FoldOp f);
  void scan(igpu::ScanOp s);
  void regionContract(igpu::RegionContractOp op);
};
} // namespace

std::optional<ProgramEmitter::Expr> ProgramEmitter::indexExpr(Operation *op) {
  if (auto p = dyn_cast<igpu::ProgramIdOp>(op))
    return Expr{"tl.program_id(" + std::to_string(p.getAxis()) + ")", 100};
  if (auto w = dyn_cast<igpu::WideOp>(op))
    return Expr{text(w.getValue(), 100) + ".to(tl.int64)", 100};
  if (auto p = dyn_cast<igpu::ParamOp>(op))
    return Expr{p.getSymbol().str(), 100};
  if (auto x = dyn_cast<igpu::ExtentOp>(op))
    return Expr{x.getWhich().str(), 100};
  if (auto x = dyn_cast<igpu::AxisExtentOp>(op)) {
    if (x.getAxis() < e.ps.extents.size())
      return Expr{e.dim(e.ps.extents[x.getAxis()]), 100};
    if (x.getAxis() == e.ps.extents.size() && e.ps.contraction)
      return Expr{MatmulOperands(e).K, 100};
    e.error = "igpu.axis_extent " + std::to_string(x.getAxis()) + " is not an axis of the program";
    return Expr{"None", 100};
  }
  if (auto c = dyn_cast<arith::ConstantOp>(op))
    return Expr{std::to_string(cast<IntegerAttr>(c.getValue()).getInt()), 100};
  if (isa<arith::MulIOp>(op))
    return binary(op, "*", 8);
  if (isa<arith::AddIOp>(op))
    return binary(op, "+", 7);
  if (isa<arith::SubIOp>(op))
    return binary(op, "-", 7);
  if (isa<arith::DivUIOp>(op))
    return binary(op, "//", 8);
  if (isa<arith::RemUIOp>(op))
    return binary(op, "%", 8);
  if (isa<arith::CeilDivSIOp>(op))
    return Expr{"tl.cdiv(" + text(op->getOperand(0)) + ", " + text(op->getOperand(1)) + ")", 100};
  if (isa<arith::MinSIOp>(op))
    return Expr{"tl.minimum(" + text(op->getOperand(0)) + ", " + text(op->getOperand(1)) + ")", 100};
  if (isa<arith::MaxSIOp>(op))
    return Expr{"tl.maximum(" + text(op->getOperand(0)) + ", " + text(op->getOperand(1)) + ")", 100};
  if (auto c = dyn_cast<arith::CmpIOp>(op)) {
    using P = arith::CmpIPredicate;
    const char *sym = c.getPredicate() == P::eq ? "==" : c.getPredicate() == P::ule || c.getPredicate() == P::sle ? "<=" : nullptr;
    if (sym)
      return binary(op, sym, 3);
  }
  if (isa<arith::AndIOp>(op))
    return binary(op, "and", 1);
  if (auto r = dyn_cast<igpu::RangeOp>(op)) {
    std::string lanes = "tl.arange(0, " + extentExpr(r.getSize()) + ")";
    if (cast<igpu::FragmentType>(r.getType()).getShape().size() == 1) // a contraction tile's coordinates
      return Expr{text(r.getStart(), 7) + " + " + lanes, 7};
    auto c = r.getStart().getDefiningOp<arith::ConstantOp>();
    std::string v = c && cast<IntegerAttr>(c.getValue()).getInt() == 0
                        ? lanes
                        : "(" + text(r.getStart(), 7) + " + " + lanes + ")";
    return Expr{v + ".to(IDXT)" + (r.getDim() == 0 ? "[:, None]" : "[None, :]"), 100};
  }
  if (isa<igpu::ZeroOp>(op))
    return Expr{"tl.zeros([1, 1], dtype=tl.int64)", 100};
  if (isa<igpu::LessOp>(op))
    return binary(op, "<", 3);
  if (isa<igpu::AndOp>(op))
    return binary(op, "&", 5);
  return std::nullopt;
}

void ProgramEmitter::visit(Operation *op) {
  if (op->getNumResults() == 1) {
    std::optional<Expr> x = indexExpr(op);
    if (!x) {
      e.error = "the Triton serializer has no form for '" + op->getName().getStringRef().str() + "'";
      return;
    }
    if (auto name = op->getAttrOfType<StringAttr>(igpu::variableNameAttr(op))) {
      py.line(name.str() + " = " + x->text);
      x = Expr{name.str(), 100};
    }
    exprs[op->getResult(0)] = *x;
    return;
  }
  int rank = e.ps.extents.size();
  if (auto at = dyn_cast<igpu::AtOp>(op)) {
    rowColCoords(e, rank, text(at.getRows()), at.getRowMask() ? text(at.getRowMask()) : "", text(at.getCols()),
                 at.getColMask() ? text(at.getColMask()) : "");
    e.cache = kept;
  } else if (auto st = dyn_cast<igpu::StoreOp>(op)) {
    e.store(storeOf(st.getView()));
  } else if (auto m = dyn_cast<igpu::SplitMergeOp>(op)) {
    ArrayRef<int64_t> views = m.getViews();
    MergeLanes l = mergeLanes(m.getLanes());
    l.group = text(m.getGroup());
    if (m.getLane())
      l.lane = text(m.getLane());
    if (m.getMask())
      l.mask = text(m.getMask());
    emitSplitMerge(e, body, l, [&](kir::StoreOp st) {
      return llvm::is_contained(views, cast<BlockArgument>(st.getView()).getArgNumber());
    });
  } else if (auto red = dyn_cast<igpu::ReduceOp>(op)) {
    // Resident: one tree over the row in registers.
    auto r = cast<kir::ReduceOp>(reduction(red.getReduction()));
    auto res = treeReduce(e, r, text(red.getMask()), fns[r]);
    applySeeds(e, r, res, fns[r]);
    castResults(e, r, res);
    results(r, res);
  } else if (auto f = dyn_cast<igpu::FoldOp>(op)) {
    fold(f);
  } else if (auto s = dyn_cast<igpu::ScanOp>(op)) {
    scan(s);
  } else if (auto init = dyn_cast<igpu::InitAccOp>(op)) {
    auto r = cast<kir::ReduceOp>(reduction(init.getReduction()));
    Type elt = kir::kirElementType(r.getInputs()[0].getType());
    std::string shape;
    for (Attribute d : init.getShape())
      shape += (shape.empty() ? "" : ", ") + extentExpr(d);
    py.line("acc = tl.full([" + shape + "], " + e.identityOf(r, 0, elt) + ", " +
            (isNarrowFloat(elt) ? "tl.float32" : tlType(elt)) + ")");
  } else if (auto acc = dyn_cast<igpu::AccumulateOp>(op)) {
    auto r = cast<kir::ReduceOp>(reduction(acc.getReduction()));
    Type elt = kir::kirElementType(r.getInputs()[0].getType());
    std::string x = e.value(r.getInputs()[0]);
    if (isNarrowFloat(elt))
      x += ".to(tl.float32)";
    py.line("acc = " + fns[r] + "(acc, tl.where(" + text(acc.getMask()) + ", " + x + ", " +
            e.identityOf(r, 0, elt) + "))");
  } else if (auto fin = dyn_cast<igpu::FinishOp>(op)) {
    auto r = cast<kir::ReduceOp>(reduction(fin.getReduction()));
    std::string v = "acc";
    ArrayRef<int64_t> dims = fin.getDims();
    for (auto [i, d] : llvm::enumerate(dims))
      v = "tl.reduce(" + v + ", " + std::to_string(d) + ", " + fns[r] +
          (fin.getKeep() && i + 1 == dims.size() ? ", keep_dims=True)" : ")");
    py.line("res = " + v);
    if (fin.getSeed())
      py.line("res = tl.where(" + text(fin.getSeed()) + ", " + fns[r] + "(" + e.value(r.getInits()[0]) +
              ", res), res)");
    results(r, {"res"});
  } else if (auto forOp = dyn_cast<igpu::ForOp>(op)) {
    std::string iv = forOp.getName().str();
    loop("for " + iv + " in range(" + text(forOp.getLo()) + ", " + text(forOp.getHi()) + ", " +
             text(forOp.getStep()) + "):",
         iv, forOp.getRegion());
  } else if (auto walkOp = dyn_cast<igpu::PersistentOp>(op)) {
    std::string iv = walkOp.getName().str();
    loop("for " + iv + " in tl.range(tl.program_id(0), " + text(walkOp.getCount()) + ", tl.num_programs(0)):", iv,
         walkOp.getRegion());
  } else if (auto split = dyn_cast<igpu::SplitRangeOp>(op)) {
    std::string n = split.getName().str(), count = text(split.getCount()), parts = split.getSplit().str();
    py.line("if " + parts + " > 1:");
    py.line("    " + n + "_per = tl.cdiv(" + count + ", " + parts + ")");
    py.line("    " + n + "_lo = tl.program_id(" + std::to_string(split.getAxis()) + ") * " + n + "_per");
    py.line("    " + n + "_hi = tl.minimum(" + n + "_lo + " + n + "_per, " + count + ")");
    py.line("else:");
    py.line("    " + n + "_lo = 0");
    py.line("    " + n + "_hi = " + count);
    exprs[split.getLo()] = Expr{n + "_lo", 100};
    exprs[split.getHi()] = Expr{n + "_hi", 100};
  } else if (auto contract = dyn_cast<igpu::ContractOp>(op)) {
    emitContract(e, tma, tileText(contract.getRows(), contract.getCols(), contract.getBatch()),
                 text(contract.getLo()), text(contract.getHi()));
  } else if (auto merge = dyn_cast<igpu::MergeKOp>(op)) {
    std::vector<EpilogueStore> stores;
    for (auto st : merge.getRegion().front().getOps<igpu::StoreOp>())
      stores.push_back({storeOf(st.getView()), st.getDescriptor(), int64_t(st.getSlices().value_or(1))});
    emitMergeK(e, tma, text(merge.getGroup()), tileText(merge.getRows(), merge.getCols(), merge.getBatch()), stores);
  } else if (auto rc = dyn_cast<igpu::RegionContractOp>(op)) {
    regionContract(rc);
  } else if (auto choice = dyn_cast<igpu::IfOp>(op)) {
    // Each branch sees only what was evaluated before the choice.
    auto cache = e.cache;
    auto before = kept;
    py.line("if " + text(choice.getCondition()) + ":");
    py.push();
    walk(choice.getThenBody().front());
    py.pop();
    py.line("else:");
    py.push();
    e.cache = cache;
    kept = before;
    walk(choice.getElseBody().front());
    py.pop();
  } else {
    e.error = "the Triton serializer has no form for '" + op->getName().getStringRef().str() + "'";
  }
}

/// Reductions over [lo, hi) in chunks, in one pass: per reduction an accumulator
/// per row and lane, then one tree over the lanes (tree policy); one column per
/// step in the policy's order otherwise. The reductions' operands share the
/// pass's loads.
void ProgramEmitter::fold(igpu::FoldOp f) {
  struct Folded {
    kir::ReduceOp r;
    std::vector<std::string> acc;
  };
  int rank = e.ps.extents.size();
  std::string rows = text(f.getRows()), rmask = text(f.getRowMask());
  std::string width = extentExpr(f.getStep());
  bool seq = f.getPolicy() != kir::stringifyPolicy(kir::Policy::unordered_tree);
  std::vector<Folded> folded;
  for (int64_t n : f.getReductions()) {
    Folded fr{cast<kir::ReduceOp>(reduction(n)), {}};
    kir::ReduceOp r = fr.r;
    unsigned inputs = r.getInputs().size();
    bool seeded = !r.getInits().empty() && seq;
    for (unsigned k = 0; k < inputs + (isArgReduce(r) ? 1 : 0); ++k) {
      Type elt = k < inputs ? kir::kirElementType(r.getInputs()[k].getType()) : Type();
      std::string init = seeded ? e.value(r.getInits()[k])
                                : e.identityOf(r, k, elt ? elt : kir::kirElementType(r.getInputs()[0].getType()));
      std::string dt = k < inputs ? (isNarrowFloat(elt) ? "tl.float32" : tlType(elt)) : "tl.int32";
      fr.acc.push_back("acc" + std::to_string(n) + "_" + std::to_string(k));
      py.line(fr.acc.back() + " = tl.full([OWN_M, " + width + "], " + init + ", " + dt + ")");
    }
    folded.push_back(std::move(fr));
  }
  // One chunk's operands (identities where masked): per reduction, its inputs, plus the
  // column index of an argmax/argmin.
  auto chunk = [&]() {
    if (f.getReverse())
      py.line("cols = (C - 1 - c0 - tl.arange(0, 1)).to(IDXT)[None, :]");
    else
      py.line("cols = (c0 + tl.arange(0, " + width + ")).to(IDXT)[None, :]");
    py.line("cmask = (cols < C) & (cols >= 0)");
    rowColCoords(e, rank, rows, rmask, "cols", "cmask");
    e.cache = kept;
    std::vector<std::vector<std::string>> all;
    for (Folded &fr : folded) {
      std::vector<std::string> xs;
      for (unsigned k = 0; k < fr.r.getInputs().size(); ++k)
        xs.push_back(e.padded(fr.r, k, /*tileMask=*/true, rmask + " & cmask"));
      if (isArgReduce(fr.r))
        xs.push_back(e.bind("tl.where(" + rmask + " & cmask, cols.to(tl.int32) + tl.zeros_like(" + xs[0] +
                            ").to(tl.int32), 2147483647)"));
      all.push_back(std::move(xs));
    }
    return all;
  };
  // Masked lanes (rows beyond R) may fold identities; they are never stored.
  auto combine = [&](Folded &fr, const std::vector<std::string> &xs) {
    std::vector<std::string> args;
    if (f.getReverse()) { // fold_right: acc = op(x, acc)
      args = xs;
      args.insert(args.end(), fr.acc.begin(), fr.acc.end());
    } else {
      args = fr.acc;
      args.insert(args.end(), xs.begin(), xs.end());
    }
    py.line(llvm::join(fr.acc, ", ") + " = " + fns[fr.r] + "(" + llvm::join(args, ", ") + ")");
  };
  std::string lo = text(f.getLo()), hi = text(f.getHi());
  // A pass that stores its chunks reads each chunk, adds it and stores from it: the
  // stores need the chunk's coordinates, which a double buffer would have moved on.
  bool storing = !f.getStores().empty();
  if (seq || f.getReverse() || storing) {
    py.line("for c0 in range(" + lo + ", " + hi + ", " + width + "):");
    py.push();
    auto all = chunk();
    for (auto [fr, xs] : llvm::zip(folded, all))
      combine(fr, xs);
    if (storing)
      walk(f.getStores().front());
    py.pop();
  } else {
    // Tree folds read the next chunk before adding the current one: the loop keeps
    // a chunk's loads in flight while it adds (a register double buffer). The first
    // chunk is read before the loop; past hi (an empty range) it is all identities.
    py.line("c0 = " + lo);
    std::vector<std::vector<std::string>> next;
    for (auto [fr, xs] : llvm::zip(folded, chunk())) {
      std::vector<std::string> names;
      for (auto [k, x] : llvm::enumerate(xs)) {
        names.push_back("nx" + fr.acc[k].substr(3));
        py.line(names.back() + " = " + x);
      }
      next.push_back(std::move(names));
    }
    py.line("for c0 in range(" + lo + " + " + width + ", " + hi + ", " + width + "):");
    py.push();
    auto all = chunk();
    for (auto [fr, nx, xs] : llvm::zip(folded, next, all)) {
      combine(fr, nx);
      py.line(llvm::join(nx, ", ") + " = " + llvm::join(xs, ", "));
    }
    py.pop();
    for (auto [fr, nx] : llvm::zip(folded, next))
      combine(fr, nx);
  }
  for (Folded &fr : folded) {
    std::vector<std::string> res;
    if (seq) {
      res = fr.acc;
    } else {
      std::string tuple = fr.acc.size() == 1 ? fr.acc[0] : "(" + llvm::join(fr.acc, ", ") + ")";
      for (size_t k = 0; k < fr.acc.size(); ++k)
        res.push_back(e.fresh("red"));
      py.line(llvm::join(res, ", ") + " = tl.reduce(" + tuple + ", 1, " + fns[fr.r] + ", keep_dims=True)");
      applySeeds(e, fr.r, res, fns[fr.r]);
    }
    castResults(e, fr.r, res);
    results(fr.r, res);
  }
}

/// The extent of canonical axis `axis` as `view` (which has it) names it.
std::string viewAxisExtent(Emitter &e, Value view, int axis) {
  auto shape = cast<kir::ViewType>(view.getType()).getShape();
  for (auto [d, c] : llvm::enumerate(e.ps.axes.lookup(view)))
    if (c == axis)
      return e.dim(shape[d]);
  llvm_unreachable("the structure gave the view this axis");
}

/// igpu.region_contract (attention): per level of reductions over the keys, one pass
/// over the key chunks that recomputes the score tile s = lhs x rhs^T of the first
/// contraction and folds each reduction's operand (evaluated on s at the tile's (row,
/// key) coordinates) into per-lane accumulators, then one tree per row; a last pass
/// accumulates the second contraction, its left operand evaluated on s with lanes past
/// the keys zeroed. The epilogue's stores run at (rows x cols). With one K chunk
/// (KONE, bound at launch) the left operand of the scores is loaded once per pass.
void ProgramEmitter::regionContract(igpu::RegionContractOp op) {
  RegionInfo ri = *e.ps.region; // a copy: op accessors are not const
  const int rank = e.ps.extents.size();
  const int mAx = rank - 2, dAx = rank - 1, nAx = ri.keyAxis(rank), kAx = ri.innerAxis(rank);
  TileText t = tileText(op.getRows(), op.getCols(), op.getBatch());
  const std::string M = e.dim(e.ps.extents[mAx]), D = e.dim(e.ps.extents[dAx]);
  const std::string N = viewAxisExtent(e, ri.values.rhsLoad.getView(), nAx);
  const std::string K = viewAxisExtent(e, ri.scores.lhsLoad.getView(), kAx);
  // Coordinates on a tile of two of the axes (the keys and the scores' K get slots too).
  auto at = [&](int rowAx, const std::string &rows, const std::string &rowExt, int colAx, const std::string &cols,
                const std::string &colExt) {
    setTileCoords(e, t, rowAx, rows, rowExt, colAx, cols, colExt, 2);
    e.cache = kept;
  };
  // An operand tile of a contraction (its load and prologue); lanes past the
  // extents are 0 (loaded as 0, and zeroed again after a prologue that may move them).
  auto operand = [&](Value v, bool zeroPreserving) {
    std::string x = e.value(v);
    return zeroPreserving ? x : e.bind("tl.where(" + e.fullMask() + ", " + x + ", 0)");
  };
  auto lhsTile = [&](const std::string &rk) {
    at(mAx, t.rm, M, kAx, rk, K);
    return operand(ri.scores.op.getLhs(), ri.scores.lhsZeroPreserving);
  };
  // Values every chunk of a pass shares: the results of finished levels and the program
  // invariants, through pure ops (no load, no unfinished reduction).
  std::function<bool(Value)> shared = [&](Value v) {
    if (kept.count(v))
      return true;
    Operation *d = v.getDefiningOp();
    if (!d)
      return !isa<kir::ViewType>(v.getType());
    if (isa<kir::LoadOp, kir::ContractOp, kir::ReduceOp, kir::ScanOp, kir::IotaOp>(d))
      return false;
    return llvm::all_of(d->getOperands(), shared);
  };
  // One pass over the key chunks; `body` evaluates at the score tile's coordinates. The
  // reciprocals of row-uniform divisors the pass can already compute are taken once, before it.
  auto pass = [&](llvm::function_ref<void()> body) {
    for (auto div : this->body.getOps<kir::DivOp>())
      if (!e.invariantRecip.count(div.getRhs()) && gpu::isRowUniformDivision(div, e.ps) && shared(div.getRhs())) {
        e.cache = kept;
        e.invariantRecip[div.getRhs()] = e.reciprocal(e.up(e.value(div.getRhs()), div.getType()));
      }
    auto keys = [&](const std::string &q) {
      py.line("for n0 in tl.range(0, " + N + ", BN, num_stages=NUM_STAGES):");
      py.push();
      py.line("rn = n0 + tl.arange(0, BN)");
      auto dot = [&](std::string a, const std::string &rk, const std::string &acc) {
        at(nAx, "rn", N, kAx, rk, K);
        std::string b = operand(ri.scores.op.getRhs(), ri.scores.rhsZeroPreserving);
        interpretedBf16(py, kir::kirElementType(ri.scores.op.getLhs().getType()), a, b);
        py.line("s = tl.dot(" + a + ", tl.trans(" + b + "), " + acc + "input_precision=" + dotPrecision(ri.scores.op) +
                ")");
      };
      if (!q.empty()) {
        dot(q, "rk", "");
      } else {
        py.line("s = tl.zeros([BM, BN], dtype=tl.float32)");
        py.line("for k0 in range(0, " + K + ", KC):");
        py.push();
        py.line("rk = k0 + tl.arange(0, KC)");
        dot(lhsTile("rk"), "rk", "s, ");
        py.pop();
      }
      at(mAx, t.rm, M, nAx, "rn", N);
      e.cache[ri.scores.op.getResult()] = "s";
      body();
      py.pop();
    };
    py.line("if KONE:");
    py.push();
    py.line("rk = tl.arange(0, KC)");
    keys(lhsTile("rk"));
    py.pop();
    py.line("else:");
    py.push();
    keys("");
    py.pop();
  };
  // A level's per-lane accumulators; folding one chunk of scores into them; one tree per row.
  auto start = [&](const std::vector<Operation *> &level) {
    std::vector<std::string> accs;
    for (Operation *op : level) {
      auto r = cast<kir::ReduceOp>(op);
      Type elt = kir::kirElementType(r.getInputs()[0].getType());
      accs.push_back(e.fresh("acc"));
      py.line(accs.back() + " = tl.full([BM, BN], " + e.identityOf(r, 0, elt) + ", " +
              (isNarrowFloat(elt) ? "tl.float32" : tlType(elt)) + ")");
    }
    return accs;
  };
  auto fold = [&](const std::vector<Operation *> &level, const std::vector<std::string> &accs) {
    for (auto [op, acc] : llvm::zip(level, accs)) {
      std::string x = e.padded(op, 0, /*tileMask=*/true, e.fullMask());
      py.line(acc + " = " + fns[op] + "(" + acc + ", " + x + ")");
    }
  };
  auto finish = [&](const std::vector<Operation *> &level, const std::vector<std::string> &accs) {
    for (auto [op, acc] : llvm::zip(level, accs)) {
      auto r = cast<kir::ReduceOp>(op);
      std::vector<std::string> res{e.bind("tl.reduce(" + acc + ", 1, " + fns[op] + ", keep_dims=True)", "red")};
      applySeeds(e, r, res, fns[op]);
      castResults(e, r, res);
      results(r, res);
    }
  };
  // Levels the second contraction's operand reads get passes of their own; a last level
  // only the epilogue reads folds in the second contraction's pass.
  size_t own = ri.levels.size() - (ri.lastLevelWithValues ? 1 : 0);
  for (size_t l = 0; l < own; ++l) {
    std::vector<std::string> accs = start(ri.levels[l]);
    pass([&] { fold(ri.levels[l], accs); });
    finish(ri.levels[l], accs);
  }
  std::vector<Operation *> withValues = ri.lastLevelWithValues ? ri.levels.back() : std::vector<Operation *>();
  std::vector<std::string> lastAccs = start(withValues);
  py.line("acc = tl.zeros([BM, BD], dtype=tl.float32)");
  pass([&] {
    fold(withValues, lastAccs);
    Type pt = kir::kirElementType(ri.values.op.getLhs().getType());
    std::string p = e.bind("tl.where(" + e.fullMask() + ", " + e.value(ri.values.op.getLhs()) + ", 0).to(" +
                           tlType(pt) + ")");
    at(nAx, "rn", N, dAx, t.rn, D);
    std::string v = operand(ri.values.op.getRhs(), ri.values.rhsZeroPreserving);
    interpretedBf16(py, kir::kirElementType(ri.values.op.getLhs().getType()), p, v);
    py.line("acc = tl.dot(" + p + ", " + v + ", acc, input_precision=" + dotPrecision(ri.values.op) + ")");
  });
  finish(withValues, lastAccs);
  at(mAx, t.rm, M, dAx, t.rn, D);
  e.cache[ri.values.op.getResult()] = "acc";
  for (auto st : op.getRegion().front().getOps<igpu::StoreOp>())
    e.store(storeOf(st.getView()));
}

/// Scans along the columns in segments, each combined with the prefix it carries
/// from the segments before; the scans of a segment run in order (a later one reads
/// an earlier one's segment), then the body stores the segment.
void ProgramEmitter::scan(igpu::ScanOp so) {
  int rank = e.ps.extents.size();
  std::string rows = text(so.getRows()), rmask = text(so.getRowMask());
  std::string step = extentExpr(so.getStep());
  std::vector<kir::ScanOp> scans;
  for (int64_t n : so.getScans())
    scans.push_back(cast<kir::ScanOp>(reduction(n)));
  bool rev = scans.front().getReverse(); // one direction: the verifier checks it
  std::vector<std::vector<std::string>> carries;
  for (auto [i, s] : llvm::enumerate(scans)) {
    std::vector<std::string> carry;
    for (unsigned k = 0; k < s.getInputs().size(); ++k) {
      Type elt = kir::kirElementType(s.getInputs()[k].getType());
      std::string init = s.getInits().empty() ? e.identityOf(s, k, elt) : e.value(s.getInits()[k]);
      std::string dt = isNarrowFloat(elt) ? "tl.float32" : tlType(elt);
      // The first scan keeps the plain names of a kernel with one scan.
      carry.push_back("carry" + (i ? std::to_string(i) + "_" : std::string()) + std::to_string(k));
      py.line(carry.back() + " = tl.full([OWN_M, 1], " + init + ", " + dt + ")");
    }
    carries.push_back(std::move(carry));
  }
  py.line("for c0 in range(0, C, " + step + "):");
  py.push();
  py.line("lane = tl.arange(0, " + step + ")[None, :]");
  py.line(rev ? "cols = (C - 1 - c0 - lane).to(IDXT)" : "cols = (c0 + lane).to(IDXT)");
  py.line("cmask = (cols < C) & (cols >= 0)");
  py.line("last = lane == tl.minimum(" + step + ", C - c0) - 1");
  // The segment's scanned values, valid at (rows, cols): the later scans and the stores read them.
  llvm::DenseMap<Value, std::string> segment;
  auto coordsAt = [&](const std::string &c, const std::string &m) {
    rowColCoords(e, rank, rows, rmask, c, m);
    e.cache = kept;
    if (c == "cols")
      for (auto [v, name] : segment)
        e.cache[v] = name;
  };
  for (auto [s, carry] : llvm::zip(scans, carries)) {
    const std::string &fn = fns[s];
    unsigned n = s.getInputs().size();
    // Exclusive scans read the previous element in scan order.
    if (s.getExclusive()) {
      py.line(rev ? "src = cols + 1" : "src = cols - 1");
      py.line("smask = (src < C) & (src >= 0)");
      coordsAt("src", "smask");
    } else {
      coordsAt("cols", "cmask");
    }
    std::vector<std::string> xs;
    std::string m = rmask + (s.getExclusive() ? " & smask" : " & cmask");
    for (unsigned k = 0; k < n; ++k)
      xs.push_back(e.padded(s, k, /*tileMask=*/!s.getExclusive(), m));
    std::vector<std::string> scanned;
    for (unsigned k = 0; k < n; ++k)
      scanned.push_back(e.fresh("sc"));
    std::string tuple = n == 1 ? xs[0] : "(" + llvm::join(xs, ", ") + ")";
    py.line(llvm::join(scanned, ", ") + " = tl.associative_scan(" + tuple + ", 1, " + fn + ")");
    std::vector<std::string> args = carry;
    args.insert(args.end(), scanned.begin(), scanned.end());
    std::vector<std::string> outs;
    for (unsigned k = 0; k < n; ++k)
      outs.push_back(e.fresh("out"));
    py.line(llvm::join(outs, ", ") + " = " + fn + "(" + llvm::join(args, ", ") + ")");
    // Carry the last element of this segment (exact: one term plus zeros).
    for (unsigned k = 0; k < n; ++k)
      py.line(carry[k] + " = tl.sum(tl.where(last, " + outs[k] + ", 0), 1, keep_dims=True).to(" + carry[k] +
              ".dtype)");
    for (unsigned k = 0; k < n; ++k)
      segment[s.getResult(k)] = e.bind(outs[k] + ".to(" + tlType(s.getResult(k).getType()) + ")");
  }
  coordsAt("cols", "cmask");
  walk(so.getRegion().front());
  py.pop();
}

OperandDims operandDims(const ProgramStructure &ps, Value view) {
  OperandDims d;
  const int nb = ps.contraction->batchAxes();
  SmallVector<int> axes(ps.axes.lookup(view));
  for (int b = 0; b < nb; ++b)
    for (auto [dim, axis] : llvm::enumerate(axes))
      if (axis == b)
        d.batch.push_back(dim);
  for (auto [dim, axis] : llvm::enumerate(axes)) {
    if (axis < nb)
      continue;
    else if (d.rows < 0)
      d.rows = dim;
    else
      d.cols = dim;
  }
  return d;
}

/// The operand prologue of a PROLOGUE_ONCE candidate as its own kernel: the
/// prologue's value over the whole view of `load`, [_PR, _PC] elements per program
/// (batch-major along program axis 0), stored in the MMA operand type into the workspace `_pw`
/// of the view's shape. `params`: the contraction kernel's runtime parameters.
std::string emitPrologueKernel(kir::KernelOp kernel, const ProgramStructure &ps, Value operand, kir::LoadOp load,
                               const std::string &fnName, const std::vector<std::string> &params,
                               std::set<std::string> &numericHelpers) {
  Py py;
  py.push();
  Emitter e(kernel, ps, py);
  MatmulOperands mo(e);
  SmallVector<int> axes(ps.axes.lookup(load.getView()));
  auto shape = cast<kir::ViewType>(load.getView().getType()).getShape();
  auto [batchDims, r, c] = operandDims(ps, load.getView());
  // One grid axis for the tiles and the batch (the second and third are limited to 65535 programs).
  py.line("_nc = tl.cdiv(" + e.dim(shape[c]) + ", _PC)");
  std::string tile = "tl.program_id(0)";
  if (!batchDims.empty()) {
    py.line("_nt = tl.cdiv(" + e.dim(shape[r]) + ", _PR) * _nc");
    py.line("_t = tl.program_id(0) % _nt");
    tile = "_t";
  }
  py.line("_pr = (" + tile + " // _nc) * _PR + tl.arange(0, _PR)");
  py.line("_pc = (" + tile + " % _nc) * _PC + tl.arange(0, _PC)");
  // The view's own batch dims, flattened (the first outermost).
  TileText t;
  std::string off;
  if (!batchDims.empty()) {
    py.line("_pb = (tl.program_id(0) // _nt).to(tl.int64)");
    std::vector<std::string> extents;
    for (int d : batchDims)
      extents.push_back(e.dim(shape[d]));
    std::vector<std::string> coords = mixedRadix(e, "_pb", extents, "b", "b");
    t.batchCoords.assign(mo.nb, "");
    for (auto [i, d] : llvm::enumerate(batchDims)) {
      t.batchCoords[axes[d]] = coords[i];
      off += coords[i] + " * _pw_s" + std::to_string(d) + " + ";
    }
  }
  setTileCoords(e, t, axes[r], "_pr", e.dim(shape[r]), axes[c], "_pc", e.dim(shape[c]));
  std::string v = e.value(operand);
  off += "_pr.to(tl.int64)[:, None] * _pw_s" + std::to_string(r) + " + _pc.to(tl.int64)[None, :] * _pw_s" +
                    std::to_string(c);
  py.line("tl.store(_pw + " + off + ", (" + v + ").to(" + tlType(kir::kirElementType(operand.getType())) +
          "), mask=(" + e.coords.mask[axes[r]] + ") & (" + e.coords.mask[axes[c]] + "))");
  numericHelpers.insert(e.numericHelpers.begin(), e.numericHelpers.end());
  std::string sig = llvm::join(params, ", ") + ", _pw";
  for (size_t d = 0; d < axes.size(); ++d)
    sig += ", _pw_s" + std::to_string(d);
  return "@triton.jit\ndef " + fnName + "(" + sig + ", _PR: tl.constexpr, _PC: tl.constexpr):\n" + py.take() + "\n";
}

void emitProgram(Emitter &e, Block &body, igpu::ProgramOp program, bool tma) {
  ProgramEmitter(e, body, tma).run(program);
}

} // namespace intent::providers::triton
