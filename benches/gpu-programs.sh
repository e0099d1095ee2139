#!/usr/bin/env bash
# benches/gpu-programs.sh - whole programs on an NVIDIA GPU, timed by the generated program's own
# ACCSHARE_PROFILE=1 table: the cheap complement of benches/gpu.sh (issue 27).
#
# gpu.sh measures through `accshare bench`/`tune`, which verify every level by replaying the
# region's trace on the host: minutes of host time at GPU sizes. This script instead compiles each
# program as a user does (`accshare FILE.c --target cuda [OPTIONS]`, then `nvcc -arch=sm_90`, or
# `--target opencl` and `cc -lOpenCL` for NVIDIA's OpenCL), runs it with ACCSHARE_PROFILE=1 and
# reads each kernel's launches and minimum device time (CUDA events / OpenCL profiling events)
# from the table the program prints at exit. Correctness: the five programs' and dot's checksums
# against the sequential program (`cc -O2`, built and run on the host's cores while the GPU runs),
# NPB's own verification for CG and MG. Ceilings measured in the same call through PyTorch: a
# device-to-device copy (bytes read + written per second) and an FP32 SGEMM (TF32 off).
#
# Results in OUT: summary.md (one row per program, options and kernel; with the ceilings),
# results.tsv (the same, tab-separated), ceilings.txt, ncu.txt (Nsight Compute on a few kernels
# where time allows), logs.tgz (every build and run log).
#
# Environment (all optional):
#   ACCSHARE=path   the accshare binary (default target/release/accshare)
#   OUT=dir         default target/gpu-programs
#   ONLY=a,b        only the cases whose name contains one of these
#   JOBS=16         parallel builds
#   CASES_FILE=f    the cases, one per line in the format of CASES below, instead of CASES
#                   (several files separated by spaces: their cases in turn, one call)
#                   (kind `vs=NAME`: a five program checked against case NAME's checksum, for
#                   sizes whose sequential program would take minutes)
#   NCU=1           0: no Nsight Compute step
#   NCU_CASES="a b" the cases Nsight Compute profiles (first launch of each), in this order
#   NCU_SECTIONS="SpeedOfLight Occupancy ..."  its sections
#   DRY=1           no GPU: build everything (CUDA compile only) and run the OpenCL cases on
#                   opencl:0 at tiny sizes, to check the plumbing; nothing here is a measurement
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ACCSHARE=${ACCSHARE:-$ROOT/target/release/accshare}
OUT=${OUT:-$ROOT/target/gpu-programs}
ONLY=${ONLY:-}
JOBS=${JOBS:-16}
NCU=${NCU:-1}
DRY=${DRY:-0}
START=$(date +%s)
since() { echo "$(($(date +%s) - START))"; }
log() { echo "gpu-programs [$(since) s]: $*" >&2; }

FIVE="$ROOT/benches/five"
NPB="$ROOT/tests/npbsuite"
W="$OUT/work"
rm -rf "$OUT"
mkdir -p "$W" || exit 2

NVCC=${NVCC:-$(command -v nvcc || bash "$ROOT/.ci/nvcc.sh" 2>/dev/null)}
[ -n "$NVCC" ] || { log "no nvcc"; exit 2; }
if [ "$DRY" != 1 ] && ! nvidia-smi -L >/dev/null 2>&1; then
  log "no NVIDIA GPU (nvidia-smi): a dry run"
  DRY=1
fi

# name|kind|source|defines (GPU size)|defines (dry size)|accshare options|target[|environment]
# (environment: VAR=VALUE words for the run, e.g. ACCSHARE_BUILD_OPTIONS for OpenCL's compiler)
# kind: five (checksum line vs the sequential program) or npb (VERIFICATION SUCCESSFUL).
T="-DN=8192|-DN=256"
G="-DNI=2048 -DNJ=2048 -DNK=2048|-DNI=64 -DNJ=64 -DNK=64"
M="-DN=8192 -DM=8192|-DN=256 -DM=256"
GA="-DH=4096 -DW=4096|-DH=128 -DW=128"
H="-DROWS=4096 -DCOLS=4096 -DSTEPS=1|-DROWS=128 -DCOLS=128 -DSTEPS=1"
D="-DN=33554432L|-DN=4096L"
CASES=(
  "transpose.naive|five|$FIVE/transpose.c|$T|--opt naive|cuda"
  "transpose.default|five|$FIVE/transpose.c|$T||cuda"
  "transpose.h100|five|$FIVE/transpose.c|$T|--platform h100|cuda"
  "transpose.ilp8|five|$FIVE/transpose.c|$T|--platform h100 --ilp 8|cuda"
  "gemm.naive|five|$FIVE/gemm.c|$G|--opt naive|cuda"
  "gemm.default|five|$FIVE/gemm.c|$G||cuda"
  "gemm.h100|five|$FIVE/gemm.c|$G|--platform h100|cuda"
  "gemm.micro4x4|five|$FIVE/gemm.c|$G|--platform h100 --micro --ilp 4x4|cuda"
  "gemm.micro8x4|five|$FIVE/gemm.c|$G|--platform h100 --micro --ilp 8x4|cuda"
  "gemm.micro8x8|five|$FIVE/gemm.c|$G|--platform h100 --micro --ilp 8x8|cuda"
  "gemm.micro8x8.elements|five|$FIVE/gemm.c|$G|--platform h100 --micro --ilp 8x8 --vector-tiles off|cuda"
  "gemm.micro4x4.elements|five|$FIVE/gemm.c|$G|--platform h100 --micro --ilp 4x4 --vector-tiles off|cuda"
  "gemm_share.h100|five|$FIVE/gemm_share.c|$G|--platform h100|cuda"
  "mv.naive|five|$FIVE/mv.c|$M|--opt naive|cuda"
  "mv.default|five|$FIVE/mv.c|$M||cuda"
  "mv.h100|five|$FIVE/mv.c|$M|--platform h100|cuda"
  "mv.h100.reassociate|five|$FIVE/mv.c|$M|--platform h100 --reassociate|cuda"
  "mv_vector.default|five|$FIVE/mv_vector.c|$M||cuda"
  "mv_vector.h100|five|$FIVE/mv_vector.c|$M|--platform h100|cuda"
  "gauss.naive|five|$FIVE/gauss.c|$GA|--opt naive|cuda"
  "gauss.default|five|$FIVE/gauss.c|$GA||cuda"
  "gauss.h100|five|$FIVE/gauss.c|$GA|--platform h100|cuda"
  "gauss.h100.nowords|five|$FIVE/gauss.c|$GA|--platform h100 --words off|cuda"
  "gauss.h100.cyclic|five|$FIVE/gauss.c|$GA|--platform h100 --adjacent-rows off|cuda"
  "hotspot.naive|five|$FIVE/hotspot.c|$H|--opt naive|cuda"
  "hotspot.default|five|$FIVE/hotspot.c|$H||cuda"
  "hotspot.h100|five|$FIVE/hotspot.c|$H|--platform h100|cuda"
  "dot.naive|five|$ROOT/benches/gpu/dot.c|$D|--opt naive|cuda"
  "dot.default|five|$ROOT/benches/gpu/dot.c|$D||cuda"
  "dot.h100|five|$ROOT/benches/gpu/dot.c|$D|--platform h100|cuda"
  "CG.naive|npb|CG|-DCLASS_A||--opt naive|cuda"
  "CG.default|npb|CG|-DCLASS_A|||cuda"
  "CG.h100|npb|CG|-DCLASS_A||--platform h100|cuda"
  "MG.naive|npb|MG|-DCLASS_A||--opt naive|cuda"
  "MG.default|npb|MG|-DCLASS_A|||cuda"
  "cl.transpose.h100|five|$FIVE/transpose.c|$T|--platform h100|opencl"
  "cl.gemm.micro4x4|five|$FIVE/gemm.c|$G|--platform h100 --micro --ilp 4x4|opencl"
  "cl.gemm.micro8x8|five|$FIVE/gemm.c|$G|--platform h100 --micro --ilp 8x8|opencl"
  "cl.mv_vector.h100|five|$FIVE/mv_vector.c|$M|--platform h100|opencl"
  "cl.dot.h100|five|$ROOT/benches/gpu/dot.c|$D|--platform h100|opencl"
)

if [ -n "${CASES_FILE:-}" ]; then
  # shellcheck disable=SC2086 # several files, split on spaces
  mapfile -t CASES < <(cat $CASES_FILE | grep -v '^#' | grep . | sed "s#\$FIVE#$FIVE#g; s#\$ROOT#$ROOT#g")
fi

selected() {
  [ -z "$ONLY" ] && return 0
  local o
  for o in ${ONLY//,/ }; do [[ "$1" == *"$o"* ]] && return 0; done
  return 1
}

# ---- generate and build (parallel) ----
# build NAME KIND SRC DEFS OPTS TARGET: writes $W/NAME/bin or $W/NAME/build.log with the error.
build() {
  local name=$1 kind=$2 src=$3 defs=$4 opts=$5 target=$6 d=$W/$1
  local -a D O incs srcs
  read -r -a D <<<"$defs"
  read -r -a O <<<"$opts"
  mkdir -p "$d/gen"
  if [ "$kind" = npb ]; then
    incs=(-I "$NPB/common" -I "$NPB/$src")
    srcs=("$NPB"/common/*.c "$NPB/$src"/*.c)
  else
    incs=(-I "$FIVE")
    srcs=("$src")
  fi
  local f sub gens=()
  for f in "${srcs[@]}"; do
    case "$f" in "$NPB/common/"*) sub=common ;; *) sub=main ;; esac
    mkdir -p "$d/gen/$sub"
    "$ACCSHARE" "$f" --target "$target" -o "$d/gen/$sub" "${incs[@]}" "${D[@]}" -DREPS=5 "${O[@]}" \
      >>"$d/build.log" 2>&1 || { echo "accshare failed on $f" >>"$d/build.log"; return 1; }
    gens+=("$d/gen/$sub/$(basename "$f")")
    [ "$target" = cuda ] && [ -f "$d/gen/$sub/$(basename "${f%.c}").cu" ] &&
      gens+=("$d/gen/$sub/$(basename "${f%.c}").cu")
  done
  if [ "$target" = cuda ]; then
    "$NVCC" -arch=sm_90 -O2 -std=c++17 -w "${incs[@]}" "${D[@]}" -DREPS=5 "${gens[@]}" -o "$d/bin" -lm \
      >>"$d/build.log" 2>&1 || return 1
  else
    cc -O2 -std=gnu99 -w "${incs[@]}" "${D[@]}" -DREPS=5 "${gens[@]}" -o "$d/bin" -lOpenCL -lm \
      >>"$d/build.log" 2>&1 || return 1
  fi
}
# The sequential program of a `five` case (one per source and size), built and run on the host.
seqref() {
  local src=$1 defs=$2 key=$3
  local -a D
  read -r -a D <<<"$defs"
  cc -O2 -std=gnu99 -w -I "$FIVE" "${D[@]}" -DREPS=1 "$src" -o "$W/seq.$key" -lm >"$W/seq.$key.log" 2>&1 &&
    timeout 600 "$W/seq.$key" >"$W/seq.$key.out" 2>&1
  touch "$W/seq.$key.done"
}
# The sequential program's name for a source and its defines.
seq_key() { echo "$(basename "$1" .c)_$(printf %s "$2" | cksum | cut -d' ' -f1)"; }
# same_checksums REF RUN YES: YES when every number of RUN's `checksum` line equals REF's within
# 1e-5 relative (exact kernels are bit-identical anyway), else why not.
same_checksums() {
  awk -v yes="$3" 'FNR == NR && /^checksum/ { for (i = 2; i <= NF; i++) s[i] = $i; next }
    /^checksum/ { r = yes; for (i = 2; i <= NF; i++) {
      a = s[i] + 0; b = $i + 0; e = a - b; if (e < 0) e = -e; m = (a < 0 ? -a : a); if (m < 1) m = 1
      if (e / m > 1e-5) r = "NO (" $i " vs " s[i] ")" } }
    END { print (r == "" ? "NO (no checksum)" : r) }' "$1" "$2" 2>/dev/null
}
export -f build seqref
export ACCSHARE NPB FIVE W NVCC

NAMES=()
for c in "${CASES[@]}"; do
  IFS='|' read -r name kind src gdefs ddefs opts target _envs <<<"$c"
  selected "$name" || continue
  defs=$gdefs
  [ "$DRY" = 1 ] && defs=$ddefs
  NAMES+=("$name")
  printf '%s\0%s\0%s\0%s\0%s\0%s\0' "$name" "$kind" "$src" "$defs" "$opts" "$target"
done >"$W/jobs"
[ ${#NAMES[@]} -gt 0 ] || { log "no case matches ONLY=$ONLY"; exit 2; }

# Sequential references in the background (one per program and size).
SEQ_KEYS=()
for c in "${CASES[@]}"; do
  IFS='|' read -r name kind src gdefs ddefs opts target _envs <<<"$c"
  selected "$name" || continue
  [ "$kind" = five ] || continue
  defs=$gdefs
  [ "$DRY" = 1 ] && defs=$ddefs
  key=$(seq_key "$src" "$defs")
  [[ " ${SEQ_KEYS[*]} " == *" $key "* ]] && continue
  SEQ_KEYS+=("$key")
  (nice -n 10 bash -c 'seqref "$@"' _ "$src" "$defs" "$key") &
done

log "building ${#NAMES[@]} programs ($JOBS at a time) with $ACCSHARE and $NVCC"
xargs -0 -n 6 -P "$JOBS" bash -c 'build "$@" || echo "build failed: $1" >&2' _ <"$W/jobs"
log "built"

# ---- ceilings (PyTorch) ----
if [ "$DRY" != 1 ]; then
  nvidia-smi -L >"$OUT/ceilings.txt" 2>&1
  timeout 120 python3 - >>"$OUT/ceilings.txt" 2>&1 <<'PY'
import torch
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
dev = torch.device("cuda")
def t(f, n=20):
    for _ in range(3): f()
    torch.cuda.synchronize()
    ts = []
    for _ in range(n):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); f(); b.record(); torch.cuda.synchronize()
        ts.append(a.elapsed_time(b) * 1e3)
    ts.sort()
    return ts[len(ts) // 2]
for mb in (32, 256, 1024):
    n = mb * 1024 * 1024 // 4
    x = torch.rand(n, device=dev); y = torch.empty_like(x)
    us = t(lambda: y.copy_(x))
    print(f"copy {mb} MB: {us:.1f} us, {2 * n * 4 / us / 1e3:.0f} GB/s (read + write)")
for n in (1024, 2048, 4096):
    a = torch.rand(n, n, device=dev); b = torch.rand(n, n, device=dev)
    us = t(lambda: a @ b)
    print(f"sgemm fp32 {n}: {us:.1f} us, {2 * n ** 3 / us / 1e6:.1f} TFLOP/s")
PY
  log "ceilings: $(tr '\n' ';' <"$OUT/ceilings.txt")"
fi

# ---- run (one at a time) ----
NVCL=""
if [ "$DRY" = 1 ]; then NVCL=0; else NVCL=NVIDIA; fi
printf 'case\toptions\tverified\tkernel\tlaunches\ttotal_ms\tmean_us\tmin_us\tshare\n' >"$OUT/results.tsv"
for c in "${CASES[@]}"; do
  IFS='|' read -r name kind src gdefs ddefs opts target envs <<<"$c"
  selected "$name" || continue
  d=$W/$name
  if [ ! -x "$d/bin" ]; then
    printf '%s\t%s\tBUILD FAILED\t\t\t\t\t\t\n' "$name" "$opts" >>"$OUT/results.tsv"
    continue
  fi
  if [ "$DRY" = 1 ] && [ "$target" = cuda ]; then
    printf '%s\t%s\tbuilt (dry run: not run)\t\t\t\t\t\t\n' "$name" "$opts" >>"$OUT/results.tsv"
    continue
  fi
  defs=$gdefs
  [ "$DRY" = 1 ] && defs=$ddefs
  read -r -a ENVS <<<"${envs:-}"
  (cd "$d" && env ACCSHARE_PROFILE=1 ACCSHARE_DEVICE=$NVCL ACCSHARE_VERBOSE=1 "${ENVS[@]}" timeout 120 ./bin >run.out 2>run.err)
  rc=$?
  ok="exit $rc"
  if [ $rc -eq 0 ]; then
    if [ "$kind" = npb ]; then
      grep -q "VERIFICATION SUCCESSFUL" "$d/run.out" && ok=yes || ok=NO
    elif [[ "$kind" == vs=* ]]; then
      ok=$(same_checksums "$W/${kind#vs=}/run.out" "$d/run.out" "yes (as ${kind#vs=})")
    else
      key=$(seq_key "$src" "$defs")
      wait_for=0
      while [ ! -e "$W/seq.$key.done" ] && [ $wait_for -lt 300 ]; do sleep 1; wait_for=$((wait_for + 1)); done
      ok=$(same_checksums "$W/seq.$key.out" "$d/run.out" yes)
    fi
  fi
  # The profile table: "accshare:   KERNEL  REGION  LAUNCHES  TOTAL_MS  MEAN_US  MIN_US  MAX_US  %".
  awk -v n="$name" -v o="$opts" -v ok="$ok" -F' +' '
    /^accshare:   / && $2 != "kernel" && NF >= 9 { printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", n, o, ok, $2, $4, $5, $6, $7, $9; k++ }
    END { if (!k) printf "%s\t%s\t%s\t(no profile)\t\t\t\t\t\n", n, o, ok }' "$d/run.err" >>"$OUT/results.tsv"
  log "$name: $ok"
done
wait

# ---- Nsight Compute on a few kernels, while time allows ----
if [ "$DRY" != 1 ] && [ "$NCU" = 1 ] && command -v ncu >/dev/null; then
  read -r -a SECTIONS <<<"${NCU_SECTIONS:-SpeedOfLight Occupancy LaunchStats MemoryWorkloadAnalysis}"
  SECTION_ARGS=()
  for s in "${SECTIONS[@]}"; do SECTION_ARGS+=(--section "$s"); done
  for name in ${NCU_CASES:-gemm.micro8x8 gemm.micro8x8.elements mv_vector.h100 transpose.h100 gauss.h100 gauss.h100.cyclic}; do
    selected "$name" || continue
    [ -x "$W/$name/bin" ] || continue
    [ "$(since)" -lt "${NCU_UNTIL:-300}" ] || { log "ncu: out of time before $name"; break; }
    echo "=== $name" >>"$OUT/ncu.txt"
    (cd "$W/$name" && timeout 60 ncu --clock-control none -c 1 "${SECTION_ARGS[@]}" ./bin) >>"$OUT/ncu.txt" 2>&1
  done
fi

# ---- summary ----
{
  echo "# benches/gpu-programs.sh $( [ "$DRY" = 1 ] && echo "(DRY RUN: not a measurement)")"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'); $("$ACCSHARE" --version 2>/dev/null); $(since) s"
  echo
  [ -s "$OUT/ceilings.txt" ] && { echo '```'; cat "$OUT/ceilings.txt"; echo '```'; echo; }
  echo "| case | options | verified | kernel | launches | min µs | mean µs |"
  echo "|---|---|---|---|---|---|---|"
  awk -F'\t' 'NR > 1 { printf "| %s | `%s` | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $8, $7 }' "$OUT/results.tsv"
} >"$OUT/summary.md"
find "$W" -type f \( -name bin -o -name 'seq.*' ! -name '*.log' ! -name '*.out' ! -name '*.done' \) -delete
(cd "$OUT" && tar czf logs.tgz work)
rm -rf "$W"
cat "$OUT/summary.md"
