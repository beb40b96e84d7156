#!/usr/bin/env python3
"""Reference cases for lights (MJCF `light`): models/lights.xml compiled by MuJoCo 4.0.0.

Writes tests/reference/light_cases.json: the compiled `light_*` model fields (positions,
directions, the tracking offsets `light_pos0`, `light_poscom0`, `light_dir0`, modes, targets,
types, optical properties), and at states of a rollout from random velocities (every 10th of 60
steps) `qpos` with `light_xpos`, `light_xdir` after `mj_forward`.
Run from the repository root: python3 tools/reference/gen_light_cases.py
"""
import json

import mujoco
import numpy as np


def fl(a):
    return [float(x) for x in np.asarray(a).ravel()]


def main():
    m = mujoco.MjModel.from_xml_path("models/lights.xml")
    d = mujoco.MjData(m)
    rng = np.random.default_rng(5)
    fields = {f: fl(getattr(m, f)) for f in dir(m) if f.startswith("light_")}
    d.qvel[:] = 2.0 * rng.standard_normal(m.nv)
    states = []
    for k in range(60):
        mujoco.mj_step(m, d)
        if k % 10 == 9:
            mujoco.mj_forward(m, d)
            states.append({"qpos": fl(d.qpos), "light_xpos": fl(d.light_xpos),
                           "light_xdir": fl(d.light_xdir)})
    out = {"mujoco": mujoco.__version__, "nlight": m.nlight, "fields": fields, "states": states}
    with open("tests/reference/light_cases.json", "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
