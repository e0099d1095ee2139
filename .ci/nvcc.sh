#!/usr/bin/env bash
# Print the absolute path of the nvcc from the PyPI packages nvidia-cuda-nvcc (+ nvidia-cuda-crt,
# nvidia-cuda-runtime, nvidia-nvvm), installed by install-deps.sh; print nothing (exit 0) if it
# is not installed. The wheels put the toolkit under site-packages/nvidia/cu13/{bin,include,lib,
# nvvm}; bin/nvcc.profile finds cicc, the headers and libcudart relative to bin/, so the path
# alone is the whole command prefix (no PATH, CUDA_HOME or LD_LIBRARY_PATH needed). The host
# compiler is the gcc on PATH (CUDA 13 accepts gcc up to 16; pass --compiler-bindir to change it).
set -uo pipefail
PY="${PYTHON:-python3}"
"$PY" - <<'PYEOF' 2>/dev/null || true
import os
try:
    import nvidia.cu13 as m
except Exception:
    raise SystemExit(0)
# nvidia.cu13 is a namespace package (no __file__), so use __path__.
for base in list(getattr(m, "__path__", [])):
    nvcc = os.path.join(base, "bin", "nvcc")
    cicc = os.path.join(base, "nvvm", "bin", "cicc")
    hdr = os.path.join(base, "include", "cuda_runtime.h")
    if os.access(nvcc, os.X_OK) and os.access(cicc, os.X_OK) and os.path.isfile(hdr):
        print(os.path.realpath(nvcc))
        break
PYEOF
exit 0
