#!/usr/bin/env bash
# The cost of the confinement: `toolgate exec -- ls` against plain
# `bash -c ls`, RUNS runs of each (default 20), interleaved, in DIR (default:
# the repository's docs/ directory). Prints each median in milliseconds.
#   tests/bench/exec-cost.sh [DIR] [RUNS]
# Uses the release CLI (cargo build --release -p toolgate first).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cli="${TOOLGATE:-$root/target/release/toolgate}"
dir="${1:-$root/docs}"
runs="${2:-20}"
cd "$dir"
entries=$(find . | wc -l)
"$cli" exec -- ls >/dev/null # warm the compiled component's cache
ms() { # runs "$@" once, prints its wall time in ms (3 decimals)
  local a b
  a=$(date +%s%N)
  "$@" >/dev/null 2>&1
  b=$(date +%s%N)
  echo "scale=3; ($b - $a) / 1000000" | bc
}
exec_times=()
bash_times=()
only_times=()
for _ in $(seq "$runs"); do
  exec_times+=("$(ms "$cli" exec -- ls)")
  bash_times+=("$(ms bash -c ls)")
  only_times+=("$(ms "$cli" exec --confine-only -- ls)")
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {if (NR % 2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2}'; }
echo "dir: $dir ($entries entries), $runs runs of each, interleaved, as $(id -un)"
echo "toolgate exec -- ls:              median $(median "${exec_times[@]}") ms"
echo "toolgate exec --confine-only -- ls: median $(median "${only_times[@]}") ms"
echo "bash -c ls:                       median $(median "${bash_times[@]}") ms"
