#!/usr/bin/env bash
# Renders the screenshots the docs show, from the programs as they are now:
#
#   scripts/make-screenshots.sh OUTPUT_DIR [PTO_STUDIO] [NAME.png...]
#
# PTO_STUDIO defaults to build/release/bin/pto-studio; `pto` is taken from
# beside it (it records the runs the Runs view lists). With NAME.png
# arguments only those screenshots are made. Each one opens a copy of a
# bundled example (without its recorded runs; no saved window layout) headless
# (QT_QPA_PLATFORM=offscreen) in the light theme at 1600x1000, waits until the
# run, the advice or the layout it asks for has finished, and saves a PNG.
# The `shot NAME.png ...` and `shot_failing NAME.png ...` lines at the end
# are the list of screenshots: the docs test (tests/docs/check_docs.py) reads
# them, and an image the docs show must be one of them. Exit 1 when a
# screenshot fails (or, for shot_failing, when its run does not fail).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -lt 1 ]; then
  echo "usage: $0 OUTPUT_DIR [PTO_STUDIO] [NAME.png...]" >&2
  exit 2
fi
out=$(mkdir -p "$1" && cd "$1" && pwd)
shift
studio="$root/build/release/bin/pto-studio"
if [ $# -gt 0 ] && [[ "$1" != *.png ]]; then
  studio=$1
  shift
fi
only=("$@")
if [ ! -x "$studio" ]; then
  echo "make-screenshots: $studio is not an executable; build it first (cmake --build --preset release)" >&2
  exit 1
fi
studio="$(cd "$(dirname "$studio")" && pwd)/$(basename "$studio")"
pto="$(dirname "$studio")/pto"
if [ ! -x "$pto" ]; then
  echo "make-screenshots: $pto (beside pto-studio) is not an executable; build it first" >&2
  exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/pto-screenshots.XXXXXX")
trap 'rm -rf "$work"' EXIT
export QT_QPA_PLATFORM=offscreen
export XDG_RUNTIME_DIR="$work/runtime"
# The copies are of the bundled examples, which are trusted; the copies'
# temporary folders are not in the user's trust store.
export PTO_TRUST=1
mkdir -m 700 "$XDG_RUNTIME_DIR"
examples="$root/resources/examples"
made=0

wanted() {
  [ ${#only[@]} -eq 0 ] && return 0
  local name
  for name in "${only[@]}"; do [ "$name" = "$1" ] && return 0; done
  return 1
}

# A fresh copy of an example (without the runs recorded in the source tree),
# named relative to $work: pto-studio runs there, so the messages it shows
# say softmax/kernel.py rather than a temporary folder's name.
project() {
  local example=$1 name=$2
  rm -rf "${work:?}/$name"
  cp -r "$examples/$example" "$work/$name"
  find "$work/$name" -name .pto -type d -prune -exec rm -rf {} +
  echo "$name"
}

# shot NAME.png PROJECT [pto-studio options...]: one screenshot of a run
# that succeeds; shot_failing: of one that fails (pto-studio --exit returns 1).
shot() { screenshot 0 "$@"; }
shot_failing() { screenshot 1 "$@"; }
screenshot() {
  local expect=$1 name=$2 path=$3
  shift 3
  wanted "$name" || return 0
  local status=0
  (cd "$work" && XDG_CONFIG_HOME="$work/config-${name%.png}" \
    "$studio" "$path" --size 1600x1000 --theme light --screenshot "$out/$name" --exit "$@" \
    >"$work/${name%.png}.log" 2>&1) || status=$?
  if [ "$status" -ne "$expect" ] || [ ! -s "$out/$name" ]; then
    echo "make-screenshots: $name failed (exit $status, expected $expect):" >&2
    cat "$work/${name%.png}.log" >&2
    exit 1
  fi
  echo "make-screenshots: $out/$name"
  made=$((made + 1))
}

softmax=$(project softmax softmax)
mixed=$(project muls_add_matmul_rowsum muls_add_matmul_rowsum)
indexer=$(project lightning_indexer lightning_indexer)
per_block=$(project lightning_indexer_tuning lightning_indexer_tuning)/per_block

# softmax with a wider tile set in the project (the tuning dock's edit).
printf '[{"op": "add", "path": "/tile_settings", "value": {"vec": {"softmax": [1, 8, 1, 256]}}}]\n' >"$work/retile.json"
retiled=$(project softmax softmax_retiled)
if wanted tuning.png; then
  "$pto" apply "$work/$retiled" --patch "$work/retile.json" >/dev/null
fi

# softmax run once as shipped (run 1 in its ledger), then given the wider
# tile: the screenshot's run is run 2, compared with run 1.
history=$(project softmax softmax_history)
if wanted runs.png; then
  "$pto" run "$work/$history" >/dev/null
  "$pto" apply "$work/$history" --patch "$work/retile.json" >/dev/null
fi

# The calibration example and a "measured" trace of it: the same kernel
# simulated on a2 with the GM->L1 peak x0.8, HBM x1.25, dispatch x2 and the
# vector rate x0.5, as a chip that differs from the machine file would run it.
calibration=$(project calibration calibration)
if wanted measured.png; then
  sed -e 's/"peak_gib_per_s": 135.0/"peak_gib_per_s": 108.0/' -e 's/"bandwidth_tb_per_s": 1.6/"bandwidth_tb_per_s": 2.0/' \
      -e 's/"dispatch_cycles": 200/"dispatch_cycles": 400/' -e 's/"bytes_per_cycle": 256/"bytes_per_cycle": 128/' \
      "$root/resources/machines/a2.json" >"$work/chip.json"
  "$pto" run "$work/$calibration" --machine "$work/chip.json" --no-check --no-record --trace "$work/merged_swimlane.json" >/dev/null
fi

# A Dask cluster of two local worker processes for the distributed tuner's
# picture (Debian's python3-distributed), stopped with the script.
softmax_dask=$(project softmax softmax_dask)
start_dask_cluster() {
  mkfifo "$work/cluster-stdin"
  /usr/bin/python3 -c '
import sys
from distributed import LocalCluster
if __name__ == "__main__":
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    print(cluster.scheduler_address, flush=True)
    sys.stdin.read()
    cluster.close()
' <"$work/cluster-stdin" >"$work/cluster-address" 2>"$work/cluster.log" &
  exec 9>"$work/cluster-stdin"  # the cluster lives until this script closes it, at exit
  local waited=0
  until [ -s "$work/cluster-address" ] || [ $waited -ge 60 ]; do sleep 1; waited=$((waited + 1)); done
  if [ ! -s "$work/cluster-address" ]; then
    echo "make-screenshots: the Dask cluster did not start (is python3-distributed installed?):" >&2
    cat "$work/cluster.log" >&2
    exit 1
  fi
}

# softmax with a tile the hardware rejects (the innermost dim not 32-byte aligned).
broken=$(project softmax my_softmax)
sed -i 's/set_vec_tile_shapes(1, 4, 1, 64)/set_vec_tile_shapes(1, 4, 1, 60)/' "$work/$broken/kernel.py"

shot swimlane.png          "$softmax" --run --view swimlane
shot summary.png           "$softmax" --run --view summary
shot tuning.png            "$retiled" --run --view tuning
shot runs.png              "$history" --run --view runs --compare-run 1
shot measured.png          "$calibration" --run --measured "$work/merged_swimlane.json" --view swimlane
shot_failing editor-problems.png "$broken" --run --view editor
shot graphs-tile.png       "$mixed" --run --view graph --level tile
shot graphs-block.png      "$mixed" --run --view graph --level block
shot graphs-exec.png       "$mixed" --run --view graph --level exec
shot health.png            "$indexer" --run --view health
shot memory.png            "${per_block%/per_block}/l1_reuse" --run --view memory
shot inside-task.png       "$softmax" --run --view inside
shot advice.png            "$per_block" --run --advise --view advice
shot tuner.png             "$softmax" --run --tune 240 --view advice
if wanted tuner-dask.png; then
  start_dask_cluster
  shot tuner-dask.png      "$softmax_dask" --run --tune 240 --dask "$(head -1 "$work/cluster-address")" --view advice
fi
shot swimlane-dark.png     "$indexer" --run --view swimlane --theme dark

if [ ${#only[@]} -gt 0 ] && [ "$made" -ne ${#only[@]} ]; then
  echo "make-screenshots: made $made of ${#only[@]} requested screenshots; the names are the shot lines of $0" >&2
  exit 1
fi
echo "make-screenshots: $made screenshots in $out"
