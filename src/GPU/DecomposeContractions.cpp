//===- DecomposeContractions.cpp - contractions without a matrix product ---===//
//
// igpu-decompose-contractions (Passes.td): a kir.contract with no label of the
// left operand alone, of the right operand alone, or no contracted label is a
// product and a sum, not a tile of tensor-core work; a contraction whose result
// ends in (right operand's label, left operand's label) gets its operands swapped.
//
//===----------------------------------------------------------------------===//
#include "intent/GPU/Passes.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace intent;

namespace intent::gpu {
#define GEN_PASS_DEF_DECOMPOSECONTRACTIONS
#include "intent/GPU/Passes.h.inc"
} // namespace intent::gpu

namespace {

bool has(const std::string &s, char c) { return s.find(c) != std::string::npos; }

/// `v` (labelled `labels`) cast to `elt`, its axes put in the order of `target`
/// and broadcast onto every label of `target`.
Value alignOperand(OpBuilder &b, Location loc, Value v, const std::string &labels,
                   const std::string &target, ArrayRef<Attribute> targetShape, Type elt) {
  auto t = cast<kir::TensorType>(v.getType());
  if (t.getElementType() != elt)
    v = b.create<kir::CastOp>(loc, t.withElementType(elt), v);
  // perm[i] = the operand axis of the i-th of its labels in target order.
  SmallVector<int64_t> perm;
  std::string ordered;
  for (char c : target)
    if (size_t i = labels.find(c); i != std::string::npos) {
      perm.push_back(i);
      ordered += c;
    }
  if (!llvm::equal(perm, llvm::seq<int64_t>(0, perm.size()))) {
    SmallVector<Attribute> shape;
    for (int64_t i : perm)
      shape.push_back(t.getShape()[i]);
    v = b.create<kir::TransposeOp>(loc, kir::TensorType::get(b.getContext(), elt, shape), v,
                                   b.getDenseI64ArrayAttr(perm));
  }
  if (ordered.size() == target.size())
    return v;
  SmallVector<int64_t> dims;
  for (char c : ordered)
    dims.push_back(target.find(c));
  return b.create<kir::BroadcastOp>(loc, kir::TensorType::get(b.getContext(), elt, targetShape), v,
                                    b.getDenseI64ArrayAttr(dims));
}

struct DecomposeContractionsPass
    : ::intent::gpu::impl::DecomposeContractionsBase<DecomposeContractionsPass> {
  void runOnOperation() override {
    SmallVector<kir::ContractOp> contracts;
    getOperation().walk([&](kir::ContractOp c) { contracts.push_back(c); });
    for (kir::ContractOp c : contracts) {
      std::string error;
      auto l = kir::ContractOp::parseSpec(c.getSpec(), error); // verified: cannot fail
      std::string lhsOnly = l->lhsOnly(), rhsOnly = l->rhsOnly(), contracted = l->contracted();
      auto resultType = cast<kir::TensorType>(c.getType());
      Type elt = resultType.getElementType();
      OpBuilder b(c);
      if (!lhsOnly.empty() && !rhsOnly.empty() && !contracted.empty()) {
        // A result ending in (n, m) stores the tile's rows along its last axis: with the
        // operands swapped, the tile's columns run along it (coalesced stores).
        const std::string &r = l->result;
        if (r.size() >= 2 && has(rhsOnly, r[r.size() - 2]) && has(lhsOnly, r.back())) {
          auto swapped = b.create<kir::ContractOp>(c.getLoc(), resultType, c.getRhs(), c.getLhs(),
                                                   b.getStringAttr(l->rhs + "," + l->lhs + "->" + l->result),
                                                   c.getTf32Attr());
          c.replaceAllUsesWith(swapped.getResult());
          c.erase();
        }
        continue;
      }
      // The product's axes follow the larger operand's labels (the left one on a tie),
      // then the other's: a row-major matrix keeps its memory order, so "mk,k->m"
      // sums along rows and "k,kn->n" down columns. An outer product takes the
      // result's order (its stores dominate).
      const std::string &major = l->rhs.size() > l->lhs.size() ? l->rhs : l->lhs;
      const std::string &minor = &major == &l->lhs ? l->rhs : l->lhs;
      std::string all = contracted.empty() ? l->result : major;
      for (char ch : minor)
        if (!has(all, ch))
          all += ch;
      llvm::DenseMap<char, Attribute> extent;
      for (auto [labels, v] : {std::pair{l->lhs, c.getLhs()}, std::pair{l->rhs, c.getRhs()}})
        for (auto [i, ch] : llvm::enumerate(labels))
          extent[ch] = cast<kir::TensorType>(v.getType()).getShape()[i];
      auto shapeOf = [&](const std::string &labels) {
        SmallVector<Attribute> shape;
        for (char ch : labels)
          shape.push_back(extent[ch]);
        return shape;
      };
      SmallVector<Attribute> shape = shapeOf(all);
      Value lhs = alignOperand(b, c.getLoc(), c.getLhs(), l->lhs, all, shape, elt);
      Value rhs = alignOperand(b, c.getLoc(), c.getRhs(), l->rhs, all, shape, elt);
      Value result = b.create<kir::MulOp>(c.getLoc(), kir::TensorType::get(b.getContext(), elt, shape), lhs, rhs);
      std::string kept = all;
      if (!contracted.empty()) {
        SmallVector<int64_t> dims;
        kept.clear();
        for (auto [i, ch] : llvm::enumerate(all))
          if (has(contracted, ch))
            dims.push_back(i);
          else
            kept += ch;
        result = b.create<kir::ReduceOp>(
                      c.getLoc(), TypeRange{kir::TensorType::get(b.getContext(), elt, shapeOf(kept))},
                      ValueRange{result}, ValueRange{}, ValueRange{}, b.getDenseI64ArrayAttr(dims),
                      kir::ReduceKindAttr::get(b.getContext(), kir::ReduceKind::add), kir::PolicyAttr{})
                     .getResult(0);
      }
      if (kept != l->result) {
        SmallVector<int64_t> perm;
        for (char ch : l->result)
          perm.push_back(kept.find(ch));
        result = b.create<kir::TransposeOp>(c.getLoc(), resultType, result, b.getDenseI64ArrayAttr(perm));
      }
      c.replaceAllUsesWith(result);
      c.erase();
    }
  }
};

} // namespace

std::unique_ptr<Pass> gpu::createDecomposeContractionsPass() { return createDecomposeContractions(); }
