#!/usr/bin/env bash
# benches/npb-classes.sh - the NPB-style programs of tests/npbsuite/ at NPB's classes S, W and A
# (issue 28 §5): for each benchmark, compiles every file with accshare (cold: a fresh output
# directory), builds the generated files with cc against OpenCL, runs the program on an OpenCL
# device (PoCL's kernel cache off, so the run includes PoCL's kernel compilation), checks that
# it prints VERIFICATION SUCCESSFUL (NPB's reference values for the class; EP's class S is this
# suite's own, see tests/npbsuite/EP/npbparams.h), and prints one markdown row per benchmark,
# with the sequential build's (`cc -O2`, no accshare) run time for comparison. The class is
# chosen by -DCLASS_W / -DCLASS_A (each npbparams.h holds S, W and A). docs/npb-classes.md
# records a run. Not a test: nothing here asserts a speed.
#
# Usage: benches/npb-classes.sh [BENCHMARK...]     (default: every benchmark of tests/npbsuite)
#
# Environment (all optional):
#   CLASS=W           S, W or A
#   ACCSHARE=path     the accshare binary (default: target/release/accshare, else target/debug/
#                     accshare; build one first); its compile time is what the table shows
#   ACCSHARE_FLAGS="--opt naive"  extra options for every accshare compilation
#   DEVICE=opencl:0   the OpenCL device (`accshare devices`) the programs run on
#   OUT=dir           binaries, generated code, logs and the results (default: target/npb-classes);
#                     results: OUT/npb-<CLASS>.md
#   TIMEOUT=900       seconds before a run (sequential or device) is killed
#   SEQ=1             0 skips the sequential build and run
#   WARM=1            0 skips the warm run: the device program run twice more with PoCL's kernel
#                     cache on (in OUT/pocl-cache), the second one timed: the run without PoCL's
#                     kernel compilation
#   CC=cc             the C compiler
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SRC="$ROOT/tests/npbsuite"
CLASS=${CLASS:-W}
OUT=${OUT:-$ROOT/target/npb-classes}
DEVICE=${DEVICE:-opencl:0}
TIMEOUT=${TIMEOUT:-900}
SEQ=${SEQ:-1}
WARM=${WARM:-1}
CC=${CC:-cc}
read -r -a FLAGS_ARR <<<"${ACCSHARE_FLAGS:-}"

log() { echo "npb-classes: $*" >&2; }
die() { echo "npb-classes: error: $*" >&2; exit 2; }

case "$CLASS" in
  S) CLASS_DEFS=() ;;
  W | A) CLASS_DEFS=("-DCLASS_$CLASS") ;;
  *) die "CLASS must be S, W or A (got $CLASS)" ;;
esac
case "$DEVICE" in
  opencl:[0-9]*) DEVICE_INDEX=${DEVICE#opencl:} ;;
  *) die "DEVICE must be opencl:N (got $DEVICE)" ;;
esac
# The generated programs pick their device by ACCSHARE_DEVICE (numbered as opencl:N).
export ACCSHARE_DEVICE=${ACCSHARE_DEVICE:-$DEVICE_INDEX}
# Cold runs: PoCL compiles every kernel again (its cache would hide the kernel build).
export POCL_KERNEL_CACHE=${POCL_KERNEL_CACHE:-0}

if [ -z "${ACCSHARE:-}" ]; then
  for b in "$ROOT/target/release/accshare" "$ROOT/target/debug/accshare"; do
    if [ -x "$b" ]; then ACCSHARE=$b; break; fi
  done
  [ -n "${ACCSHARE:-}" ] || die "no accshare binary: cargo build --release, or set ACCSHARE"
fi
[ -x "$ACCSHARE" ] || die "ACCSHARE=$ACCSHARE is not an executable"
command -v "$CC" >/dev/null || die "no C compiler ($CC)"

if [ $# -gt 0 ]; then
  BENCHES=("$@")
else
  BENCHES=()
  for d in "$SRC"/*/; do
    b=$(basename "$d")
    [ -f "$d/$(tr '[:upper:]' '[:lower:]' <<<"$b").c" ] && BENCHES+=("$b")
  done
fi

mkdir -p "$OUT" || die "cannot create $OUT"
RESULTS="$OUT/npb-$CLASS.md"

now() { date +%s.%N; }
# secs START END: seconds between two `now`s, two decimals.
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# run_timed exe log: runs exe (in its directory) under TIMEOUT; sets RUN_S, RUN_RC, RUN_OK
# (yes when the output says VERIFICATION SUCCESSFUL).
run_timed() {
  local exe=$1 logf=$2 t0 t1
  t0=$(now)
  (cd "$(dirname "$exe")" && timeout "$TIMEOUT" "$exe") >"$logf" 2>&1
  RUN_RC=$?
  t1=$(now)
  RUN_S=$(secs "$t0" "$t1")
  if [ "$RUN_RC" -eq 0 ] && grep -q "VERIFICATION SUCCESSFUL" "$logf"; then
    RUN_OK=yes
  else
    RUN_OK=no
  fi
}

log "accshare: $ACCSHARE ($("$ACCSHARE" --version 2>/dev/null)) ${ACCSHARE_FLAGS:-}"
log "class $CLASS, device $DEVICE (POCL_KERNEL_CACHE=$POCL_KERNEL_CACHE) -> $OUT"

HEADER="| benchmark | class | accshare compile (s) | cc (s) | run on $DEVICE, cold (s) | verified | warm run (s) | sequential run (s) | sequential verified |
|---|---|---|---|---|---|---|---|---|"
echo "$HEADER" >"$RESULTS"
echo "$HEADER"
FAILED=0

for bm in "${BENCHES[@]}"; do
  [ -d "$SRC/$bm" ] || die "no benchmark $bm in $SRC"
  dir="$OUT/$CLASS/$bm"
  rm -rf "$dir"
  mkdir -p "$dir/gen/common" "$dir/gen/bench"
  incs=(-I "$SRC/common" -I "$SRC/$bm")
  srcs=("$SRC"/common/*.c "$SRC/$bm"/*.c)
  log "== $bm (class $CLASS)"

  seq_s=- seq_ok=-
  if [ "$SEQ" = 1 ]; then
    if "$CC" -O2 -std=gnu99 "${CLASS_DEFS[@]}" "${incs[@]}" "${srcs[@]}" -o "$dir/seq" -lm \
        2>"$dir/seq.cc.log"; then
      run_timed "$dir/seq" "$dir/seq.out"
      seq_s=$RUN_S seq_ok=$RUN_OK
      [ "$RUN_RC" -eq 0 ] || seq_ok="no (exit $RUN_RC)"
      log "  sequential: ${seq_s}s, verified $seq_ok"
    else
      seq_ok="no (cc failed: $dir/seq.cc.log)"
    fi
  fi

  # accshare, every file, as tests/npbsuite.rs compiles them.
  acc_s=- cc_s=- run_s=- ok=no warm_s=-
  gen=()
  t0=$(now)
  for f in "${srcs[@]}"; do
    case "$f" in "$SRC/common/"*) sub=common ;; *) sub=bench ;; esac
    if ! "$ACCSHARE" "$f" --target opencl -o "$dir/gen/$sub" "${incs[@]}" "${CLASS_DEFS[@]}" \
        "${FLAGS_ARR[@]}" >>"$dir/accshare.log" 2>&1; then
      ok="no (accshare failed on $(basename "$f"): $(grep -m1 -E '^(error|thread)' "$dir/accshare.log"))"
      gen=()
      break
    fi
    gen+=("$dir/gen/$sub/$(basename "$f")")
  done
  t1=$(now)
  acc_s=$(secs "$t0" "$t1")
  log "  accshare: ${acc_s}s"

  if [ ${#gen[@]} -gt 0 ]; then
    t0=$(now)
    if "$CC" -O2 -std=gnu99 "${CLASS_DEFS[@]}" "${incs[@]}" "${gen[@]}" -o "$dir/gpu" -lOpenCL -lm \
        2>"$dir/gpu.cc.log"; then
      t1=$(now)
      cc_s=$(secs "$t0" "$t1")
      log "  cc: ${cc_s}s"
      run_timed "$dir/gpu" "$dir/gpu.out"
      run_s=$RUN_S ok=$RUN_OK
      if [ "$RUN_RC" -eq 124 ]; then
        ok="no (killed after ${TIMEOUT}s)"
      elif [ "$RUN_RC" -ne 0 ]; then
        ok="no (exit $RUN_RC: $dir/gpu.out)"
      fi
      log "  run: ${run_s}s, verified $ok"
      if [ "$WARM" = 1 ] && [ "$ok" = yes ]; then
        # Fill PoCL's cache, then time a run that finds every kernel in it.
        mkdir -p "$OUT/pocl-cache"
        POCL_KERNEL_CACHE=1 POCL_CACHE_DIR="$OUT/pocl-cache" run_timed "$dir/gpu" "$dir/warm1.out"
        POCL_KERNEL_CACHE=1 POCL_CACHE_DIR="$OUT/pocl-cache" run_timed "$dir/gpu" "$dir/warm.out"
        warm_s=$RUN_S
        [ "$RUN_OK" = yes ] || warm_s="$RUN_S (did not verify)"
        log "  warm run: ${warm_s}s"
      fi
    else
      ok="no (cc failed on the generated code: $dir/gpu.cc.log)"
    fi
  fi
  [ "$ok" = yes ] || FAILED=$((FAILED + 1))
  row="| $bm | $CLASS | $acc_s | $cc_s | $run_s | $ok | $warm_s | $seq_s | $seq_ok |"
  echo "$row" >>"$RESULTS"
  echo "$row"
done

log "results: $RESULTS"
[ "$FAILED" -eq 0 ] || { log "$FAILED benchmark(s) did not verify on the device"; exit 1; }
