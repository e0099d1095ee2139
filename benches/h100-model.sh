#!/usr/bin/env bash
# benches/h100-model.sh - the simulator's estimate (`accshare analyze --platform h100`) of the five
# kernels of benches/five at the GPU sizes of the first H100 measurement
# (../shared/data/h100-2026-11-27.md: Nsight Compute kernel times, accshare 7673f8a), naive
# (`--opt naive`) and staged as 7673f8a's default was (`--ilp 4`: the staging the engine chose,
# whatever the schedule's L1 model now decides), beside the measured times.
#
#   ACCSHARE=target/release/accshare SAMPLE=16 bash benches/h100-model.sh
#
# About 3 minutes on a 2-core machine (release build). Prints a markdown table.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ACCSHARE=${ACCSHARE:-target/release/accshare}
SAMPLE=${SAMPLE:-16}
# name | file | sizes | naive µs | staged µs (measured)
KERNELS=(
  "transpose 8192²|transpose.c|-DN=8192|1192|194"
  "gemm 2048²|gemm_share.c|-DNI=2048 -DNJ=2048 -DNK=2048|3031|2119"
  "mv 8192²|mv.c|-DN=8192 -DM=8192|1354|4037"
  "Gauss u8 4096²|gauss.c|-DH=4096 -DW=4096|110|83"
  "hotspot 4096²|hotspot.c|-DROWS=4096 -DCOLS=4096 -DSTEPS=1|79|100"
)
estimate() { # file opt-args... -> µs of the first kernel
  "$ACCSHARE" analyze "benches/five/$1" --platform h100 --format json --sample "$SAMPLE" -DREPS=1 \
    "${@:2}" | python3 -c 'import json,sys; k=json.load(sys.stdin)["kernels"][0]; print("%.1f %s" % (k["model_estimate_us"], k["bound"]))'
}
echo "| kernel | naive measured | model (bound) | model/measured | staged measured | model (bound) | model/measured | speed-up measured | model |"
echo "|---|---|---|---|---|---|---|---|---|"
for k in "${KERNELS[@]}"; do
  IFS='|' read -r name file sizes naive staged <<<"$k"
  read -r -a SIZES <<<"$sizes"
  read -r n nb < <(estimate "$file" --opt naive "${SIZES[@]}")
  read -r s sb < <(estimate "$file" --ilp 4 "${SIZES[@]}")
  python3 - "$name" "$naive" "$n" "$nb" "$staged" "$s" "$sb" <<'PY'
import sys
name, mn, n, nb, ms, s, sb = sys.argv[1:]
mn, n, ms, s = map(float, (mn, n, ms, s))
print(f"| {name} | {mn:.0f} µs | {n:.0f} µs ({nb}) | {n/mn:.2f} | {ms:.0f} µs | {s:.0f} µs ({sb}) | {s/ms:.2f} | {mn/ms:.2f}x | {n/s:.2f}x |")
PY
done
