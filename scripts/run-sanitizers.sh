#!/usr/bin/env bash
# Builds the asan preset (clang; AddressSanitizer + UndefinedBehaviorSanitizer;
# -O0, the core, compiler, simulator, runtime and trace model -O1; also the
# libFuzzer targets) and runs the C++ and GUI suites under it (run-tests.sh
# runs the same phases, with the fuzzers between them); the python- and
# docs-label tests load the extension into an uninstrumented interpreter and
# run only in release.
# Prints how long the build and the tests took.
#
# Usage: scripts/run-sanitizers.sh [ctest arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."

launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
start=$SECONDS
cmake --preset asan "${launcher[@]}" >/dev/null
cmake --build --preset asan
built=$SECONDS
QT_QPA_PLATFORM=offscreen ctest --preset asan "$@"
echo "run-sanitizers: build $((built - start)) s, tests $((SECONDS - built)) s"
