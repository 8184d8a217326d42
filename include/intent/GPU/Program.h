//===- Program.h - the blocked program of a structure ------------*- C++ -*-===//
//
// igpu-build-program: the fixed structure of a kernel written out as an
// `igpu.program` (IGPUOps.td) at the end of the kernel body. Every structural
// choice the serializer used to make on its own (grid axes, which stores happen
// where, chunk loops, split merges, the contraction's traversal and descriptor
// stores) is an op of that program.
//
//===----------------------------------------------------------------------===//
#ifndef INTENT_GPU_PROGRAM_H
#define INTENT_GPU_PROGRAM_H

#include "intent/GPU/IGPU.h"
#include "intent/GPU/Structure.h"

namespace intent::gpu {

/// Replaces the kernel's igpu.program by the program of `ps`.
igpu::ProgramOp buildProgram(intent::kir::KernelOp kernel, const ProgramStructure &ps);

/// The kernel's igpu.program, if any.
igpu::ProgramOp programOf(intent::kir::KernelOp kernel);

/// An output the contraction's epilogue stores through a tensor descriptor.
struct DescriptorOutput {
  unsigned view;  ///< the kernel argument
  int64_t slices; ///< column slices per tile (igpu.store `slices`; 1 or 2)
};
/// The program's descriptor-stored outputs, each once, in program order (both
/// traversals of a contraction store the same views the same way).
std::vector<DescriptorOutput> descriptorOutputs(igpu::ProgramOp program);

/// The reductions whose results are partial per split, in the structure's order:
/// those the merged stores read, directly or through their epilogue (in a row
/// reduction, the stores without the column axis).
std::vector<intent::kir::ReduceOp> splitPartials(const ProgramStructure &ps, mlir::Block &body);

/// True when `v` (a value or view of the kernel) spans the innermost axis.
bool hasColAxis(const ProgramStructure &ps, mlir::Value v);

/// A split reduction over the leading axis of a rank-2 tensor keeps its
/// columns (a column sum); otherwise it reduces every axis (a total).
bool splitKeepsCols(const ProgramStructure &ps);

} // namespace intent::gpu

#endif
