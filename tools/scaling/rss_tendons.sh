#!/bin/bash
# Peak resident memory of 20 steps of N two-link arms, each with a spatial tendon across both
# joints, a motor on the tendon and one on each joint (nv = 2 N, ntendon = N, nu = 3 N), with
# no contacts: `moreau simulate` (release build) against MuJoCo 4.0.0's Python process
# (`mujoco` installed) on the same model, both under `/usr/bin/time -v`. Both store `ten_J`
# and `actuator_moment` sparse (`nJten` = 2 N and `nJmom` = 4 N values); dense they would take
# 8 (ntendon + nu) nv bytes, 128 MB at N = 2000.
# usage: tools/scaling/rss_tendons.sh [N] (default 2000); MOREAU=path/to/moreau skips the build.
set -e
cd "$(dirname "$0")/../.."
n=${1:-2000}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
python3 - "$n" > "$W/arms.xml" <<'PY'
import sys
n = int(sys.argv[1])
arms, tendons, acts = [], [], []
for i in range(n):
    x, y = 0.5 * (i % 50), 0.5 * (i // 50)
    arms.append(
        f"<body pos='{x} {y} 1'><joint name='a{i}' axis='0 1 0'/><site name='s{i}a' pos='0 0 .05'/>"
        f"<geom type='capsule' fromto='0 0 0 .2 0 0' size='.02'/>"
        f"<body pos='.2 0 0'><joint name='b{i}' axis='0 1 0'/>"
        f"<geom type='capsule' fromto='0 0 0 .2 0 0' size='.02'/><site name='s{i}b' pos='.1 0 .02'/>"
        f"</body></body>")
    tendons.append(f"<spatial name='t{i}'><site site='s{i}a'/><site site='s{i}b'/></spatial>")
    acts.append(f"<motor tendon='t{i}'/><motor joint='a{i}'/><motor joint='b{i}'/>")
print("<mujoco><option><flag contact='disable'/></option><worldbody>" + "".join(arms)
      + "</worldbody><tendon>" + "".join(tendons) + "</tendon><actuator>" + "".join(acts)
      + "</actuator></mujoco>")
PY
bin=${MOREAU:-}
if [ -z "$bin" ]; then
  cargo build --release -q -p moreau-cli
  bin=${CARGO_TARGET_DIR:-target}/release/moreau
fi
peak() { awk '/Maximum resident set size/ {printf "%.1f MB", $6 / 1024}' "$1"; }
/usr/bin/time -v "$bin" simulate "$W/arms.xml" --steps 20 --out "$W/out.json" \
  2> "$W/moreau.txt" > /dev/null
/usr/bin/time -v python3 - "$W/arms.xml" 2> "$W/mujoco.txt" <<'PY'
import sys
import mujoco
m = mujoco.MjModel.from_xml_path(sys.argv[1])
d = mujoco.MjData(m)
for _ in range(20):
    mujoco.mj_step(m, d)
PY
printf 'N %d (nv %d, ntendon %d, nu %d): moreau %s, mujoco %s\n' "$n" $((2 * n)) "$n" $((3 * n)) \
  "$(peak "$W/moreau.txt")" "$(peak "$W/mujoco.txt")"
