#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ in the asan preset (clang,
# AddressSanitizer and UndefinedBehaviorSanitizer, build/asan: the same build
# the sanitizer suite runs in, so CI compiles the engine once for both) and
# runs each for a bounded time on
# a temporary copy of its seed corpus and past regressions, so the repository
# never gains generated inputs. An input that crashes, trips a sanitizer,
# leaks, times out or runs out of memory is copied into fuzz/regressions/<name>/
# (the ctest test fuzz.<name> replays it in every build) and the script exits 1.
#
# Usage: scripts/run-fuzzers.sh [seconds-per-target] [name...]
#   seconds-per-target  default 20
#   name                corpus folder names under fuzz/corpus (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-20}
if [[ ! $seconds =~ ^[0-9]+$ ]] || ((seconds == 0)); then
  echo "usage: $0 [seconds-per-target] [name...]" >&2
  exit 2
fi
shift $(($# > 0 ? 1 : 0))

build=build/asan
# A target is a folder of seeds: fuzz/corpus/<name> is fuzzed by pto_fuzz_<name>.
if (($# > 0)); then
  names=("$@")
else
  names=()
  for corpus in fuzz/corpus/*/; do names+=("$(basename "$corpus")"); done
fi

if ! command -v clang++ >/dev/null 2>&1 ||
   ! compgen -G "/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a" >/dev/null; then
  echo "run-fuzzers: needs clang++ and its libFuzzer runtime (Debian: clang libclang-rt-14-dev;" \
       "scripts/install-deps.sh installs them)" >&2
  exit 2
fi

launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

build_start=$SECONDS
# Configured every time (seconds when nothing changed): a build/asan made
# before the preset built the fuzzers gets PTO_FUZZ=ON from it.
cmake --preset asan "${launcher[@]}" >/dev/null
targets=()
for name in "${names[@]}"; do targets+=("pto_fuzz_$name"); done
cmake --build "$build" -j2 --target "${targets[@]}"
build_seconds=$((SECONDS - build_start))

work=$(mktemp -d "${TMPDIR:-/tmp}/pto-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT

export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

summary=()
failed=()
for name in "${names[@]}"; do
  binary=$build/bin/pto_fuzz_$name
  corpus=$work/$name/corpus
  artifacts=$work/$name/artifacts
  log=$work/$name/log
  mkdir -p "$corpus" "$artifacts"
  # Seeds and past crashers; dot files (.gitkeep) are not inputs.
  find "fuzz/corpus/$name" "fuzz/regressions/$name" -maxdepth 1 -type f ! -name '.*' -exec cp {} "$corpus/" \; 2>/dev/null || true
  # -max_len: big regressions (a 300 KB trace) would otherwise make every
  # mutation that long; 16 KB leaves room for deep nesting and long arrays.
  options=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=16384 -print_final_stats=1
           -artifact_prefix="$artifacts/")
  if [[ -f fuzz/$name.dict ]]; then options+=(-dict="fuzz/$name.dict"); fi

  echo "== fuzzing $name for ${seconds}s"
  start=$SECONDS
  status=0
  "$binary" "${options[@]}" "$corpus" >"$log" 2>&1 || status=$?
  elapsed=$((SECONDS - start))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  added=$(sed -n 's/^stat::new_units_added: *//p' "$log" | tail -1)
  summary+=("$(printf '%-14s %10s execs %7s/s %5s new inputs %4ss' "$name" "${execs:-?}" "${rate:-?}" "${added:-?}" "$elapsed")")

  if ((status == 0)); then continue; fi
  failed+=("$name")
  tail -n 60 "$log"
  found=0
  for artifact in "$artifacts"/*; do
    [[ -f $artifact ]] || continue
    # slow-unit-* only notes a slow input; crash-, leak-, timeout- and oom- fail.
    case $(basename "$artifact") in slow-unit-*) continue ;; esac
    found=1
    kept=fuzz/regressions/$name/$(basename "$artifact")
    cp "$artifact" "$kept"
    cat >&2 <<EOF

FUZZER FAILED: pto_fuzz_$name ($(basename "$artifact" | cut -d- -f1)), input saved as $kept
  reproduce:   $binary $kept
  replay test: ctest -L fuzz -R 'fuzz\\.$name' (any build)
  fix the reader so the input gets a diagnostic, then rename the file after what it tests.
EOF
  done
  if ((found == 0)); then
    echo >&2 "FUZZER FAILED: pto_fuzz_$name exited with status $status and saved no input; log above"
  fi
done

echo
echo "build: ${build_seconds}s; fuzzing: ${seconds}s per target"
printf '%s\n' "${summary[@]}"
if ((${#failed[@]} > 0)); then
  echo >&2 "failed: ${failed[*]} (inputs saved under fuzz/regressions/)"
  exit 1
fi
echo "no crashes"
