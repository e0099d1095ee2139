#!/usr/bin/env bash
# The README's test command (after `bash .ci/install-deps.sh`): runs the whole test suite with the
# environment the device tests need (NVRTC's library directory on LD_LIBRARY_PATH).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
nvrtc_dir="$(bash .ci/nvrtc-libdir.sh)"
if [ -n "$nvrtc_dir" ]; then
    export LD_LIBRARY_PATH="$nvrtc_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
cargo test --lib --bins --tests "$@"
