#!/usr/bin/env bash
# Builds the GPU harness inputs on the build machine: every benchmarked kernel
# compiled for Triton and for the reference provider into .gpu-artifacts/
# (git-ignored; carried to the GPU machine by the device call).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
INTENTC="${INTENTC:-$ROOT/build/bin/intentc}"
ART="$ROOT/.gpu-artifacts"
rm -rf "$ART"
mkdir -p "$ART/kir"
cp "$ROOT"/examples/*.kir "$ROOT/tests/python/providers/kir/division.kir" "$ROOT/tests/python/providers/kir/tanh.kir" \
   "$ROOT/tests/python/providers/kir/gemm_f32.kir" "$ROOT/tests/python/providers/kir/gemm_f8.kir" \
   "$ROOT/tests/python/providers/kir/narrow_scalars.kir" "$ART/kir/"
# Variants: f32 layernorm (the example is f16 in/out).
sed 's/f16/f32/g; s/@layernorm/@layernorm_f32/' "$ROOT/examples/layernorm.kir" > "$ART/kir/layernorm_f32.kir"
for f in "$ART"/kir/*.kir; do
  name="$(basename "$f" .kir)"
  for target in triton reference; do
    if ! "$INTENTC" compile "$f" --target "$target" --no-cache -o "$ART/$name/$target" >/dev/null 2>"$ART/$name.$target.log"; then
      echo "prepare: $name not compiled for $target: $(head -1 "$ART/$name.$target.log")"
    fi
  done
done
# Contractions with operand prologues and mixed-width outputs (harness.py ART prologue) and the
# einsum forms beyond [batch,] "mk,kn->mn" (harness.py ART forms), row reductions sharing the chunked
# row's passes and the split merges of independent sums (harness.py ART passes): one directory per kernel.
FORMS="matvec vecmat rowdot dot outer gemm_result_t shared_b shared_a heads_scores heads_mixed head_merge"
PASSES="row_passes:sum_and_squares row_passes:centered row_passes:late_max row_passes:tree_and_fold
        split_merge:row_sums_f32_i32 split_merge:row_max_min split_merge:row_mean_norm split_merge:col_mean_var"
# compile_specs COMPILER DEST FILE:KERNEL...: each kernel of tests/python/providers/kir/FILE.kir
# for Triton and the reference provider into DEST/KERNEL/{triton,reference}.
compile_specs() {
  local compiler="$1" dest="$2" spec file name target
  shift 2
  for spec in "$@"; do
    file="${spec%%:*}" name="${spec#*:}"
    for target in triton reference; do
      "$compiler" compile "$ROOT/tests/python/providers/kir/$file.kir" --kernel "$name" --target "$target" \
        --no-cache -o "$dest/$name/$target" >/dev/null
    done
  done
}
# shellcheck disable=SC2046
compile_specs "$INTENTC" "$ART" gemm_prologue:gemm_scaled_a gemm_prologue:gemm_cast_inputs \
  gemm_prologue:gemm_row_scale_bt gemm_prologue:bmm_cast_b gemm_mixed_out:gemm_f16_f32out \
  gemm_mixed_out:gemm_bf16_f32out $(for k in $FORMS; do echo "contraction_forms:$k"; done) $PASSES
# Reductions over several axes of rank > 2 values (harness.py ART axes).
for name in batch_sum middle_sum leading_sum total3 channel_sum batch_max instance_norm; do
  for target in triton reference; do
    "$INTENTC" compile "$ROOT/tests/python/providers/kir/several_axes.kir" --kernel "$name" --target "$target" \
      --no-cache -o "$ART/$name/$target" >/dev/null
  done
done
# Grids past 65535 programs along dimension 1 (harness.py ART grids; with the examples and bmm_cast_b).
for target in triton reference; do
  "$INTENTC" compile "$ROOT/tests/python/providers/kir/grid_limits.kir" --target "$target" --no-cache \
    -o "$ART/add1d/$target" >/dev/null
done
# Two contractions with row-local ops between them (harness.py ART attn; the attention example is above).
for name in attn_f16 attn_bf16_lse attn_f32_bias; do
  for target in triton reference; do
    "$INTENTC" compile "$ROOT/tests/python/providers/kir/region_contraction.kir" --kernel "$name" --target "$target" \
      --no-cache -o "$ART/$name/$target" >/dev/null
  done
done
# Split merges and epilogues (probe.py ART epilogue / colstats): ART/epilogue/new by this compiler,
# ART/epilogue/old by $INTENTC_OLD when given (a build of the revision to compare against).
for which in new old; do
  compiler="$INTENTC"
  if [ "$which" = old ]; then
    [ -n "${INTENTC_OLD:-}" ] || continue
    compiler="$INTENTC_OLD"
  fi
  "$compiler" compile "$ROOT/tests/python/providers/kir/split_merge.kir" --target triton --no-cache \
    -o "$ART/epilogue/$which/tmp" >/dev/null
  for d in "$ART/epilogue/$which/tmp"/*/; do
    mkdir -p "$ART/epilogue/$which/$(basename "$d")"
    mv "$d" "$ART/epilogue/$which/$(basename "$d")/triton"
  done
  rmdir "$ART/epilogue/$which/tmp"
done
# Probe variants: the sum kernels with many more rows (scripts/gpu/probe.py sums).
for name in total_sum col_sum row_sum; do
  "$INTENTC" compile "$ROOT/examples/$name.kir" --target triton --no-cache \
    --tuning-config "$ROOT/scripts/gpu/probe-sum-rows.json" -o "$ART/${name}_probe/triton" >/dev/null
done
# Persistent-traversal probe: the descriptor rows of contraction_narrow with WORKERS 1, 132, 264.
for name in gemm_f16 gemm_bf16 gemm_bt; do
  "$INTENTC" compile "$ROOT/examples/$name.kir" --target triton --no-cache \
    --tuning-config "$ROOT/scripts/gpu/probe-persistent-rows.json" -o "$ART/${name}_persist/triton" >/dev/null
done
# Cluster probe: the same descriptor rows with NUM_CTAS 1 and 2.
for name in gemm_f16 gemm_bf16 gemm_bt; do
  "$INTENTC" compile "$ROOT/examples/$name.kir" --target triton --no-cache \
    --tuning-config "$ROOT/scripts/gpu/probe-cluster-rows.json" -o "$ART/${name}_ctas/triton" >/dev/null
done
# Vector probe: one long row reduced (a vector's total, a dot) with many splits, and
# vector-matrix beside the column sum (probe.py vectors, vecmat).
for spec in total_sums:vector_total:probe-vector-rows contraction_forms:dot:probe-vector-rows \
            contraction_forms:vecmat:probe-vecmat-rows examples/col_sum:col_sum:probe-vecmat-rows; do
  IFS=: read -r file name rows <<<"$spec"
  src="$ROOT/tests/python/providers/kir/$file.kir"
  [[ "$file" == examples/* ]] && src="$ROOT/$file.kir"
  "$INTENTC" compile "$src" --kernel "$name" --target triton --no-cache \
    --tuning-config "$ROOT/scripts/gpu/$rows.json" -o "$ART/${name}_vprobe/triton" >/dev/null
done
# Store-split probe: the outer-axis kernels whose full-size outputs read a reduction, with many rows
# sharing each row's stores over 2-16 programs (probe.py storesplit).
for name in col_center col_norm col_softmax; do
  "$INTENTC" compile "$ROOT/tests/python/providers/kir/outer_axes.kir" --kernel "$name" --target triton --no-cache \
    --tuning-config "$ROOT/scripts/gpu/probe-storesplit-rows.json" -o "$ART/${name}_ssprobe/triton" >/dev/null
done
# Few long rows (probe.py fewrows): the softmax with the rows of probe-fewrows-rows.json, split ones
# included (2-16 programs sharing a row's stores: softmax is a region_reduction, whose innermost rows may split).
"$INTENTC" compile "$ROOT/examples/softmax.kir" --target triton --no-cache \
  --tuning-config "$ROOT/scripts/gpu/probe-fewrows-rows.json" -o "$ART/softmax_ssprobe/triton" >/dev/null
# Fused kernels against the torch a user writes (scripts/bench/fused.py ART/fused/new [GROUP...]):
# ART/fused/new by this compiler, ART/fused/old by $INTENTC_OLD when given.
FUSED="outer_axes:bias_grad outer_axes:col_center outer_axes:col_norm outer_axes:col_softmax outer_axes:col_cumsum
       scan_with_reductions:softmax_cdf scan_with_reductions:running_share"
for which in new old; do
  compiler="$INTENTC"
  if [ "$which" = old ]; then
    [ -n "${INTENTC_OLD:-}" ] || continue
    compiler="$INTENTC_OLD"
  fi
  # shellcheck disable=SC2086
  compile_specs "$compiler" "$ART/fused/$which" $FUSED
done
echo "prepared $(ls -d "$ART"/*/triton 2>/dev/null | wc -l) Triton artifacts in $ART"
