#!/usr/bin/env bash
# Install dependencies, build the release preset and run the whole test suite.
# This is exactly what CI runs (.ci/run); GUI tests run offscreen.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install-deps.sh
cmake --preset release
cmake --build --preset release
QT_QPA_PLATFORM=offscreen ctest --preset release "$@"
