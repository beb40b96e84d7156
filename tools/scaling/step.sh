#!/bin/bash
# Instructions per step (callgrind, independent of the machine's load) of the models of
# tests/engine/scaling.rs at n and 10 n arms (bodies, joints, geoms, sites, actuators, tendons and
# sensors all grow 10×): a linear step gives a ratio near 10, a quadratic one near 100.
# usage: tools/scaling/step.sh [N] (default 30); needs valgrind.
set -e
cd "$(dirname "$0")/../.."
n=${1:-30}
steps=100
bin=$(cargo test -p moreau --test engine --no-run --message-format=json 2>/dev/null |
  python3 -c 'import json,sys
for l in sys.stdin:
    j=json.loads(l)
    if j.get("reason")=="compiler-artifact" and j["target"]["name"]=="engine" and j.get("executable"): print(j["executable"])')
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
ir() {
  MOREAU_SCALING_N=$1 MOREAU_SCALING_STEPS=$steps valgrind --tool=callgrind --dump-instr=no \
    --toggle-collect='*integrator*step*' --callgrind-out-file="$W/cg" \
    "$bin" --exact scaling::step_cost_child --test-threads=1 >/dev/null 2>&1
  grep -h 'summary:\|totals:' "$W/cg" | tail -1 | awk -v s=$steps '{printf "%d", $2 / s}'
}
a=$(ir "$n")
b=$(ir $((10 * n)))
printf 'instructions per step: n %d: %d, n %d: %d, ratio %.1f\n' "$n" "$a" $((10 * n)) "$b" \
  "$(echo "$b / $a" | bc -l)"
