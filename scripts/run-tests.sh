#!/usr/bin/env bash
# Install dependencies, build the release preset, run the whole test suite,
# check the Debian package, then build the asan preset once (clang, ASan +
# UBSan, with the libFuzzer targets), fuzz the file readers for a bounded time
# and run the C++ and GUI suites again under the sanitizers.
# This is exactly what CI runs (.ci/run); GUI tests run offscreen. It ends
# with the time of each phase (also in build/ci-times.tsv); docs/ci.md gives
# the budget and what each phase costs on a fresh two-core machine.
#
# Usage: scripts/run-tests.sh [ctest arguments for the release suite...]
set -euo pipefail
cd "$(dirname "$0")/.."

phase_names=()
phase_seconds=()
current_phase=""
run_start=$SECONDS

# Runs "$@" as the phase named $1 and records its wall time.
phase() {
  local name=$1
  shift
  current_phase=$name
  local start=$SECONDS
  echo "== run-tests: $name"
  "$@"
  phase_names+=("$name")
  phase_seconds+=($((SECONDS - start)))
  current_phase=""
}

print_times() {
  local status=$?
  mkdir -p build
  {
    printf 'phase\tseconds\n'
    for i in "${!phase_names[@]}"; do printf '%s\t%s\n' "${phase_names[$i]}" "${phase_seconds[$i]}"; done
    printf 'total\t%s\n' $((SECONDS - run_start))
  } > build/ci-times.tsv
  echo
  echo "run-tests: phase times (wall)"
  for i in "${!phase_names[@]}"; do printf '  %-26s %5d s\n' "${phase_names[$i]}" "${phase_seconds[$i]}"; done
  if [[ -n $current_phase ]]; then printf '  %-26s FAILED\n' "$current_phase"; fi
  printf '  %-26s %5d s (%d min; budget 45 min on a fresh two-core machine)\n' total \
    $((SECONDS - run_start)) $(((SECONDS - run_start + 59) / 60))
  exit $status
}
trap print_times EXIT

configure_release() {
  # CI builds without debug information: nothing there reads it, and on two
  # cores it is a large share of the build time. A developer's build keeps it.
  if [ "${CI:-}" = true ]; then
    cmake --preset release -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG"
  else
    cmake --preset release
  fi
}

configure_asan() {
  local launcher=()
  if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
  cmake --preset asan "${launcher[@]}" >/dev/null
}

phase "install dependencies" ./scripts/install-deps.sh
phase "configure release" configure_release
phase "build release" cmake --build --preset release
phase "test release" env QT_QPA_PLATFORM=offscreen ctest --preset release "$@"
# The Debian package, unpacked and run away from the build tree, and lintian.
phase "package check" ./scripts/check-package.sh build/release
# One instrumented build (clang; ASan + UBSan; build/asan) serves the fuzzers
# and the sanitizer suite.
phase "configure asan" configure_asan
phase "build asan" cmake --build --preset asan
# Every file reader under libFuzzer for a bounded time; a crash is saved in
# fuzz/regressions/ and fails the run.
phase "fuzz" ./scripts/run-fuzzers.sh 15
# The C++ and GUI suites again under the sanitizers; a leak, an out-of-bounds
# access or undefined behaviour fails the test that caused it.
phase "test asan" env QT_QPA_PLATFORM=offscreen ctest --preset asan
