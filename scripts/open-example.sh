#!/usr/bin/env bash
# First contact: install dependencies, build, and open the bundled softmax
# example. With a display it opens the IDE; without one it runs `pto` on the
# example and prints the result.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install-deps.sh
cmake --preset release
cmake --build --preset release

example=resources/examples/softmax
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -x build/release/bin/pto-studio ]; then
  exec build/release/bin/pto-studio "$example"
fi
exec build/release/bin/pto run "$example"
