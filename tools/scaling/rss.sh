#!/bin/bash
# Peak resident memory of 20 steps of N free spheres resting on a plane (N contacts, 4 N
# constraint rows at condim 3, nv = 6 N), for each integrator: `moreau simulate` (release build)
# against MuJoCo 4.0.0's Python process (`mujoco` installed) on the same model, both under
# `/usr/bin/time -v`.
# usage: tools/scaling/rss.sh [N] (default 2000); MOREAU=path/to/moreau skips the build.
set -e
cd "$(dirname "$0")/../.."
n=${1:-2000}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
python3 - "$n" > "$W/spheres.xml" <<'PY'
import sys
n = int(sys.argv[1])
body = "".join(
    f"<body pos='{0.3 * (i % 60)} {0.3 * (i // 60)} 0.099'><freejoint/><geom size='.1'/></body>"
    for i in range(n))
print(f"<mujoco><worldbody><geom type='plane' size='20 20 .1'/>{body}</worldbody></mujoco>")
PY
bin=${MOREAU:-}
if [ -z "$bin" ]; then
  cargo build --release -q -p moreau-cli
  bin=${CARGO_TARGET_DIR:-target}/release/moreau
fi
peak() { awk '/Maximum resident set size/ {printf "%.1f MB", $6 / 1024}' "$1"; }
printf '%-13s %12s %12s\n' integrator moreau mujoco
for integ in euler rk4 implicitfast implicit; do
  /usr/bin/time -v "$bin" simulate "$W/spheres.xml" --steps 20 --integrator "$integ" \
    --out "$W/out.json" 2> "$W/moreau.txt" > /dev/null
  /usr/bin/time -v python3 - "$W/spheres.xml" "$integ" 2> "$W/mujoco.txt" <<'PY'
import sys, mujoco
m = mujoco.MjModel.from_xml_path(sys.argv[1])
m.opt.integrator = {"euler": 0, "rk4": 1, "implicit": 2, "implicitfast": 3}[sys.argv[2]]
d = mujoco.MjData(m)
for _ in range(20):
    mujoco.mj_step(m, d)
print("ncon", d.ncon, "nefc", d.nefc, file=sys.stderr)
PY
  printf '%-13s %12s %12s   (%s)\n' "$integ" "$(peak "$W/moreau.txt")" "$(peak "$W/mujoco.txt")" \
    "$(grep -h '^ncon' "$W/mujoco.txt")"
done
