#!/usr/bin/env bash
# benches/five.sh - the five-kernel side-by-side benchmark (issue 12, "Results to show").
#
# Builds each program of benches/five/ sequentially with `cc -O2` and through accshare at each
# configuration (naive, default, --platform opencl:N, and --tuned after `accshare tune` when
# TUNE=1; PPCG when PPCG=path is given), runs them, checks every checksum against the sequential
# program's and prints a table of region times (best of REPS) and ratios. docs/benchmarks.md
# explains the columns. Not a test: nothing here asserts a speed.
#
# Environment (all optional):
#   ACCSHARE=path     the accshare binary to use (default: `cargo build --release` here, then
#                     target/release/accshare)
#   PPCG=path         a ppcg binary: adds a PPCG column (ppcg --target=opencl); PPCG_UTIL=dir
#                     holding ppcg's ocl_utilities.c (default: the directory of PPCG)
#   TUNE=1            run `accshare tune FILE --device DEVICE --budget TUNE_BUDGET` first and add
#                     a `--tuned` column (writes the tune cache: ACCSHARE_CACHE_DIR, else the
#                     user's cache directory)
#   TUNE_BUDGET=60    seconds of measuring per program for the tuner
#   TUNE_DEFS="-DREPS=1 -DSTEPS=2"  extra -D options of the tuner's run (it traces the whole
#                     program: one repetition and two hotspot steps are enough to measure on)
#   DEVICE=opencl:0   the OpenCL device (`accshare devices`); the programs run on it too
#   REPS=3            timed repetitions of the region in each run (compiled in as -DREPS)
#   RUNS=1            runs of each binary; the best of all RUNS x REPS repetitions is kept
#   DEFS="-DN=512"    extra -D options for every program (sizes; e.g. a quick small run)
#   ONLY=gemm         run only the programs whose name contains this
#   OUT=dir           where binaries, generated code, logs and the results go
#                     (default: target/five); results: OUT/five.md, OUT/five.csv
#   TOL=1e-5          relative tolerance of floating-point checksums (exact kernels: exact)
#   TIMEOUT=900       seconds before a run is killed
#   CC=cc             the C compiler
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SRC="$ROOT/benches/five"
OUT=${OUT:-$ROOT/target/five}
DEVICE=${DEVICE:-opencl:0}
REPS=${REPS:-3}
RUNS=${RUNS:-1}
TUNE=${TUNE:-0}
TUNE_BUDGET=${TUNE_BUDGET:-60}
read -r -a TUNE_DEFS_ARR <<<"${TUNE_DEFS:--DREPS=1 -DSTEPS=2}"
TOL=${TOL:-1e-5}
TIMEOUT=${TIMEOUT:-900}
CC=${CC:-cc}
ONLY=${ONLY:-}
read -r -a DEFS_ARR <<<"${DEFS:-}"

# The programs, in table order: name, label, checksum kind (exact | float).
PROGRAMS=(
  "transpose|transpose 4096²|exact"
  "gemm|gemm 1024²|float"
  "gemm_share|gemm 1024² (share pragma)|float"
  "mv|mv 4096²|float"
  "gauss|Gauss 5×5 u8 2048²|exact"
  "hotspot|hotspot 2048²|float"
)
# Programs outside the geometric means (variants of another row).
NOT_IN_MEAN=" gemm_share "

log() { echo "five: $*" >&2; }
die() { echo "five: error: $*" >&2; exit 2; }

case "$DEVICE" in
  opencl:[0-9]*) DEVICE_INDEX=${DEVICE#opencl:} ;;
  device:[0-9]*) DEVICE_INDEX=${DEVICE#device:}; DEVICE="opencl:$DEVICE_INDEX" ;;
  *) die "DEVICE must be opencl:N (got $DEVICE)" ;;
esac
# The generated programs pick their device by ACCSHARE_DEVICE (numbered as opencl:N).
export ACCSHARE_DEVICE=${ACCSHARE_DEVICE:-$DEVICE_INDEX}

mkdir -p "$OUT/bin" "$OUT/gen" "$OUT/log" || die "cannot create $OUT"

if [ -z "${ACCSHARE:-}" ]; then
  log "building accshare (cargo build --release) ..."
  (cd "$ROOT" && cargo build --release 1>&2) || die "cargo build --release failed"
  ACCSHARE="$ROOT/target/release/accshare"
fi
[ -x "$ACCSHARE" ] || die "ACCSHARE=$ACCSHARE is not an executable"
command -v "$CC" >/dev/null || die "no C compiler ($CC)"

if [ -n "${PPCG:-}" ] && [ ! -x "$PPCG" ]; then
  log "PPCG=$PPCG is not an executable: no PPCG column"
  PPCG=
fi
PPCG=${PPCG:-}
PPCG_UTIL=${PPCG_UTIL:-$( [ -n "$PPCG" ] && dirname "$PPCG" )}

# Columns: key|header
COLS=("seq|sequential \`cc -O2\`")
[ -n "$PPCG" ] && COLS+=("ppcg|PPCG")
COLS+=("naive|accshare \`--opt naive\`" "default|accshare default" "platform|\`--platform $DEVICE\`")
[ "$TUNE" = 1 ] && COLS+=("tuned|\`--tuned $DEVICE\` (after tune)")

declare -A TIME SUM NOTE
FAILURES=()

fail() { # program column message
  FAILURES+=("$1 [$2]: $3")
  NOTE["$1|$2"]="FAIL"
  echo "five: *** FAILURE *** $1 [$2]: $3" >&2
}

# run_bin program column exe: runs RUNS times, keeps the best `time` and the `checksum`.
run_bin() {
  local p=$1 col=$2 exe=$3 run best="" sum="" out t c
  for ((run = 1; run <= RUNS; run++)); do
    out=$(cd "$(dirname "$exe")" && timeout "$TIMEOUT" "$exe" 2>"$OUT/log/$p.$col.stderr")
    local rc=$?
    if [ $rc -ne 0 ]; then
      fail "$p" "$col" "the program exited with status $rc (stderr: $OUT/log/$p.$col.stderr: $(tail -n 3 "$OUT/log/$p.$col.stderr" | tr '\n' ' '))"
      return
    fi
    while read -r t; do
      if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$t; fi
    done < <(printf '%s\n' "$out" | awk '$1 == "time" { print $2 }')
    c=$(printf '%s\n' "$out" | awk '$1 == "checksum" { print $2 }' | tail -n 1)
    if [ -n "$sum" ] && [ "$c" != "$sum" ]; then
      fail "$p" "$col" "checksum changed between runs: $sum then $c"
      return
    fi
    sum=$c
  done
  if [ -z "$best" ] || [ -z "$sum" ]; then
    fail "$p" "$col" "no 'time' or 'checksum' line in the output"
    return
  fi
  TIME["$p|$col"]=$best
  SUM["$p|$col"]=$sum
}

# checksums_match kind expected actual
checksums_match() {
  if [ "$1" = exact ]; then
    [ "$2" = "$3" ]
  else
    awk -v a="$2" -v b="$3" -v t="$TOL" 'BEGIN {
      d = a - b; if (d < 0) d = -d; m = a < 0 ? -a : a; n = b < 0 ? -b : b; if (n > m) m = n;
      exit !(d <= t * m) }'
  fi
}

# accshare_build program column accshare-options...: generates and compiles one configuration.
accshare_build() {
  local p=$1 col=$2; shift 2
  local dir="$OUT/gen/$col"
  mkdir -p "$dir"
  log "  accshare $p.c --target opencl $* "
  if ! "$ACCSHARE" "$SRC/$p.c" --target opencl -o "$dir" -I "$SRC" "${DEFS_ARR[@]}" "$@" \
      >"$OUT/log/$p.$col.accshare" 2>&1; then
    fail "$p" "$col" "accshare $p.c $* failed: $(grep -m1 -E '^(error|thread)' "$OUT/log/$p.$col.accshare")"
    return 1
  fi
  if grep -q "^warning" "$OUT/log/$p.$col.accshare"; then
    log "  (warnings: $OUT/log/$p.$col.accshare)"
  fi
  if ! "$CC" -O2 -std=gnu99 -I"$SRC" "${DEFS_ARR[@]}" -DREPS="$REPS" "$dir/$p.c" \
      -o "$OUT/bin/$p.$col" -lOpenCL -lm 2>"$OUT/log/$p.$col.cc"; then
    fail "$p" "$col" "cc failed on the generated $dir/$p.c (log: $OUT/log/$p.$col.cc)"
    return 1
  fi
}

ppcg_build() {
  local p=$1 dir="$OUT/gen/ppcg/$p"
  mkdir -p "$dir"
  log "  ppcg --target=opencl $p.c"
  if ! (cd "$dir" && "$PPCG" --target=opencl -I"$SRC" "${DEFS_ARR[@]}" -DREPS="$REPS" \
      "$SRC/$p.c" -o "$p.ppcg.c") >"$OUT/log/$p.ppcg.ppcg" 2>&1; then
    fail "$p" ppcg "ppcg failed (log: $OUT/log/$p.ppcg.ppcg)"
    return 1
  fi
  local util=()
  [ -f "$PPCG_UTIL/ocl_utilities.c" ] && util=("$PPCG_UTIL/ocl_utilities.c" -I"$PPCG_UTIL")
  if ! "$CC" -O2 -std=gnu99 -I"$SRC" "${DEFS_ARR[@]}" -DREPS="$REPS" "$dir/$p.ppcg.c" "${util[@]}" \
      -o "$dir/$p.ppcg" -lOpenCL -lm 2>"$OUT/log/$p.ppcg.cc"; then
    fail "$p" ppcg "cc failed on ppcg's output (log: $OUT/log/$p.ppcg.cc; PPCG_UTIL=$PPCG_UTIL)"
    return 1
  fi
}

START=$(date +%s)
log "accshare: $ACCSHARE ($("$ACCSHARE" --version 2>/dev/null))"
log "device: $DEVICE; REPS=$REPS RUNS=$RUNS TUNE=$TUNE DEFS=${DEFS:-} -> $OUT"

SELECTED=()
for entry in "${PROGRAMS[@]}"; do
  IFS='|' read -r p label kind <<<"$entry"
  [ -n "$ONLY" ] && [[ "$p" != *"$ONLY"* ]] && continue
  # With DEFS the sizes in the labels may be wrong: leave them out.
  [ -n "${DEFS:-}" ] && label=$(sed 's/ [0-9]*²//' <<<"$label")
  SELECTED+=("$p|$label|$kind")
  log "== $p"
  # Sequential.
  if "$CC" -O2 -std=gnu99 -I"$SRC" "${DEFS_ARR[@]}" -DREPS="$REPS" "$SRC/$p.c" \
      -o "$OUT/bin/$p.seq" -lm 2>"$OUT/log/$p.seq.cc"; then
    log "  run sequential"
    run_bin "$p" seq "$OUT/bin/$p.seq"
  else
    fail "$p" seq "cc failed (log: $OUT/log/$p.seq.cc)"
  fi
  # PPCG.
  if [ -n "$PPCG" ] && ppcg_build "$p"; then
    log "  run ppcg"
    run_bin "$p" ppcg "$OUT/gen/ppcg/$p/$p.ppcg"
  fi
  # accshare: naive, default, --platform (the tune cache as found), then tune and --tuned.
  accshare_build "$p" naive --opt naive && { log "  run naive"; run_bin "$p" naive "$OUT/bin/$p.naive"; }
  accshare_build "$p" default && { log "  run default"; run_bin "$p" default "$OUT/bin/$p.default"; }
  accshare_build "$p" platform --platform "$DEVICE" &&
    { log "  run --platform $DEVICE"; run_bin "$p" platform "$OUT/bin/$p.platform"; }
  if [ "$TUNE" = 1 ]; then
    log "  accshare tune $p.c --device $DEVICE --budget $TUNE_BUDGET (log: $OUT/log/$p.tune)"
    if "$ACCSHARE" tune "$SRC/$p.c" --device "$DEVICE" --budget "$TUNE_BUDGET" -I "$SRC" \
        "${DEFS_ARR[@]}" "${TUNE_DEFS_ARR[@]}" >"$OUT/log/$p.tune" 2>&1; then
      accshare_build "$p" tuned --tuned "$DEVICE" &&
        { log "  run --tuned $DEVICE"; run_bin "$p" tuned "$OUT/bin/$p.tuned"; }
    else
      fail "$p" tuned "accshare tune failed: $(grep -m1 -E '^(error|thread)' "$OUT/log/$p.tune") (log: $OUT/log/$p.tune)"
    fi
  fi
  # Every checksum against the sequential program's.
  for c in "${COLS[@]}"; do
    col=${c%%|*}
    [ "$col" = seq ] && continue
    exp=${SUM["$p|seq"]:-}
    act=${SUM["$p|$col"]:-}
    [ -z "$exp" ] || [ -z "$act" ] && continue
    if ! checksums_match "$kind" "$exp" "$act"; then
      fail "$p" "$col" "WRONG RESULT: checksum $act, the sequential program's is $exp ($kind)"
      unset 'TIME[$p|$col]'
    fi
  done
done
[ ${#SELECTED[@]} -gt 0 ] || die "no program matches ONLY=$ONLY"

# ---- the table ----
fmt_time() { awk -v t="$1" 'BEGIN { if (t >= 1) printf "%.2f s", t; else printf "%.3g s", t }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f×", a / b }'; }

cell_time() { # program column
  local t=${TIME["$1|$2"]:-}
  if [ -n "$t" ]; then fmt_time "$t"; else echo "${NOTE["$1|$2"]:-—}"; fi
}

MD="$OUT/five.md"
CSV="$OUT/five.csv"
{
  echo "# Five kernels side by side"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'); accshare $("$ACCSHARE" --version 2>/dev/null | awk '{print $2}')" \
       "($(cd "$ROOT" && git describe --always --dirty 2>/dev/null || echo '?')); device $DEVICE:" \
       "$("$ACCSHARE" devices 2>/dev/null | grep -m1 "$DEVICE" | sed 's/^ *//')"
  echo "load average before the run: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null); REPS=$REPS RUNS=$RUNS; DEFS=${DEFS:-(none)}"
  echo
  echo "Region time, best of $((REPS * RUNS)) (seconds):"
  echo
  hdr="| kernel |"; sep="|---|"
  for c in "${COLS[@]}"; do hdr+=" ${c#*|} |"; sep+="---|"; done
  echo "$hdr"; echo "$sep"
  for entry in "${SELECTED[@]}"; do
    IFS='|' read -r p label kind <<<"$entry"
    row="| $label |"
    for c in "${COLS[@]}"; do row+=" $(cell_time "$p" "${c%%|*}") |"; done
    echo "$row"
  done
  for base in naive seq; do
    echo
    if [ "$base" = naive ]; then
      echo "Speed-up over accshare \`--opt naive\` (naive time / time; > 1 is faster):"
    else
      echo "Speed-up over the sequential program (sequential time / time; > 1 is faster):"
    fi
    echo
    hdr="| kernel |"; sep="|---|"
    for c in "${COLS[@]}"; do
      col=${c%%|*}; [ "$col" = "$base" ] && continue
      hdr+=" ${c#*|} |"; sep+="---|"
    done
    echo "$hdr"; echo "$sep"
    declare -A LOGSUM=() COUNT=()
    for entry in "${SELECTED[@]}"; do
      IFS='|' read -r p label kind <<<"$entry"
      row="| $label |"
      for c in "${COLS[@]}"; do
        col=${c%%|*}; [ "$col" = "$base" ] && continue
        b=${TIME["$p|$base"]:-}; t=${TIME["$p|$col"]:-}
        if [ -n "$b" ] && [ -n "$t" ]; then
          row+=" $(ratio "$b" "$t") |"
          if [[ "$NOT_IN_MEAN" != *" $p "* ]]; then
            LOGSUM[$col]=$(awk -v s="${LOGSUM[$col]:-0}" -v a="$b" -v b="$t" 'BEGIN { printf "%.12g", s + log(a / b) }')
            COUNT[$col]=$(( ${COUNT[$col]:-0} + 1 ))
          fi
        else
          row+=" — |"
        fi
      done
      echo "$row"
    done
    row="| geometric mean |"
    for c in "${COLS[@]}"; do
      col=${c%%|*}; [ "$col" = "$base" ] && continue
      if [ -n "${COUNT[$col]:-}" ]; then
        row+=" $(awk -v s="${LOGSUM[$col]}" -v n="${COUNT[$col]}" 'BEGIN { printf "%.2f×", exp(s / n) }') (${COUNT[$col]}) |"
      else
        row+=" — |"
      fi
    done
    echo "$row"
    unset LOGSUM COUNT
  done
  echo
  echo "Geometric means over the plain kernels (not gemm with the share pragma); (n): kernels in the mean."
  if [ ${#FAILURES[@]} -gt 0 ]; then
    echo
    echo "**FAILURES:**"
    echo
    for f in "${FAILURES[@]}"; do echo "- $f"; done
  fi
} >"$MD"

{
  printf 'program,kernel'
  for c in "${COLS[@]}"; do printf ',%s_s' "${c%%|*}"; done
  for c in "${COLS[@]}"; do printf ',%s_checksum' "${c%%|*}"; done
  printf '\n'
  for entry in "${SELECTED[@]}"; do
    IFS='|' read -r p label kind <<<"$entry"
    printf '%s,"%s"' "$p" "$label"
    for c in "${COLS[@]}"; do printf ',%s' "${TIME["$p|${c%%|*}"]:-}"; done
    for c in "${COLS[@]}"; do printf ',%s' "${SUM["$p|${c%%|*}"]:-}"; done
    printf '\n'
  done
} >"$CSV"

cat "$MD"
log "results: $MD, $CSV (took $(( $(date +%s) - START )) s)"
if [ ${#FAILURES[@]} -gt 0 ]; then
  {
    echo
    echo "five: ****************************************************************"
    echo "five: ${#FAILURES[@]} FAILURE(S):"
    for f in "${FAILURES[@]}"; do echo "five:   $f"; done
    echo "five: ****************************************************************"
  } >&2
  exit 1
fi
