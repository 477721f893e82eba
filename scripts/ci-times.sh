#!/usr/bin/env bash
# Times the README's test command as CI runs it on a fresh machine: a fresh
# clone of the committed HEAD, CI=true, no compiler cache (ccache disabled
# even where it is installed), then the wall time of each phase
# (scripts/run-tests.sh prints them; they are kept in the clone's
# build/ci-times.tsv) against the 45-minute budget of docs/ci.md.
#
# Usage: scripts/ci-times.sh [--keep] [--budget-minutes N]
#   --keep              leave the clone (printed) instead of removing it
#   --budget-minutes N  fail when the total exceeds N minutes (default 45)
# Exit status: that of run-tests.sh, or 3 when it passed over the budget.
set -euo pipefail
cd "$(dirname "$0")/.."

keep=false
budget_minutes=45
while (($# > 0)); do
  case $1 in
    --keep) keep=true ;;
    --budget-minutes)
      if (($# < 2)); then
        echo "ci-times: --budget-minutes needs a number of minutes" >&2
        exit 2
      fi
      shift
      budget_minutes=$1
      ;;
    *)
      echo "usage: $0 [--keep] [--budget-minutes N]" >&2
      exit 2
      ;;
  esac
  shift
done
if [[ ! $budget_minutes =~ ^[0-9]+$ ]]; then
  echo "ci-times: --budget-minutes takes a whole number of minutes" >&2
  exit 2
fi
if ! git diff --quiet HEAD 2>/dev/null; then
  echo "ci-times: note: uncommitted changes are not timed (the clone holds HEAD, $(git rev-parse --short HEAD))" >&2
fi

clone=$(mktemp -d "${TMPDIR:-/tmp}/pto-ci-times.XXXXXX")
if ! $keep; then trap 'rm -rf "$clone"' EXIT; fi
git clone --quiet --no-hardlinks . "$clone"
echo "ci-times: timing $(git rev-parse --short HEAD) in $clone (CI=true, CCACHE_DISABLE=1, $(nproc) cores)"

status=0
(cd "$clone" && CI=true CCACHE_DISABLE=1 ./scripts/run-tests.sh) > "$clone.log" 2>&1 || status=$?
# The phase table run-tests.sh printed last.
sed -n '/^run-tests: phase times/,$p' "$clone.log"
echo "ci-times: whole log in $clone.log"
if ((status != 0)); then
  echo "ci-times: the test command failed (exit $status); see the log" >&2
  exit "$status"
fi
total=$(awk -F'\t' '$1 == "total" { print $2 }' "$clone/build/ci-times.tsv")
if ((total > budget_minutes * 60)); then
  echo "ci-times: OVER BUDGET: $total s > $budget_minutes min" >&2
  exit 3
fi
echo "ci-times: within budget: $total s <= $budget_minutes min"
