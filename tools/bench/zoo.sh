#!/bin/bash
# Instructions per step (callgrind, independent of the machine's load) of moreau against
# MuJoCo 4.0.0 on every model of the public zoo (tools/zoo/models.txt, refused lines skipped):
# `integrator::step` / `mj_step`, N steps (default 1000) from keyframe 0 (or qpos0) under the
# sinusoidal controls of tools/reference/mj_step_ctrl.py, both sides on the same controls.
# Prints per model: nv, nefc at the last step (MuJoCo's), instructions per step on each side,
# the ratio, and the final time on both sides (a rollout that diverged shows here).
# Needs valgrind, python3 with mujoco==4.0.0, the zoo cache (python3 tools/zoo/fetch.py) and
#   cargo build --release -p moreau-cli   (or MOREAU=path/to/moreau)
# usage: tools/bench/zoo.sh [--steps N] [NAME-SUBSTRING ...]
set -e
cd "$(dirname "$0")/../.."
n=1000
[ "$1" = "--steps" ] && { n=$2; shift 2; }
MOREAU=${MOREAU:-${CARGO_TARGET_DIR:-target}/release/moreau}
PY=$(python3 -c 'import sys; print(sys.executable)')
Z=${MOREAU_ZOO:-$(python3 tools/zoo/fetch.py --print)}
W=$(mktemp -d)
ir() { grep -h 'summary:\|totals:' "$1" | tail -1 | awk '{print $2}'; }
cg() { out=$1; shift; valgrind --tool=callgrind --dump-instr=no --callgrind-out-file="$out" "$@" >"$out.out" 2>/dev/null; ir "$out"; }
printf '%-44s %4s %5s %12s %12s %7s\n' model nv nefc moreau MuJoCo ratio
grep -v '^#' tools/zoo/models.txt | grep -v '^ *$' | grep -v ' refused ' | while read -r name path _; do
  if [ $# -gt 0 ]; then keep=""; for s in "$@"; do [[ $name == *$s* ]] && keep=1; done; [ -z "$keep" ] && continue; fi
  x=$Z/$path
  if [ ! -f "$x" ]; then printf '%-44s missing %s\n' "$name" "$x"; continue; fi
  info=$($PY -c "import mujoco,sys; m=mujoco.MjModel.from_xml_path(sys.argv[1]); print(m.nkey, m.nv)" "$x" 2>/dev/null) || { printf '%-44s MuJoCo does not load it\n' "$name"; continue; }
  set -- $info "$@"; key=$1; nv=$2; shift 2
  [ "$key" -gt 0 ] && kf="--keyframe 0" || kf=""
  $PY tools/reference/mj_step_ctrl.py "$x" $n --make-ctrl $W/c.csv >/dev/null 2>&1
  a=$(cg $W/s.cg --toggle-collect='*integrator::step*' $MOREAU simulate "$x" --steps $n $kf --ctrl $W/c.csv --out $W/o.json) || a=0
  b=$(cg $W/t.cg --toggle-collect=mj_step $PY tools/reference/mj_step_ctrl.py "$x" $n $W/c.csv)
  nefc=$(awk '{print $2}' $W/t.cg.out)
  if [ -z "$a" ] || [ "$a" = 0 ]; then printf '%-44s %4s %5s %12s %12d %7s\n' "$name" $nv "$nefc" failed $((b / n)) -; continue; fi
  awk -v m="$name" -v nv=$nv -v e="$nefc" -v a=$a -v b=$b -v n=$n 'BEGIN{printf "%-44s %4d %5s %12d %12d %7.3f\n", m, nv, e, a/n, b/n, a/b}'
done
rm -rf $W
