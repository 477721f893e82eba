#!/usr/bin/env bash
# Runs every CPU-runnable example script of a PyPTO checkout against PTO Studio's pypto package (simulator
# mode, a timeout per script) and prints a per-script table with the first error of each failing one.
#   scripts/pypto-compat.sh PYPTO_CHECKOUT [--timeout S] [-j N] [--json FILE] [--update-doc FILE] [--only SUBSTR]
# With --models it runs the test cases of PyPTO's models/deepseek_v32_exp/deepseekv32_*.py instead (through pytest,
# with a stand-in torch_npu), one row per case.
# Build first (cmake --build --preset release). See docs/pypto-compatibility.md.
set -euo pipefail
exec /usr/bin/python3 "$(dirname "$0")/pypto_compat.py" "$@"
