#!/usr/bin/env bash
# Install dependencies, build the release preset, run the whole test suite,
# check the Debian package, fuzz the file readers, and run the C++ and GUI
# suites again under AddressSanitizer and UndefinedBehaviorSanitizer.
# This is exactly what CI runs (.ci/run); GUI tests run offscreen.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install-deps.sh
# CI builds without debug information: nothing there reads it, and on two
# cores it is a large share of the build time. A developer's build keeps it.
if [ "${CI:-}" = true ]; then
  cmake --preset release -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG"
else
  cmake --preset release
fi
cmake --build --preset release
QT_QPA_PLATFORM=offscreen ctest --preset release "$@"
# The Debian package, unpacked and run away from the build tree, and lintian.
./scripts/check-package.sh build/release
# Every file reader under libFuzzer (clang, ASan + UBSan) for a bounded time;
# a crash is saved in fuzz/regressions/ and fails the run.
./scripts/run-fuzzers.sh 15
# The C++ and GUI suites again, built with clang under ASan + UBSan
# (build/asan); a leak, an out-of-bounds access or undefined behaviour fails
# the test that caused it.
./scripts/run-sanitizers.sh
