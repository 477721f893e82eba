#!/usr/bin/env bash
#SBATCH --job-name=pto-sweep
#SBATCH --output=pto-sweep-%A_%a.log
# One shard of a `pto tune` sweep as a Slurm array task, and the merge after
# the array (docs/cli.md, "A sweep as an array job").
#
#   sbatch --array=1-N scripts/tune-array-job.sh PROJECT OUTDIR [pto tune options...]
#   scripts/tune-array-job.sh --merge PROJECT OUTDIR      # after the array: OUTDIR/sweep.json
#
# The array's size is the shard count and its task's place in it the shard,
# so `--array=1-16` cuts the sweep into 16; the options (strategy, seed,
# budget) must be the same for every task. Each task writes
# OUTDIR/shard-K-of-N.json. PTO names the pto executable (default: on PATH).
set -euo pipefail
pto=${PTO:-pto}

if [ "${1:-}" = --merge ]; then
  [ $# -eq 3 ] || { echo "usage: $0 --merge PROJECT OUTDIR" >&2; exit 1; }
  shopt -s nullglob
  shards=("$3"/shard-*-of-*.json)
  [ ${#shards[@]} -gt 0 ] || { echo "$0: no shard-K-of-N.json files in $3: has the array run?" >&2; exit 1; }
  exec "$pto" tune "$2" --merge "${shards[@]}" --json "$3/sweep.json"
fi

[ $# -ge 2 ] || { echo "usage: sbatch --array=1-N $0 PROJECT OUTDIR [pto tune options...]" >&2; exit 1; }
if [ -z "${SLURM_ARRAY_TASK_ID:-}" ] || [ -z "${SLURM_ARRAY_TASK_COUNT:-}" ]; then
  echo "$0: not a Slurm array task (SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT unset): submit it with sbatch --array=1-N" >&2
  exit 1
fi
project=$1
outdir=$2
shift 2
# Slurm numbers tasks from --array's first index, whatever it is.
shard=$((SLURM_ARRAY_TASK_ID - ${SLURM_ARRAY_TASK_MIN:-1} + 1))
count=$SLURM_ARRAY_TASK_COUNT
mkdir -p "$outdir"
exec "$pto" tune "$project" "$@" --shard "$shard/$count" --quiet --json "$outdir/shard-$shard-of-$count.json"
