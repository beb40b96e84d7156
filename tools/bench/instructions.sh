#!/bin/bash
# Instruction counts (callgrind; independent of the machine's load) of moreau against MuJoCo 4.0.0
# on the same work, per model:
#   step      instructions per step of `integrator::step` / `mj_step`, 2000 steps from keyframe 0
#             (or qpos0) under the sinusoidal controls of tools/reference/mj_step_ctrl.py
#   fd        one FD transition (A, B, and C, D with sensors; forward differences) at the contact
#             state of tools/bench/contact_state.py: `FdWorkspace::transition` / `mjd_transitionFD`
#   analytic  analytic A, B per call (derivatives/examples/transition_profile, reused Data) against
#             mjd_transitionFD (A, B only) at the same contact state
# Needs valgrind, python3 with mujoco==4.0.0, and release builds:
#   cargo build --release -p moreau-cli && cargo build --release -p moreau-derivatives --example transition_profile
# usage: tools/bench/instructions.sh [--step | --fd | --analytic] [--integrator NAME] [MODEL ...]
#   (default: the six models of docs/performance.md's table; --step: only the step row (needs
#   only the CLI); --fd: only the fd row (needs only the CLI); --analytic: only the analytic row;
#   --integrator euler|implicit|implicitfast|rk4: the analytic row with the loaded model's
#   integrator switched before settling, on both sides)
set -e
cd "$(dirname "$0")/../.."
only_analytic=""; only_step=""; only_fd=""; integ=""
while [ $# -gt 0 ]; do
  case $1 in
    --step) only_step=1; shift ;;
    --fd) only_fd=1; shift ;;
    --analytic) only_analytic=1; shift ;;
    --integrator) integ=$2; only_analytic=1; shift 2 ;;
    *) break ;;
  esac
done
T=${CARGO_TARGET_DIR:-target}/release
PY=$(python3 -c 'import sys; print(sys.executable)')
W=$(mktemp -d)
models=${*:-humanoid quadruped hopper_leg cheetah walker hopper}
ir() { grep -h 'summary:\|totals:' "$1" | tail -1 | awk '{print $2}'; }
cg() { out=$1; shift; valgrind --tool=callgrind --dump-instr=no --callgrind-out-file="$out" "$@" >/dev/null 2>&1; ir "$out"; }
printf '%-11s %-9s %14s %14s %7s\n' model what moreau MuJoCo ratio
for m in $models; do
  x=models/$m.xml
  [ -f "$m" ] && x=$m
  if [ -z "$only_analytic" ] && [ -z "$only_fd" ]; then
  key=$($PY -c "import mujoco,sys; print(mujoco.MjModel.from_xml_path(sys.argv[1]).nkey)" $x 2>/dev/null)
  [ "$key" -gt 0 ] && kf="--keyframe 0" || kf=""
  $PY tools/reference/mj_step_ctrl.py $x 2000 --make-ctrl $W/$m.csv >/dev/null 2>&1
  a=$(cg $W/s.cg --toggle-collect='*integrator::step*' $T/moreau simulate $x --steps 2000 $kf --ctrl $W/$m.csv --out $W/o.json)
  b=$(cg $W/t.cg --toggle-collect=mj_step $PY tools/reference/mj_step_ctrl.py $x 2000 $W/$m.csv)
  awk -v m=$m -v a=$a -v b=$b 'BEGIN{printf "%-11s %-9s %14d %14d %7.3f\n", m, "step", a/2000, b/2000, a/b}'
  [ -n "$only_step" ] && continue
  fi
  if [ -z "$only_analytic" ]; then
  $PY tools/bench/contact_state.py $x $W/$m.json >/dev/null 2>&1
  a=$(cg $W/s.cg --toggle-collect='*FdWorkspace*transition*' $T/moreau derivatives $x --state $W/$m.json --kind transition --method fd --out $W/j.json)
  b=$(cg $W/t.cg --toggle-collect=mjd_transitionFD $PY tools/bench/mjd_fd_state.py $x $W/$m.json)
  awk -v m=$m -v a=$a -v b=$b 'BEGIN{printf "%-11s %-9s %14d %14d %7.3f\n", m, "fd", a, b, a/b}'
  [ -n "$only_fd" ] && continue
  fi
  ig=${integ:+--integrator $integ}
  a1=$(cg $W/s.cg $T/examples/transition_profile $x 1 $ig)
  a2=$(cg $W/s.cg $T/examples/transition_profile $x 21 $ig)
  b=$(cg $W/t.cg --toggle-collect=mjd_transitionFD $PY derivatives/examples/mjd_transition_fd_contact.py $x 2 $integ)
  awk -v m=$m -v a=$(( (a2 - a1) / 20 )) -v b=$b 'BEGIN{printf "%-11s %-9s %14d %14d %7.3f\n", m, "analytic", a, b/2, 2*a/b}'
done
rm -rf $W
