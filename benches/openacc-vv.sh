#!/usr/bin/env bash
# benches/openacc-vv.sh - the OpenACC user group's validation and verification suite
# (github.com/OpenACCUserGroup/OpenACCV-V) through accshare, one C test at a time: compile with
# accshare (OpenCL or CUDA), build the output with `cc`, run it, and sort each test into
#
#   pass      the program exited 0 (every check of the test held)
#   refused   accshare stopped with located errors (file:line:col), as it must for what it
#             does not support
#   nobuild   accshare wrote a program that `cc` does not compile or link (a bug, or a runtime
#             API function the prelude lacks)
#   fail      the program ran and exited non-zero, crashed or timed out: a test failing
#             silently, the worst outcome
#   broken    accshare crashed, or refused without a location
#
# The suite is not part of this repository (its licence is its own): point SUITE at a checkout's
# `Tests` directory. Not a test of ours: it prints counts and writes one CSV row per test.
#
# Environment:
#   SUITE=dir          the suite's Tests directory (required)
#   ACCSHARE=path      the accshare binary (default: `cargo build --release`, then target/release)
#   TARGET=opencl      opencl (built and run on the machine's OpenCL device) or cuda (the `.c`
#                      compiled by cc and the `.cu` by nvcc -c, nothing run: a CUDA row is
#                      `pass` when both compile)
#   JOBS=2             tests in parallel
#   TIMEOUT=60         seconds per test run
#   ONLY=text          only the tests whose file name contains text
#   OUT=dir            where results go (default: target/openacc-vv-$TARGET)
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SUITE=${SUITE:?set SUITE to the Tests directory of an OpenACCV-V checkout}
SUITE=$(cd "$SUITE" && pwd) || exit 2
TARGET=${TARGET:-opencl}
JOBS=${JOBS:-2}
TIMEOUT=${TIMEOUT:-60}
ONLY=${ONLY:-}
OUT=${OUT:-$ROOT/target/openacc-vv-$TARGET}
if [ -z "${ACCSHARE:-}" ]; then
  (cd "$ROOT" && cargo build --release 1>&2) || exit 2
  ACCSHARE="$ROOT/target/release/accshare"
fi
NVCC=""
if [ "$TARGET" = cuda ]; then
  NVCC=$(bash "$ROOT/.ci/nvcc.sh") || { echo "openacc-vv: no nvcc (bash .ci/install-deps.sh)" >&2; exit 2; }
fi
rm -rf "$OUT" && mkdir -p "$OUT/work" || exit 2
export ACCSHARE SUITE TARGET TIMEOUT OUT NVCC

one() {
  local src=$1 name dir status detail
  name=$(basename "$src" .c)
  dir="$OUT/work/$name"
  mkdir -p "$dir"
  "$ACCSHARE" "$src" --target "$TARGET" -I "$SUITE" -o "$dir" >"$dir/accshare.log" 2>&1
  case $? in
    0) ;;
    1)
      if grep -q "^error" "$dir/accshare.log" && grep -qE -- "--> |┌─ .*:[0-9]+:[0-9]+" "$dir/accshare.log"; then
        detail=$(grep -m1 "^error" "$dir/accshare.log" | tr ',' ';' | cut -c1-160)
        echo "$name,refused,$detail"
      else
        echo "$name,broken,refused without a location"
      fi
      return
      ;;
    *) echo "$name,broken,accshare exited abnormally"; return ;;
  esac
  if [ "$TARGET" = cuda ]; then
    if ! cc -O1 -c -I "$SUITE" "$dir/$name.c" -o "$dir/$name.o" >"$dir/cc.log" 2>&1; then
      echo "$name,nobuild,$(grep -m1 'error' "$dir/cc.log" | tr ',' ';' | cut -c1-160)"; return
    fi
    if ! "$NVCC" -c -arch=sm_80 "$dir/$name.cu" -o "$dir/${name}_cu.o" >"$dir/nvcc.log" 2>&1; then
      echo "$name,nobuild,$(grep -m1 'error' "$dir/nvcc.log" | tr ',' ';' | cut -c1-160)"; return
    fi
    echo "$name,pass,compiled"; return
  fi
  if ! cc -O1 -I "$SUITE" "$dir/$name.c" -o "$dir/prog" -lOpenCL -lm >"$dir/cc.log" 2>&1; then
    echo "$name,nobuild,$(grep -m1 'error' "$dir/cc.log" | tr ',' ';' | cut -c1-160)"; return
  fi
  (cd "$dir" && timeout "$TIMEOUT" ./prog >"$dir/run.log" 2>&1)
  status=$?
  if [ $status -eq 0 ]; then
    echo "$name,pass,"
  elif [ $status -eq 124 ]; then
    echo "$name,fail,timed out"
  else
    echo "$name,fail,exit $status: $(grep -m1 . "$dir/run.log" | tr ',' ';' | cut -c1-120)"
  fi
}
export -f one

echo "test,outcome,detail" >"$OUT/results.csv"
find "$SUITE" -maxdepth 1 -name "*${ONLY}*.c" | sort | xargs -P "$JOBS" -I{} bash -c 'one "$@"' _ {} \
  | sort >>"$OUT/results.csv"

total=$(($(wc -l <"$OUT/results.csv") - 1))
echo "openacc-vv ($TARGET): $total C tests"
for o in pass refused nobuild fail broken; do
  printf '  %-8s %d\n' "$o" "$(grep -c ",$o," "$OUT/results.csv")"
done
echo "results: $OUT/results.csv"
