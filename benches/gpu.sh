#!/usr/bin/env bash
# benches/gpu.sh - what anyone lent a machine with an NVIDIA GPU runs first (issue 27, item 7):
# one command (the budget is 3 minutes; on an H200 machine it took about 6, most of it host-side
# replays: with 15 minutes of device time, run it as two calls, ONLY=transpose,gemm and
# ONLY=mv,gauss,hotspot, each with a timeout, and tar OUT into one file to bring it back).
#
# The five kernels of benches/five/ at the GPU sizes of ../shared/data/h100-2026-11-27.md
# (transpose 8192², gemm 2048², mv 8192², Gauss 5×5 u8 4096², hotspot 4096², one repetition of
# the region, one hotspot step; and mv_vector: mv whose inner loop is `loop vector
# reduction(+:sum)`, which runs across lanes, where mv's `loop seq` keeps it sequential), each
#   - tuned: `accshare tune --device D --platform PLATFORM --budget TUNE_BUDGET` on each device
#     (the fastest verified variant of each kernel, its event time);
#   - measured: `accshare bench --platform PLATFORM --devices D,... --platforms PLATFORM`:
#     naive, +share, +bank, +ILP (= the default compilation for PLATFORM), each verified against
#     the sequential program, event-timed on resident buffers (median of REPS), with a copy
#     kernel moving the kernel's compulsory bytes timed in the same rounds (`% of copy`) and the
#     model's estimate for PLATFORM beside each level;
# on D = cuda:0 (the kernels printed as CUDA, compiled by NVRTC) and on NVIDIA's OpenCL device
# when there is one (`accshare devices`: an `opencl:N` whose platform names NVIDIA).
#
# Results in OUT: gpu.md (the table: naive / default / tuned per kernel and device, speed-ups,
# % of copy, GFLOP/s, the model's estimates), gpu.csv (every row of every bench, the tuned
# times appended as level `tuned`), tuned.tsv (the variants the tuner recorded), PROGRAM.svg (bench's chart per program), log/ (every
# command's output), cache/tune.json (what tune measured: ACCSHARE_CACHE_DIR points there).
#
# Without a CUDA device (or with DRY=1) it is a dry run: it says so, then runs the same
# commands at tiny sizes on opencl:0 (PoCL here) to check that everything it needs builds and
# that its plumbing works, and exits 0 when it does. Not a test: nothing here asserts a speed.
#
# Environment (all optional):
#   ACCSHARE=path     the accshare binary (default: `cargo build --release` here)
#   OUT=dir           where everything goes (default: target/gpu)
#   DRY=1             a dry run even where a CUDA device is present
#   PLATFORM=h100     the platform the kernels are compiled for and the model estimates on
#   REPS=5            bench's timed runs per level (median)
#   TUNE_BUDGET=8     seconds of measuring per program for the tuner, per device (0: no tuning)
#   TUNE_REPS=3       the tuner's timed runs per variant
#   SAMPLE=16         thread blocks simulated per launch for the model's estimates (bench
#                     --sample; the GPU sizes have up to 65536 blocks per launch)
#   MODEL=1           0: no model estimates (`--platforms none`; saves the simulator's replays
#                     of the trace, the largest host-side cost after the traces themselves)
#   TUNE_OPENCL=0     1: tune on NVIDIA's OpenCL device too (default: tune on cuda:0 only; the
#                     OpenCL device is measured by bench, its tuned column stays empty)
#   ONLY=gemm         only the programs whose name contains this (a comma list: any of them)
#   DEFS="-DN=512"    -D options after each program's own (sizes; DRY's sizes are tiny)
#   TIMEOUT=240       seconds before one accshare command is killed
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SRC="$ROOT/benches/five"
OUT=${OUT:-$ROOT/target/gpu}
DRY=${DRY:-0}
PLATFORM=${PLATFORM:-h100}
REPS=${REPS:-5}
TUNE_BUDGET=${TUNE_BUDGET:-8}
TUNE_REPS=${TUNE_REPS:-3}
SAMPLE=${SAMPLE:-16}
MODEL=${MODEL:-1}
TUNE_OPENCL=${TUNE_OPENCL:-0}
ONLY=${ONLY:-}
TIMEOUT=${TIMEOUT:-240}
read -r -a DEFS_ARR <<<"${DEFS:-}"

# The programs, in table order: name|label|GPU sizes|dry-run sizes.
PROGRAMS=(
  "transpose|transpose 8192²|-DN=8192|-DN=256"
  "gemm|gemm 2048²|-DNI=2048 -DNJ=2048 -DNK=2048|-DNI=64 -DNJ=64 -DNK=64"
  "mv|mv 8192²|-DN=8192 -DM=8192|-DN=256 -DM=256"
  "mv_vector|mv 8192² (loop vector reduction)|-DN=8192 -DM=8192|-DN=256 -DM=256"
  "gauss|Gauss 5×5 u8 4096²|-DH=4096 -DW=4096|-DH=128 -DW=128"
  "hotspot|hotspot 4096² (1 step)|-DROWS=4096 -DCOLS=4096 -DSTEPS=1|-DROWS=128 -DCOLS=128 -DSTEPS=1"
)

log() { echo "gpu: $*" >&2; }
die() { echo "gpu: error: $*" >&2; exit 2; }
START=$(date +%s)
since() { echo "$(( $(date +%s) - START )) s"; }

mkdir -p "$OUT/log" "$OUT/csv" "$OUT/cache" || die "cannot create $OUT"
rm -f "$OUT"/csv/*.csv "$OUT"/*.svg "$OUT/gpu.md" "$OUT/gpu.csv" "$OUT/tuned.tsv"
# The tuner's cache goes with the results, never into the user's cache.
export ACCSHARE_CACHE_DIR="$OUT/cache"

if [ -z "${ACCSHARE:-}" ]; then
  log "building accshare (cargo build --release) ..."
  (cd "$ROOT" && cargo build --release 1>&2) || die "cargo build --release failed"
  ACCSHARE="$ROOT/target/release/accshare"
fi
[ -x "$ACCSHARE" ] || die "ACCSHARE=$ACCSHARE is not an executable"

# ---- the devices ----
DEVLIST=$("$ACCSHARE" devices 2>&1)
printf '%s\n' "$DEVLIST" >"$OUT/log/devices"
CUDA=$(printf '%s\n' "$DEVLIST" | awk '$1 == "cuda:0" && !/cannot be opened/ { print $1; exit }')
# NVIDIA's OpenCL: `opencl:N   NAME (PLATFORM; VENDOR, ...)` with NVIDIA in PLATFORM.
NV_OPENCL=$(printf '%s\n' "$DEVLIST" |
  sed -n 's/^  \(opencl:[0-9][0-9]*\) .*(\([^;]*NVIDIA[^;]*\);.*/\1/p' | head -n 1)
if [ "$DRY" != 1 ] && [ -z "$CUDA" ]; then
  log "no CUDA device here ($(printf '%s\n' "$DEVLIST" | awk '/^CUDA:/ { getline; sub(/^ +/, ""); print; exit }')): a dry run"
  DRY=1
fi
if [ "$DRY" = 1 ]; then
  DEVICES=()
  printf '%s\n' "$DEVLIST" | grep -q '^  opencl:0 ' && DEVICES=(opencl:0)
  ON="no device (the model's estimates only)"
  [ ${#DEVICES[@]} -gt 0 ] && ON="${DEVICES[*]}"
  log "DRY RUN: nothing here is a GPU measurement; the commands run at tiny sizes on $ON to check the plumbing"
else
  DEVICES=("$CUDA")
  [ -n "$NV_OPENCL" ] && DEVICES+=("$NV_OPENCL")
  [ -z "$NV_OPENCL" ] && log "no NVIDIA OpenCL device: CUDA only"
fi
DEVICES_CSV=$(IFS=,; echo "${DEVICES[*]:-none}")
PLATFORMS=$PLATFORM
[ "$MODEL" = 0 ] && PLATFORMS=none
[ "$DEVICES_CSV" = none ] && PLATFORMS=$PLATFORM
log "accshare: $ACCSHARE ($("$ACCSHARE" --version 2>/dev/null)); devices: $DEVICES_CSV; platform $PLATFORM; REPS=$REPS TUNE_BUDGET=$TUNE_BUDGET SAMPLE=$SAMPLE -> $OUT"

FAILURES=()
fail() { FAILURES+=("$1"); log "*** FAILURE *** $1"; }

# ---- tune, then bench, program by program ----
SELECTED=()
for entry in "${PROGRAMS[@]}"; do
  IFS='|' read -r p label gpu_defs dry_defs <<<"$entry"
  if [ -n "$ONLY" ]; then
    keep=0
    for o in ${ONLY//,/ }; do [[ "$p" == *"$o"* ]] && keep=1; done
    [ "$keep" = 1 ] || continue
  fi
  if [ "$DRY" = 1 ]; then read -r -a SIZE <<<"$dry_defs"; label="$p (dry-run size)"; else read -r -a SIZE <<<"$gpu_defs"; fi
  SELECTED+=("$p|$label")
  ARGS=(-I "$SRC" "${SIZE[@]}" -DREPS=1 "${DEFS_ARR[@]}")
  if [ "$TUNE_BUDGET" != 0 ]; then
    for d in "${DEVICES[@]}"; do
      [ "$DRY" != 1 ] && [ "$TUNE_OPENCL" != 1 ] && [ "$d" != "$CUDA" ] && continue
      slug=${d/:/}
      log "[$(since)] $p: tune on $d (budget $TUNE_BUDGET s)"
      if timeout "$TIMEOUT" "$ACCSHARE" tune "$SRC/$p.c" --device "$d" --platform "$PLATFORM" \
          --budget "$TUNE_BUDGET" --reps "$TUNE_REPS" "${ARGS[@]}" \
          >"$OUT/log/$p.tune.$slug" 2>&1; then
        # Per kernel, the recorded (`*`) variant's time: `  *m #1   0.000123 s   1.00×  variant`.
        # tuned.tsv: program, kernel, device, seconds, the variant (tab-separated).
        awk -v p="$p" -v d="$d" '
          /^[^ ]/ { kernel = $1 }
          $1 ~ /^\*/ && $4 == "s" {
            v = $0; sub(/^ *\*m? +#[0-9]+ +[^ ]+ s +[^ ]* +/, "", v)
            printf "%s\t%s\t%s\t%s\t%s\n", p, kernel, d, $3, v
          }' "$OUT/log/$p.tune.$slug" >>"$OUT/tuned.tsv"
      else
        fail "$p: accshare tune on $d failed (exit $?): $(grep -m1 -E '^(error|thread)' "$OUT/log/$p.tune.$slug") (log: $OUT/log/$p.tune.$slug)"
      fi
    done
  fi
  log "[$(since)] $p: bench on $DEVICES_CSV, estimates on $PLATFORMS"
  timeout "$TIMEOUT" "$ACCSHARE" bench "$SRC/$p.c" --platform "$PLATFORM" --devices "$DEVICES_CSV" \
    --platforms "$PLATFORMS" --reps "$REPS" --sample "$SAMPLE" --format csv --plot "$OUT/$p.svg" \
    "${ARGS[@]}" >"$OUT/csv/$p.csv" 2>"$OUT/log/$p.bench"
  rc=$?
  [ $rc -ne 0 ] && fail "$p: accshare bench exited with $rc: $(grep -m1 -E '^(error|thread)' "$OUT/log/$p.bench") (log: $OUT/log/$p.bench)"
done
[ ${#SELECTED[@]} -gt 0 ] || die "no program matches ONLY=$ONLY"

# ---- gpu.csv: every bench row, then the tuned times as level `tuned` ----
{
  head -n 1 -q "$OUT"/csv/*.csv 2>/dev/null | head -n 1
  for f in "$OUT"/csv/*.csv; do [ -s "$f" ] && tail -n +2 "$f"; done
  if [ -s "$OUT/tuned.tsv" ]; then
    # file,kernel,source,on,level,status,seconds, the rest empty (the variants: tuned.tsv).
    awk -F'\t' -v src="$SRC" '{ printf "%s/%s.c,%s,measured,%s,tuned,ok,%s,,,,,,,,,,\n", src, $1, $2, $3, $4 }' "$OUT/tuned.tsv"
  fi
} >"$OUT/gpu.csv"

# ---- gpu.md ----
# Per program, kernel and device: naive, default (+ILP) and tuned times, speed-ups over naive,
# % of copy (memory-bound kernels), GFLOP/s (kernels with flops), the model's naive and default.
table() {
  awk -F, -v platform="$PLATFORM" -v order="$(printf '%s\n' "${SELECTED[@]}" | cut -d'|' -f1 | tr '\n' ' ')" '
    function us(s) { return s == "" ? "—" : sprintf("%.1f", s * 1e6) }
    function x(a, b) { return (a == "" || b == "" || b <= 0) ? "—" : sprintf("%.2f×", a / b) }
    function pct(c, s, mb) { return (mb != "true" || c == "" || s == "" || s <= 0) ? "—" : sprintf("%.0f %%", 100 * c / s) }
    function gf(f, s) { return (f == "" || f == 0 || s == "" || s <= 0) ? "—" : sprintf("%.0f", f / s / 1e9) }
    FNR == 1 { next }
    {
      n = split($1, parts, "/"); prog = parts[n]; sub(/\.c$/, "", prog)
      key = prog SUBSEP $2 SUBSEP $4
      if ($3 == "measured") {
        if (!(key in seen)) { seen[key] = 1; rows[prog] = rows[prog] " " $2 "@" $4 }
        if ($5 == "naive" || $5 == "+ILP" || $5 == "tuned") {
          t[key, $5] = ($6 == "ok") ? $7 : ""
          if ($6 != "ok") bad[key, $5] = $6
        }
        if ($11 != "") copy[key] = $11
        if ($10 != "") mb[key] = $10
        if ($17 != "") flops[key] = $17
      } else if ($3 == "model" && $4 == platform) {
        m[prog, $2, $5] = $7
        if ($17 != "") flops_model[prog, $2] = $17
      }
    }
    END {
      print "| kernel | device | naive µs | default µs | tuned µs | default / naive | tuned / naive | % of copy (naive / default / tuned) | GFLOP/s (naive / default / tuned) | model " platform " µs (naive / default) |"
      print "|---|---|---|---|---|---|---|---|---|---|"
      np = split(order, progs, " ")
      for (i = 1; i <= np; i++) {
        prog = progs[i]; nr = split(rows[prog], r, " ")
        for (j = 1; j <= nr; j++) {
          split(r[j], kd, "@"); k = kd[1]; d = kd[2]; key = prog SUBSEP k SUBSEP d
          nv = t[key, "naive"]; df = t[key, "+ILP"]; tu = t[key, "tuned"]
          f = (key in flops) ? flops[key] : flops_model[prog, k]
          c = copy[key]; b = mb[key]
          cell_n = ((key, "naive") in bad) ? toupper(bad[key, "naive"]) : us(nv)
          cell_d = ((key, "+ILP") in bad) ? toupper(bad[key, "+ILP"]) : us(df)
          printf "| %s `%s` | %s | %s | %s | %s | %s | %s | %s / %s / %s | %s / %s / %s | %s / %s |\n",
            prog, k, d, cell_n, cell_d, us(tu), x(nv, df), x(nv, tu),
            pct(c, nv, b), pct(c, df, b), pct(c, tu, b), gf(f, nv), gf(f, df), gf(f, tu),
            us(m[prog, k, "naive"]), us(m[prog, k, "+ILP"])
        }
      }
    }' "$OUT/gpu.csv"
}

{
  echo "# accshare on $( [ "$DRY" = 1 ] && echo "a dry run (no GPU: the plumbing only, tiny sizes)" || printf '%s\n' "$DEVLIST" | awk '$1 == "cuda:0" { $1 = ""; sub(/^ +/, ""); print; exit }')"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'); accshare $("$ACCSHARE" --version 2>/dev/null | awk '{print $2}')" \
       "($(cd "$ROOT" && git describe --always --dirty 2>/dev/null || echo '?')); benches/gpu.sh, $(since);" \
       "devices $DEVICES_CSV; compiled for \`--platform $PLATFORM\`; REPS=$REPS, TUNE_BUDGET=$TUNE_BUDGET s, SAMPLE=$SAMPLE"
  [ "$DRY" = 1 ] && { echo; echo "**DRY RUN**: no CUDA device, or DRY=1: these are not GPU measurements."; }
  echo
  echo '```'
  printf '%s\n' "$DEVLIST"
  echo '```'
  echo
  echo "Kernel time per program run (event-timed on resident buffers, median of $REPS; default = +ILP"
  echo "of \`accshare bench --platform $PLATFORM\`; tuned = the variant \`accshare tune\` records, median of"
  echo "$TUNE_REPS). Speed-ups: naive time / time (> 1 is faster). % of copy: a copy kernel moving the"
  echo "kernel's compulsory bytes, timed in the same rounds, over the kernel's time (memory-bound kernels"
  echo "only). GFLOP/s: the simulator's flop count over the time. Model: \`analyze --platform $PLATFORM\`'s"
  echo "estimate (sampling $SAMPLE blocks per launch)."
  echo
  table
  if [ -s "$OUT/tuned.tsv" ]; then
    echo
    echo "Variants the tuner recorded (logs: log/PROGRAM.tune.DEVICE):"
    echo
    awk -F'\t' '{ printf "- %s `%s` on %s: %s\n", $1, $2, $3, $5 }' "$OUT/tuned.tsv"
  fi
  echo
  echo "Programs: $(printf '%s\n' "${SELECTED[@]}" | cut -d'|' -f2 | paste -sd ';' - | sed 's/;/; /g')."
  echo "Every level and tuned variant was verified against the sequential program first; per-level"
  echo "rows (+share, +bank), copy times and the model's counts are in gpu.csv, charts in *.svg."
  if [ ${#FAILURES[@]} -gt 0 ]; then
    echo
    echo "**FAILURES:**"
    echo
    for f in "${FAILURES[@]}"; do echo "- $f"; done
  fi
} >"$OUT/gpu.md"

cat "$OUT/gpu.md"
log "results: $OUT/gpu.md, $OUT/gpu.csv, $OUT/*.svg, logs in $OUT/log (took $(since))"
if [ ${#FAILURES[@]} -gt 0 ]; then
  log "${#FAILURES[@]} FAILURE(S)"
  exit 1
fi
[ "$DRY" = 1 ] && log "dry run done: everything builds and runs; no GPU was measured"
exit 0
