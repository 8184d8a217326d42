//===- ReferenceEmitter.cpp - KIR to PyTorch eager (the correctness oracle) -===//
//
// Mechanical, op-by-op translation of one kernel into PyTorch eager code. Every
// KIR value (scalars included) is a torch tensor at run time (scalars are 0-d),
// so combiner regions run vectorized over the kept axes with the same helpers
// as the kernel body. Semantics are documented in docs/providers-reference.md.
//
//===----------------------------------------------------------------------===//
#include "intent/Providers/Reference.h"
#include "intent/Providers/LaunchABI.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

using KTensor = intent::kir::TensorType;
using KView = intent::kir::ViewType;
namespace kir = intent::kir;
namespace arith = mlir::arith;
namespace math = mlir::math;

namespace {

// Runtime helpers shared by every generated module (kept self-contained).
const char *kPrelude = R"PY(
_F8 = tuple(getattr(torch, _n) for _n in ("float8_e4m3fn", "float8_e5m2") if hasattr(torch, _n))


def _rt(dtype, cd):
    """Run-time dtype of values whose KIR element type is `dtype`."""
    if dtype.is_floating_point:
        if cd is not None:
            return cd
        if dtype in _F8:
            return torch.float32
    return dtype


def _scalar(v, dtype, cd, dev):
    if dtype.is_floating_point:
        return torch.tensor(float(v), dtype=torch.float64, device=dev).to(dtype).to(_rt(dtype, cd))
    return torch.tensor(v, dtype=dtype, device=dev)


def _load(t, cd, clone):
    v = t.clone() if clone else t
    return v.to(_rt(t.dtype, cd))


def _cast(x, dtype, cd):
    if dtype == torch.bool:
        return x != 0
    if x.dtype == torch.bool:
        return x.to(dtype).to(_rt(dtype, cd))
    if not dtype.is_floating_point and x.is_floating_point():
        return torch.trunc(x).to(dtype)
    return x.to(dtype).to(_rt(dtype, cd))


def _u(x):
    """Unsigned view of an integer tensor, widened to int64."""
    if x.dtype == torch.bool:
        return x.to(torch.int64)
    bits = torch.iinfo(x.dtype).bits
    if bits >= 64:
        raise NotImplementedError("reference: unsigned 64-bit arithmetic is not supported")
    return x.to(torch.int64) & ((1 << bits) - 1)


def _max(a, b):
    if not a.is_floating_point():
        return torch.maximum(a, b)
    # IEEE 754-2019 maximum: NaN propagates, -0 < +0.
    r = torch.where(a > b, a, torch.where(b > a, b, torch.where(torch.signbit(a), b, a)))
    return torch.where(torch.isnan(a) | torch.isnan(b), a + b, r)


def _min(a, b):
    if not a.is_floating_point():
        return torch.minimum(a, b)
    r = torch.where(a < b, a, torch.where(b < a, b, torch.where(torch.signbit(a), a, b)))
    return torch.where(torch.isnan(a) | torch.isnan(b), a + b, r)


def _k_add(a, b):
    return torch.bitwise_xor(a, b) if a.dtype == torch.bool else torch.add(a, b)


def _k_sub(a, b):
    return torch.bitwise_xor(a, b) if a.dtype == torch.bool else torch.sub(a, b)


def _k_mul(a, b):
    return torch.bitwise_and(a, b) if a.dtype == torch.bool else torch.mul(a, b)


def _k_div(a, b):
    if a.is_floating_point():
        return torch.div(a, b)
    return torch.div(a, b, rounding_mode="trunc")


def _k_rem(a, b):
    return torch.fmod(a, b)


def _k_max(a, b):
    return torch.bitwise_or(a, b) if a.dtype == torch.bool else _max(a, b)


def _k_min(a, b):
    return torch.bitwise_and(a, b) if a.dtype == torch.bool else _min(a, b)


def _k_shr(a, b):
    return torch.bitwise_right_shift(a, b)


def _k_shl(a, b):
    return torch.bitwise_left_shift(a, b)


def _udiv(a, b):
    return torch.div(_u(a), _u(b), rounding_mode="trunc").to(a.dtype)


def _urem(a, b):
    return torch.remainder(_u(a), _u(b)).to(a.dtype)


def _ushr(a, b):
    return torch.bitwise_right_shift(_u(a), b.to(torch.int64)).to(a.dtype)


def _umax(a, b):
    return torch.maximum(_u(a), _u(b)).to(a.dtype)


def _umin(a, b):
    return torch.minimum(_u(a), _u(b)).to(a.dtype)


def _ext_u(x, dtype, cd):
    return _u(x).to(dtype).to(_rt(dtype, cd))


def _cmpf(pred, a, b):
    unordered = torch.isnan(a) | torch.isnan(b)
    if pred == "false":
        return torch.zeros_like(unordered)
    if pred == "true":
        return torch.ones_like(unordered)
    if pred == "ord":
        return ~unordered
    if pred == "uno":
        return unordered
    base = {"eq": torch.eq, "gt": torch.gt, "ge": torch.ge, "lt": torch.lt, "le": torch.le,
            "ne": torch.ne}[pred[1:]](a, b)
    if pred[0] == "o":
        return base & ~unordered
    return base | unordered


def _cmpi(pred, a, b):
    if pred[0] == "u":
        a, b = _u(a), _u(b)
        pred = pred[1:]
    elif pred[0] == "s":
        pred = pred[1:]
    return {"eq": torch.eq, "ne": torch.ne, "lt": torch.lt, "le": torch.le, "gt": torch.gt,
            "ge": torch.ge}[pred](a, b)


def _round_away(x):
    return torch.where(x < 0, -torch.floor(-x + 0.5), torch.floor(x + 0.5)) if x.is_floating_point() else x


def _bcast(x, dims, shape):
    if dims is None or x.dim() == 0:
        return x.expand(shape)
    view = [1] * len(shape)
    for i, d in enumerate(dims):
        view[d] = x.shape[i]
    return x.reshape(view).expand(shape)


def _iota(dim, shape, dtype, cd, dev):
    n = shape[dim]
    view = [1] * len(shape)
    view[dim] = n
    return torch.arange(n, dtype=torch.int64, device=dev).to(dtype).to(_rt(dtype, cd)).reshape(view).expand(shape)


def _contract(spec, a, b, dtype, cd):
    if dtype.is_floating_point:
        rt = _rt(dtype, cd)
        return torch.einsum(spec, a.to(dtype).to(rt), b.to(dtype).to(rt))
    # Integer accumulation wraps in the result type; computed exactly in int64 on the CPU.
    # i1 wraps too: its sum is the parity (add is xor), not "any".
    r = torch.einsum(spec, a.cpu().to(torch.int64), b.cpu().to(torch.int64))
    if dtype == torch.bool:
        r = r % 2
    return r.to(dtype).to(a.device)


# --- reductions and scans -------------------------------------------------------------

def _named_op(kind, dtype):
    if dtype == torch.bool:
        kind = {"add": "xor", "mul": "and", "max": "or", "min": "and"}.get(kind, kind)
    return {"add": torch.add, "mul": torch.mul, "max": _max, "min": _min,
            "and": torch.bitwise_and, "or": torch.bitwise_or, "xor": torch.bitwise_xor}[kind]


def _identity(kind, dtype, dev):
    if dtype == torch.bool:
        v = {"add": False, "mul": True, "max": False, "min": True, "and": True, "or": False,
             "xor": False, "argmax": False, "argmin": True}[kind]
    elif dtype.is_floating_point:
        v = {"add": 0.0, "mul": 1.0, "max": -math.inf, "min": math.inf, "argmax": -math.inf,
             "argmin": math.inf}[kind]
    else:
        info = torch.iinfo(dtype)
        v = {"add": 0, "mul": 1, "max": info.min, "min": info.max, "and": -1, "or": 0, "xor": 0,
             "argmax": info.min, "argmin": info.max}[kind]
    return torch.tensor(v, dtype=dtype, device=dev)


def _flatten_reduced(x, dims):
    """Moves the kept axes first and flattens the reduced ones (row-major, in axis order)."""
    kept = [a for a in range(x.dim()) if a not in dims]
    red = sorted(dims)
    n = 1
    for a in red:
        n *= x.shape[a]
    kshape = [x.shape[a] for a in kept]
    return x.permute(kept + red).reshape(kshape + [n]), kshape


def _pairwise(op, xf):
    # Exact only for exactly associative and commutative ops (integers, bitwise, max/min).
    while xf.shape[-1] > 1:
        n = xf.shape[-1]
        h = n // 2
        y = op(xf[..., 0:2 * h:2], xf[..., 1:2 * h:2])
        if n % 2:
            y = torch.cat([y, xf[..., n - 1:]], -1)
        xf = y
    return xf[..., 0]


def _finish(vals, kshape, dtypes):
    return [torch.broadcast_to(v, kshape).to(dt).clone() for v, dt in zip(vals, dtypes)]


def _fold(xs, comb, seeds, idents, policy):
    """xs: tensors [*kept, R]; comb(*left, *right) -> tuple. Sequential, in order."""
    kshape = list(xs[0].shape[:-1])
    dtypes = [x.dtype for x in xs]
    n = xs[0].shape[-1]
    if n == 0:
        if seeds is not None:
            return _finish(seeds, kshape, dtypes)
        if idents is not None:
            return _finish(idents, kshape, dtypes)
        raise ValueError("reference: empty reduction domain with neither a seed nor identities")
    if policy == "fold_right":
        # op(x0, op(x1, op(x2, z))): the combiner's operand order is not swapped.
        if seeds is not None:
            acc, start = list(seeds), n - 1
        else:
            acc, start = [x[..., n - 1] for x in xs], n - 2
        for i in range(start, -1, -1):
            acc = list(comb(*[x[..., i] for x in xs], *acc))
        return _finish(acc, kshape, dtypes)
    if policy == "fold_left" and seeds is not None:
        acc, start = list(seeds), 0
    else:
        acc, start = [x[..., 0] for x in xs], 1
    for i in range(start, n):
        acc = list(comb(*acc, *[x[..., i] for x in xs]))
    if policy != "fold_left" and seeds is not None:
        # Trees: the seed enters the result exactly once, on the left.
        acc = list(comb(*seeds, *acc))
    return _finish(acc, kshape, dtypes)


def _tree_named(kind, xf):
    dt = xf.dtype
    op = _named_op(kind, dt)
    if dt == torch.bool or kind in ("and", "or", "xor"):
        return _pairwise(op, xf)
    if kind == "add":
        r = torch.sum(xf, -1)
        if dt.is_floating_point:
            # IEEE: a sum of only negative zeros is -0.
            allneg = torch.all((xf == 0) & torch.signbit(xf), -1)
            r = torch.where(allneg, torch.tensor(-0.0, dtype=dt, device=xf.device), r)
        return r.to(dt)
    if kind == "mul":
        return torch.prod(xf, -1).to(dt)
    r = torch.amax(xf, -1) if kind == "max" else torch.amin(xf, -1)
    if dt.is_floating_point:
        # IEEE 754-2019 maximum/minimum order -0 below +0.
        want_neg = kind == "min"
        zeros = xf == 0
        has = torch.any(zeros & (torch.signbit(xf) if want_neg else ~torch.signbit(xf)), -1)
        z = torch.tensor(-0.0 if want_neg else 0.0, dtype=dt, device=xf.device)
        other = torch.tensor(0.0 if want_neg else -0.0, dtype=dt, device=xf.device)
        r = torch.where(r == 0, torch.where(has, z, other), r)
    return r


def _reduce_named(kind, x, dims, policy, seed):
    dt = x.dtype
    op = _named_op(kind, dt)
    xf, kshape = _flatten_reduced(x, dims)
    n = xf.shape[-1]
    if n == 0:
        return _finish([seed if seed is not None else _identity(kind, dt, x.device)], kshape, [dt])[0]
    exact = not dt.is_floating_point or kind in ("max", "min")
    if exact or policy == "unordered_tree":
        r = _tree_named(kind, xf)
        if seed is not None:
            r = op(r, seed) if policy == "fold_right" else op(seed, r)
        return _finish([r], kshape, [dt])[0]
    seeds = None if seed is None else [seed]
    return _fold([xf], lambda a, b: (op(a, b),), seeds, None, policy)[0]


def _reduce_arg(kind, x, dims, idx_dtype):
    xf, kshape = _flatten_reduced(x, dims)
    n = xf.shape[-1]
    dev = x.device
    if n == 0:
        v = _identity(kind, x.dtype, dev)
        return (_finish([v], kshape, [x.dtype])[0],
                torch.full(kshape, -1, dtype=idx_dtype, device=dev))
    key = xf.to(torch.int8) if xf.dtype == torch.bool else xf
    # torch.argmax/argmin return the first extremal index (ties -> lowest index).
    idx = torch.argmax(key, -1) if kind == "argmax" else torch.argmin(key, -1)
    if xf.is_floating_point():
        nan = torch.isnan(xf)
        # NaN wins: the first NaN in the row.
        first_nan = torch.argmax(nan.to(torch.int8), -1)
        idx = torch.where(nan.any(-1), first_nan, idx)
    val = torch.gather(xf, -1, idx.unsqueeze(-1)).squeeze(-1)
    return val, idx.to(idx_dtype)


def _reduce_general(xs, dims, comb, seeds, idents, policy):
    flat = [_flatten_reduced(x, dims)[0] for x in xs]
    return _fold(flat, comb, seeds, idents, policy)


def _scan(xs, dim, comb, seeds, idents, exclusive, reverse):
    moved = [x.movedim(dim, -1) for x in xs]
    n = moved[0].shape[-1]
    outs = [torch.empty_like(m, memory_format=torch.contiguous_format) for m in moved]
    order = range(n - 1, -1, -1) if reverse else range(n)
    acc = None
    if seeds is not None and n > 0:
        first = order[0]
        acc = [s.movedim(dim, -1)[..., first] if s.dim() == x.dim() and s.dim() > 0 else s
               for s, x in zip(seeds, xs)]
    for i in order:
        cur = [m[..., i] for m in moved]
        if exclusive:
            if acc is None:
                if idents is None:
                    raise ValueError("reference: exclusive scan needs an identity or a seed")
                val = idents
            else:
                val = acc
            for o, v in zip(outs, val):
                o[..., i] = v
            acc = cur if acc is None else list(comb(*acc, *cur))
        else:
            acc = cur if acc is None else list(comb(*acc, *cur))
            for o, v in zip(outs, acc):
                o[..., i] = v
    return [o.movedim(-1, dim) for o in outs]


def _scan_named(kind, x, dim, seed, exclusive, reverse):
    op = _named_op(kind, x.dtype)
    return _scan([x], dim, lambda a, b: (op(a, b),), None if seed is None else [seed],
                 [_identity(kind, x.dtype, x.device)], exclusive, reverse)[0]


def _check_compute_dtype(cd):
    if cd is not None and (not isinstance(cd, torch.dtype) or not cd.is_floating_point):
        raise TypeError("compute_dtype must be None or a floating torch.dtype, got %r" % (cd,))
    return cd
)PY";


std::string intList(llvm::ArrayRef<int64_t> v) {
  std::string s = "[";
  for (auto [i, x] : llvm::enumerate(v)) {
    if (i)
      s += ", ";
    s += std::to_string(x);
  }
  return s + "]";
}

std::string policyName(kir::Policy p) { return kir::stringifyPolicy(p).str(); }

std::string kindName(kir::ReduceKind k) { return kir::stringifyReduceKind(k).str(); }

class Emitter {
public:
  Emitter(kir::KernelOp kernel) : kernel(kernel) {}

  bool run(std::string &source, std::string &error);

private:
  kir::KernelOp kernel;
  llvm::DenseMap<mlir::Value, std::string> names;
  std::set<std::string> boundSymbols;
  std::string err;
  unsigned counter = 0;
  std::vector<std::string> stores;

  std::string fresh(llvm::StringRef prefix = "_v") { return prefix.str() + std::to_string(counter++); }
  std::string name(mlir::Value v) {
    auto it = names.find(v);
    if (it == names.end()) {
      fail(v.getLoc(), "value used before its definition");
      return "None";
    }
    return it->second;
  }
  bool fail(mlir::Location loc, const llvm::Twine &msg) {
    if (err.empty()) {
      std::string l;
      llvm::raw_string_ostream os(l);
      os << loc;
      err = "reference provider: " + msg.str() + " (at " + l + ")";
    }
    return false;
  }
  std::string dt(mlir::Type t) { return intent::providers::torchDType(kir::kirElementType(t)); }
  std::string shapeOf(mlir::Operation *op, mlir::Type t);
  std::string listOf(mlir::ValueRange vs) {
    std::string s = "[";
    for (auto [i, v] : llvm::enumerate(vs)) {
      if (i)
        s += ", ";
      s += name(v);
    }
    return s + "]";
  }
  std::string resultTargets(mlir::Operation *op) {
    std::string s;
    for (mlir::Value r : op->getResults()) {
      std::string n = fresh();
      names[r] = n;
      s += n + ", ";
    }
    return "(" + s + ")";
  }
  bool emitBlock(mlir::Block &block, const std::string &indent, std::string &out);
  bool emitOp(mlir::Operation *op, const std::string &indent, std::string &out);
  bool emitCombiner(mlir::Operation *op, mlir::Region &region, const std::string &indent,
                    std::string &out, std::string &fnName);
};

std::string Emitter::shapeOf(mlir::Operation *op, mlir::Type t) {
  auto tt = llvm::dyn_cast<KTensor>(t);
  if (!tt)
    return "[]";
  for (mlir::Attribute d : tt.getShape())
    if (!kir::isStaticDim(d) && !boundSymbols.count(kir::symbolicDimName(d).str()))
      fail(op->getLoc(), "symbol '" + kir::symbolicDimName(d) + "' is not bound by any view argument");
  return intent::providers::pythonShape(tt.getShape(), "_sym");
}

bool Emitter::emitCombiner(mlir::Operation *op, mlir::Region &region, const std::string &indent,
                           std::string &out, std::string &fnName) {
  if (region.empty())
    return fail(op->getLoc(), "general reduction without a combiner region");
  mlir::Block &block = region.front();
  fnName = fresh("_comb");
  std::string params;
  for (mlir::BlockArgument a : block.getArguments()) {
    std::string n = fresh("_a");
    names[a] = n;
    params += (params.empty() ? "" : ", ") + n;
  }
  out += indent + "def " + fnName + "(" + params + "):\n";
  return emitBlock(block, indent + "    ", out);
}

bool Emitter::emitBlock(mlir::Block &block, const std::string &indent, std::string &out) {
  for (mlir::Operation &op : block)
    if (!emitOp(&op, indent, out))
      return false;
  return true;
}

static std::string floatLiteral(const llvm::APFloat &f) {
  if (f.isNaN())
    return "math.nan";
  if (f.isInfinity())
    return f.isNegative() ? "-math.inf" : "math.inf";
  llvm::APFloat d = f;
  bool lost = false;
  d.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven, &lost);
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::format("%.17g", d.convertToDouble());
  if (s.find_first_of(".eEn") == std::string::npos)
    s += ".0";
  if (f.isZero() && f.isNegative())
    return "-0.0";
  return s;
}

bool Emitter::emitOp(mlir::Operation *op, const std::string &indent, std::string &out) {
  using namespace intent;
  auto line = [&](const std::string &s) { out += indent + s + "\n"; };
  auto def1 = [&](const std::string &expr) {
    std::string n = fresh();
    names[op->getResult(0)] = n;
    line(n + " = " + expr);
    return true;
  };
  auto operand = [&](unsigned i) { return name(op->getOperand(i)); };
  auto binary = [&](const std::string &fn) {
    return def1(fn + "(" + operand(0) + ", " + operand(1) + ")");
  };
  auto unary = [&](const std::string &fn) { return def1(fn + "(" + operand(0) + ")"); };
  auto resultDT = [&]() { return dt(op->getResult(0).getType()); };
  auto castTo = [&]() { return def1("_cast(" + operand(0) + ", " + resultDT() + ", _cd)"); };

  if (llvm::isa<kir::ReturnOp>(op))
    return true;
  if (auto y = llvm::dyn_cast<kir::YieldOp>(op)) {
    std::string s;
    for (mlir::Value v : y.getValues())
      s += name(v) + ", ";
    line("return (" + s + ")");
    return true;
  }

  // --- views -----------------------------------------------------------------------------
  if (auto l = llvm::dyn_cast<kir::LoadOp>(op)) {
    auto vt = llvm::cast<KView>(l.getView().getType());
    return def1("_load(" + name(l.getView()) + ", _cd, " + (vt.isWritable() ? "True" : "False") +
                ")");
  }
  if (auto s = llvm::dyn_cast<kir::StoreOp>(op)) {
    // Every store happens after all loads: deferred to the end of launch, in order.
    std::string v = name(s.getView());
    stores.push_back(v + ".copy_(" + name(s.getValue()) + ".to(" + v + ".dtype))");
    return true;
  }
  if (auto e = llvm::dyn_cast<kir::ExtentOp>(op))
    return def1("torch.tensor(" + name(e.getView()) + ".shape[" + std::to_string(e.getAxis()) +
                "], dtype=torch.int64, device=_dev)");

  // --- kir elementwise ---------------------------------------------------------------------
  llvm::StringRef opName = op->getName().getStringRef();
  if (op->getName().getDialectNamespace() == "kir") {
    llvm::StringRef m = op->getName().stripDialect();
    static const std::pair<const char *, const char *> binaries[] = {
        {"add", "_k_add"}, {"sub", "_k_sub"}, {"mul", "_k_mul"}, {"div", "_k_div"},
        {"rem", "_k_rem"}, {"pow", "torch.pow"}, {"max", "_k_max"}, {"min", "_k_min"},
        {"and", "torch.bitwise_and"}, {"or", "torch.bitwise_or"}, {"xor", "torch.bitwise_xor"},
        {"shl", "_k_shl"}, {"shr", "_k_shr"}};
    for (auto &[k, fn] : binaries)
      if (m == k && op->getNumOperands() == 2 && !llvm::isa<kir::ReduceOp, kir::ScanOp>(op))
        return binary(fn);
    static const std::pair<const char *, const char *> unaries[] = {
        {"neg", "torch.neg"}, {"abs", "torch.abs"}, {"exp", "torch.exp"},
        {"exp2", "torch.exp2"}, {"log", "torch.log"}, {"log2", "torch.log2"},
        {"sqrt", "torch.sqrt"}, {"rsqrt", "torch.rsqrt"}, {"sin", "torch.sin"},
        {"cos", "torch.cos"}, {"tanh", "torch.tanh"}, {"erf", "torch.special.erf"},
        {"sigmoid", "torch.sigmoid"}, {"floor", "torch.floor"}, {"ceil", "torch.ceil"},
        {"not", "torch.bitwise_not"}};
    for (auto &[k, fn] : unaries)
      if (m == k)
        return unary(fn);
  }
  if (auto c = llvm::dyn_cast<kir::CmpOp>(op)) {
    static const char *fns[] = {"torch.eq", "torch.ne", "torch.lt", "torch.le", "torch.gt",
                                "torch.ge"};
    return binary(fns[static_cast<int>(c.getPredicate())]);
  }
  if (auto s = llvm::dyn_cast<kir::SelectOp>(op))
    return def1("torch.where(" + name(s.getCondition()) + ", " + name(s.getTrueValue()) + ", " +
                name(s.getFalseValue()) + ")");
  if (llvm::isa<kir::CastOp>(op))
    return castTo();

  // --- shape -------------------------------------------------------------------------------
  if (auto b = llvm::dyn_cast<kir::BroadcastOp>(op)) {
    std::string dims = b.getDims() && llvm::isa<KTensor>(b.getInput().getType())
                           ? intList(*b.getDims())
                           : "None";
    return def1("_bcast(" + name(b.getInput()) + ", " + dims + ", " + shapeOf(op, b.getType()) +
                ")");
  }
  if (auto t = llvm::dyn_cast<kir::TransposeOp>(op))
    return def1(name(t.getInput()) + ".permute(" + intList(t.getPerm()) + ")");
  if (auto i = llvm::dyn_cast<kir::IotaOp>(op))
    return def1("_iota(" + std::to_string(i.getDim()) + ", " + shapeOf(op, i.getType()) + ", " +
                resultDT() + ", _cd, _dev)");

  // --- reductions, scans, contractions -------------------------------------------------------
  if (auto r = llvm::dyn_cast<kir::ReduceOp>(op)) {
    std::string dims = intList(r.getDims());
    std::string policy = intent::providers::pythonStringLiteral(policyName(r.getEffectivePolicy()));
    if (auto kind = r.getKind()) {
      std::string x = name(r.getInputs()[0]);
      if (*kind == kir::ReduceKind::argmax || *kind == kir::ReduceKind::argmin) {
        std::string idx = dt(r.getResult(1).getType());
        std::string targets = resultTargets(op);
        line(targets + " = _reduce_arg(" + intent::providers::pythonStringLiteral(kindName(*kind)) + ", " + x + ", " + dims +
             ", " + idx + ")");
        return true;
      }
      std::string seed = r.getInits().empty() ? "None" : name(r.getInits()[0]);
      return def1("_reduce_named(" + intent::providers::pythonStringLiteral(kindName(*kind)) + ", " + x + ", " + dims + ", " +
                  policy + ", " + seed + ")");
    }
    std::string fn;
    if (!emitCombiner(op, r.getCombiner(), indent, out, fn))
      return false;
    std::string seeds = r.getInits().empty() ? "None" : listOf(r.getInits());
    std::string idents = r.getIdentities().empty() ? "None" : listOf(r.getIdentities());
    std::string targets = resultTargets(op);
    line(targets + " = _reduce_general(" + listOf(r.getInputs()) + ", " + dims + ", " + fn +
         ", " + seeds + ", " + idents + ", " + policy + ")");
    return true;
  }
  if (auto s = llvm::dyn_cast<kir::ScanOp>(op)) {
    std::string dim = std::to_string(s.getDim());
    std::string flags = std::string(s.getExclusive() ? "True" : "False") + ", " +
                        (s.getReverse() ? "True" : "False");
    if (auto kind = s.getKind()) {
      std::string seed = s.getInits().empty() ? "None" : name(s.getInits()[0]);
      return def1("_scan_named(" + intent::providers::pythonStringLiteral(kindName(*kind)) + ", " + name(s.getInputs()[0]) +
                  ", " + dim + ", " + seed + ", " + flags + ")");
    }
    std::string fn;
    if (!emitCombiner(op, s.getCombiner(), indent, out, fn))
      return false;
    std::string seeds = s.getInits().empty() ? "None" : listOf(s.getInits());
    std::string idents = s.getIdentities().empty() ? "None" : listOf(s.getIdentities());
    std::string targets = resultTargets(op);
    line(targets + " = _scan(" + listOf(s.getInputs()) + ", " + dim + ", " + fn + ", " + seeds +
         ", " + idents + ", " + flags + ")");
    return true;
  }
  if (auto c = llvm::dyn_cast<kir::ContractOp>(op))
    return def1("_contract(" + intent::providers::pythonStringLiteral(c.getSpec()) + ", " + name(c.getLhs()) + ", " +
                name(c.getRhs()) + ", " + resultDT() + ", _cd)");

  // --- arith / math on scalars (and, vectorized, inside combiners) ---------------------------
  if (auto c = llvm::dyn_cast<arith::ConstantOp>(op)) {
    mlir::Type t = c.getType();
    if (!kir::isKirScalarType(t))
      return fail(op->getLoc(), "arith.constant of non-scalar type is not supported");
    std::string lit;
    if (auto f = llvm::dyn_cast<mlir::FloatAttr>(c.getValue()))
      lit = floatLiteral(f.getValue());
    else if (auto i = llvm::dyn_cast<mlir::IntegerAttr>(c.getValue()))
      lit = t.isInteger(1) ? (i.getValue().isZero() ? "False" : "True")
                           : std::to_string(i.getValue().getSExtValue());
    else
      return fail(op->getLoc(), "unsupported arith.constant value");
    return def1("_scalar(" + lit + ", " + dt(t) + ", _cd, _dev)");
  }
  if (auto c = llvm::dyn_cast<arith::CmpFOp>(op))
    return def1("_cmpf(" + intent::providers::pythonStringLiteral(arith::stringifyCmpFPredicate(c.getPredicate())) + ", " +
                operand(0) + ", " + operand(1) + ")");
  if (auto c = llvm::dyn_cast<arith::CmpIOp>(op))
    return def1("_cmpi(" + intent::providers::pythonStringLiteral(arith::stringifyCmpIPredicate(c.getPredicate())) + ", " +
                operand(0) + ", " + operand(1) + ")");
  if (llvm::isa<arith::SelectOp>(op))
    return def1("torch.where(" + operand(0) + ", " + operand(1) + ", " + operand(2) + ")");
  if (llvm::isa<arith::ExtFOp, arith::TruncFOp, arith::SIToFPOp, arith::FPToSIOp,
                arith::ExtSIOp, arith::TruncIOp, arith::IndexCastOp, arith::FPToUIOp>(op))
    return castTo();
  if (llvm::isa<arith::ExtUIOp, arith::UIToFPOp, arith::IndexCastUIOp>(op))
    return def1("_ext_u(" + operand(0) + ", " + resultDT() + ", _cd)");
  if (llvm::isa<math::FmaOp>(op))
    return def1("(" + operand(0) + " * " + operand(1) + " + " + operand(2) + ")");

  static const std::pair<const char *, const char *> arithBinary[] = {
      {"arith.addf", "torch.add"}, {"arith.subf", "torch.sub"}, {"arith.mulf", "torch.mul"},
      {"arith.divf", "torch.div"}, {"arith.remf", "torch.fmod"}, {"arith.addi", "_k_add"},
      {"arith.subi", "_k_sub"}, {"arith.muli", "_k_mul"}, {"arith.divsi", "_k_div"},
      {"arith.remsi", "torch.fmod"}, {"arith.divui", "_udiv"}, {"arith.remui", "_urem"},
      {"arith.maximumf", "_max"}, {"arith.minimumf", "_min"}, {"arith.maxnumf", "torch.fmax"},
      {"arith.minnumf", "torch.fmin"}, {"arith.maxsi", "torch.maximum"},
      {"arith.minsi", "torch.minimum"}, {"arith.maxui", "_umax"}, {"arith.minui", "_umin"},
      {"arith.andi", "torch.bitwise_and"}, {"arith.ori", "torch.bitwise_or"},
      {"arith.xori", "torch.bitwise_xor"}, {"arith.shli", "_k_shl"},
      {"arith.shrsi", "_k_shr"}, {"arith.shrui", "_ushr"}, {"math.powf", "torch.pow"},
      {"math.atan2", "torch.atan2"}, {"math.copysign", "torch.copysign"}};
  for (auto &[k, fn] : arithBinary)
    if (opName == k)
      return binary(fn);
  static const std::pair<const char *, const char *> arithUnary[] = {
      {"arith.negf", "torch.neg"}, {"math.exp", "torch.exp"}, {"math.exp2", "torch.exp2"},
      {"math.expm1", "torch.expm1"}, {"math.log", "torch.log"}, {"math.log2", "torch.log2"},
      {"math.log10", "torch.log10"}, {"math.log1p", "torch.log1p"}, {"math.sqrt", "torch.sqrt"},
      {"math.rsqrt", "torch.rsqrt"}, {"math.sin", "torch.sin"}, {"math.cos", "torch.cos"},
      {"math.tan", "torch.tan"}, {"math.tanh", "torch.tanh"}, {"math.atan", "torch.atan"},
      {"math.asin", "torch.asin"}, {"math.acos", "torch.acos"}, {"math.sinh", "torch.sinh"},
      {"math.cosh", "torch.cosh"}, {"math.erf", "torch.special.erf"},
      {"math.absf", "torch.abs"}, {"math.absi", "torch.abs"}, {"math.floor", "torch.floor"},
      {"math.ceil", "torch.ceil"}, {"math.trunc", "torch.trunc"},
      {"math.roundeven", "torch.round"}, {"math.round", "_round_away"}};
  for (auto &[k, fn] : arithUnary)
    if (opName == k)
      return unary(fn);

  return fail(op->getLoc(), "unsupported operation '" + opName + "'");
}

bool Emitter::run(std::string &source, std::string &error) {
  using namespace intent::providers;
  auto params = launchParameters(kernel);
  for (auto &s : extentSymbols(kernel))
    boundSymbols.insert(s);
  std::string body;
  std::string ind = "    ";
  // Parameters: views by their Python names, scalars as 0-d tensors.
  std::vector<bool> isParam(kernel.getNumArguments(), false);
  for (auto &p : params) {
    isParam[p.argIndex] = true;
    mlir::Value arg = kernel.getBody().front().getArgument(p.argIndex);
    if (llvm::isa<KView>(arg.getType())) {
      names[arg] = p.name;
    } else {
      std::string n = "_s_" + p.name;
      names[arg] = n;
      body += ind + n + " = _scalar(" + p.name + ", " + torchDType(arg.getType()) +
              ", _cd, _dev)\n";
    }
  }
  for (unsigned i = 0; i < kernel.getNumArguments(); ++i)
    if (!isParam[i] && !kernel.getBody().front().getArgument(i).use_empty()) {
      error = "reference provider: argument '" + kernel.getArgName(i) +
              "' is {kir.constexpr} and must be bound with --define";
      return false;
    }
  if (!emitBlock(kernel.getBody().front(), ind, body) || !err.empty()) {
    error = err.empty() ? "reference provider: emission failed" : err;
    return false;
  }
  std::string plist = launchParameterList(kernel);
  std::string firstTensor = "torch.device(\"cpu\")";
  for (auto &p : params)
    if (llvm::isa<KView>(kernel.getArgumentTypes()[p.argIndex])) {
      firstTensor = p.name + ".device";
      break;
    }

  std::string s;
  llvm::raw_string_ostream os(s);
  os << "# Generated by intentc --target reference: the PyTorch eager oracle for kernel @"
     << kernel.getSymName() << ".\n"
     << "# Never tuned; strict folds and ordered trees run sequentially in order.\n"
     << "import math\n\nimport torch\n\n"
     << "KERNEL_NAME = " << intent::providers::pythonStringLiteral(kernel.getSymName()) << "\n"
     << "PROVIDER = \"reference\"\n\n";
  os << emitArgumentChecks(kernel) << "\n";
  os << kPrelude << "\n\n";
  os << "def launch(" << plist << (plist.empty() ? "" : ", ") << "*, compute_dtype=None):\n";
  os << "    \"\"\"Runs @" << kernel.getSymName()
     << " in PyTorch eager; writes the out/inout views in place and returns None.\"\"\"\n";
  os << "    _sym = _check_args(" << plist << ")\n";
  os << "    _cd = _check_compute_dtype(compute_dtype)\n";
  os << "    _dev = " << firstTensor << "\n";
  os << "    with torch.no_grad():\n";
  // Re-indent the body one level under `with`.
  std::string indented;
  llvm::StringRef rest(body);
  while (!rest.empty()) {
    auto [l, r] = rest.split('\n');
    indented += "    " + l.str() + "\n";
    rest = r;
  }
  os << indented;
  for (auto &st : stores)
    os << "        " << st << "\n";
  os << "        pass\n";
  os << "    return None\n";
  source = s;
  return true;
}

} // namespace

namespace intent::providers {

bool emitReferencePython(kir::KernelOp kernel, std::string &source, std::string &error) {
  Emitter e(kernel);
  return e.run(source, error);
}

} // namespace intent::providers
