#!/bin/bash
# Instructions per step and of the load (callgrind, independent of the machine's load) of the
# models of tests/engine/scaling.rs at n and 10 n: `arms` (bodies, joints, geoms, sites,
# actuators, tendons and sensors all grow 10×) or `contacts` (spheres resting on a plane, one
# contact each, and a pile of spheres the broad phase prunes): a linear cost gives a ratio near
# 10, a quadratic one near 100.
# Usage: tools/scaling/step.sh [N] [arms|contacts] (defaults 30, arms); needs valgrind.
set -e
cd "$(dirname "$0")/../.."
n=${1:-30}
model=${2:-arms}
steps=${STEPS:-100}
bin=$(cargo test -p moreau --test engine --no-run --message-format=json 2>/dev/null |
  python3 -c 'import json,sys
for l in sys.stdin:
    j=json.loads(l)
    if j.get("reason")=="compiler-artifact" and j["target"]["name"]=="engine" and j.get("executable"): print(j["executable"])')
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
# ir N STEPS FUNCTION: instructions in FUNCTION (callgrind's toggle pattern), divided by STEPS
ir() {
  MOREAU_SCALING_MODEL=$model MOREAU_SCALING_N=$1 MOREAU_SCALING_STEPS=$2 valgrind \
    --tool=callgrind --dump-instr=no --toggle-collect="$3" --callgrind-out-file="$W/cg" \
    "$bin" --exact scaling::step_cost_child --test-threads=1 >/dev/null 2>&1
  grep -h 'summary:\|totals:' "$W/cg" | tail -1 | awk -v s="$2" '{printf "%d", $2 / s}'
}
for what in step load; do
  if [ $what = step ]; then k=$steps f='*integrator*step*'; else k=1 f='*load_from_str*'; fi
  a=$(ir "$n" $k "$f")
  b=$(ir $((10 * n)) $k "$f")
  printf '%s, instructions per %s: n %d: %d, n %d: %d, ratio %.1f\n' "$model" "$what" "$n" "$a" \
    $((10 * n)) "$b" "$(echo "$b / $a" | bc -l)"
done
