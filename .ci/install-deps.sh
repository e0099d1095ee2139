#!/usr/bin/env bash
# Install what accshare's CI needs on a fresh Debian machine (run as root).
#  - PoCL: a CPU OpenCL implementation + ICD loader + headers + clinfo
#  - NVRTC (CUDA runtime compiler) from PyPI, used to compile generated CUDA
#    kernels to PTX (no GPU needed for that).
#  - nvcc (CUDA 13 toolkit compiler, ptxas, cicc, headers, cudart) from PyPI, used to compile
#    the generated .cu files to objects (tests/cuda_nvcc.rs; no GPU needed). About 125 MB of
#    wheels, 320 MB installed, a few seconds.
# Idempotent: re-running only re-checks what is already installed.
set -euo pipefail

NVRTC_PKG="nvidia-cuda-nvrtc-cu12==12.9.86"
CUDA_VER="13.4.92"
NVCC_PKGS=(
    "nvidia-cuda-nvcc==${CUDA_VER}"
    "nvidia-cuda-crt==${CUDA_VER}"
    "nvidia-cuda-runtime==${CUDA_VER}"
    "nvidia-nvvm==${CUDA_VER}"
)
APT_PKGS=(pocl-opencl-icd ocl-icd-opencl-dev clinfo)

export DEBIAN_FRONTEND=noninteractive
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${APT_PKGS[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
if [ "${#missing[@]}" -gt 0 ]; then
    echo "install-deps: apt-get install ${missing[*]}"
    $SUDO apt-get update
    $SUDO apt-get install -y "${missing[@]}"
else
    echo "install-deps: apt packages already installed: ${APT_PKGS[*]}"
fi

PY="${PYTHON:-python3}"
have_ver="$("$PY" -m pip show nvidia-cuda-nvrtc-cu12 2>/dev/null | sed -n 's/^Version: //p' || true)"
if [ -n "$(bash "$here/nvrtc-libdir.sh")" ] && [ "$have_ver" = "${NVRTC_PKG##*==}" ]; then
    echo "install-deps: ${NVRTC_PKG} already installed"
else
    echo "install-deps: pip install ${NVRTC_PKG}"
    "$PY" -m pip install --disable-pip-version-check --no-input --root-user-action=ignore "${NVRTC_PKG}"
fi

libdir="$(bash "$here/nvrtc-libdir.sh")"
if [ -z "$libdir" ]; then
    echo "install-deps: ERROR: libnvrtc not found after install" >&2
    exit 1
fi
echo "install-deps: NVRTC lib dir: $libdir"
ls -1 "$libdir" | grep '^libnvrtc' | sed 's/^/install-deps:   /'

nvcc_ok=1
for p in "${NVCC_PKGS[@]}"; do
    v="$("$PY" -m pip show "${p%%==*}" 2>/dev/null | sed -n 's/^Version: //p' || true)"
    if [ "$v" != "${p##*==}" ]; then nvcc_ok=0; fi
done
if [ -n "$(bash "$here/nvcc.sh")" ] && [ "$nvcc_ok" = 1 ]; then
    echo "install-deps: ${NVCC_PKGS[*]} already installed"
else
    echo "install-deps: pip install ${NVCC_PKGS[*]}"
    "$PY" -m pip install --disable-pip-version-check --no-input --root-user-action=ignore "${NVCC_PKGS[@]}"
fi
nvcc="$(bash "$here/nvcc.sh")"
if [ -z "$nvcc" ]; then
    echo "install-deps: ERROR: nvcc not found after install" >&2
    exit 1
fi
echo "install-deps: nvcc: $nvcc"
"$nvcc" --version | tail -n 2 | sed 's/^/install-deps:   /'

echo "install-deps: OpenCL devices (clinfo -l):"
devices="$(clinfo -l 2>&1 || true)"
printf '%s\n' "$devices" | sed 's/^/install-deps:   /'
if ! printf '%s\n' "$devices" | grep "Device" >/dev/null; then
    echo "install-deps: ERROR: clinfo lists no OpenCL device" >&2
    exit 1
fi
echo "install-deps: done"
