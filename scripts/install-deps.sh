#!/usr/bin/env bash
# Installs the Debian 12 packages PTO Studio builds and tests with.
# Idempotent: packages already present are left alone; nothing else is touched.
# As root it calls apt-get directly, otherwise through sudo.
set -euo pipefail

packages=(
  # build, and the Debian package (dpkg-shlibdeps; lintian checks it)
  cmake ninja-build g++ dpkg-dev lintian
  # fuzzing (libFuzzer comes with clang)
  clang libclang-rt-14-dev
  # GUI
  qt6-base-dev qt6-svg-dev libqcustomplot-dev libqcustomplot2.1-qt6 libqscintilla2-qt6-dev
  # engine
  nlohmann-json3-dev libspdlog-dev libeigen3-dev pybind11-dev python3-dev libgraphviz-dev libcli11-dev
  libsqlite3-dev zlib1g-dev
  # tests
  libgtest-dev libbenchmark-dev python3-numpy python3-torch python3-pytest graphviz xvfb xauth
  # distributed tuning sweeps (pto tune --dask)
  python3-distributed
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages are installed"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "install-deps: not root and no sudo; install these packages as root: ${missing[*]}" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq || echo "install-deps: apt-get update failed; trying the cached package lists" >&2
if ! "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
  # Name the packages apt could not provide, so the user knows what to fix.
  for package in "${missing[@]}"; do
    if ! apt-cache show "$package" >/dev/null 2>&1; then
      echo "install-deps: package '$package' is not available from the configured apt sources" >&2
    fi
  done
  echo "install-deps: apt-get install failed for: ${missing[*]}" >&2
  exit 1
fi

still_missing=()
for package in "${missing[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || still_missing+=("$package")
done
if [ ${#still_missing[@]} -ne 0 ]; then
  echo "install-deps: still missing after install: ${still_missing[*]}" >&2
  exit 1
fi
echo "install-deps: done"
