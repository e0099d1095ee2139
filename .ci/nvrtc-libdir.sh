#!/usr/bin/env bash
# Print the directory holding libnvrtc.so* from the PyPI package
# nvidia-cuda-nvrtc-cu12; print nothing (exit 0) if it is not installed.
set -uo pipefail
PY="${PYTHON:-python3}"
"$PY" - <<'PYEOF' 2>/dev/null || true
import glob, os
try:
    import nvidia.cuda_nvrtc as m
except Exception:
    raise SystemExit(0)
# nvidia.cuda_nvrtc may be a namespace package (no __file__), so use __path__.
for base in list(getattr(m, "__path__", [])):
    d = os.path.join(base, "lib")
    if glob.glob(os.path.join(d, "libnvrtc.so*")):
        print(os.path.realpath(d))
        break
PYEOF
exit 0
