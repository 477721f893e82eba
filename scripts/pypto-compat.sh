#!/usr/bin/env bash
# Runs every CPU-runnable example script of a PyPTO checkout against PTO Studio's pypto package (simulator
# mode, a timeout per script) and prints a per-script table with the first error of each failing one.
#   scripts/pypto-compat.sh PYPTO_CHECKOUT [--timeout S] [-j N] [--json FILE] [--update-doc FILE] [--only SUBSTR]
# With --models it runs the test cases of every folder of PyPTO's models/ (DeepSeek-V3.2 and V4, GLM-4.5, Qwen3-Next,
# Kimi, QAT, Arctic) instead, through pytest with a stand-in torch_npu (scripts written as programs run as
# programs), one row per case. With --ops it runs PyPTO's operation system tests as kernels.
# Build first (cmake --build --preset release). See docs/pypto-compatibility.md.
set -euo pipefail
exec /usr/bin/python3 "$(dirname "$0")/pypto_compat.py" "$@"
