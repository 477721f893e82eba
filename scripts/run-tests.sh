#!/usr/bin/env bash
# Install dependencies, build the release preset, run the whole test suite and
# check the Debian package.
# This is exactly what CI runs (.ci/run); GUI tests run offscreen.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install-deps.sh
cmake --preset release
cmake --build --preset release
QT_QPA_PLATFORM=offscreen ctest --preset release "$@"
# The Debian package, unpacked and run away from the build tree, and lintian.
./scripts/check-package.sh build/release
