#!/usr/bin/env bash
# Builds the Debian package, unpacks it into a temporary root and checks that
# it works from there, away from the build tree: `pto --version`, `pto run` on
# an installed example (with the installed machine files and pypto package),
# and `import pypto` in Debian's python3 from the unpacked dist-packages. Then
# lintian must report no errors. Usage: scripts/check-package.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/release}"

cmake --build "$build" --target package
deb="$(realpath "$(ls -t "$build"/pto-studio_*.deb | head -n 1)")"
echo "check-package: $deb ($(du -h "$deb" | cut -f1))"

root="$(mktemp -d)"
trap 'rm -rf "$root" "$root.no-suppressed-tags"' EXIT
dpkg-deb -x "$deb" "$root"

# Nothing of the build or source tree may be on the way: run from elsewhere,
# without the variables that point at the build's pypto.
unset PTO_PYTHON_PATH PYTHONPATH
cd "$root"
"$root/usr/bin/pto" --version
# A project made by the installed pto from the installed example, as a user
# would (pto new records the new folder as trusted, in a store of our own).
export XDG_CONFIG_HOME="$root/config"
"$root/usr/bin/pto" new "$root/softmax" --example softmax > /dev/null
# Mark the unpacked machine file (a clock no other copy has), so the run shows which one it read.
sed -i 's/"clock_ghz": [0-9][0-9.]*/"clock_ghz": 1.234/' "$root/usr/share/pto-studio/machines/a2.json"
"$root/usr/bin/pto" run "$root/softmax" --json "$root/run.json" > /dev/null
/usr/bin/python3 - "$root" <<'PY'
import json, sys
root = sys.argv[1]
run = json.load(open(f"{root}/run.json"))
assert run["pass"] and run["makespan_us"] > 0, run
assert run["clock_ghz"] == 1.234, f"the unpacked pto read another machine file (clock {run['clock_ghz']} GHz)"
print(f"check-package: pto run on the installed softmax with the installed a2.json: {run['makespan_us']:.3f} us")
PY
PYTHONPATH="$root/usr/lib/python3/dist-packages" /usr/bin/python3 -c "
import sys, pypto, _pypto_core
for module in (pypto, _pypto_core):
    assert module.__file__.startswith(sys.argv[1]), module.__file__
print('check-package: import pypto from', pypto.__file__, 'with', _pypto_core.__file__.rsplit('/', 1)[1])
" "$root"

# The maintainer scripts that byte-compile the Python packages on install and clean up on removal.
for script in postinst prerm; do
  dpkg-deb -I "$deb" "$script" | grep -q "py3" || { echo "check-package: the package has no $script that byte-compiles" >&2; exit 1; }
done
echo "check-package: postinst byte-compiles the Python packages, prerm removes the bytecode"

if command -v lintian > /dev/null; then
  # No tag suppressed: an empty file of our own, not /dev/null, which a broken
  # container may have as a regular file that others write to.
  no_suppressed_tags="$root.no-suppressed-tags"
  : > "$no_suppressed_tags"
  lintian --fail-on error --suppress-tags-from-file "$no_suppressed_tags" "$deb"
  echo "check-package: lintian reports no errors"
else
  echo "check-package: lintian is not installed (scripts/install-deps.sh installs it)" >&2
  exit 1
fi
